//! MQSim's data cache evicting under `write_buffer.admission = "destage"`
//! (`Data_Cache_Manager_Flash_Advanced::write_to_destage_buffer`), against
//! hand-computed times on the `small` preset (program 600 µs, read 50 µs,
//! 100 ns command, a 4 KiB page in 12.3 µs on its channel, DRAM 1 µs).

mod common;
use common::*;
use detour_core::sim::{self, RunResult};
use detour_core::workload::Request;
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const T_READ: u64 = 50_000;
const T_PROG: u64 = 600_000;
const DRAM: u64 = 1_000;

/// The channel time of `bytes` of a 4 KiB page (sectors at the page's rate).
fn part(bytes: u64) -> u64 {
    (2 * XFER * bytes + 4096) / 8192
}

const fn at(time_ns: u64, offset: u64, size: u32, kind: IoKind) -> Request {
    Request { time_ns, offset, size, kind, content: 0, volume: 0, line: 0 }
}

/// One die of one plane, one page per program: both tests' device.
const ONE_DIE: [&str; 5] =
    ["device.channels=1", "device.chips_per_channel=1", "device.dies_per_chip=1", "device.planes_per_die=1", "scheduler.multiplane=false"];

fn run(kv: &[&str], reqs: &[Request]) -> RunResult {
    let r = sim::run_requests(small(kv), reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len(), "every request completes");
    r
}

// MQSim clears its "bloom filter" of written LPAs at the end of the first
// admission after t = 0 (`next_bloom_filter_reset_milestone` starts at 0):
// a 1-sector write to page 9 does it, so what follows is in one window.
const WAKE: Request = at(1, 9 * 4096, 512, IoKind::Write);
// first written this window: cold, written back at once, each after the
// last write-back ended (its slot held till then: a cache of in-flight
// write-backs only is not modelled)
const PAGE0_COLD: Request = at(1_000_000, 0, 2048, IoKind::Write);
const PAGE1_COLD: Request = at(2_000_000, 4096, 4096, IoKind::Write);
// seen this window: hot, they stay in DRAM and fill the cache
const PAGE0_HOT: Request = at(3_000_000, 0, 2048, IoKind::Write);
const PAGE1_HOT: Request = at(3_010_000, 4096, 4096, IoKind::Write);

#[test]
fn mqsims_full_cache_evicts_its_lru_slot_at_once_and_writes_back_only_its_sectors() {
    // One die of one plane (8 sectors of write-backs in flight at most), a
    // cache of 2 slots, LRU. Pages 0 (its first 2 KiB) and 1 (whole) are
    // written twice, cold then hot, filling the cache with them.
    // At 4 ms page 2 finds it full: MQSim evicts the LRU slot, page 0,
    // frees it at once and writes back its 4 sectors, and the write goes
    // on (it is cold, so written back too, first: the eviction waits for
    // its DRAM read). A read of page 5 on the same die once page 0's
    // program has its command (reads go first here) waits for it: page
    // 2's whole page, then page 0's 2 KiB.
    let kv = [
        &ONE_DIE[..],
        &[
            "scheduler.write_transfer=written",
            "host.write_ack=buffer",
            "write_buffer.pages=2",
            "write_buffer.policy=lru",
            "write_buffer.admission=destage",
            "ftl.precondition.valid=1.0",
            "run.verify=true",
        ],
    ]
    .concat();
    let t = 4_000_000;
    let reqs = [
        WAKE,
        PAGE0_COLD,
        PAGE1_COLD,
        PAGE0_HOT,
        PAGE1_HOT,
        at(t, 2 * 4096, 4096, IoKind::Write),
        at(t + 620_000, 5 * 4096, 4096, IoKind::Read),
    ];
    let r = run(&kv, &reqs);
    let lat = &r.requests.latency_ns;
    assert_eq!(lat[..6], [DRAM; 6], "no write waits: the eviction frees its slot at once");
    let programs = (CMD + XFER + T_PROG) + (CMD + part(2048) + T_PROG);
    assert_eq!(lat[6], programs - 620_000 + CMD + T_READ + XFER, "page 0's eviction moves its 2 KiB");
    let wb = r.summary.write_buffer.as_ref().unwrap();
    assert_eq!((wb.flushes, wb.writes_waited), (4 + 1, 0), "pages 9, 0, 1, 2 cold, page 0 evicted");
    assert_eq!(r.summary.verify_errors, 0);
    // a whole page's data-in for it under write_transfer = page
    let page: Vec<&str> =
        kv.iter().map(|&k| if k.starts_with("scheduler.write_transfer") { "scheduler.write_transfer=page" } else { k }).collect();
    assert_eq!(run(&page, &reqs).requests.latency_ns[6] - lat[6], XFER - part(2048));
}

#[test]
fn mqsims_eviction_is_read_from_dram_before_the_write_that_made_it() {
    // As above with MQSim's DRAM timing (`[write_buffer.dram]`, one
    // first-come-first-served channel): page 2's write queues its DRAM
    // write behind the DRAM read of page 0's 4 evicted sectors
    // (`MEMORY_READ_FOR_CACHE_EVICTION_FINISHED` is issued first), and
    // the eviction's program cannot start before that read ends.
    // estimate_dram_access_time at 100 MT/s, 1-byte bursts, tRCD = tCL =
    // 13 ns: 26 + bytes / 2 x 10 ns.
    let dram = |bytes: u64| 26 + bytes / 2 * 10;
    let kv = [
        &ONE_DIE[..],
        &[
            "host.write_ack=buffer",
            "write_buffer.pages=2",
            "write_buffer.policy=lru",
            "write_buffer.admission=destage",
            "write_buffer.dram.rate_mts=100",
            "write_buffer.dram.burst_bytes=1",
            "write_buffer.dram.row_bytes=8192",
            "write_buffer.dram.trcd_ns=13",
            "write_buffer.dram.tcl_ns=13",
            "write_buffer.dram.trp_ns=13",
        ],
    ]
    .concat();
    let reqs = [WAKE, PAGE0_COLD, PAGE1_COLD, PAGE0_HOT, PAGE1_HOT, at(4_000_000, 2 * 4096, 4096, IoKind::Write)];
    let r = run(&kv, &reqs);
    assert_eq!(r.requests.latency_ns[3], dram(2048));
    assert_eq!(r.requests.latency_ns[5], dram(2048) + dram(4096), "behind the eviction's read");
}
