//! Read-collision accounting and the collision-replication scheme
//! (docs/schemes/collisions.md): hand-worked cases, the RR8 random-read
//! baseline (expected ratio analytic vs simulated), the scheme on planted
//! patterned pairs, verify mode and determinism.

mod common;
use detour_core::config::{Config, ConfigBuilder};
use detour_core::metrics::CollisionSummary;
use detour_core::workload::generator::Generator;
use detour_core::workload::profiles::{apply_overrides, profile};
use detour_core::workload::Request;
use detour_core::{sim, IoKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The paper's device (Table 4), with collision accounting on.
fn paper(overrides: &[&str]) -> Config {
    ConfigBuilder::from_preset("collisions")
        .unwrap()
        .set_all(["metrics.collisions=true"].into_iter().chain(overrides.iter().copied()))
        .unwrap()
        .build()
        .unwrap()
}

fn coll(r: &sim::RunResult) -> &CollisionSummary {
    r.summary.collisions.as_ref().expect("collisions section")
}

/// RR8: 4 KiB reads of uniformly random pages, all arriving at once and
/// admitted eight at a time (a closed loop at OCC 8 on 16 dies).
fn rr8(n: usize, seed: u64, page_bytes: u64, pages: u64) -> Vec<Request> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| Request {
            time_ns: 0,
            offset: rng.random_range(0..pages) * page_bytes,
            size: 4096,
            kind: IoKind::Read,
            content: 0,
            volume: 0,
            line: i as u64 + 1,
        })
        .collect()
}

#[test]
fn rr8_measured_against_expected() {
    let cfg = paper(&["host.queue_depth=8"]);
    let r = sim::run_requests(cfg, &rr8(40_000, 5, 16384, 1 << 22)).unwrap();
    let c = coll(&r);
    eprintln!("{}", serde_json::to_string_pretty(c).unwrap().lines().filter(|l| !l.starts_with("    ")).collect::<Vec<_>>().join("\n"));
    assert_eq!(c.reads, 40_000);
    // The Monte Carlo simulation of random placement agrees with its formula.
    assert!((c.expected_ratio_simulated - c.expected_ratio).abs() < 0.01, "{c:?}");
    // RR8 is itself a random workload: measured within 10% of expected
    // (the paper's Fig. 3 shows 1.0 "with a marginal error range").
    assert!((0.9..1.1).contains(&c.measured_to_expected), "{c:?}");
    assert!((c.time_share_colliding - c.expected_time_share).abs() < 0.05, "{c:?}");
    // Idle dies always exist at OCC 8 on 16 dies: every collision is imbalanced.
    assert_eq!(c.imbalanced, c.collisions);
    // Random pairs (almost) never repeat.
    assert!(c.mean_repetition < 1.05, "{c:?}");
    assert!((7.0..=8.0).contains(&c.mean_read_occ), "{c:?}");
}

fn profile_reqs(name: &str, n: u64, extra: &[(&str, &str)]) -> Vec<Request> {
    let mut o: Vec<(&str, &str)> = vec![];
    let n = n.to_string();
    o.push(("requests", &n));
    o.extend_from_slice(extra);
    let spec = apply_overrides(&profile(name).unwrap(), &o).unwrap();
    Generator::new(&spec).unwrap().collect()
}

fn lat(r: &sim::RunResult) -> (f64, f64) {
    (r.summary.latency_us.read.mean, r.summary.latency_us.read.p99)
}

fn counter(r: &sim::RunResult, key: &str) -> f64 {
    r.summary.scheme_counters.get(key).copied().unwrap_or(0.0)
}

/// rc-6/rc-7 in small: on planted patterned pairs the scheme replicates,
/// removes a large share of imbalanced collisions and lowers mean and p99
/// read latency; verify mode stays clean.
#[test]
fn scheme_removes_patterned_collisions() {
    let reqs = profile_reqs("msr-patterned", 100_000, &[]);
    let base = sim::run_requests(paper(&["run.verify=true"]), &reqs).unwrap();
    let repl = sim::run_requests(paper(&["run.verify=true", "scheme.name=collisions"]), &reqs).unwrap();
    let (b, c) = (coll(&base), coll(&repl));
    eprintln!(
        "conventional: imbalanced {} ratio {:.3} mean/p99 {:?} write {:.1}\ncollisions:   imbalanced {} ratio {:.3} mean/p99 {:?} write {:.1} repl {} replica reads {}",
        b.imbalanced, b.collision_ratio, lat(&base), base.summary.latency_us.write.mean,
        c.imbalanced, c.collision_ratio, lat(&repl), repl.summary.latency_us.write.mean,
        counter(&repl, "collisions.replications"), counter(&repl, "collisions.replica_reads")
    );
    eprintln!("{:?}", repl.summary.scheme_counters);
    assert_eq!(base.summary.verify_errors, 0);
    assert_eq!(repl.summary.verify_errors, 0, "{:?}", repl.verify_failures);
    assert!(counter(&repl, "collisions.replications") > 0.0);
    assert!(c.imbalanced as f64 <= 0.9 * b.imbalanced as f64, "imbalanced {} -> {}", b.imbalanced, c.imbalanced);
    let ((bm, bp), (cm, cp)) = (lat(&base), lat(&repl));
    assert!(cm < bm && cp < bp, "read latency {bm}/{bp} -> {cm}/{cp}");
    // The accounting is the same with or without the scheme: same reads.
    assert_eq!(b.reads, c.reads);
}

/// On uniformly random reads there is nothing to gain: the scheme costs
/// under 1% of mean read latency (the paper's worst case was about +1%).
#[test]
fn scheme_costs_little_on_random_reads() {
    let reqs = profile_reqs("msr-random", 100_000, &[]);
    let base = sim::run_requests(paper(&[]), &reqs).unwrap();
    let repl = sim::run_requests(paper(&["scheme.name=collisions"]), &reqs).unwrap();
    let (bm, cm) = (lat(&base).0, lat(&repl).0);
    assert!(cm <= bm * 1.01, "mean read latency {bm} -> {cm}");
    assert!(counter(&repl, "collisions.replications") < 20.0, "{:?}", repl.summary.scheme_counters);
}

#[test]
fn metric_is_deterministic_and_does_not_change_the_run() {
    let reqs = profile_reqs("msr-patterned", 20_000, &[]);
    let on = |o: &[&str]| sim::run_requests(paper(o), &reqs).unwrap();
    let (a, b) = (on(&["scheme.name=collisions"]), on(&["scheme.name=collisions"]));
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.collision_pairs, b.collision_pairs);
    let cfg = ConfigBuilder::from_preset("collisions").unwrap().set_all(["scheme.name=collisions"]).unwrap().build().unwrap();
    let off = sim::run_requests(cfg, &reqs).unwrap();
    assert!(off.summary.collisions.is_none() && off.collision_pairs.is_empty());
    assert_eq!(off.summary.latency_us, a.summary.latency_us);
    assert_eq!(off.summary.scheme_counters, a.summary.scheme_counters);
    // Pairs come out most repeated first and add up to the summary.
    let c = coll(&a);
    assert!(a.collision_pairs.windows(2).all(|w| w[0].count >= w[1].count));
    assert_eq!(a.collision_pairs.iter().map(|p| p.count as u64).sum::<u64>(), c.pair_occurrences);
    assert_eq!(a.collision_pairs.len() as u64, c.imbalanced_pairs);
}

fn read_at(t: u64, page: u64) -> Request {
    Request { time_ns: t, offset: page * 4096, size: 4096, kind: IoKind::Read, content: 0, volume: 0, line: 0 }
}

/// Worked by hand on `small` (16 dies; LPN % 16 picks the die): three reads
/// of pages 0, 16, 32 (one die) at once, then a lone read of page 1 later.
/// Page 16 and 32 collide (imbalanced: every other die idle); pairs
/// <0,16>, <0,32>, <16,32> once each.
#[test]
fn hand_worked_collisions_through_the_simulator() {
    let cfg = ConfigBuilder::from_preset("small")
        .unwrap()
        .set_all(["metrics.collisions=true", "scheduler.multiplane=false"])
        .unwrap()
        .build()
        .unwrap();
    let reqs = vec![read_at(0, 0), read_at(0, 16), read_at(0, 32), read_at(10_000_000, 1)];
    let r = sim::run_requests(cfg, &reqs).unwrap();
    let c = coll(&r);
    assert_eq!((c.reads, c.collisions, c.imbalanced), (4, 2, 2));
    let pairs: Vec<(u32, u32, u32)> = r.collision_pairs.iter().map(|p| (p.lpn_a, p.lpn_b, p.count)).collect();
    assert_eq!(pairs, vec![(0, 16, 1), (0, 32, 1), (16, 32, 1)]);
    assert_eq!(c.mean_read_occ, (1.0 + 2.0 + 3.0 + 1.0) / 4.0);
    assert_eq!(c.expected_ratio, (0.0 + (1.0 - 15.0 / 16.0) + (1.0 - (15.0f64 / 16.0).powi(2)) + 0.0) / 4.0);
    assert_eq!(c.reads_per_die.iter().sum::<u64>(), 4);
}

/// Pairs read back to back on a tiny device under GC pressure, with writes
/// to pair pages and an l_M of a few pages: replicas are made, read, dropped
/// by writes and evicted (both copies kept at times), and every read
/// returns the latest data.
#[test]
fn replicas_verify_clean_under_gc_and_eviction() {
    let o = [
        "run.verify=true",
        "scheme.name=collisions",
        "scheme.collisions.l_m=0.0008",
        "scheme.collisions.l_r=8",
        "device.blocks_per_plane=32",
        "device.pages_per_block=32",
        "device.overprovisioning=0.2",
        "metrics.collisions=true",
        "ftl.precondition.valid=0.5",
        "ftl.precondition.to_gc_threshold=true",
    ];
    let cfg = ConfigBuilder::from_preset("small").unwrap().set_all(o).unwrap().build().unwrap();
    let logical = cfg.device.channels as u64 * 2 * 2 * 2 * 32 * 32 * 8 / 10;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut reqs, mut t) = (Vec::new(), 0u64);
    for i in 0..30_000u64 {
        t += rng.random_range(0..60_000);
        let a = rng.random_range(0..40u64) * 16 + rng.random_range(0..16);
        if rng.random_range(0..4) == 0 {
            let page = if rng.random_range(0..3) == 0 { a } else { rng.random_range(0..logical) };
            reqs.push(Request { kind: IoKind::Write, line: i, ..read_at(t, page) });
        } else {
            reqs.push(read_at(t, a));
            reqs.push(read_at(t, a + 16 * 41));
        }
    }
    let r = sim::run_requests(cfg, &reqs).unwrap();
    let s = &r.summary;
    assert_eq!(s.verify_errors, 0, "{:?}", r.verify_failures);
    assert!(s.gc.runs > 0);
    eprintln!("{:?}", s.scheme_counters);
    for key in ["collisions.replications", "collisions.replica_reads", "collisions.replicas_dropped_by_write"] {
        assert!(counter(&r, key) > 0.0, "{key}: {:?}", s.scheme_counters);
    }
    assert!(counter(&r, "collisions.evicted_kept_replica") + counter(&r, "collisions.evicted_kept_original") > 0.0);
}

/// Wall time of one run with the collision accounting off and on (the
/// "costs nothing when off" claim): `... --ignored --nocapture overhead`.
#[test]
#[ignore]
fn overhead() {
    let reqs = profile_reqs("msr-random", 300_000, &[]);
    let cfg = |on: bool| {
        ConfigBuilder::from_preset("collisions").unwrap().set_all([format!("metrics.collisions={on}").as_str()]).unwrap().build().unwrap()
    };
    for on in [false, true, false, true] {
        let t = std::time::Instant::now();
        sim::run_requests(cfg(on), &reqs).unwrap();
        eprintln!("metrics.collisions={on}: {:.3} s", t.elapsed().as_secs_f64());
    }
}

/// The numbers docs/schemes/collisions.md reports (rc-1, rc-5..rc-8 in
/// small): `cargo test -p detour-core --test collisions report -- --ignored --nocapture`.
#[test]
#[ignore]
fn report() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 3] = [
        ("msr-patterned", "msr-patterned", &[]),
        ("msr-patterned, 200 pairs", "msr-patterned", &[("pairs.count", "200")]),
        ("msr-random", "msr-random", &[]),
    ];
    for (profile_name, profile_id, extra) in cases {
        let reqs = profile_reqs(profile_id, 500_000, extra);
        let base = sim::run_requests(paper(&[]), &reqs).unwrap();
        let b = coll(&base);
        let (bm, bp) = lat(&base);
        eprintln!(
            "{profile_name}: ops {} occ {:.2} expected {:.3} (sim {:.3}) measured {:.3} m/e {:.2} imbalanced share {:.3} pairs {} mean rep {:.2} top5% {:.2} rsd {:.3} time-share {:.3}/{:.3}",
            b.reads, b.mean_occ, b.expected_ratio, b.expected_ratio_simulated, b.collision_ratio, b.measured_to_expected,
            b.imbalanced_share, b.imbalanced_pairs, b.mean_repetition, b.top5pct_pair_share, b.reads_rsd,
            b.time_share_colliding, b.expected_time_share
        );
        eprintln!(
            "  conventional: imbalanced {} read mean {bm:.2} p99 {bp:.1} write mean {:.2}",
            b.imbalanced, base.summary.latency_us.write.mean
        );
        for (l_r, l_m) in [
            ("5", "0.002"),
            ("1", "0.002"),
            ("2", "0.002"),
            ("10", "0.002"),
            ("100", "0.002"),
            ("5", "0.0000001"),
            ("5", "0.00001"),
            ("5", "0.02"),
        ] {
            let a = format!("scheme.collisions.l_r={l_r}");
            let m = format!("scheme.collisions.l_m={l_m}");
            let r = sim::run_requests(paper(&["scheme.name=collisions", &a, &m]), &reqs).unwrap();
            let c = coll(&r);
            let (mm, mp) = lat(&r);
            eprintln!(
                "  l_R {l_r:>3} l_M {l_m:>9}: imbalanced {} ({:+.1}%) read mean {mm:.2} ({:+.2}%) p99 {mp:.1} ({:+.1}%) write mean {:+.3}% (0 = no writes) repl {} evicted {}",
                c.imbalanced,
                100.0 * (c.imbalanced as f64 / b.imbalanced as f64 - 1.0),
                100.0 * (mm / bm - 1.0),
                100.0 * (mp / bp - 1.0),
                if base.summary.writes > 0 { 100.0 * (r.summary.latency_us.write.mean / base.summary.latency_us.write.mean - 1.0) } else { 0.0 },
                counter(&r, "collisions.replications"),
                counter(&r, "collisions.evicted_kept_replica") + counter(&r, "collisions.evicted_kept_original")
            );
        }
    }
}

/// The layer composes: over HotR, TTFlash and CR5 (with a die failing) it
/// still replicates patterned pages, serves reads from replicas and returns
/// the latest data; the inner scheme's counters are reported too.
#[test]
fn layer_composes_with_other_schemes() {
    let reqs = profile_reqs("msr-patterned", 30_000, &[]);
    let bases: [&[&str]; 5] = [
        &["scheme.collisions.base=hotr"],
        // The deduplicating FTLs keep their own LPN -> value -> page tables
        // (the layer finds pages through `Scheme::page_of` / `holds`).
        &["scheme.collisions.base=ca-ssd"],
        &["scheme.collisions.base=rr-ssd", "scheme.dedup.period_s=1"],
        &["scheme.collisions.base=ttflash", "host.address=fold"],
        &[
            "scheme.collisions.base=cr5",
            "host.address=fold",
            "scheme.raid.fail_unit=die",
            "scheme.raid.fail_index=3",
            "scheme.raid.fail_at_us=200000",
        ],
    ];
    for extra in bases {
        let mut o = vec!["run.verify=true", "scheme.name=collisions"];
        o.extend_from_slice(extra);
        let r = sim::run_requests(paper(&o), &reqs).unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        assert_eq!(r.summary.verify_errors, 0, "{extra:?}: {:?}", r.verify_failures);
        assert!(counter(&r, "collisions.replications") > 0.0, "{extra:?}: {:?}", r.summary.scheme_counters);
        assert!(counter(&r, "collisions.replica_reads") > 0.0, "{extra:?}: {:?}", r.summary.scheme_counters);
        assert!(r.summary.scheme_counters.len() > 10, "inner counters missing: {extra:?}");
    }
}

#[test]
fn bad_collision_keys_name_the_key() {
    let build = |kv: &str| ConfigBuilder::from_preset("collisions").unwrap().set_all([kv]).and_then(|b| b.build());
    for (kv, key) in [
        ("scheme.collisions.base=nope", "scheme.collisions.base"),
        ("scheme.collisions.base=collisions", "scheme.collisions.base"),
        ("scheme.collisions.l_m=0.9", "scheme.collisions.l_m"),
        ("scheme.collisions.l_r=-1", "scheme.collisions.l_r"),
        ("scheme.collisions.bogus=1", "scheme.collisions.bogus"),
        ("metrics.foo=true", "metrics.foo"),
    ] {
        let e = build(kv).err().unwrap_or_else(|| panic!("{kv} accepted")).to_string();
        assert!(e.contains(key), "{kv}: {e}");
    }
    // The inner scheme's own requirements hold under the layer.
    let layered = |kv: &[&str]| ConfigBuilder::from_preset("collisions").unwrap().set_all(kv.iter().copied()).and_then(|b| b.build());
    for (kv, key) in [
        (&["scheme.name=collisions", "scheme.collisions.base=cr1", "device.channels=3"][..], "device.channels"),
        (&["scheme.name=collisions", "scheme.collisions.base=cr5m"][..], "device.chips_per_channel"),
    ] {
        let e = layered(kv).err().unwrap_or_else(|| panic!("{kv:?} accepted")).to_string();
        assert!(e.contains(key), "{kv:?}: {e}");
    }
}

/// The cost term's read rate over a recent window (`scheme.collisions.rate
/// = "recent"`): on a bursty volume the lifetime average counts the idle
/// gaps, so replicas look cheaper than during the burst they are made in;
/// over the last 10 ms r is the burst's rate and the scheme replicates less.
/// Both stay verify-clean; an unknown mode is refused naming the key.
#[test]
fn recent_read_rate_prices_replicas_at_the_bursts_rate() {
    // A bursty volume whose reads are mostly planted same-die pairs, 16 KiB
    // each (HM1's shape before its sequential runs): the replicas are then
    // decided inside bursts, where the two rates differ most.
    let reqs = profile_reqs(
        "msr-hm1",
        60_000,
        &[
            ("size", "16384"),
            ("sequential", "0.1"),
            ("pairs.read_share", "0.9"),
            ("pairs.count", "58"),
            ("pairs.theta", "0.657217"),
            ("footprint_bytes", "9699328"),
            ("arrival.rate_per_s", "44224.7"),
            // And its writes on the read pages, as then (before session 38).
            ("writes", "{ region = \"shared\" }"),
        ],
    );
    let run = |o: &[&str]| sim::run_requests(paper(&[&["run.verify=true", "scheme.name=collisions"], o].concat()), &reqs).unwrap();
    let life = run(&[]);
    let recent = run(&["scheme.collisions.rate=recent"]);
    let (nl, nr) = (counter(&life, "collisions.replications_decided"), counter(&recent, "collisions.replications_decided"));
    eprintln!("replications decided: lifetime {nl}, recent {nr}");
    assert_eq!(life.summary.verify_errors + recent.summary.verify_errors, 0);
    assert!(nl > 0.0 && nr < nl, "lifetime {nl}, recent {nr}");
    // A window longer than the run is the lifetime rate over the run so far.
    let long = run(&["scheme.collisions.rate=recent", "scheme.collisions.rate_window_ms=1e9"]);
    assert_eq!(counter(&long, "collisions.replications_decided"), nl);
    let e = ConfigBuilder::from_preset("collisions").unwrap().set("scheme.collisions.rate", "weekly").map(|b| b.build());
    let msg = match e {
        Err(e) | Ok(Err(e)) => e.to_string(),
        Ok(Ok(_)) => panic!("an unknown rate mode was accepted"),
    };
    assert!(msg.contains("scheme.collisions.rate"), "{msg}");
}
