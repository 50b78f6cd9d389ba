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

/// 48 writes of LPNs 0..47, then overwrites of `again`, 10 ms apart, and a
/// read of LPN 20 (block 5, untouched by GC) 700 µs after the last write,
/// once its program is over.
fn run(timing: &str, again: &[u64]) -> RunResult {
    let mut kv = ONE_PLANE.to_vec();
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
    let mut kv = ONE_PLANE.to_vec();
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

/// `layout = "trailing_free"` with `invalid = 0.5` (SSDSim's make_aged):
/// pages 0-2 of a block stale (the integers below 4 x 0.5 + 1), 11 blocks
/// for the plane's 32 stale pages (10 x 3 < 32), each keeping 1 free page;
/// the allocator takes those first, then blocks 11-15 fresh.
fn aged_trailing(timing: &str, writes: u64) -> RunResult {
    aged_trailing_with(&["ftl.precondition.invalid=0.5", timing], writes)
}

fn aged_trailing_with(keys: &[&str], writes: u64) -> RunResult {
    let mut kv = ONE_PLANE.to_vec();
    kv.extend(["ftl.precondition.layout=trailing_free", "run.verify=true"]);
    kv.extend(keys);
    let mut reqs: Vec<_> = (0..writes).map(|i| req(i * GAP, 0, 1, IoKind::Write)).collect();
    reqs.push(req((writes - 1) * GAP + 700_000, 0, 1, IoKind::Read));
    let r = sim::run_requests(small(&kv), &reqs).unwrap();
    assert_eq!(r.summary.verify_errors, 0);
    r
}

#[test]
fn trailing_free_pages_of_aged_blocks_take_the_runs_writes() {
    // 20 writes of LPN 0: writes 1-11 fill the aged blocks' last pages
    // (each overwrite leaves the block before wholly stale), 12-15 fresh
    // block 11, 16-19 block 12, and write 20 opens block 13: 2 free, below
    // the trigger of 3. GC erases one block the run made wholly stale, in
    // tBERS, and the read of LPN 0 700 µs later waits behind it.
    let r = aged_trailing("ftl.gc_timing=stale_erases_only", 20);
    assert_eq!((r.summary.gc.moves, r.summary.gc.erases), (0, 1));
    let erase_ns = (small(&[]).device.flash.erase_us * 1e3) as u64;
    let read = *r.requests.latency_ns.last().unwrap();
    assert!(read > erase_ns / 2, "the read waits for most of the erase: {read} ns");
    assert!(r.requests.latency_ns[..20].iter().all(|&l| l == CMD + XFER + 600_000));
    // One write fewer: block 13 stays closed, 3 free, no GC, the read alone.
    let r = aged_trailing("ftl.gc_timing=stale_erases_only", 19);
    assert_eq!(r.summary.gc.erases, 0);
    assert_eq!(*r.requests.latency_ns.last().unwrap(), CMD + T_READ + XFER);
}

#[test]
fn the_gc_trigger_counts_aged_blocks_free_pages() {
    // 32 blocks of 8 pages, invalid 0.7: 7 stale pages a block (below 6.6),
    // 26 blocks for 179 stale pages, 6 fresh: 6 x 8 + 26 = 74 free pages
    // against a trigger of 7 blocks (0.2 x 32, up), 56 pages (SSDSim's
    // plane free_page against gc hard threshold). The 19th write of LPN 0
    // takes the 19th aged block, 55 free pages: GC erases a block the run
    // made wholly stale, in tBERS. Counted in blocks (13 free) it would
    // not start.
    let keys = ["device.blocks_per_plane=32", "device.pages_per_block=8", "ftl.gc_threshold=0.2", "ftl.precondition.invalid=0.7"];
    let mut with = keys.to_vec();
    with.push("ftl.gc_timing=stale_erases_only");
    let r = aged_trailing_with(&with, 19);
    assert_eq!((r.summary.gc.moves, r.summary.gc.erases), (0, 1));
    let erase_ns = (small(&[]).device.flash.erase_us * 1e3) as u64;
    assert!(*r.requests.latency_ns.last().unwrap() > erase_ns / 2);
    let r = aged_trailing_with(&with, 18);
    assert_eq!(r.summary.gc.erases, 0);
}

#[test]
fn pages_read_are_placed_before_the_run_as_ssdsims_pre_process_page() {
    // 19 writes of LPN 0, then a read of it: the read finds it written, so
    // on the read nothing is placed and, as above, the 19 writes leave 12
    // free pages, no GC. SSDSim's pre_process_page places LPN 0 before the
    // run (its map entry is empty then): aged block 0's free page, 30 free;
    // the first write stales it (block 0 wholly stale, from the run's
    // pages), writes 1-10 fill aged blocks 1-10, 11-18 blocks 11-12, and
    // write 19 opens block 13: 11 free, below 12. GC erases a block the
    // run staled, in tBERS, and the read waits behind it.
    let erase_ns = (small(&[]).device.flash.erase_us * 1e3) as u64;
    let keys = ["ftl.precondition.invalid=0.5", "ftl.gc_timing=stale_erases_only"];
    let before = |writes| aged_trailing_with(&[keys[0], keys[1], "ftl.precondition.place_reads=before_run"], writes);
    let r = before(19);
    assert_eq!((r.summary.gc.moves, r.summary.gc.erases), (0, 1));
    assert!(*r.requests.latency_ns.last().unwrap() > erase_ns / 2);
    assert!(r.requests.latency_ns[..19].iter().all(|&l| l == CMD + XFER + 600_000));
    assert_eq!(r.summary.pages.placed_on_read, 0, "setup, not the run's placement");
    // One write fewer: 12 free, no GC.
    let r = before(18);
    assert_eq!(r.summary.gc.erases, 0);
    assert_eq!(*r.requests.latency_ns.last().unwrap(), CMD + T_READ + XFER);
    // On the read (the default): 19 writes, no GC, the read alone.
    let r = aged_trailing_with(&keys, 19);
    assert_eq!(r.summary.gc.erases, 0);
    assert_eq!(*r.requests.latency_ns.last().unwrap(), CMD + T_READ + XFER);
}

#[test]
fn placing_reads_before_the_run_needs_the_workload_again() {
    let mut kv = ONE_PLANE.to_vec();
    kv.push("ftl.precondition.place_reads=before_run");
    let reqs = [req(0, 1, 1, IoKind::Read)];
    let err = sim::run(small(&kv), reqs.iter().map(|r| Ok(*r))).unwrap_err();
    assert!(err.to_string().contains("ftl.precondition.place_reads"), "{err}");
    // In memory the requests are the replay: LPN 1 is placed before the run.
    let r = sim::run_requests(small(&kv), &reqs).unwrap();
    assert_eq!((r.summary.pages.placed_on_read, r.summary.requests), (0, 1));
    let on_read = sim::run_requests(small(&ONE_PLANE), &reqs).unwrap();
    assert_eq!(on_read.summary.pages.placed_on_read, 1);
}
