//! SSDSim's sector-granular write buffer (`write_buffer.granularity =
//! "sector"`, issue 46), against hand-computed times on the `small` preset
//! (4 KiB pages of 8 sectors; 100 ns command; a 4 KiB page takes 12.3 µs
//! on its channel, so 2 KiB 6.15 µs; program 600 µs, read 50 µs; DRAM 1 µs).

mod common;
use common::*;
use detour_core::sim::{self, RunResult};
use detour_core::workload::Request;
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const HALF_XFER: u64 = 6_150;
const T_READ: u64 = 50_000;
const T_PROG: u64 = 600_000;
const DRAM: u64 = 1_000;

fn run(kv: &[&str], reqs: &[Request]) -> RunResult {
    let r = sim::run_requests(small(kv), reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len(), "every request completes");
    assert_eq!(r.summary.verify_errors, 0);
    r
}

const KV: [&str; 10] = [
    "device.channels=1",
    "device.chips_per_channel=1",
    "device.dies_per_chip=1",
    "scheduler.multiplane=false",
    "host.write_ack=buffer",
    "write_buffer.pages=2",
    "write_buffer.policy=lru",
    "write_buffer.admission=evict",
    "scheduler.write_transfer=written",
    "run.verify=true",
];

#[test]
fn a_buffer_of_sectors_holds_more_partial_pages_and_evicts_only_their_sectors() {
    // A buffer of 2 pages is 16 sectors under SSDSim's rule
    // (max_buffer_sector; insert2buffer, flash.c, counts sectors): four
    // 2 KiB (4-sector) writes of pages 0-3 fit, each 1 µs of DRAM.
    let p = 4096u64;
    let reqs = [
        at(0, 0, 2048, IoKind::Write),
        at(1_000, p, 2048, IoKind::Write),
        at(2_000, 2 * p, 2048, IoKind::Write),
        at(3_000, 3 * p, 2048, IoKind::Write),
        // full: evicts page 0 (least recently used) and writes back only
        // its 4 sectors: command + 2 KiB, the write's own sub-request
        at(4_000, 4 * p, 2048, IoKind::Write),
        // the other half of page 1, the LRU tail now: its node is not
        // evicted (insert2buffer swaps the last two nodes), page 2 is; its
        // write-back waits for page 0's program on the one die
        at(5_000, p + 2048, 2048, IoKind::Write),
        // page 1 is whole in DRAM; page 2 was written back: the flash
        at(2_000_000, p, 4096, IoKind::Read),
        at(2_100_000, 2 * p, 4096, IoKind::Read),
    ];
    let mut kv = KV.to_vec();
    kv.push("write_buffer.granularity=sector");
    let r = run(&kv, &reqs);
    let page0_programmed = 4_000 + CMD + HALF_XFER + T_PROG;
    assert_eq!(
        r.requests.latency_ns,
        vec![DRAM, DRAM, DRAM, DRAM, CMD + HALF_XFER, page0_programmed + CMD + HALF_XFER - 5_000, DRAM, CMD + T_READ + XFER]
    );
    assert_eq!(r.summary.write_buffer.as_ref().unwrap().flushes, 2);

    // Whole pages (Detour's default granularity): the same buffer holds two
    // pages, so the third write already evicts, and moves a whole page.
    let r = run(&KV, &reqs[..3]);
    assert_eq!(r.requests.latency_ns, vec![DRAM, DRAM, CMD + XFER]);
}

#[test]
fn sixty_four_half_pages_fit_a_256_sector_buffer_that_holds_32_whole_pages() {
    // 256 sectors = 32 pages of 8: 64 writes of 4 sectors each fill it
    // exactly and evict nothing; counted in pages, 32 fit and the other
    // 32 writes each evict one.
    let reqs: Vec<_> = (0..64).map(|i| at(i * 10_000, i * 4096, 2048, IoKind::Write)).collect();
    let mut kv: Vec<&str> = KV.iter().copied().filter(|k| !k.starts_with("write_buffer.pages")).collect();
    kv.push("write_buffer.pages=32");
    let pages = run(&kv, &reqs);
    assert_eq!(pages.summary.write_buffer.as_ref().unwrap().flushes, 32);
    kv.push("write_buffer.granularity=sector");
    let sectors = run(&kv, &reqs);
    assert_eq!(sectors.summary.write_buffer.as_ref().unwrap().flushes, 0);
    assert!(sectors.requests.latency_ns.iter().all(|&l| l == DRAM));
    // one more sector does not fit: a 65th write evicts the LRU node
    let mut more = reqs.clone();
    more.push(at(1_000_000, 64 * 4096, 512, IoKind::Write));
    let r = run(&kv, &more);
    assert_eq!(r.summary.write_buffer.as_ref().unwrap().flushes, 1);
    assert_eq!(r.requests.latency_ns[64], CMD + HALF_XFER, "the evicted node moves its 4 sectors");
}

#[test]
fn sector_granularity_counts_only_under_ssdsims_eviction() {
    // With Detour's `room` admission (a user's change to the ssdsim
    // bundle) the buffer counts pages: the third half-page write waits for
    // room, as with page granularity.
    let p = 4096u64;
    let reqs = [at(0, 0, 2048, IoKind::Write), at(1_000, p, 2048, IoKind::Write), at(2_000, 2 * p, 2048, IoKind::Write)];
    let room = |g: &'static str| {
        let kv: Vec<&str> = KV.iter().copied().filter(|k| !k.starts_with("write_buffer.admission")).chain([g]).collect();
        run(&kv, &reqs).requests.latency_ns
    };
    let pages = room("write_buffer.granularity=page");
    assert!(pages[2] > DRAM, "{pages:?}");
    assert_eq!(room("write_buffer.granularity=sector"), pages);
}
