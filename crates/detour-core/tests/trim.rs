//! Discards (TRIM): they unmap pages so GC moves none of them, a read of a
//! discarded page returns "unwritten" without the flash (verify mode
//! agrees), and what cannot be modelled is refused by name.

mod common;
mod fixtures;
use common::*;
use detour_core::config::Config;
use detour_core::workload::TraceOptions;
use detour_core::{sim, IoKind, Request};

fn tiny(extra: &[&str]) -> Config {
    let kv: Vec<&str> = TINY.iter().chain(extra.iter()).copied().collect();
    small(&kv)
}

/// Write LPNs 0..12000 in order, discard 0..6000 (unless `discard` is
/// false), then write 12,000 pages at random over 6000..12000: 24,000
/// programs on 16,384 physical pages, so GC runs on blocks that hold both
/// halves' data.
fn fill_discard_churn(discard: bool) -> Vec<Request> {
    let mut v = Vec::new();
    let mut t = 0u64;
    let mut next = |lpn: u64, pages: u32, kind: IoKind, v: &mut Vec<Request>| {
        t += 100_000;
        v.push(req(t, lpn, pages, kind));
    };
    for l in 0..12_000 {
        next(l, 1, IoKind::Write, &mut v);
    }
    if discard {
        for l in (0..6_000).step_by(64) {
            next(l, 64.min(6_000 - l as u32), IoKind::Discard, &mut v);
        }
    }
    for i in 0..12_000u64 {
        next(6_000 + detour_core::types::mix64(i) % 6_000, 1, IoKind::Write, &mut v);
    }
    v
}

#[test]
fn discarded_pages_are_not_moved_by_gc() {
    let kept = sim::run_requests(tiny(&[]), &fill_discard_churn(false)).unwrap().summary;
    let run = sim::run_requests(tiny(&[]), &fill_discard_churn(true)).unwrap().summary;
    let t = run.trim.clone().unwrap();
    assert_eq!((t.requests, t.pages, t.unmapped_pages, t.ignored), (94, 6_000, 6_000, 0));
    assert!(kept.gc.erases > 0 && run.gc.erases > 0, "GC ran in both: {} {}", kept.gc.erases, run.gc.erases);
    // Without the discards GC moves the first pass's live pages; with them
    // every page it moves is one of the churned 3,000.
    assert!(kept.gc.moves > 1_000, "{} {}", kept.gc.moves, run.gc.moves);
    assert!(run.gc.moves < kept.gc.moves / 4, "{} vs {}", run.gc.moves, kept.gc.moves);
    assert_eq!(run.verify_errors, 0);
    // Ignored, the discards change nothing.
    let ignored = sim::run_requests(tiny(&["trim.discards=\"ignore\""]), &fill_discard_churn(true)).unwrap().summary;
    assert_eq!((ignored.gc.moves, ignored.trim.unwrap().ignored), (kept.gc.moves, 94));
}

#[test]
fn a_read_of_a_discarded_page_returns_unwritten_without_the_flash() {
    let reqs = [req(0, 10, 4, IoKind::Write), req(1_000_000, 10, 2, IoKind::Discard), req(2_000_000, 10, 4, IoKind::Read)];
    let r = sim::run_requests(tiny(&[]), &reqs).unwrap();
    let s = &r.summary;
    let t = s.trim.clone().unwrap();
    assert_eq!((t.unmapped_pages, t.unwritten_reads), (2, 2));
    // Two of the four pages come from the flash, the discarded two from the map.
    assert_eq!(s.dies.reads.iter().sum::<u64>(), 2);
    assert_eq!((s.verify_errors, s.reads, s.writes), (0, 1, 1), "{:?}", r.verify_failures);
}

#[test]
fn a_write_after_a_discard_is_read_back() {
    let reqs = [
        req(0, 10, 1, IoKind::Write),
        req(1_000_000, 10, 1, IoKind::Discard),
        req(2_000_000, 10, 1, IoKind::Write),
        req(3_000_000, 10, 1, IoKind::Read),
    ];
    let s = sim::run_requests(tiny(&["read_cache.mode=\"separate\"", "read_cache.pages=8"]), &reqs).unwrap().summary;
    assert_eq!((s.trim.unwrap().unwritten_reads, s.dies.reads.iter().sum::<u64>(), s.verify_errors), (0, 1, 0));
}

#[test]
fn a_discard_drops_the_read_cache_copy() {
    let reqs = [
        req(0, 10, 1, IoKind::Write),
        req(1_000_000, 10, 1, IoKind::Read),
        req(2_000_000, 10, 1, IoKind::Discard),
        req(3_000_000, 10, 1, IoKind::Read),
    ];
    let s = sim::run_requests(tiny(&["read_cache.mode=\"separate\"", "read_cache.pages=8"]), &reqs).unwrap().summary;
    let c = s.read_cache.unwrap();
    assert_eq!((c.read_hits, c.invalidations, s.trim.unwrap().unwritten_reads, s.verify_errors), (0, 1, 1, 0));
}

#[test]
fn what_is_not_modelled_is_refused_by_name() {
    let reqs = [req(0, 10, 1, IoKind::Write), req(1_000_000, 10, 1, IoKind::Discard)];
    for kv in [vec!["scheme.name=\"hotr\""], vec!["ftl.mapping=\"cmt\""], vec!["write_buffer.pages=16", "host.write_ack=\"buffer\""]] {
        let err = sim::run_requests(tiny(&kv), &reqs).unwrap_err().to_string();
        assert!(err.contains("trim.discards"), "{kv:?}: {err}");
        let mut ignore = kv.clone();
        ignore.push("trim.discards=\"ignore\"");
        assert!(sim::run_requests(tiny(&ignore), &reqs).is_ok(), "{kv:?}");
    }
}

#[test]
fn blkparse_discards_reach_the_ftl() {
    let (reqs, _) = fixtures::read_all("blkparse_discard.txt", &TraceOptions::literal());
    let kinds: Vec<IoKind> = reqs.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [IoKind::Write, IoKind::Discard, IoKind::Read, IoKind::Discard]);
    let s = sim::run_requests(tiny(&[]), &reqs).unwrap().summary;
    let t = s.trim.unwrap();
    // 8 pages written; the first 4 discarded; the read gets 4 from the map,
    // 4 from the flash; the second discard names a page never written.
    assert_eq!((t.requests, t.pages, t.unmapped_pages, t.unwritten_reads), (2, 5, 4, 4));
    assert_eq!((s.dies.reads.iter().sum::<u64>(), s.verify_errors), (4, 0));
}

#[test]
fn the_generator_draws_discards_only_when_asked() {
    use detour_core::workload::generator::Generator;
    use detour_core::workload::profiles::profile;
    let mut spec = profile("bench-like").unwrap();
    spec.requests = 4_000;
    let plain: Vec<Request> = Generator::new(&spec).unwrap().collect();
    assert!(plain.iter().all(|r| r.kind != IoKind::Discard));
    spec.discard_ratio = 0.25;
    let with: Vec<Request> = Generator::new(&spec).unwrap().collect();
    let (d, w) = (with.iter().filter(|r| r.kind == IoKind::Discard).count(), with.iter().filter(|r| r.kind == IoKind::Write).count());
    let share = d as f64 / (d + w) as f64;
    assert!((0.2..0.3).contains(&share), "{share}");
}
