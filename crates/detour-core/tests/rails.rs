//! Rails in-drive (docs/schemes/rails.md): both copies converge across
//! frequent role swaps under GC pressure, reads never see stale data, and
//! reads stay off the writing half.

mod common;
use common::*;
use detour_core::sim;

// The stress workload (tests/common) has a hot set of 300 pages and
// multi-page requests, half writes: reads often hit pages whose read-half
// copy is stale or still being flushed.

#[test]
fn copies_converge_across_frequent_swaps_under_gc_pressure() {
    for (seed, swap) in [(1, "scheme.rails.swap_us=2000"), (2, "scheme.rails.swap_us=300")] {
        let mut o = TINY.to_vec();
        o.extend_from_slice(&["scheme.name=rails", swap]);
        let r = sim::run_requests(small(&o), &stress(seed, 6500)).unwrap();
        let s = &r.summary;
        assert_eq!(s.requests, 12_000);
        assert_eq!(s.verify_errors, 0, "{swap}: {:?}", r.verify_failures);
        assert!(s.gc.runs > 0);
        for key in ["rails.swaps", "rails.pages_flushed", "rails.reads_write_half", "rails.reads_read_half"] {
            assert!(counter(s, key) > 0.0, "{swap}: {key} {:?}", s.scheme_counters);
        }
    }
}

/// 4+4 on the small preset (TLC): the baseline's reads often find their
/// die writing; Rails' reads almost never do.
#[test]
fn reads_stay_off_the_writing_half() {
    let reqs = stress_gap(3, 100_000, 1_200_000);
    let mut o = vec!["device.flash.cell=tlc", "scheme.hotr.migrate_share=0", "scheme.name=hotr"];
    let base = sim::run_requests(small(&o), &reqs).unwrap().summary;
    o.pop();
    o.extend_from_slice(&["scheme.name=rails", "scheme.rails.swap_us=100000"]);
    let rails = sim::run_requests(small(&o), &reqs).unwrap().summary;
    let b = counter(&base, "hotr.reads_blocked") / counter(&base, "hotr.reads");
    let r = counter(&rails, "rails.reads_blocked") / counter(&rails, "rails.reads");
    println!(
        "blocked share: baseline {b:.3}, rails {r:.3}; read mean {:.1} vs {:.1} us",
        base.latency_us.read.mean, rails.latency_us.read.mean
    );
    assert!(r < b / 2.0, "baseline {b}, rails {r}");
    assert!(rails.latency_us.read.mean < base.latency_us.read.mean);
}

#[test]
fn an_odd_chip_count_is_a_config_error() {
    let cfg = small(&["device.channels=3", "device.chips_per_channel=1", "scheme.name=rails"]);
    let Err(err) = sim::run_requests(cfg, &[]) else { panic!("3 chips cannot be mirrored") };
    let err = err.to_string();
    assert!(err.contains("even number of chips"), "{err}");
}

/// A corrupted timestamp centuries into the trace would cost Rails a swap
/// tick every 50 ms until then (1.8e11 ticks, in effect a hang: the run
/// fuzz test found it): the request is refused, naming the swap key.
#[test]
fn a_request_beyond_the_most_ticks_is_refused_naming_the_tick() {
    let mut reqs: Vec<_> = (0..10).map(|i| req(i * 1000, i, 1, detour_core::IoKind::Write)).collect();
    let mut far = req(9_000_000_000 * 1_000_000_000, 3, 1, detour_core::IoKind::Read);
    far.line = 11;
    reqs.push(far);
    let err = sim::run_requests(small(&["scheme.name=rails"]), &reqs).unwrap_err().to_string();
    assert!(err.starts_with("<workload>:11:") && err.contains("scheme.rails.swap_us"), "{err}");
    // Without ticks the same trace only waits.
    assert!(sim::run_requests(small(&[]), &reqs).is_ok());
}
