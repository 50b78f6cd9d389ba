//! The DRAM read cache (`[read_cache]`): hits served from DRAM at the
//! write buffer's read cost, writes dropping stale pages (verify mode).

mod common;
use common::*;
use detour_core::{sim, IoKind};

fn cached(extra: &[&str]) -> detour_core::config::Config {
    let kv: Vec<&str> =
        TINY.iter().chain(["read_cache.mode=\"separate\"", "read_cache.pages=4"].iter()).chain(extra.iter()).copied().collect();
    small(&kv)
}

#[test]
fn a_repeated_read_is_served_from_dram() {
    let reqs = [req(0, 7, 1, IoKind::Write), req(1_000_000, 7, 1, IoKind::Read), req(2_000_000, 7, 1, IoKind::Read)];
    let r = sim::run_requests(cached(&[]), &reqs).unwrap();
    let c = r.summary.read_cache.clone().unwrap();
    assert_eq!((c.read_pages, c.read_hits, c.hit_ratio, c.inserts), (2, 1, 0.5, 1));
    // The hit takes ftl.buffer_read_ns (1 µs, no host link); the miss the flash.
    let lat = &r.summary.latency_us.read;
    assert_eq!(lat.min, 1.0);
    assert!(lat.max > 10.0, "{lat:?}");
    assert_eq!(r.summary.verify_errors, 0);
}

#[test]
fn off_by_default_and_absent_from_the_summary() {
    let reqs = [req(0, 7, 1, IoKind::Write), req(1_000_000, 7, 1, IoKind::Read), req(2_000_000, 7, 1, IoKind::Read)];
    let r = sim::run_requests(small(&TINY), &reqs).unwrap();
    assert!(r.summary.read_cache.is_none());
    assert!(r.summary.latency_us.read.min > 10.0);
}

#[test]
fn a_write_drops_the_cached_page() {
    let reqs = [
        req(0, 7, 1, IoKind::Read),
        req(1_000_000, 7, 1, IoKind::Write),
        req(2_000_000, 7, 1, IoKind::Read),
        req(3_000_000, 7, 1, IoKind::Read),
    ];
    let r = sim::run_requests(cached(&[]), &reqs).unwrap();
    let c = r.summary.read_cache.unwrap();
    assert_eq!((c.read_hits, c.invalidations), (1, 1), "{c:?}");
    assert_eq!(r.summary.verify_errors, 0);
}

/// Reads and writes over the same pages, with and without a write buffer
/// (separate and shared): every hit returns the latest data.
#[test]
fn hits_return_the_latest_data_under_a_mixed_load() {
    let reqs: Vec<_> = poisson(8_000, 20_000.0, 0.6, 300, 3)
        .into_iter()
        .map(|mut r| {
            r.offset %= 300 * 4096;
            r
        })
        .collect();
    for kv in [
        vec!["read_cache.mode=\"separate\"", "read_cache.pages=128"],
        vec!["read_cache.mode=\"separate\"", "read_cache.pages=128", "write_buffer.pages=32", "host.write_ack=\"buffer\""],
        vec!["read_cache.mode=\"shared\"", "write_buffer.pages=64", "host.write_ack=\"buffer\""],
    ] {
        let all: Vec<&str> = TINY.iter().copied().chain(kv.iter().copied()).collect();
        let r = sim::run_requests(small(&all), &reqs).unwrap();
        let c = r.summary.read_cache.unwrap();
        assert!(c.read_hits > 100 && c.invalidations > 0, "{kv:?}: {c:?}");
        assert_eq!(r.summary.verify_errors, 0, "{kv:?}: {:?}", r.verify_failures);
    }
}
