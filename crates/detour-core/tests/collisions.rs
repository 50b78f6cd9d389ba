//! Read-collision accounting and the collision-replication scheme
//! (docs/schemes/collisions.md): hand-worked cases, the RR8 random-read
//! baseline (expected ratio analytic vs simulated), the scheme on planted
//! patterned pairs, verify mode and determinism.

mod common;
use detour_core::config::{Config, ConfigBuilder};
use detour_core::metrics::CollisionSummary;
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
