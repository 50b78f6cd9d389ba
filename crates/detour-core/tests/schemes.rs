//! The scheme test table: every scheme, under every scheduler/FTL variant,
//! on a workload with GC pressure, reads of pending writes and multi-page
//! requests, must complete every request and return the latest data.
//! Every registered scheme (`schemes::SCHEMES`) runs: with the extra
//! config of its rows in ROWS, or with none if it has no row, so a new
//! scheme is tested the moment it is registered (docs/extending.md).

mod common;
use common::*;
use detour_core::schemes::SCHEMES;
use detour_core::sim;

/// (scheme name, extra config for it)
/// Rows that hide capacity double the blocks (or fold addresses) so the
/// workload still fits. HotR's dedicated staging chip is tested in
/// tests/hotr.rs.
const ROWS: &[(&str, &[&str])] = &[
    ("conventional", &[]),
    ("hotr", &["scheme.hotr.migrate_share=0.5", "scheme.hotr.rlru_per_chip=64"]),
    ("rails", &["device.blocks_per_plane=64", "scheme.rails.swap_us=20000"]),
    ("ttflash", &["device.blocks_per_plane=64", "scheme.ttflash.width=2"]),
    ("ttflash", &["device.blocks_per_plane=64", "scheme.ttflash.unit=channel", "scheme.ttflash.width=2"]),
    // Channel RAID hides capacity (mirrors, parity): the workload's addresses fold into it.
    ("pure", &[]),
    // A failed die's space is gone: the doubled blocks keep the workload fitting on the rest.
    ("pure", &["device.blocks_per_plane=64", "scheme.raid.fail_unit=die", "scheme.raid.fail_index=1", "scheme.raid.fail_at_us=100000"]),
    ("cr1", &["host.address=fold"]),
    // Two channels for CR4: with more, its dedicated parity channel takes N-1 times the
    // writes of a data channel, and to_gc_threshold preconditioning (which runs no GC)
    // fills it first (tests/raid.rs covers CR4 on four channels).
    ("cr4", &["host.address=fold"]),
    ("cr5", &["host.address=fold", "device.channels=4", "device.dies_per_chip=1"]),
    ("cr5m", &["host.address=fold", "device.chips_per_channel=2", "device.dies_per_chip=1"]),
    (
        "cr5",
        &[
            "host.address=fold",
            "device.channels=4",
            "device.dies_per_chip=1",
            "scheme.raid.fail_unit=die",
            "scheme.raid.fail_index=2",
            "scheme.raid.fail_at_us=100000",
        ],
    ),
    (
        "cr5m",
        &[
            "host.address=fold",
            "device.chips_per_channel=2",
            "device.dies_per_chip=1",
            "scheme.raid.fail_unit=chip",
            "scheme.raid.fail_index=0",
            "scheme.raid.fail_at_us=100000",
        ],
    ),
    // A tiny l_M so replicas are evicted (both copies kept) under GC pressure.
    ("collisions", &["scheme.collisions.l_m=0.0005", "metrics.collisions=true"]),
    // The collision layer over other schemes (their rows' extra config).
    ("collisions", &["scheme.collisions.base=ca-ssd", "scheme.collisions.l_m=0.0005"]),
    (
        "collisions",
        &["scheme.collisions.base=hotr", "scheme.collisions.l_m=0.0005", "scheme.hotr.migrate_share=0.5", "scheme.hotr.rlru_per_chip=64"],
    ),
    (
        "collisions",
        &["scheme.collisions.base=rails", "scheme.collisions.l_m=0.0005", "device.blocks_per_plane=64", "scheme.rails.swap_us=20000"],
    ),
    (
        "collisions",
        &["scheme.collisions.base=ttflash", "scheme.collisions.l_m=0.0005", "device.blocks_per_plane=64", "scheme.ttflash.width=2"],
    ),
    (
        "collisions",
        &[
            "scheme.collisions.base=cr5",
            "scheme.collisions.l_m=0.0005",
            "host.address=fold",
            "device.channels=4",
            "device.dies_per_chip=1",
            "scheme.raid.fail_unit=die",
            "scheme.raid.fail_index=2",
            "scheme.raid.fail_at_us=100000",
        ],
    ),
    // The deduplicating schemes: the stress workload carries no content, so
    // (with scheme.dedup.synthetic_content) every write is unique and the
    // replication budget is alpha% alone.
    ("ca-ssd", &[]),
    ("rr-ssd", &["scheme.dedup.period_s=0.05", "scheme.dedup.alpha_pct=10"]),
    ("rr-ssd", &["scheme.dedup.period_s=0.05", "scheme.dedup.alpha_pct=10", "scheme.dedup.replication_io=simulated"]),
    ("rr-ssd", &["scheme.dedup.period_s=0.05", "scheme.dedup.alpha_pct=10", "scheme.dedup.placement=random"]),
    ("rr-ssd", &["scheme.dedup.period_s=0.05", "scheme.dedup.alpha_pct=10", "scheme.dedup.placement=static"]),
    ("rr-ssd", &["scheme.dedup.period_s=0.05", "scheme.dedup.alpha_pct=10", "scheme.dedup.placement=online"]),
    ("oracle", &[]),
    ("pblru", &["scheme.dedup.alpha_pct=10", "scheme.dedup.pblru_min_blocked=1"]),
];

const VARIANTS: &[&[&str]] = &[
    &[],
    &["ftl.allocation=dynamic"],
    &["scheduler.suspension=true", "scheduler.suspend_us=10"],
    &["scheduler.read_priority=false", "scheduler.multiplane=false"],
    &["host.queue_depth=4"],
    &["ftl.precondition.valid=0.5", "ftl.precondition.to_gc_threshold=true"],
    // A two-page cached mapping table of the map's seven: translation reads
    // before most requests, write-backs, translation pages collected.
    &["ftl.precondition.valid=0.5", "ftl.precondition.to_gc_threshold=true", "ftl.mapping=cmt", "ftl.cmt_size_kib=8"],
];

/// ROWS, and a row with no extra config for each registered scheme ROWS
/// does not name.
fn rows() -> Vec<(&'static str, &'static [&'static str])> {
    let mut rows = ROWS.to_vec();
    for e in SCHEMES {
        if !ROWS.iter().any(|(n, _)| *n == e.name) {
            rows.push((e.name, &[]));
        }
    }
    rows
}

#[test]
fn the_rows_name_registered_schemes_only() {
    for (name, _) in ROWS {
        assert!(SCHEMES.iter().any(|e| e.name == *name), "{name} is not registered");
    }
}

// One test per variant and half of the rows, so the harness spreads the
// table (some 400 runs; dynamic allocation's are the slowest, its stalls
// retried after every erase, sim/park.rs) over every core.
macro_rules! variant_tests {
    ($($name:ident => $v:expr, $half:expr;)*) => {
        $(#[test]
        fn $name() {
            every_scheme_verifies_clean_under($v, $half);
        })*
        #[test]
        fn every_variant_and_half_has_its_test() {
            let mut all = [$(($v, $half)),*];
            all.sort();
            let want: Vec<(usize, usize)> = (0..VARIANTS.len()).flat_map(|v| [(v, 0), (v, 1)]).collect();
            assert_eq!(all.to_vec(), want);
        }
    };
}

variant_tests! {
    every_scheme_verifies_clean_by_default => 0, 0;
    every_scheme_verifies_clean_by_default_2 => 0, 1;
    every_scheme_verifies_clean_with_dynamic_allocation => 1, 0;
    every_scheme_verifies_clean_with_dynamic_allocation_2 => 1, 1;
    every_scheme_verifies_clean_with_suspension => 2, 0;
    every_scheme_verifies_clean_with_suspension_2 => 2, 1;
    every_scheme_verifies_clean_without_read_priority_or_multiplane => 3, 0;
    every_scheme_verifies_clean_without_read_priority_or_multiplane_2 => 3, 1;
    every_scheme_verifies_clean_at_queue_depth_4 => 4, 0;
    every_scheme_verifies_clean_at_queue_depth_4_2 => 4, 1;
    every_scheme_verifies_clean_preconditioned => 5, 0;
    every_scheme_verifies_clean_preconditioned_2 => 5, 1;
    every_scheme_verifies_clean_with_a_cached_mapping_table => 6, 0;
    every_scheme_verifies_clean_with_a_cached_mapping_table_2 => 6, 1;
}

/// The table's rows of one half (`half` 0: the even rows, 1: the odd) under variant `v`.
fn every_scheme_verifies_clean_under(v: usize, half: usize) {
    let variant = VARIANTS[v];
    for (scheme, extra) in rows().into_iter().skip(half).step_by(2) {
        let mut o = STRESS_DEVICE.to_vec();
        // The stress workload has no content (see the dedup rows).
        o.push("scheme.dedup.synthetic_content=true");
        let name = format!("scheme.name={scheme}");
        o.push(&name);
        o.extend_from_slice(extra);
        o.extend_from_slice(variant);
        let logical = (8 * 32 * 32) as u64 * 8 / 10;
        let reqs = stress(v as u64, logical);
        let r = sim::run_requests(small(&o), &reqs).unwrap_or_else(|e| panic!("{scheme} {variant:?}: {e}"));
        let s = &r.summary;
        assert_eq!(s.requests + s.lost_requests, 12_000, "{scheme} {variant:?}");
        assert_eq!(s.verify_errors, 0, "{scheme} {variant:?}: {:?}", r.verify_failures);
        assert!(s.gc.runs > 0, "{scheme} {variant:?}: the workload must drive GC");
        // Without verify mode (and with no collision count or completion
        // callback), lone operations skip their group records: the
        // timing must not change.
        o[0] = "run.verify=false";
        let off = sim::run_requests(small(&o), &reqs).unwrap_or_else(|e| panic!("{scheme} {variant:?}, verify off: {e}"));
        assert_eq!(off.summary.events, s.events, "{scheme} {variant:?}: events with verify off");
        assert!(off.requests.latency_ns == r.requests.latency_ns, "{scheme} {variant:?}: latencies with verify off");
        assert!(
            off.requests.bus_ns == r.requests.bus_ns && off.requests.array_ns == r.requests.array_ns,
            "{scheme} {variant:?}: breakdown with verify off"
        );
    }
}
