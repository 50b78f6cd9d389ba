//! The content value model against RR-SSD Table III, and day-to-day drift.
//! Run with `--nocapture` to see the measured shares (docs/workloads.md).

use std::collections::{HashMap, HashSet};

use detour_core::workload::generator::{content_stats, initial_token, Generator, SyntheticSpec};
use detour_core::workload::profiles::{apply_overrides, profile};
use detour_core::workload::Request;
use detour_core::{page_token, IoKind};

/// Table III: (profile, write %, unique write %, unique read %).
const TABLE_III: [(&str, f64, f64, f64); 6] = [
    ("webvm", 77.0, 42.0, 32.0),
    ("homes", 96.0, 66.0, 80.0),
    ("mail", 77.0, 8.0, 80.0),
    ("hadoop", 30.0, 63.9, 17.5),
    ("trans", 55.0, 77.4, 13.8),
    ("desktop", 42.0, 74.7, 49.7),
];

/// A profile cut to `n` requests with days short enough to drift several
/// times within them.
fn rr(name: &str, n: u64) -> SyntheticSpec {
    let spec = profile(name).unwrap();
    apply_overrides(&spec, &[("requests", &n.to_string()), ("content.day_s", "10")]).unwrap()
}

#[test]
fn rr_profiles_reproduce_table_iii_unique_shares() {
    for (name, wr, uw, ur) in TABLE_III {
        let reqs: Vec<Request> = Generator::new(&rr(name, 150_000)).unwrap().collect();
        let writes = reqs.iter().filter(|r| r.kind == IoKind::Write).count() as f64;
        let s = content_stats(reqs.iter().copied());
        let (mw, mr) = (100.0 * s.write_unique_share(), 100.0 * s.read_unique_share());
        println!(
            "{name:8} writes {:5.1}% (paper {wr}) unique W {mw:5.1}% (paper {uw}) R {mr:5.1}% (paper {ur}); \
             reads of never-written pages {:.1}%",
            100.0 * writes / reqs.len() as f64,
            100.0 * s.reads_of_unwritten as f64 / s.read_pages.max(1) as f64
        );
        assert!((100.0 * writes / reqs.len() as f64 - wr).abs() < 1.0, "{name}: write ratio");
        assert!((mw - uw).abs() < 3.0, "{name}: unique write share {mw} vs {uw}");
        assert!((mr - ur).abs() < 3.0, "{name}: unique read share {mr} vs {ur}");
    }
}

#[test]
fn full_length_mail_keeps_its_shares() {
    // The whole 7 scaled days (~840k requests): supply of fresh pages holds.
    let reqs = Generator::new(&profile("mail").unwrap()).unwrap();
    let s = content_stats(reqs);
    assert!(s.read_pages > 150_000, "{s:?}");
    assert!((s.write_unique_share() - 0.08).abs() < 0.03, "{s:?}");
    assert!((s.read_unique_share() - 0.80).abs() < 0.03, "{s:?}");
}

#[test]
fn content_stats_follows_the_definition() {
    let w = |line, offset, content| Request { time_ns: line, offset, size: 4096, kind: IoKind::Write, content, volume: 0, line };
    let r = |line, offset| Request { time_ns: line, offset, size: 4096, kind: IoKind::Read, content: 0, volume: 0, line };
    // Two pages written with the same value, both read, a never-written page
    // read twice, and a two-page write whose second page gets a derived token.
    let mut two = w(6, 8 * 4096, 9);
    two.size = 8192;
    let reqs = vec![w(1, 0, 5), w(2, 4096, 5), r(3, 0), r(4, 4096), r(5, 40960), two, r(7, 9 * 4096), r(8, 40960)];
    let s = content_stats(reqs);
    assert_eq!((s.write_pages, s.distinct_write_values), (4, 2 + 1));
    assert_eq!((s.read_pages, s.distinct_read_values), (5, 3));
    assert_eq!(s.reads_of_unwritten, 2);
    assert_ne!(page_token(9, 1), 9);
    assert_ne!(initial_token(0, 10), initial_token(0, 11));
}

/// Share of day d+1's reads that return one of day d's 200 most read values:
/// what end-of-day replication (RR-SSD "Rep", Fig. 9) can serve.
fn next_day_overlap(spec: &SyntheticSpec) -> f64 {
    let day_ns = (spec.content.as_ref().unwrap().day_s * 1e9) as u64;
    let mut held: HashMap<u64, u64> = HashMap::new();
    let mut days: Vec<Vec<u64>> = Vec::new();
    for r in Generator::new(spec).unwrap() {
        let page = r.offset / 4096;
        let day = (r.time_ns / day_ns) as usize;
        days.resize(days.len().max(day + 1), Vec::new());
        match r.kind {
            IoKind::Write => drop(held.insert(page, r.content)),
            IoKind::Read => days[day].push(held.get(&page).copied().unwrap_or_else(|| initial_token(0, page))),
            IoKind::Discard => unreachable!("content profiles draw no discards"),
        }
    }
    let top = |reads: &[u64]| -> HashSet<u64> {
        let mut counts: HashMap<u64, usize> = HashMap::new();
        reads.iter().for_each(|v| *counts.entry(*v).or_default() += 1);
        let mut c: Vec<(usize, u64)> = counts.into_iter().map(|(v, n)| (n, v)).collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        c.into_iter().take(200).map(|e| e.1).collect()
    };
    let (mut hit, mut all) = (0usize, 0usize);
    for d in 1..days.len() - 1 {
        let hot = top(&days[d]);
        hit += days[d + 1].iter().filter(|v| hot.contains(v)).count();
        all += days[d + 1].len();
    }
    hit as f64 / all as f64
}

#[test]
fn drift_replaces_yesterdays_popular_values() {
    // A pool smaller than a (10 s) day's ~1.5k fresh reads, so drift 1 can
    // replace all of it.
    let base = apply_overrides(&rr("webvm", 120_000), &[("content.read_pool", "1024")]).unwrap();
    let keep = apply_overrides(&base, &[("content.drift_per_day", "0")]).unwrap();
    let churn = apply_overrides(&base, &[("content.drift_per_day", "1")]).unwrap();
    let (k, c) = (next_day_overlap(&keep), next_day_overlap(&churn));
    println!("reads of the previous day's top-200 values: drift 0 -> {k:.3}, drift 1 -> {c:.3}");
    assert!(k > c + 0.1, "drift 0: {k}, drift 1: {c}");
}

#[test]
fn read_popularity_is_skewed() {
    // Share of distinct read values that serve 80% of reads (RR-SSD Fig. 4).
    let reqs: Vec<Request> = Generator::new(&rr("webvm", 100_000)).unwrap().collect();
    let mut held: HashMap<u64, u64> = HashMap::new();
    let mut counts: HashMap<u64, u64> = HashMap::new();
    for r in &reqs {
        let page = r.offset / 4096;
        match r.kind {
            IoKind::Write => drop(held.insert(page, r.content)),
            IoKind::Read => {
                let v = held.get(&page).copied().unwrap_or_else(|| initial_token(0, page));
                *counts.entry(v).or_default() += 1;
            }
            IoKind::Discard => unreachable!("content profiles draw no discards"),
        }
    }
    // Sorted just below: the map's order never reaches a result.
    #[allow(clippy::disallowed_methods)]
    let mut c: Vec<u64> = counts.into_values().collect();
    c.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = c.iter().sum();
    let (mut acc, mut k) = (0, 0);
    while acc * 10 < total * 8 {
        acc += c[k];
        k += 1;
    }
    let share = k as f64 / c.len() as f64;
    println!("webvm: {:.1}% of read values serve 80% of reads", 100.0 * share);
    assert!(share < 0.6, "{share}");
}
