//! SSDSim's read merge (`ftl.read_merge = "queued"`, with
//! `ftl.pending_reads_from_flash = true` as `detour import ssdsim` sets
//! them), checked against hand-computed latencies on the `small` preset
//! (read 50 µs, program 600 µs; 100 ns command; a 4 KiB page takes 12.3 µs
//! on the channel; a buffer read 1 µs) under `compat = ssdsim` (writes done
//! at transfer, one command per chip) on one die of one plane.
//!
//! SSDSim's `creat_sub_request` (flash.c) ends a read after 1000 ns when a
//! read of the same physical page is in the channel's read list; the page
//! is the LPN's map entry, which a write moves to its new page only when
//! the write is issued (`get_ppn`, pagemap.c).

mod common;
use common::*;
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const T_READ: u64 = 50_000;
const T_PROG: u64 = 600_000;
const DRAM: u64 = 1_000;
/// A lone read: command, tR, data out.
const READ: u64 = CMD + T_READ + XFER;
/// Well after the set-up write has programmed.
const LATER: u64 = 2_000_000;

fn run(merge: &str, reqs: &[detour_core::workload::Request]) -> RunResult {
    let m = format!("ftl.read_merge={merge}");
    let kv = [
        "compat=ssdsim",
        "device.channels=1",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "device.planes_per_die=1",
        "ftl.pending_reads_from_flash=true",
        "run.verify=true",
        m.as_str(),
    ];
    let r = sim::run_requests(small(&kv), reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len(), "every request completes");
    // A read of a page whose program has not ended (the second test's
    // read B without the merge) returns the program's data: the setting
    // is a timing rule (ftl/mod.rs `program_issued`).
    assert_eq!(r.summary.verify_errors, 0, "{merge}: {:?}", r.verify_failures);
    r
}

#[test]
fn a_read_of_a_page_being_read_is_done_in_a_dram_access() {
    // LPN 0 written first. Read A at LATER has the chip; read B 1 µs
    // later finds A in flight and is done 1 µs after it arrives. Read C,
    // after A has finished, finds nothing in flight and reads the flash.
    let c_at = LATER + READ + 1_000;
    let reqs = [
        req(0, 0, 1, IoKind::Write),
        req(LATER, 0, 1, IoKind::Read),
        req(LATER + 1_000, 0, 1, IoKind::Read),
        req(c_at, 0, 1, IoKind::Read),
    ];
    let r = run("queued", &reqs);
    assert_eq!(r.requests.latency_ns[1..], [READ, DRAM, READ]);
    assert_eq!(r.summary.pages.buffered_reads, 1);
    // Without the merge B waits for the chip behind A, and C behind B.
    let off = run("off", &reqs);
    let b_end = LATER + 2 * READ;
    assert_eq!(off.requests.latency_ns[1..], [READ, 2 * READ - 1_000, b_end - c_at + READ]);
    assert_eq!(off.summary.pages.buffered_reads, 0);
}

#[test]
fn a_read_arriving_while_a_write_of_its_page_waits_joins_the_read_of_the_old_page() {
    // Read A of LPN 0 has the chip; write W of LPN 0 arrives and waits for
    // it; read B arrives before W is issued, so in SSDSim it is of the
    // page A reads (the map moves when W is issued) and joins A. Detour
    // maps W when it is planned: keyed by the page read, B would not join.
    // W is issued when A ends (done at transfer). Read D arrives after W
    // was issued: it is of W's page, which no read is reading, so it goes
    // to the flash, after W's tPROG.
    let w_at = LATER + 1_000;
    let d_at = LATER + READ + 1_000;
    let reqs = [
        req(0, 0, 1, IoKind::Write),
        req(LATER, 0, 1, IoKind::Read),
        req(w_at, 0, 1, IoKind::Write),
        req(LATER + 2_000, 0, 1, IoKind::Read),
        req(d_at, 0, 1, IoKind::Read),
    ];
    let r = run("queued", &reqs);
    let w_issued = LATER + READ;
    let d_end = w_issued + CMD + XFER + T_PROG + READ;
    assert_eq!(r.requests.latency_ns[1..], [READ, w_issued + CMD + XFER - w_at, DRAM, d_end - d_at]);
    // Without the merge B reads the flash after A, and W waits for both.
    let off = run("off", &reqs);
    assert_eq!(off.requests.latency_ns[3], LATER + 2 * READ - (LATER + 2_000));
}
