//! `scheduler.gc_priority` (issue 46) against hand-computed times on the
//! `small` preset (100 ns command; 4 KiB over the channel 12.3 µs; read
//! 50 µs, program 600 µs, erase 3,000 µs).
//!
//! The device and writes of tests/gc_timing.rs: one plane of 16 blocks of
//! 4 pages; writes of LPNs 0..47, then overwrites of 0, 1, 2, 4 and 5,
//! 10 ms apart. The last write (time T) opens block 13, 2 free blocks
//! against a trigger of 3: GC starts then, before the write is queued.
//! Greedy takes block 0 (LPN 3 live: one move), and when its erase ends
//! still 2 are free, so block 1 (LPNs 6 and 7 live) goes next. A read of
//! LPN 20 arrives at T + 1 µs.

mod common;
use common::*;
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const READ: u64 = CMD + 50_000 + XFER;
const PROGRAM: u64 = CMD + XFER + 600_000;
const ERASE: u64 = CMD + 3_000_000;
const GAP: u64 = 10_000_000;

fn run(priority: &str) -> RunResult {
    let prio = format!("scheduler.gc_priority={priority}");
    let cfg = small(&[&ONE_PLANE[..], &["scheduler.unit=chip", "run.verify=true", &prio]].concat());
    let again = [0, 1, 2, 4, 5];
    let mut reqs: Vec<_> = (0..48).chain(again).enumerate().map(|(i, l)| req(i as u64 * GAP, l, 1, IoKind::Write)).collect();
    let last = reqs.last().unwrap().time_ns;
    reqs.push(req(last + 1_000, 20, 1, IoKind::Read));
    let r = sim::run_requests(cfg, &reqs).unwrap();
    assert_eq!(r.summary.verify_errors, 0);
    assert_eq!((r.summary.gc.runs, r.summary.gc.moves, r.summary.gc.erases), (2, 3, 2));
    r
}

/// The last write's and the read's latencies.
fn last_two(r: &RunResult) -> [u64; 2] {
    let l = &r.requests.latency_ns;
    [l[l.len() - 2], l[l.len() - 1]]
}

#[test]
fn background_gc_waits_behind_host_work() {
    // Detour's default: host queues first, so the write starts at T and
    // the read follows it; GC's moves and erases wait behind both.
    let [w, r] = last_two(&run("background"));
    assert_eq!(w, PROGRAM);
    assert_eq!(r, PROGRAM + READ - 1_000);
}

#[test]
fn urgent_gc_goes_before_every_host_operation() {
    // MQSim, Preemptible_GC_Enabled = false: the chip serves GC's reads,
    // writes and erases before user work, and a move's program and the
    // victim's erase are queued before the chip picks again. Both victims
    // are done first: block 0 (read, program, erase), block 1 (2 reads,
    // 2 programs, erase); then the read (host reads first), the write.
    let gc = READ + PROGRAM + ERASE + 2 * READ + 2 * PROGRAM + ERASE;
    let [w, r] = last_two(&run("urgent"));
    assert_eq!(r, gc + READ - 1_000);
    assert_eq!(w, gc + READ + PROGRAM);
}
