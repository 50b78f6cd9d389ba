//! SSDSim's plane pairing (`scheduler.plane_pairing = "level"`), checked
//! against hand-computed latencies on the `small` preset (program 600 µs;
//! 100 ns command; a 4 KiB page takes 12.3 µs on the channel).
//!
//! One channel, one chip, one die of two planes, chip unit and chip-wide
//! program batches as the `ssdsim` bundle has them, writes done after
//! tPROG: static allocation puts LPN l on plane l % 2. A batch of both
//! planes takes one command, one page transfer and one tPROG; a write
//! alone takes the same, so two in turn take twice that.

mod common;
use common::*;
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const T_PROG: u64 = 600_000;
const ONE: u64 = CMD + XFER + T_PROG;
/// Well after the previous request has finished.
const LATER: u64 = 2_000_000;

fn run(pairing: &str, extra: &[&str], reqs: &[detour_core::workload::Request]) -> RunResult {
    let mut kv = vec![
        "device.channels=1",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "device.planes_per_die=2",
        "scheduler.unit=chip",
        "scheduler.chip_program_batches=true",
        "host.write_ack=program",
        "run.verify=true",
    ];
    let p = format!("scheduler.plane_pairing={pairing}");
    kv.push(&p);
    kv.extend_from_slice(extra);
    let r = sim::run_requests(small(&kv), reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len(), "every request completes");
    r
}

#[test]
fn a_plane_ahead_of_the_first_is_refused_and_waits() {
    // LPN 1 alone: plane 1 is then at page 1, plane 0 at page 0. LPNs 0
    // and 1 together: plane 1's next page (1) is past plane 0's (0), so
    // make_level_page fails; plane 0 programs alone, plane 1 after it.
    let reqs = [req(0, 1, 1, IoKind::Write), req(LATER, 0, 2, IoKind::Write)];
    let level = run("level", &[], &reqs);
    assert_eq!(level.requests.latency_ns[1], 2 * ONE, "refused: two programs in turn");
    assert_eq!(level.summary.gc.pages_skipped, Some(0));
    let any = run("any", &[], &reqs);
    assert_eq!(any.requests.latency_ns[1], ONE, "any free plane pairs");
    assert_eq!(any.summary.gc.pages_skipped, None, "reported only under the rule");
    // The same with the plane-1 write queued first (LPNs 1 and 2): the
    // policy picks it, plane 0's write leads the die and it goes back to
    // its queue, to be programmed after.
    let reqs = [req(0, 1, 1, IoKind::Write), req(LATER, 1, 2, IoKind::Write)];
    assert_eq!(run("level", &[], &reqs).requests.latency_ns[1], 2 * ONE);
    assert_eq!(run("any", &[], &reqs).requests.latency_ns[1], ONE);
}

#[test]
fn a_plane_behind_is_pulled_level_and_its_skipped_page_wasted() {
    // LPN 0 alone: plane 0 at page 1, plane 1 at page 0. LPNs 2 and 3:
    // plane 1 is behind, make_same_level skips its page 0 and both
    // program page 1 together. LPNs 0 and 1 then pair at page 2, nothing
    // skipped; the wasted page is one more program's worth of space gone.
    let reqs = [req(0, 0, 1, IoKind::Write), req(LATER, 2, 2, IoKind::Write), req(2 * LATER, 0, 2, IoKind::Write)];
    let r = run("level", &[], &reqs);
    assert_eq!(r.requests.latency_ns[1], ONE, "pulled level: one batch");
    assert_eq!(r.requests.latency_ns[2], ONE, "level since: one batch");
    assert_eq!(r.summary.gc.pages_skipped, Some(1));
}

#[test]
fn planes_in_blocks_of_different_numbers_do_not_pair() {
    // Four pages a block: four writes of LPN 0 fill plane 0's block 0, so
    // its write point is block 1 page 0 while plane 1's is block 0 page 0.
    // LPNs 0 and 1 then go one at a time; under `any` together.
    let mut reqs: Vec<_> = (0..4).map(|i| req(i * LATER, 0, 1, IoKind::Write)).collect();
    reqs.push(req(4 * LATER, 0, 2, IoKind::Write));
    let kv = ["device.pages_per_block=4"];
    assert_eq!(run("level", &kv, &reqs).requests.latency_ns[4], 2 * ONE, "block 1 against block 0");
    assert_eq!(run("any", &kv, &reqs).requests.latency_ns[4], ONE);
}
