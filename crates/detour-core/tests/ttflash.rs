//! TTFlash (docs/schemes/ttflash.md): reconstructions return the latest data
//! under GC pressure, for any stripe width over chips or channels.

mod common;
use common::*;
use detour_core::sim;

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

/// Rotating GC (on by default): at a load GC keeps up with, no GC copy
/// lands while another member of its stripe group collects; with it off, on
/// the same run, many do, so the check can fail. A plane down to its GC
/// reserve collects out of turn (under overload nearly every start is such).
/// Verify mode stays clean either way.
#[test]
fn rotating_gc_keeps_one_member_of_a_group_collecting() {
    let base = [
        "run.verify=true",
        "device.channels=5",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "device.planes_per_die=2",
        "device.blocks_per_plane=64",
        "device.pages_per_block=32",
        "device.overprovisioning=0.2",
        "scheme.name=ttflash",
        "scheme.ttflash.width=5",
        // Room to wait for a turn: GC starts well above the reserve.
        "ftl.gc_threshold=0.2",
    ];
    let logical = (5 * 2 * 64 * 32) as u64 * 8 / 10 * 4 / 5;
    let run = |rotating: &str, reqs: &[detour_core::workload::Request], pre: &str| {
        let mut o = base.to_vec();
        o.extend_from_slice(&[rotating, pre]);
        let r = sim::run_requests(small(&o), reqs).unwrap_or_else(|e| panic!("{rotating}: {e}"));
        assert_eq!(r.summary.verify_errors, 0, "{rotating}: {:?}", r.verify_failures);
        assert!(r.summary.gc.runs > 0, "{rotating}");
        r.summary
    };
    let moderate = poisson(100_000, 2_000.0, 0.8, logical / 4, 3);
    let on = run("scheme.ttflash.rotating_gc=true", &moderate, "host.warmup_requests=0");
    let off = run("scheme.ttflash.rotating_gc=false", &moderate, "host.warmup_requests=0");
    let (c_on, c_off) = (counter(&on, "ttflash.gc_concurrent_moves"), counter(&off, "ttflash.gc_concurrent_moves"));
    assert!(c_off > 0.0, "{:?}", off.scheme_counters);
    assert!(counter(&on, "ttflash.gc_deferred") > 0.0);
    assert_eq!(counter(&off, "ttflash.gc_deferred"), 0.0);
    if counter(&on, "ttflash.gc_forced") == 0.0 {
        assert_eq!(c_on, 0.0, "{:?}", on.scheme_counters);
    }
    assert!(c_on < c_off / 2.0, "on {:?} off {:?}", on.scheme_counters, off.scheme_counters);
    let overload = stress(3, logical);
    let (o_on, o_off) = (
        run("scheme.ttflash.rotating_gc=true", &overload, "host.warmup_requests=0"),
        run("scheme.ttflash.rotating_gc=false", &overload, "host.warmup_requests=0"),
    );
    for (name, a, b) in [("2000 IOPS, 20% writes", &on, &off), ("overload", &o_on, &o_off)] {
        println!(
            "rotating GC, {name}: read mean {:.1} us (off {:.1}), p99 {:.0} (off {:.0}), p99.9 {:.0} (off {:.0}); \
             concurrent GC moves {} (off {}), forced {}, deferred {}",
            a.latency_us.read.mean,
            b.latency_us.read.mean,
            a.latency_us.read.p99,
            b.latency_us.read.p99,
            a.latency_us.read.p999,
            b.latency_us.read.p999,
            counter(a, "ttflash.gc_concurrent_moves"),
            counter(b, "ttflash.gc_concurrent_moves"),
            counter(a, "ttflash.gc_forced"),
            counter(a, "ttflash.gc_deferred")
        );
    }
}
