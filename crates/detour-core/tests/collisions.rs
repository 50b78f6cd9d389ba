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
}
