//! Every named profile: well-formed, deterministic, and matching the numbers
//! of its paper table (read ratio, mean size, rate); plus the generic knobs
//! (zipf skew, sequentiality) and the TOML / override paths.

use std::collections::HashMap;

use detour_core::workload::generator::{Arrival, Generator, SizeDist, SyntheticSpec, MIB};
use detour_core::workload::profiles::{apply_overrides, profile, profile_names};
use detour_core::workload::Request;
use detour_core::{Error, IoKind};

fn first(spec: &SyntheticSpec, n: usize) -> Vec<Request> {
    Generator::new(spec).unwrap().take(n).collect()
}

fn cut(name: &str, n: u64) -> SyntheticSpec {
    let spec = profile(name).unwrap();
    apply_overrides(&spec, &[("requests", &n.to_string())]).unwrap()
}

#[test]
fn every_profile_is_well_formed_and_deterministic() {
    for (name, about) in profile_names() {
        assert!(!about.is_empty());
        let spec = profile(name).unwrap();
        let reqs = first(&spec, 20_000);
        assert_eq!(reqs, first(&spec, 20_000), "{name}: not deterministic");
        let other = SyntheticSpec { seed: spec.seed + 1, ..spec.clone() };
        assert_ne!(reqs, first(&other, 20_000), "{name}: seed ignored");
        let mut prev = 0;
        for (i, r) in reqs.iter().enumerate() {
            assert_eq!(r.line, i as u64 + 1, "{name}");
            assert!(r.time_ns >= prev, "{name}: time goes back at line {}", r.line);
            prev = r.time_ns;
            assert_eq!(r.offset % spec.alignment, 0, "{name}: unaligned {r:?}");
            assert!(r.size > 0 && r.offset + r.size as u64 <= spec.footprint_bytes, "{name}: outside {r:?}");
            assert_eq!(r.content != 0, r.kind == IoKind::Write, "{name}: content {r:?}");
        }
    }
}

/// (profile, write ratio, mean KiB) from HotR Table III and CR5M Table I.
const TABLES: [(&str, f64, f64); 9] = [
    ("fin2", 0.176, 4.6),
    ("hm", 0.729, 8.3),
    ("hpc46", 0.600, 6.3),
    ("hpc28", 0.800, 6.3),
    ("financial1", 0.7788, 3.46),
    ("radius9", 0.8846, 6.8),
    ("atto", 0.4745, 23.1),
    ("build", 0.4571, 6.5),
    ("exchange", 0.4643, 12.5),
];

#[test]
fn read_ratio_and_mean_size_match_the_tables() {
    for (name, wr, kib) in TABLES {
        let reqs = first(&cut(name, 100_000), 100_000);
        let n = reqs.len() as f64;
        let writes = reqs.iter().filter(|r| r.kind == IoKind::Write).count() as f64 / n;
        let mean = reqs.iter().map(|r| r.size as f64).sum::<f64>() / n / 1024.0;
        println!("{name:10} writes {:.2}% (paper {:.2}) mean {mean:.2} KiB (paper {kib})", 100.0 * writes, 100.0 * wr);
        assert!((writes - wr).abs() < 0.01, "{name}: write ratio {writes}");
        assert!((mean / kib - 1.0).abs() < 0.03, "{name}: mean size {mean}");
    }
}

#[test]
fn request_counts_and_durations_match_the_tables() {
    assert_eq!(profile("fin2").unwrap().requests, 450_068);
    assert_eq!(profile("hm").unwrap().requests, 999_997);
    assert_eq!(profile("hpc46").unwrap().requests, 499_999);
    let radius = profile("radius9").unwrap();
    assert_eq!((radius.requests, radius.duration_s), (0, 35.2 * 60.0));
    // A TOML starting from a duration-only profile keeps it duration-only.
    let again = SyntheticSpec::from_toml("profile = \"radius9\"").unwrap();
    assert_eq!(again, radius);
    let n = Generator::new(&again).unwrap().count() as f64;
    assert!((n / (57.0 * 35.2 * 60.0) - 1.0).abs() < 0.02, "{n} requests");
    assert_eq!(radius.arrival, Arrival::Poisson { rate_per_s: 57.0 });
}

#[test]
fn poisson_rate_within_two_percent() {
    for name in ["bench-like", "build", "exchange"] {
        let reqs = first(&cut(name, 100_000), 100_000);
        let Arrival::Poisson { rate_per_s } = profile(name).unwrap().arrival else { panic!() };
        let span_s = reqs.last().unwrap().time_ns as f64 / 1e9;
        let rate = (reqs.len() - 1) as f64 / span_s;
        println!("{name}: {rate:.1} req/s (spec {rate_per_s})");
        assert!((rate / rate_per_s - 1.0).abs() < 0.02, "{name}: {rate}");
    }
}

/// Zipf share of the `top` most popular of `n` ranks.
fn zipf_share(n: usize, top: usize, theta: f64) -> f64 {
    let h = |k: usize| (1..=k).map(|i| (i as f64).powf(-theta)).sum::<f64>();
    h(top) / h(n)
}

#[test]
fn zipf_top_tenth_of_pages_gets_its_share() {
    // Theta 0 is left out: with no skew, the busiest tenth is set by noise.
    for theta in [0.6, 0.9, 1.2] {
        let spec = SyntheticSpec { zipf_theta: theta, footprint_bytes: 4 * MIB, requests: 200_000, ..SyntheticSpec::default() };
        let mut hits: HashMap<u64, u64> = HashMap::new();
        for r in Generator::new(&spec).unwrap() {
            *hits.entry(r.offset / 4096).or_default() += 1;
        }
        let pages = spec.footprint_pages() as usize;
        // Sorted just below: the map's order never reaches a result.
        #[allow(clippy::disallowed_methods)]
        let mut c: Vec<u64> = hits.into_values().collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        let measured = c.iter().take(pages / 10).sum::<u64>() as f64 / 200_000.0;
        let expected = zipf_share(pages, pages / 10, theta);
        println!("theta {theta}: top 10% of pages get {measured:.3} (expected {expected:.3})");
        assert!((measured - expected).abs() < 0.015, "theta {theta}: {measured} vs {expected}");
    }
}

#[test]
fn hot_pages_are_scattered() {
    let spec = SyntheticSpec { zipf_theta: 1.2, footprint_bytes: 64 * MIB, ..SyntheticSpec::default() };
    let mut hits: HashMap<u64, u64> = HashMap::new();
    for r in first(&spec, 50_000) {
        *hits.entry(r.offset / 4096).or_default() += 1;
    }
    let mut c: Vec<(u64, u64)> = hits.into_iter().map(|(p, n)| (n, p)).collect();
    c.sort_unstable_by(|a, b| b.cmp(a));
    let hot: Vec<u64> = c.iter().take(20).map(|e| e.1).collect();
    let adjacent = hot.iter().filter(|&&p| hot.contains(&(p + 1))).count();
    assert!(adjacent <= 1, "{adjacent} of the 20 hottest pages are neighbours: {hot:?}");
}

#[test]
fn sequentiality_probability_is_measured_back() {
    for (seq, streams) in [(0.0, 1), (0.4, 1), (0.8, 1), (0.5, 8)] {
        let spec = SyntheticSpec {
            sequential: seq,
            streams,
            size: SizeDist::Weighted(vec![(4096, 1.0), (32768, 1.0)]),
            footprint_bytes: 1 << 34,
            ..SyntheticSpec::default()
        };
        let reqs = first(&spec, 100_000);
        // With several streams a continuation follows its own stream's last
        // request, which may be a few requests back.
        let window = 8 * streams as usize;
        let follows = reqs
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(i, r)| reqs[i.saturating_sub(window)..*i].iter().any(|q| q.offset + q.size as u64 == r.offset))
            .count() as f64
            / (reqs.len() - 1) as f64;
        println!("sequential {seq} streams {streams}: {follows:.3} continue a previous request");
        assert!((follows - seq).abs() < 0.02, "sequential {seq}: {follows}");
    }
}

#[test]
fn toml_starts_from_a_profile_and_overrides() {
    let text = r#"
        profile = "mail"
        seed = 9
        requests = 1000
        [content]
        read_unique = 0.5
        [arrival]
        process = "constant"
        rate_per_s = 100
    "#;
    let spec = SyntheticSpec::from_toml(text).unwrap();
    let mail = profile("mail").unwrap();
    assert_eq!(spec.seed, 9);
    assert_eq!(spec.arrival, Arrival::Constant { rate_per_s: 100.0 });
    let c = spec.content.as_ref().unwrap();
    assert_eq!(c.read_unique, 0.5);
    assert_eq!(c.write_unique, mail.content.as_ref().unwrap().write_unique, "untouched keys keep the profile's");
    assert_eq!(spec.read_ratio, mail.read_ratio);
    assert_eq!(first(&spec, 2000).len(), 1000);
}

#[test]
fn toml_and_overrides_reject_bad_input_naming_the_key() {
    let key = |r: Result<SyntheticSpec, Error>| match r {
        Err(Error::Config { key, reason }) => format!("{key}: {reason}"),
        other => panic!("expected a config error, got {other:?}"),
    };
    assert!(key(SyntheticSpec::from_toml("profile = \"nope\"")).starts_with("profile:"));
    assert!(key(SyntheticSpec::from_toml("read_ratio = 2.0")).starts_with("read_ratio:"));
    assert!(key(SyntheticSpec::from_toml("bogus = 1")).contains("bogus"));
    assert!(key(SyntheticSpec::from_toml("[content]\nread_unique = 1.5")).starts_with("content.read_unique:"));
    let base = profile("hm").unwrap();
    assert!(key(apply_overrides(&base, &[("zipf_theta", "-1")])).starts_with("zipf_theta:"));
    assert!(key(apply_overrides(&base, &[("classes.write_only", "0.95")])).starts_with("classes.write_only:"));
    let ok = apply_overrides(&base, &[("arrival.rate_per_s", "500"), ("size", "[[4096, 1], [8192, 3]]")]).unwrap();
    assert_eq!(ok.arrival, Arrival::Poisson { rate_per_s: 500.0 });
    assert_eq!(ok.size, SizeDist::Weighted(vec![(4096, 1.0), (8192, 3.0)]));
}

#[test]
fn spec_round_trips_through_toml() {
    for (name, _) in profile_names() {
        let spec = profile(name).unwrap();
        let text = toml::to_string(&spec).unwrap();
        assert_eq!(SyntheticSpec::from_toml(&text).unwrap(), spec, "{name}:\n{text}");
    }
}
