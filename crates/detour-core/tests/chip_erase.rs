//! SSDSim's chip-wide direct erase (`scheduler.chip_erase_batches` under
//! `ftl.gc_timing = "stale_erases_only"`, issue 46): `gc_direct_erase`
//! (pagemap.c) always issues INTERLEAVE_TWO_PLANE, and `erase_planes`
//! erases a wholly stale block on every die of the chip under one tBERS.
//!
//! One chip of two dies, one plane each, 16 blocks of 4 pages, 96 logical
//! pages (static allocation: even LPNs on die 0, odd on die 1). Writes of
//! LPNs 0..95 fill blocks 0-11 of each die; overwriting 1, 3, 5, 7 stales
//! die 1's block 0 and opens its block 12 (3 free blocks, at the trigger);
//! overwriting 0, 2, 4, 6 does the same on die 0; the write of LPN 8 then
//! opens die 0's block 13, 2 free blocks, below the trigger of 3: GC on
//! die 0 takes its block 0, wholly stale from the run, a timed erase. A read
//! of LPN 9 (die 1, block 1) follows 700 µs after that write, one of LPN 11
//! once the chip should be idle again.

mod common;
use common::*;
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const T_READ: u64 = 50_000;
const T_PROG: u64 = 600_000;
const GAP: u64 = 10_000_000;

fn run(chip_erases: bool) -> RunResult {
    let batches = format!("scheduler.chip_erase_batches={chip_erases}");
    let kv = [
        "device.channels=1",
        "device.chips_per_channel=1",
        "device.dies_per_chip=2",
        "device.planes_per_die=1",
        "device.blocks_per_plane=16",
        "device.pages_per_block=4",
        "device.overprovisioning=0.25",
        "ftl.gc_threshold=0.1",
        "scheduler.unit=chip",
        "scheduler.multiplane=true",
        "ftl.gc_timing=stale_erases_only",
        "run.verify=true",
        &batches,
    ];
    let lpns = (0..96).chain([1, 3, 5, 7, 0, 2, 4, 6, 8]);
    let mut reqs: Vec<_> = lpns.enumerate().map(|(i, l)| req(i as u64 * GAP, l, 1, IoKind::Write)).collect();
    let last = reqs.last().unwrap().time_ns;
    reqs.push(req(last + 700_000, 9, 1, IoKind::Read));
    // Once that batch and the read are over, a read of LPN 11 (die 1).
    let erase_ns = (small(&[]).device.flash.erase_us * 1e3) as u64;
    reqs.push(req(last + 800_000 + erase_ns, 11, 1, IoKind::Read));
    let r = sim::run_requests(small(&kv), &reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len());
    assert_eq!(r.summary.verify_errors, 0);
    r
}

#[test]
fn a_direct_erase_takes_the_chips_other_dies_stale_blocks_under_one_tbers() {
    let erase_ns = (small(&[]).device.flash.erase_us * 1e3) as u64;
    // Die 1's wholly stale block 0 goes with die 0's, though die 1 needs no GC.
    let r = run(true);
    assert_eq!((r.summary.gc.moves, r.summary.gc.erases), (0, 2));
    // The chip programs LPN 8 (command, transfer, tPROG), then erases both
    // blocks as one batch (a command each, one tBERS); the read, 700 µs
    // after the write, waits for that, then takes command + tR + transfer.
    let erase_end = CMD + XFER + T_PROG + 2 * CMD + erase_ns;
    let lat = &r.requests.latency_ns;
    assert_eq!(lat[lat.len() - 2], erase_end - 700_000 + CMD + T_READ + XFER);
    // Die 1's block went with that batch: the chip is idle for the next
    // read. (Erased per die, die 1's erase would follow the first read.)
    assert_eq!(*lat.last().unwrap(), CMD + T_READ + XFER);
    // Per die (the default): only die 0's block, die 1 keeps its own.
    let d = run(false);
    assert_eq!((d.summary.gc.moves, d.summary.gc.erases), (0, 1));
}
