//! TTFlash (docs/schemes/ttflash.md): reconstructions return the latest data
//! under GC pressure, for any stripe width over chips or channels.

mod common;
use common::*;
use detour_core::metrics::Summary;
use detour_core::sim;


fn counter(s: &Summary, key: &str) -> f64 {
    s.scheme_counters.get(key).copied().unwrap_or(0.0)
}

/// Run `stress` on `channels` x `chips` chips (2 dies x 2 planes x 64 blocks
/// of 32 pages each) and check every read, plain or rebuilt.
fn check(channels: u32, chips: u32, extra: &[&str], k: u32, width: u32) {
    let (c, w) = (format!("device.channels={channels}"), format!("device.chips_per_channel={chips}"));
    let mut o = vec![
        "run.verify=true",
        &c,
        &w,
        "device.dies_per_chip=2",
        "device.planes_per_die=2",
        "device.blocks_per_plane=64",
        "device.pages_per_block=32",
        "device.overprovisioning=0.2",
        "scheme.name=ttflash",
    ];
    o.extend_from_slice(extra);
    let physical = (channels * chips * 4 * 64 * 32) as u64;
    let logical = physical * 8 / 10 * k as u64 / width as u64;
    for variant in [&[][..], &["scheduler.suspension=true"], &["ftl.allocation=dynamic"]] {
        let mut o = o.clone();
        o.extend_from_slice(variant);
        let r = sim::run_requests(small(&o), &stress(width as u64, logical)).unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        let s = &r.summary;
        assert_eq!(s.requests, 12_000);
        assert_eq!(s.verify_errors, 0, "{extra:?} {variant:?}: {:?}", r.verify_failures);
        assert!(s.gc.runs > 0, "{extra:?}");
        let rebuilt = counter(s, "ttflash.reads_reconstructed");
        assert!(rebuilt > 0.0, "{extra:?}: {:?}", s.scheme_counters);
        // A rebuild reads at most the k other pages of the stripe (k-1 data + parity).
        assert!(counter(s, "ttflash.reconstruction_reads") <= rebuilt * k as f64);
    }
}

#[test]
fn four_plus_one_over_chips_rebuilds_the_latest_data_under_gc() {
    check(5, 1, &["scheme.ttflash.width=5"], 4, 5);
}

#[test]
fn width_is_not_hard_coded() {
    check(4, 1, &["scheme.ttflash.unit=channel", "scheme.ttflash.width=4"], 3, 4);
    check(3, 2, &["scheme.ttflash.width=3"], 2, 3); // 6 chips: two 2+1 groups
}

#[test]
fn a_width_that_does_not_divide_the_units_is_a_config_error() {
    let cfg = small(&["device.channels=4", "device.chips_per_channel=1", "scheme.name=ttflash", "scheme.ttflash.width=3"]);
    let Err(err) = sim::run_requests(cfg, &[]) else { panic!("3 does not divide 4") };
    let err = err.to_string();
    assert!(err.contains("scheme.ttflash.width"), "{err}");
}
