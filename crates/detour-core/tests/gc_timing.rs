//! SSDSim's GC timing (`ftl.gc_timing = "stale_erases_only"`, issue 46)
//! against hand-computed times on the `small` preset (100 ns command;
//! 4 KiB over the channel 12.3 µs; read 50 µs, program 600 µs).
//!
//! One plane of 16 blocks of 4 pages, 48 logical pages: writes of LPNs
//! 0..47 fill blocks 0-11, and the 53rd write opens block 13, leaving 2
//! free blocks, below the trigger of 3 (GC_RESERVE + 1): GC starts then,
//! and greedy takes the block with the fewest live pages, block 0.

mod common;
use common::*;
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const T_READ: u64 = 50_000;
const GAP: u64 = 10_000_000;

/// One die of one plane: 16 blocks of 4 pages, a quarter spare, GC below
/// a tenth free.
const TINY: [&str; 9] = [
    "device.channels=1",
    "device.chips_per_channel=1",
    "device.dies_per_chip=1",
    "device.planes_per_die=1",
    "device.blocks_per_plane=16",
    "device.pages_per_block=4",
    "device.overprovisioning=0.25",
    "ftl.gc_threshold=0.1",
    "scheduler.multiplane=false",
];

/// 48 writes of LPNs 0..47, then overwrites of `again`, 10 ms apart, and a
/// read of LPN 20 (block 5, untouched by GC) 700 µs after the last write,
/// once its program is over.
fn run(timing: &str, again: &[u64]) -> RunResult {
    let mut kv = TINY.to_vec();
    kv.extend(["run.verify=true", timing]);
    let cfg = small(&kv);
    let mut reqs: Vec<_> =
        (0..48).chain(again.iter().copied()).enumerate().map(|(i, l)| req(i as u64 * GAP, l, 1, IoKind::Write)).collect();
    let last = reqs.last().unwrap().time_ns;
    reqs.push(req(last + 700_000, 20, 1, IoKind::Read));
    let r = sim::run_requests(cfg, &reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len());
    assert_eq!(r.summary.verify_errors, 0);
    r
}

#[test]
fn a_victim_with_live_pages_is_reclaimed_in_no_time() {
    // Block 0 keeps LPN 3 live: SSDSim's uninterrupt_gc, untimed with
    // copyback and greed CB command = 0. The read finds the die idle.
    let again = [0, 1, 2, 4, 5];
    let r = run("ftl.gc_timing=stale_erases_only", &again);
    assert_eq!(*r.requests.latency_ns.last().unwrap(), CMD + T_READ + XFER);
    // LPN 3 moves to a block GC opens, 2 free again: block 1 (LPNs 6, 7 live) goes too
    assert_eq!((r.summary.gc.runs, r.summary.gc.moves, r.summary.gc.erases), (2, 3, 2));
    // Timed (the default), the same GC holds the die: the read waits for
    // the move's program or the erase.
    let t = run("ftl.gc_timing=timed", &again);
    assert!(*t.requests.latency_ns.last().unwrap() > 500_000, "{:?}", t.requests.latency_ns.last());
    assert_eq!((t.summary.gc.runs, t.summary.gc.moves, t.summary.gc.erases), (2, 3, 2));
}

#[test]
fn a_block_the_run_made_wholly_stale_is_erased_in_its_time() {
    // LPNs 0-3 overwritten: block 0 is wholly stale, SSDSim's direct
    // erase (gc_direct_erase, erase_planes: the chip busy for tBERS).
    let r = run("ftl.gc_timing=stale_erases_only", &[0, 1, 2, 3, 4]);
    let erase_ns = (small(&[]).device.flash.erase_us * 1e3) as u64;
    let read = *r.requests.latency_ns.last().unwrap();
    assert!(read > erase_ns / 2, "the read waits for most of the erase: {read} ns");
    assert_eq!((r.summary.gc.moves, r.summary.gc.erases), (0, 1));
}

#[test]
fn blocks_staled_by_preconditioning_are_reclaimed_in_no_time() {
    // SSDSim's make_aged lists no block for a direct erase: on a device
    // preconditioned to its GC trigger, writes 700 µs apart (just over one
    // command + transfer + program) each take exactly their own time, and
    // so does a read after them, though GC runs (the writes are of new
    // LPNs, so no block the run wrote goes stale); timed, its moves and
    // erases hold some of them back.
    let mut kv = TINY.to_vec();
    kv.extend(["ftl.precondition.valid=0.5", "ftl.precondition.to_gc_threshold=true", "run.verify=true"]);
    let gap = 700_000;
    let reqs: Vec<_> = (0..16).map(|i| req(i * gap, 24 + i, 1, IoKind::Write)).chain([req(16 * gap, 1, 1, IoKind::Read)]).collect();
    let mut stale = kv.to_vec();
    stale.push("ftl.gc_timing=stale_erases_only");
    let r = sim::run_requests(small(&stale), &reqs).unwrap();
    assert!(r.summary.gc.erases > 0);
    assert_eq!(r.summary.verify_errors, 0);
    let want: Vec<u64> = (0..16).map(|_| CMD + XFER + 600_000).chain([CMD + T_READ + XFER]).collect();
    assert_eq!(r.requests.latency_ns, want);
    let t = sim::run_requests(small(&kv), &reqs).unwrap();
    assert!(t.summary.gc.erases > 0);
    assert!(t.requests.latency_ns != want, "timed GC holds some request back");
}
