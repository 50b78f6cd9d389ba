//! SSDSim's update reads (`write_buffer.partial_write_back = "read_first"`,
//! issue 46, h43dyn), against hand-computed times on the `small` preset
//! (4 KiB pages of 8 sectors; 100 ns command; a 4 KiB page takes 12.3 µs
//! on its channel, 2 KiB 6.15 µs; program 600 µs, read 50 µs; DRAM 1 µs),
//! one die, a buffer of one page (8 sectors).

mod common;
use common::*;
use detour_core::sim::{self, RunResult};
use detour_core::workload::Request;
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const HALF_XFER: u64 = 6_150;
const T_READ: u64 = 50_000;
const DRAM: u64 = 1_000;
const P: u64 = 4096;

const KV: [&str; 13] = [
    "device.channels=1",
    "device.chips_per_channel=1",
    "device.dies_per_chip=1",
    "scheduler.multiplane=false",
    "host.write_ack=buffer",
    "write_buffer.pages=1",
    "write_buffer.policy=lru",
    "write_buffer.admission=evict",
    "write_buffer.granularity=sector",
    "scheduler.write_transfer=written",
    "scheduler.read_transfer=requested",
    "run.verify=true",
    "ftl.precondition.place_reads=before_run",
];

fn run(extra: &[&str], reqs: &[Request]) -> RunResult {
    let kv: Vec<&str> = KV.iter().chain(extra).copied().collect();
    let r = sim::run_requests(small(&kv), reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len(), "every request completes");
    assert_eq!(r.summary.verify_errors, 0);
    r
}

#[test]
fn a_partial_write_back_of_a_page_on_the_flash_reads_its_other_sectors_first() {
    let reqs = [
        // page 0 whole fills the buffer; half of page 1 evicts it: page 0
        // was never mapped, so no update read (command + 4 KiB)
        at(0, 0, 4096, IoKind::Write),
        at(1_000, P, 2048, IoKind::Write),
        // sectors 0-3 of page 0 (on the flash whole since 613.4 µs) fit
        at(1_000_000, 0, 2048, IoKind::Write),
        // sectors 4-7 of page 1: its node is the LRU tail, so page 0's
        // node (sectors 0-3) is evicted (insert2buffer's swap). Its map
        // entry holds all 8: allocate_location's update read of
        // map.state ^ sub->state = sectors 4-7 (command, tR, 2 KiB out)
        // runs first, then the write-back
        at(1_001_000, P + 2048, 2048, IoKind::Write),
    ];
    let update = CMD + T_READ + HALF_XFER;
    // static allocation (the preset's): the write-back carries the sectors
    // read too (sub_req->state |= update->state), a whole page
    let r = run(&["write_buffer.partial_write_back=read_first"], &reqs);
    assert_eq!(r.requests.latency_ns, vec![DRAM, CMD + XFER, DRAM, update + CMD + XFER]);
    // dynamic allocation: only its own 4 sectors
    let r = run(&["write_buffer.partial_write_back=read_first", "ftl.allocation=dynamic"], &reqs);
    assert_eq!(r.requests.latency_ns, vec![DRAM, CMD + XFER, DRAM, update + CMD + HALF_XFER]);
    // without the rule (Detour's default) the write-back goes at once
    let r = run(&[], &reqs);
    assert_eq!(r.requests.latency_ns, vec![DRAM, CMD + XFER, DRAM, CMD + HALF_XFER]);
}

#[test]
fn a_page_placed_for_a_read_holds_only_the_sectors_read() {
    // pre_process_page places page 5 for a read of its sectors 0-3, its
    // map entry holding those (set_entry_state). Sectors 4-7 written and
    // evicted by a whole page 6: the update read is map.state ^
    // sub->state, all 8 sectors (a whole page out), and with dynamic
    // allocation the write-back moves its own 4.
    let reqs =
        [at(0, 5 * P, 2048, IoKind::Read), at(1_000_000, 5 * P + 2048, 2048, IoKind::Write), at(1_001_000, 6 * P, 4096, IoKind::Write)];
    let r = run(&["write_buffer.partial_write_back=read_first", "ftl.allocation=dynamic"], &reqs);
    assert_eq!(r.requests.latency_ns, vec![CMD + T_READ + HALF_XFER, DRAM, CMD + T_READ + XFER + CMD + HALF_XFER]);
}
