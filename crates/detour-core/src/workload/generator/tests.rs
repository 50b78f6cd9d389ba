//! Mechanics of the generator on small hand-made specs (statistics of the
//! named profiles are in tests/gen_*.rs).

use super::*;
use crate::error::Error;

fn run(spec: &SyntheticSpec) -> Vec<Request> {
    Generator::new(spec).unwrap().collect()
}

fn small() -> SyntheticSpec {
    SyntheticSpec { requests: 20_000, footprint_bytes: 64 * MIB, ..SyntheticSpec::default() }
}

#[test]
fn same_seed_same_sequence_other_seed_differs() {
    let mut spec = small();
    spec.zipf_theta = 0.9;
    spec.sequential = 0.3;
    spec.size = SizeDist::Weighted(vec![(4096, 1.0), (65536, 1.0)]);
    let a = run(&spec);
    assert_eq!(a, run(&spec));
    spec.seed = 2;
    let b = run(&spec);
    assert_eq!(a.len(), b.len());
    assert_ne!(a, b);
}

#[test]
fn a_redrawn_workload_keeps_its_hot_pages_and_draws_anew() {
    let mut spec = small();
    spec.zipf_theta = 1.2;
    let hottest = |reqs: &[Request]| {
        let mut n = std::collections::HashMap::new();
        for r in reqs {
            *n.entry(r.offset).or_insert(0u32) += 1;
        }
        let mut v: Vec<_> = n.into_iter().collect();
        v.sort_by_key(|&(o, c)| (std::cmp::Reverse(c), o));
        v.into_iter().take(5).map(|e| e.0).collect::<Vec<_>>()
    };
    let a = run(&spec);
    let b: Vec<_> = Generator::redrawn(&spec, 0).unwrap().collect();
    let c: Vec<_> = Generator::redrawn(&spec, 1).unwrap().collect();
    assert_ne!(a, b);
    assert_ne!(b, c);
    assert_eq!(b, Generator::redrawn(&spec, 0).unwrap().collect::<Vec<_>>());
    assert_eq!(hottest(&a), hottest(&b));
    spec.seed = 2;
    assert_ne!(hottest(&a), hottest(&run(&spec)), "another seed moves the hot pages");
}

#[test]
fn lines_times_and_write_contents() {
    let reqs = run(&small());
    assert_eq!(reqs.len(), 20_000);
    assert_eq!(reqs[0].time_ns, 0);
    for (i, r) in reqs.iter().enumerate() {
        assert_eq!(r.line, i as u64 + 1);
        assert_eq!(r.volume, 0);
        assert_eq!(r.content == 0, r.kind == IoKind::Read, "line {}", r.line);
    }
    assert!(reqs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
}

#[test]
fn duration_limits_the_stream() {
    let spec = SyntheticSpec { requests: 0, duration_s: 2.0, arrival: Arrival::Constant { rate_per_s: 1000.0 }, ..small() };
    let reqs = run(&spec);
    assert_eq!(reqs.len(), 2000);
    assert_eq!(reqs[1].time_ns, 1_000_000);
}

#[test]
fn full_sequentiality_is_contiguous() {
    let spec = SyntheticSpec { sequential: 1.0, size: SizeDist::Fixed(8192), ..small() };
    let reqs = run(&spec);
    let wraps = reqs.windows(2).filter(|w| w[1].offset != w[0].offset + 8192).count();
    // Only when the stream runs off the end of the footprint and restarts at
    // a random page (half the footprint away from the end on average).
    let passes = reqs.len() * 8192 / spec.footprint_bytes as usize;
    assert!(wraps <= 3 * passes + 2, "{wraps} jumps");
}

#[test]
fn page_classes_are_respected() {
    let spec = SyntheticSpec {
        classes: Some(ClassSpec { read_only: 0.5, write_only: 0.3, chunk_bytes: None }),
        size: SizeDist::Weighted(vec![(4096, 1.0), (16384, 1.0)]),
        sequential: 0.3,
        zipf_theta: 0.8,
        ..small()
    };
    let g = Generator::new(&spec).unwrap();
    let reqs: Vec<Request> = Generator::new(&spec).unwrap().collect();
    let mut seen = std::collections::HashMap::new();
    for r in &reqs {
        for p in 0..(r.size as u64).div_ceil(4096) {
            let class = g.page_class(r.offset + p * 4096).expect("inside the footprint");
            *seen.entry(class).or_insert(0) += 1;
            match (class, r.kind) {
                (PageClass::ReadOnly, IoKind::Write) => panic!("write to a read-only page: {r:?}"),
                (PageClass::WriteOnly, IoKind::Read) => panic!("read of a write-only page: {r:?}"),
                _ => {}
            }
        }
    }
    assert_eq!(seen.len(), 3, "all three classes used: {seen:?}");
}

#[test]
fn content_model_hits_its_unique_shares() {
    let spec = SyntheticSpec {
        read_ratio: 0.5,
        content: Some(ContentSpec { write_unique: 0.3, read_unique: 0.4, drift_per_day: 0.2, day_s: 1.0, ..ContentSpec::default() }),
        ..small()
    };
    let s = content_stats(run(&spec));
    assert!((s.write_unique_share() - 0.3).abs() < 0.02, "{s:?}");
    assert!((s.read_unique_share() - 0.4).abs() < 0.02, "{s:?}");
}

#[test]
fn pairs_share_a_die_and_arrive_within_the_gap() {
    let spec = SyntheticSpec {
        read_ratio: 0.9,
        pairs: Some(PairSpec { count: 50, read_share: 0.5, gap_us: 20.0, ..PairSpec::default() }),
        // Large enough that ordinary reads almost never hit a pair page.
        footprint_bytes: 64 * GIB,
        ..small()
    };
    let g = Generator::new(&spec).unwrap();
    let pairs = g.pairs().to_vec();
    for &(a, b) in &pairs {
        assert_eq!((a / 4096) % 16, (b / 4096) % 16);
        assert_ne!(a, b);
    }
    let reqs: Vec<Request> = g.collect();
    let firsts: std::collections::HashSet<u64> = pairs.iter().map(|p| p.0).collect();
    let seconds: std::collections::HashMap<u64, u64> = pairs.iter().map(|p| (p.1, p.0)).collect();
    let (mut matched, mut lone) = (0, 0);
    for (i, r) in reqs.iter().enumerate().filter(|(_, r)| r.kind == IoKind::Read) {
        if let Some(&a) = seconds.get(&r.offset) {
            let mut back = reqs[..i].iter().rev().take_while(|q| r.time_ns - q.time_ns <= 20_000);
            if back.any(|q| q.offset == a) {
                matched += 1;
            } else {
                lone += 1;
            }
        }
    }
    assert!(lone <= 2, "{lone} second halves without their first within the gap");
    let reads = reqs.iter().filter(|r| r.kind == IoKind::Read).count();
    let pair_reads = reqs.iter().filter(|r| firsts.contains(&r.offset) || seconds.contains_key(&r.offset)).count();
    assert!(matched > 0);
    assert!((pair_reads as f64 / reads as f64 - 0.5).abs() < 0.02, "{pair_reads} of {reads}");
}

fn rejected(spec: SyntheticSpec) -> String {
    match spec.validate() {
        Err(Error::Config { key, reason }) => {
            assert!(!reason.is_empty());
            key
        }
        other => panic!("expected a config error, got {other:?}"),
    }
}

#[test]
fn validate_names_the_bad_key() {
    let d = SyntheticSpec::default;
    let cases: Vec<(SyntheticSpec, &str)> = vec![
        (SyntheticSpec { requests: 0, ..d() }, "requests"),
        (SyntheticSpec { duration_s: -1.0, ..d() }, "duration_s"),
        (SyntheticSpec { duration_s: f64::NAN, ..d() }, "duration_s"),
        (SyntheticSpec { read_ratio: 1.5, ..d() }, "read_ratio"),
        (SyntheticSpec { read_ratio: f64::NAN, ..d() }, "read_ratio"),
        (SyntheticSpec { arrival: Arrival::Poisson { rate_per_s: 0.0 }, ..d() }, "arrival.rate_per_s"),
        (SyntheticSpec { alignment: 3000, ..d() }, "alignment"),
        (SyntheticSpec { footprint_bytes: 5000, ..d() }, "footprint_bytes"),
        (SyntheticSpec { size: SizeDist::Fixed(0), ..d() }, "size"),
        (SyntheticSpec { size: SizeDist::Weighted(vec![(4096, -1.0)]), ..d() }, "size"),
        (SyntheticSpec { zipf_theta: -0.1, ..d() }, "zipf_theta"),
        (SyntheticSpec { sequential: 2.0, ..d() }, "sequential"),
        (SyntheticSpec { streams: 0, ..d() }, "streams"),
        (SyntheticSpec { seed: u64::MAX, ..d() }, "seed"),
        (SyntheticSpec { classes: Some(ClassSpec { read_only: 0.7, write_only: 0.7, chunk_bytes: None }), ..d() }, "classes.write_only"),
        (SyntheticSpec { content: Some(ContentSpec { read_unique: 1.2, ..ContentSpec::default() }), ..d() }, "content.read_unique"),
        (SyntheticSpec { content: Some(ContentSpec { day_s: 0.0, ..ContentSpec::default() }), ..d() }, "content.day_s"),
        (SyntheticSpec { content: Some(ContentSpec::default()), size: SizeDist::Fixed(8192), ..d() }, "size"),
        (SyntheticSpec { pairs: Some(PairSpec { stride: 0, ..PairSpec::default() }), ..d() }, "pairs.stride"),
        (SyntheticSpec { pairs: Some(PairSpec { gap_us: 0.0, ..PairSpec::default() }), ..d() }, "pairs.gap_us"),
        (SyntheticSpec { writes: WriteRegion::Apart { write_pages: 0.0 }, ..d() }, "writes.write_pages"),
        (SyntheticSpec { writes: WriteRegion::Apart { write_pages: 0.5 }, classes: Some(ClassSpec::default()), ..d() }, "writes"),
        // 2 pages at 4 KiB: a 1-page read part and a 1-page write part hold no 8 KiB request.
        (
            SyntheticSpec { writes: WriteRegion::Apart { write_pages: 1.0 }, footprint_bytes: 8192, size: SizeDist::Fixed(8192), ..d() },
            "writes.write_pages",
        ),
    ];
    for (spec, key) in cases {
        assert_eq!(rejected(spec), key);
    }
    assert!(Generator::new(&SyntheticSpec { read_ratio: -1.0, ..d() }).is_err());
}

/// `writes = apart`, by hand: 12 pages with `write_pages = 0.5` give a read
/// part of round(12 / 1.5) = 8 pages (0..8) and a write part of 4 (8..12).
/// Every read, pair pages included, lies in 0..8 and every write in 8..12,
/// so no written page is a pair page; streams never carry a request across.
#[test]
fn apart_writes_never_touch_a_read_or_pair_page() {
    let page = 4096u64;
    let spec = SyntheticSpec {
        requests: 20_000,
        footprint_bytes: 12 * page,
        size: SizeDist::Weighted(vec![(4096, 1.0), (8192, 1.0)]),
        sequential: 0.5,
        read_ratio: 0.5,
        pairs: Some(PairSpec { count: 2, stride: 2, read_share: 0.5, ..PairSpec::default() }),
        writes: WriteRegion::Apart { write_pages: 0.5 },
        ..SyntheticSpec::default()
    };
    assert_eq!(spec.read_footprint_pages(), 8);
    let g = Generator::new(&spec).unwrap();
    for &(a, b) in g.pairs() {
        assert!(a < 8 * page && b < 8 * page, "pair ({a}, {b}) outside the read part");
    }
    let reqs: Vec<Request> = g.collect();
    let (mut reads, mut writes) = (std::collections::HashSet::new(), std::collections::HashSet::new());
    for r in &reqs {
        let pages = (r.offset / page..(r.offset + r.size as u64).div_ceil(page)).collect::<Vec<_>>();
        if r.kind == IoKind::Read {
            assert!(r.offset + r.size as u64 <= 8 * page, "read {r:?} in the write part");
            reads.extend(pages);
        } else {
            assert!(r.offset >= 8 * page && r.offset + r.size as u64 <= 12 * page, "write {r:?} outside 8..12");
            writes.extend(pages);
        }
    }
    // Both parts are used whole: 8 read pages, 4 written, none in common.
    assert_eq!((reads.len(), writes.len()), (8, 4));
    assert!(reads.is_disjoint(&writes));
}

#[test]
fn shared_writes_are_the_default_and_not_serialized() {
    let spec = SyntheticSpec::default();
    assert_eq!(spec.writes, WriteRegion::Shared);
    assert_eq!(spec.read_footprint_pages(), spec.footprint_pages());
    let toml = toml::to_string(&spec).unwrap();
    assert!(!toml.contains("writes"), "{toml}");
    let apart: SyntheticSpec = toml::from_str("[writes]\nregion = \"apart\"\nwrite_pages = 0.5\n").unwrap();
    assert_eq!(apart.writes, WriteRegion::Apart { write_pages: 0.5 });
}
