//! Write saturation: requests that wait for a free page are woken by the
//! erase that can release them, not planned again after every erase, and
//! `stalls` counts waits (issue 32). Planned again after every erase, a
//! request waiting through n erases counted n stalls: the RAID run below
//! counted 4,036,970 for 37,620 written pages.

mod common;
use common::*;
use detour_core::config::ConfigBuilder;
use detour_core::sim::{NoProgress, Simulation};
use detour_core::workload::generator::Generator;
use detour_core::workload::profiles::profile;
use detour_core::{sim, IoKind};

/// `n` single-page requests every `gap_ns`, 80% writes over `pages` pages.
fn writes(n: u64, pages: u64, gap_ns: u64) -> Vec<detour_core::Request> {
    (0..n)
        .map(|i| {
            let kind = if i % 5 == 0 { IoKind::Read } else { IoKind::Write };
            req(i * gap_ns, (i * 7919) % pages, 1, kind)
        })
        .collect()
}

#[test]
fn a_stall_is_a_wait_not_a_retry() {
    // 1 die, 2 planes of 32 x 32 pages: writes every 20 µs outrun GC.
    let cfg = small(&[
        "device.channels=1",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "device.blocks_per_plane=32",
        "device.pages_per_block=32",
        "device.overprovisioning=0.25",
        "ftl.gc_threshold=0.1",
        "run.verify=true",
    ]);
    let r = sim::run_requests(cfg, &writes(20_000, 1500, 20_000)).unwrap();
    let s = &r.summary;
    assert_eq!(s.requests, 20_000);
    assert_eq!(s.verify_errors, 0, "{:?}", r.verify_failures);
    assert!(s.stalls > 0, "the writes outrun GC");
    // One page per request: each can start waiting once (a wait after
    // getting further would need a second page).
    assert!(s.stalls <= s.requests, "{} stalls for {} requests", s.stalls, s.requests);
}

/// The golden example's preconditioned CR4 run, 20,000 `bench-like`
/// requests on `small`: the stalls are bounded by the written pages.
#[test]
fn raid_stalls_are_bounded_by_the_pages_written() {
    // A list of schemes, of one for now: another is one more entry.
    #[allow(clippy::single_element_loop)]
    for scheme in ["cr4"] {
        let name = format!("scheme.name={scheme}");
        let cfg = ConfigBuilder::from_preset("small")
            .unwrap()
            .set_all([name.as_str(), "ftl.precondition.valid=0.5", "host.address=fold"])
            .unwrap()
            .build()
            .unwrap();
        let mut p = profile("bench-like").unwrap();
        p.requests = 20_000;
        let mut stream = Generator::new(&p).unwrap().map(Ok);
        let r = Simulation::new(cfg).unwrap().run(&mut stream, "bench-like", &mut NoProgress).unwrap();
        let s = &r.summary;
        assert_eq!(s.requests, 20_000);
        assert!(s.stalls > 0, "{scheme}: some writes wait");
        assert!(s.stalls <= s.pages.host_written, "{scheme}: {} stalls for {} pages", s.stalls, s.pages.host_written);
    }
}

/// The saturation benchmark's run (docs/benchmarks-log.md): `bench-like` at
/// 40,000 IOPS, 20% reads, on `small`, filled to its GC threshold first
/// so that a short run saturates.
fn saturated(scheme: &str, requests: u64) -> detour_core::metrics::Summary {
    let name = format!("scheme.name={scheme}");
    let cfg = ConfigBuilder::from_preset("small")
        .unwrap()
        .set_all([
            name.as_str(),
            "host.address=fold",
            "run.record_requests=false",
            "ftl.precondition.valid=0.5",
            "ftl.precondition.to_gc_threshold=true",
        ])
        .unwrap()
        .build()
        .unwrap();
    let mut p = profile("bench-like").unwrap();
    p.requests = requests;
    p.arrival = detour_core::workload::generator::Arrival::Poisson { rate_per_s: 40_000.0 };
    p.read_ratio = 0.2;
    let mut stream = Generator::new(&p).unwrap().map(Ok);
    Simulation::new(cfg).unwrap().run(&mut stream, "bench-like", &mut NoProgress).unwrap().summary
}

/// A write needing room on two plane groups at once (CR1's copy and its
/// mirror, TTFlash's data and parity, CR5M's data and mirror or parity)
/// waits until both have it. Passed from one group's queue to the other's
/// on every erase, as it once was, each waiter was taken off a queue once
/// per erase of either group: the visits grew with waiters x erases (and
/// with the run's length). Now a waiter is taken off a queue about once
/// per wait (CR1 here: 68 k visits for 57 k stalls over 2,700 erases).
#[test]
fn a_write_blocked_on_two_groups_is_not_passed_around_per_erase() {
    for scheme in ["cr1", "ttflash", "cr5m"] {
        let (a, b) = (saturated(scheme, 15_000), saturated(scheme, 30_000));
        assert!(b.stalls > 1000, "{scheme}: the run saturates ({} stalls)", b.stalls);
        for s in [&a, &b] {
            let bound = 2 * (s.stalls + s.requests);
            assert!(s.park_visits <= bound, "{scheme}: {} queue visits for {} stalls", s.park_visits, s.stalls);
        }
        // Per wait, not per erase: the longer run's thousands more erases
        // leave the visits per wait about where they were.
        let per = |s: &detour_core::metrics::Summary| s.park_visits as f64 / (s.stalls + s.requests) as f64;
        assert!(per(&b) < 1.3 * per(&a), "{scheme}: {:.2} visits per wait, then {:.2}", per(&a), per(&b));
    }
}
