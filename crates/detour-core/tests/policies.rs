//! Every registered variant of every policy family (docs/extending.md) runs
//! a verified workload under GC pressure to the end, losing nothing: a
//! variant added by the recipe is covered here without a line of its own.

mod common;
use common::*;
use detour_core::config::ConfigBuilder;
use detour_core::ftl::{mapping, victim};
use detour_core::{scheduler, sim};

/// `key=name` for every variant of every family, with the settings that
/// make its code run: GC (a small, preconditioned device), multi-plane
/// batches and suspension (for the scheduling order), a table of a few
/// translation pages (for a mapping with one).
fn every_variant() -> Vec<String> {
    let families = [("ftl.gc_policy", victim::list()), ("scheduler.order", scheduler::orders()), ("ftl.mapping", mapping::list())];
    families.iter().flat_map(|(key, list)| list.iter().map(move |(name, _)| format!("{key}={name}"))).collect()
}

#[test]
fn every_variant_runs_under_gc_pressure_and_loses_nothing() {
    let reqs = stress(7, 3000);
    for kv in every_variant() {
        let cfg = small(&[
            "device.channels=1",
            "device.chips_per_channel=1",
            "device.planes_per_die=2",
            "device.blocks_per_plane=32",
            "device.pages_per_block=64",
            "ftl.precondition.valid=0.7",
            "ftl.precondition.to_gc_threshold=true",
            "ftl.cmt_size_kib=8",
            "ftl.gc_choices=2",
            "scheduler.suspension=true",
            "run.verify=true",
            "host.address=fold",
            &kv,
        ]);
        let r = sim::run_requests(cfg, &reqs).unwrap_or_else(|e| panic!("{kv}: {e}"));
        assert_eq!((r.summary.requests, r.summary.verify_errors), (12_000, 0), "{kv}");
        assert!(r.summary.gc.runs > 0, "{kv}: no GC ran");
    }
}

#[test]
fn listings_hold_the_defaults_and_unknown_names_list_them() {
    let names = every_variant();
    for default in ["ftl.gc_policy=greedy", "scheduler.order=priority", "ftl.mapping=dram"] {
        assert!(names.iter().any(|n| n == default), "{default} in {names:?}");
    }
    for (key, list) in [("ftl.gc_policy", victim::list()), ("scheduler.order", scheduler::orders()), ("ftl.mapping", mapping::list())] {
        let e = ConfigBuilder::from_preset("small").unwrap().set(key, "no-such-policy").unwrap().build().unwrap_err().to_string();
        assert!(e.contains(key) && list.iter().all(|(n, about)| e.contains(n) && !about.is_empty()), "{e}");
    }
}
