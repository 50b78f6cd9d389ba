//! Garbage collection under pressure, preconditioning, and a full device.

mod common;
use common::*;
use detour_core::config::Config;
use detour_core::config::ConfigBuilder;
use detour_core::{sim, IoKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// 1 channel, 1 chip, 1 die, 2 planes of 32 blocks of 32 pages (2048 pages),
/// so a few thousand writes force GC.
fn tiny(extra: &[&str]) -> Config {
    let mut o = vec![
        "device.channels=1",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "device.planes_per_die=2",
        "device.blocks_per_plane=32",
        "device.pages_per_block=32",
        "device.overprovisioning=0.25",
        "ftl.gc_threshold=0.1",
        "run.verify=true",
    ];
    o.extend_from_slice(extra);
    small(&o)
}

fn random_mix(n: usize, pages: u64, read_ratio: f64, gap_ns: u64, seed: u64) -> Vec<detour_core::Request> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let kind = if rng.random::<f64>() < read_ratio { IoKind::Read } else { IoKind::Write };
            let p = rng.random_range(0..pages);
            let mut r = req(i as u64 * gap_ns, p, 1, kind);
            r.line = i as u64 + 1;
            r
        })
        .collect()
}

#[test]
fn gc_pressure_loses_no_request_and_no_data() {
    let cfg = tiny(&[]);
    let logical = 2048 * 3 / 4;
    let reqs = random_mix(30_000, logical, 0.3, 20_000, 1);
    let r = sim::run_requests(cfg, &reqs).unwrap();
    let s = &r.summary;
    assert_eq!(s.requests, 30_000, "every request completes");
    assert_eq!(s.verify_errors, 0, "{:?}", r.verify_failures);
    assert!(s.gc.runs > 100, "GC ran {} times", s.gc.runs);
    assert!(s.gc.moves > 0);
    assert!(s.gc.write_amplification > 1.0);
    assert!(s.gc.erase_count_max > 0);
    assert!(s.stalls > 0, "the write rate outruns GC, so some writes wait for an erase");
}

#[test]
fn gc_is_deterministic() {
    let reqs = random_mix(10_000, 1500, 0.3, 30_000, 2);
    let a = sim::run_requests(tiny(&[]), &reqs).unwrap();
    let b = sim::run_requests(tiny(&[]), &reqs).unwrap();
    assert_eq!(serde_json::to_string(&a.summary).unwrap(), serde_json::to_string(&b.summary).unwrap());
}

#[test]
fn preconditioning_makes_gc_active_from_the_first_requests() {
    let cfg = tiny(&["ftl.precondition.valid=0.5", "ftl.precondition.to_gc_threshold=true"]);
    // 200 writes: far fewer than the free space of a fresh device.
    let reqs = random_mix(200, 700, 0.0, 200_000, 3);
    let r = sim::run_requests(cfg, &reqs).unwrap();
    assert!(r.summary.gc.runs > 0, "GC should start within the first writes");
    // Filling to the threshold overwrites more pages than are valid here;
    // the device must still be aged, not a run of wholly stale blocks that
    // GC reclaims without moving a page.
    assert!(r.summary.gc.moves > 0, "GC moved no page in {} runs", r.summary.gc.runs);
    assert!(r.summary.gc.write_amplification > 1.0);
    let fresh = sim::run_requests(tiny(&[]), &reqs).unwrap();
    assert_eq!(fresh.summary.gc.runs, 0);
    // Preconditioning itself is not counted in the results.
    assert_eq!(r.summary.pages.host_written, 200);
}

#[test]
fn preconditioned_data_reads_back_correctly() {
    let cfg = tiny(&["ftl.precondition.valid=0.6", "ftl.precondition.invalid=0.2"]);
    let reqs = random_mix(5_000, 900, 0.8, 50_000, 4);
    let r = sim::run_requests(cfg, &reqs).unwrap();
    assert_eq!(r.summary.verify_errors, 0);
    assert_eq!(r.summary.requests, 5_000);
    // LPNs below 60% of the logical space were written by preconditioning,
    // so only reads above it are placed on first read.
    assert!(r.summary.pages.placed_on_read < 900);
}

#[test]
fn impossible_preconditioning_names_the_key() {
    let err = Config::from_toml_str("[ftl.precondition]\nvalid = 1.0\ninvalid = 0.5\n").unwrap_err();
    assert!(err.to_string().contains("ftl.precondition.invalid"), "{err}");
}

/// No over-provisioning: GC could never reclaim a page, and the run used
/// to stop partway (or, with a tick, tick on); it is refused up front.
/// Stalls the check cannot foresee end with a report (tests/stalls.rs).
#[test]
fn a_device_with_no_room_for_gc_is_refused() {
    for op in ["0.0", "0.02"] {
        let o = format!("device.overprovisioning={op}");
        let err = ConfigBuilder::from_preset("small")
            .unwrap()
            .set_all(TINY.iter().copied())
            .unwrap()
            .set_all([o.as_str()])
            .unwrap()
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("device.overprovisioning"), "{err}");
    }
}

/// Reads queued behind writes (FIFO dies) pin blocks; when every GC candidate
/// of a plane is pinned, GC must try again as the pins go, or parked writes
/// wait forever. Without that retry this run stranded over 4,000 requests.
#[test]
fn gc_resumes_when_pinned_victims_are_released() {
    let cfg = small(&[&STRESS_DEVICE[..], &["scheduler.read_priority=false", "scheduler.multiplane=false"]].concat());
    let reqs = stress(0, 8 * 32 * 32 * 8 / 10 / 2);
    let r = sim::run_requests(cfg, &reqs).unwrap();
    assert_eq!(r.summary.requests, 12_000);
    assert_eq!(r.summary.verify_errors, 0);
}

/// A scheme that writes more than the host fills some planes first: CR4's
/// parity channel takes five programs for every one on a data channel of
/// six. Preconditioning collects a plane that fills up (no simulated time)
/// and goes on; every page it wrote, moved or not, reads back its token.
#[test]
fn preconditioning_collects_planes_that_fill_up() {
    let o = |valid: &'static str| {
        small(&[
            "run.verify=true",
            "device.channels=6",
            "device.chips_per_channel=1",
            "device.dies_per_chip=1",
            "device.planes_per_die=2",
            "device.blocks_per_plane=32",
            "device.pages_per_block=32",
            "device.overprovisioning=0.2",
            "host.address=fold",
            "scheme.name=cr4",
            valid,
        ])
    };
    // Reads of every preconditioned page, then some writes.
    let logical = 5 * 2 * 32 * 32 * 8 / 10 * 6 / 10;
    let mut reqs: Vec<_> = (0..logical as u64).map(|p| req(p * 50_000, p, 1, IoKind::Read)).collect();
    reqs.extend((0..2000u64).map(|i| req(logical as u64 * 50_000 + i * 200_000, (i * 7) % logical as u64, 1, IoKind::Write)));
    let r = sim::run_requests(o("ftl.precondition.valid=0.6"), &reqs).unwrap();
    assert_eq!(r.summary.requests, reqs.len() as u64);
    assert_eq!(r.summary.verify_errors, 0, "{:?}", r.verify_failures);
    assert!(r.summary.pages.placed_on_read <= 5, "the read pages were preconditioned: {}", r.summary.pages.placed_on_read);
}

/// Says stop at its `stop_at`-th preconditioning report.
struct StopAt {
    stop_at: u64,
    reports: Vec<(u64, u64)>,
}

impl sim::Progress for StopAt {
    fn update(&mut self, _: u64, _: u64) -> bool {
        true
    }
    fn precondition(&mut self, done: u64, total: u64) -> bool {
        self.reports.push((done, total));
        (self.reports.len() as u64) < self.stop_at
    }
}

fn precondition_with(p: &mut StopAt) -> detour_core::Result<sim::RunResult> {
    let cfg = small(&["ftl.precondition.valid=0.5", "ftl.precondition.to_gc_threshold=true"]);
    let reqs = random_mix(100, 1000, 0.5, 100_000, 9);
    let mut it = reqs.into_iter().map(Ok);
    sim::Simulation::new(cfg)?.run(&mut it, "test", p)
}

#[test]
fn preconditioning_stops_when_asked_in_either_pass() {
    let mut all = StopAt { stop_at: u64::MAX, reports: vec![] };
    precondition_with(&mut all).unwrap();
    // Both passes report (the fill up to the valid pages, the overwrites past them).
    let fill_total = all.reports[0].1;
    let first_overwrite = all.reports.iter().position(|r| r.0 >= fill_total).expect("the overwrites report");
    assert!(first_overwrite > 1, "{:?}", all.reports);
    for stop_at in [2, first_overwrite as u64 + 1] {
        let mut p = StopAt { stop_at, reports: vec![] };
        let err = precondition_with(&mut p).unwrap_err();
        assert!(matches!(err, detour_core::Error::Interrupted { .. }), "{err}");
        assert_eq!(p.reports, all.reports[..stop_at as usize], "stopped at the report that said so");
    }
}

/// Preconditioning sees no load, so dynamic allocation used to put every
/// page on die 0 and the device "filled up" at a share of its space. Now
/// the pages spread over every die, and the run reads them back.
#[test]
fn dynamic_allocation_preconditions_every_die() {
    let cfg = small(&["ftl.allocation=dynamic", "ftl.precondition.valid=0.5", "ftl.precondition.to_gc_threshold=true", "run.verify=true"]);
    let dies = detour_core::device::Geometry::from_config(&cfg.device).unwrap().dies();
    let reqs = random_mix(4000, 1 << 16, 0.7, 20_000, 9);
    let r = sim::run_requests(cfg, &reqs).expect("preconditioning with dynamic allocation fits");
    assert_eq!(r.summary.requests, 4000);
    assert_eq!(r.summary.verify_errors, 0);
    let reads = &r.summary.dies.reads;
    assert_eq!(reads.len() as u32, dies);
    assert!(reads.iter().all(|&n| n > 0), "every die holds data: {reads:?}");
}

#[test]
fn every_gc_victim_policy_loses_nothing_and_they_differ() {
    // A skewed overwrite stream: a hot tenth of the pages takes most writes,
    // so blocks age differently and the policies choose differently.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let reqs: Vec<_> = (0..12_000u64)
        .map(|i| {
            let p = if rng.random::<f64>() < 0.8 { rng.random_range(0..120) } else { rng.random_range(120..1200) };
            let kind = if rng.random::<f64>() < 0.3 { IoKind::Read } else { IoKind::Write };
            req(i * 60_000, p, 1, kind)
        })
        .collect();
    let mut wa = Vec::new();
    for policy in ["greedy", "cost-benefit", "random", "fifo"] {
        let p = format!("ftl.gc_policy={policy}");
        let r = sim::run_requests(tiny(&[&p, "ftl.gc_choices=2"]), &reqs).unwrap_or_else(|e| panic!("{policy}: {e}"));
        assert_eq!(r.summary.requests, 12_000, "{policy}");
        assert_eq!(r.summary.verify_errors, 0, "{policy}");
        assert!(r.summary.gc.runs > 50, "{policy}: {}", r.summary.gc.runs);
        wa.push((policy, r.summary.gc.write_amplification));
    }
    // Greedy beats FIFO and two random choices on write amplification;
    // cost-benefit, which lets hot blocks age, differs from it (on this
    // hot/cold split it does a little better, as in LFS's cleaner).
    let (greedy, cb, random, fifo) = (wa[0].1, wa[1].1, wa[2].1, wa[3].1);
    assert!(fifo > greedy * 1.05 && random > greedy * 1.05, "{wa:?}");
    assert!((cb - greedy).abs() > greedy * 0.001, "{wa:?}");
}

#[test]
fn wear_leaves_unequal_erase_counts_and_headroom_keeps_gc_off_the_first_writes() {
    // Wear: two devices' worth of overwrites, GC collecting as it goes.
    let worn = ["ftl.precondition.valid=0.5", "ftl.precondition.wear=2"];
    let reqs = random_mix(200, 700, 0.0, 200_000, 5);
    let r = sim::run_requests(tiny(&worn), &reqs).unwrap();
    let g = &r.summary.gc;
    assert!(g.erase_count_mean > 1.0 && g.erase_count_max > g.erase_count_min, "{g:?}");
    // Worn planes end at their GC trigger, so the first writes collect.
    assert!(g.runs > 0, "{g:?}");
    // Idle-time GC catching up: 6 blocks above the trigger hold the 200 writes.
    let room = sim::run_requests(tiny(&[&worn[..], &["ftl.precondition.headroom_blocks=6"]].concat()), &reqs).unwrap();
    assert_eq!(room.summary.gc.runs, 0, "{:?}", room.summary.gc);
    assert!(room.summary.gc.erase_count_mean >= g.erase_count_mean - 1.0);
    // Data written before and during survives both.
    let mixed = random_mix(3_000, 700, 0.7, 50_000, 6);
    let r = sim::run_requests(tiny(&[&worn[..], &["ftl.precondition.headroom_blocks=6"]].concat()), &mixed).unwrap();
    assert_eq!(r.summary.verify_errors, 0, "{:?}", r.verify_failures);
}

#[test]
fn headroom_beyond_the_plane_names_the_key() {
    let err = Config::from_toml_str("[device]\nblocks_per_plane = 64\n[ftl.precondition]\nheadroom_blocks = 60\n").unwrap_err();
    assert!(err.to_string().contains("ftl.precondition.headroom_blocks"), "{err}");
}

/// Writes that go 90% of the time to the first tenth of `pages`: the skew
/// that leaves blocks unlike uniform overwrites do.
fn skewed_writes(n: usize, pages: u64, seed: u64) -> Vec<detour_core::Request> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let kind = if rng.random::<f64>() < 0.3 { IoKind::Read } else { IoKind::Write };
            let p = if rng.random::<f64>() < 0.9 { rng.random_range(0..pages / 10) } else { rng.random_range(0..pages) };
            let mut r = req(i as u64 * 60_000, p, 1, kind);
            r.line = i as u64 + 1;
            r
        })
        .collect()
}

#[test]
fn steady_writes_start_a_short_run_where_a_long_one_settles() {
    let reqs = skewed_writes(4_000, 1400, 9);
    let wa = |steady: &str| {
        let cfg = tiny(&["ftl.precondition.valid=0.9", "ftl.precondition.to_gc_threshold=true", steady]);
        let r = sim::run_requests(cfg, &reqs).unwrap();
        assert_eq!(r.summary.verify_errors, 0, "{:?}", r.verify_failures);
        assert_eq!(r.summary.requests, 4_000);
        r.summary.gc.write_amplification
    };
    let (fresh, settled, longer) =
        (wa("ftl.precondition.steady_writes=0"), wa("ftl.precondition.steady_writes=4"), wa("ftl.precondition.steady_writes=12"));
    assert!((settled / longer - 1.0).abs() < 0.05, "4 and 12 logical spaces of replay settle alike: {settled} vs {longer}");
    assert!((fresh / longer - 1.0).abs() > 0.10, "uniform overwrites alone leave another mix: {fresh} vs {longer}");
}

#[test]
fn steady_writes_name_the_key_without_a_replay_or_a_write() {
    let cfg = tiny(&["ftl.precondition.steady_writes=1"]);
    let reqs = skewed_writes(100, 1000, 3);
    let err = sim::run(cfg.clone(), reqs.iter().map(|r| Ok(*r))).unwrap_err();
    assert!(err.to_string().contains("ftl.precondition.steady_writes") && err.to_string().contains("set_replay"), "{err}");
    let reads: Vec<_> = reqs.iter().filter(|r| r.kind == IoKind::Read).copied().collect();
    let err = sim::run_requests(cfg.clone(), &reads).unwrap_err();
    assert!(err.to_string().contains("no writes to replay"), "{err}");
    // One page a pass: 1,536 passes for the logical space, past the bound.
    let one = [req(0, 5, 1, IoKind::Write), req(1_000, 5, 1, IoKind::Read)];
    let err = sim::run_requests(cfg, &one).unwrap_err();
    assert!(err.to_string().contains("writes 1 page(s)") && err.to_string().contains("passes (at most 1000)"), "{err}");
}
