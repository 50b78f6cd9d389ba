//! MQSim's GC concurrency (`ftl.gc_concurrency = "mqsim"`, issue 46): a GC
//! write that takes a new frontier block below the trigger starts another
//! victim beside the one moving (`Allocate_block_and_page_in_plane_for_gc_
//! write`, Flash_Block_Manager.cpp, calls `Check_gc_required`).
//!
//! One plane of 64 blocks of 4 pages, 192 logical pages, `gc_threshold =
//! 0.1875`: GC below 12 free blocks. LPNs 0..191 fill blocks 0-47; 16
//! overwrites (LPNs 0, 1, 2, then 4, 8, ..., 52: block 0 keeps 1 live page,
//! blocks 1-13 keep 3) fill blocks 48-51; the 17th (LPN 56) opens block 52,
//! leaving 11 free: GC takes block 0 (1 live page). Its copy opens GC's own
//! block 53, leaving 10, still below: MQSim starts a second victim there
//! (3 live pages, which fit in block 53's 3 pages left). After the first
//! erase 11 blocks are free, not below MQSim's 10, so the erase's end
//! starts no GC (`gc_after_erase`) and, no write coming, nothing else does:
//! the second victim runs only if the GC copy's ask is served.

mod common;
use common::*;
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const GAP: u64 = 10_000_000;

fn run(concurrency: &str) -> RunResult {
    let mut kv = ONE_PLANE.to_vec();
    kv.extend(["device.blocks_per_plane=64", "ftl.gc_threshold=0.1875", "run.verify=true", concurrency]);
    let overwrites = [0u64, 1, 2].into_iter().chain((1..=14).map(|b| 4 * b));
    let lpns: Vec<u64> = (0..192).chain(overwrites).collect();
    assert_eq!(lpns.len(), 192 + 17);
    let reqs: Vec<_> = lpns.iter().enumerate().map(|(i, &l)| req(i as u64 * GAP, l, 1, IoKind::Write)).collect();
    let r = sim::run_requests(small(&kv), &reqs).unwrap();
    assert_eq!(r.summary.verify_errors, 0);
    r
}

#[test]
fn a_gc_copy_taking_a_block_below_the_trigger_starts_another_victim() {
    let gc = |r: &RunResult| (r.summary.gc.runs, r.summary.gc.moves, r.summary.gc.erases);
    // MQSim's: both victims, 1 + 3 pages moved, two erases.
    assert_eq!(gc(&run("ftl.gc_concurrency=mqsim")), (2, 4, 2));
    // Before the rule that ask was dropped: block 0 alone, its erase's end
    // starting nothing at 11 free blocks, (1, 1, 1). One victim at a time
    // (Detour's default) takes the same two, the second when the first's
    // erase ends (it checks GC after every erase).
    assert_eq!(gc(&run("ftl.gc_concurrency=one")), (2, 4, 2));
}
