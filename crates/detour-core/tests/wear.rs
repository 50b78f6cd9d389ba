//! Static wear levelling (`ftl.wear_leveling = "static"`, ftl/gc/wear.rs):
//! on a hot/cold workload greedy GC never touches the blocks of cold data,
//! so their erase counts stay at 0 while the hot blocks cycle; wear
//! levelling moves the cold data and narrows the spread, without losing a
//! page (verify mode), and is off by default.

mod common;
use common::*;
use detour_core::{sim, IoKind};

/// Cold pages written once, then `hot_writes` overwrites of a small hot set.
fn hot_cold(cold: u64, hot: u64, hot_writes: u64) -> Vec<detour_core::workload::Request> {
    let gap = 100_000; // ns: below the tiny device's write throughput
    let cold_part = (0..cold).map(|p| req(p * gap, p, 1, IoKind::Write));
    let hot_part = (0..hot_writes).map(|i| req((cold + i) * gap, cold + (i * 7919) % hot, 1, IoKind::Write));
    let mut reqs: Vec<_> = cold_part.chain(hot_part).collect();
    for (i, r) in reqs.iter_mut().enumerate() {
        r.line = i as u64 + 1;
    }
    reqs
}

fn run(extra: &[&str]) -> sim::RunResult {
    let mut kv = TINY.to_vec();
    kv.extend_from_slice(extra);
    sim::run_requests(small(&kv), &hot_cold(7_000, 400, 60_000)).expect("runs")
}

#[test]
fn static_wear_levelling_narrows_the_erase_count_spread() {
    let off = run(&[]);
    let on = run(&["ftl.wear_leveling=static", "ftl.wear_threshold=3"]);
    let spread = |r: &sim::RunResult| r.summary.gc.erase_count_max - r.summary.gc.erase_count_min;
    println!(
        "spread off {} (min {} max {}), on {} (min {} max {}), migrations {:?}",
        spread(&off),
        off.summary.gc.erase_count_min,
        off.summary.gc.erase_count_max,
        spread(&on),
        on.summary.gc.erase_count_min,
        on.summary.gc.erase_count_max,
        on.summary.gc.wl_migrations
    );
    assert_eq!(off.summary.gc.erase_count_min, 0, "cold blocks are never collected without wear levelling");
    assert!(spread(&on) < spread(&off), "wear levelling must narrow the spread");
    assert!(on.summary.gc.wl_migrations.unwrap_or(0) > 0);
    assert!(off.summary.gc.wl_migrations.is_none(), "the field is absent when off");
    for r in [&off, &on] {
        assert!(r.verify_failures.is_empty(), "{} verify failures", r.verify_failures.len());
    }
}

#[test]
fn wear_threshold_out_of_range_is_refused() {
    let e = detour_core::config::ConfigBuilder::from_preset("small").and_then(|b| b.set("ftl.wear_threshold", "0")).and_then(|b| b.build());
    let msg = e.expect_err("0 is below the range").to_string();
    assert!(msg.contains("ftl.wear_threshold") && msg.contains("1..="), "{msg}");
    let e = detour_core::config::ConfigBuilder::from_preset("small")
        .and_then(|b| b.set("ftl.wear_leveling", "dynamic"))
        .and_then(|b| b.build());
    let msg = e.expect_err("not a mode").to_string();
    assert!(msg.contains("ftl.wear_leveling") && msg.contains("static"), "{msg}");
}
