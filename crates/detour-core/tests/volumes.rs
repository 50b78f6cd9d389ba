//! The collision paper's traced MSR volumes (msr-hm1, ...): each profile,
//! generated at its own length and run on the original FTL of the paper's
//! device under MQSim's rules (where the paper measured Tables 2 and 3),
//! hits the table's mean OCC, mean pair repetition, top-5% pair share and
//! RSD of reads per die within 10%. The knobs were calibrated to exactly
//! these baseline figures (scripts/calibrate_volumes.py), so a failure
//! means the generator or the simulator changed under them: recalibrate.

use detour_core::config::ConfigBuilder;
use detour_core::metrics::CollisionSummary;
use detour_core::sim;
use detour_core::workload::generator::Generator;
use detour_core::workload::profiles::{profile, VolumeRow, VOLUMES};

fn baseline(v: &VolumeRow) -> CollisionSummary {
    let cfg = ConfigBuilder::from_preset("collisions")
        .unwrap()
        .set_all(["compat=mqsim", "metrics.collisions=true"])
        .unwrap()
        .build()
        .unwrap();
    let spec = profile(v.name).unwrap();
    let r = sim::run(cfg, Generator::new(&spec).unwrap().map(Ok)).unwrap();
    r.summary.collisions.expect("collisions section")
}

/// (observable, ours, target) that miss by more than 10%.
fn misses(v: &VolumeRow, c: &CollisionSummary) -> Vec<(&'static str, f64, f64)> {
    [
        ("mean OCC", c.mean_occ, v.occ),
        ("mean repetition", c.mean_repetition, v.repetition),
        ("top-5% pair share", c.top5pct_pair_share, v.top5),
        ("reads RSD", c.reads_rsd, v.rsd),
    ]
    .into_iter()
    .filter(|&(_, ours, target)| (ours / target - 1.0).abs() > 0.10)
    .collect()
}

#[test]
fn hm1_hits_its_table_2_and_3_targets() {
    let v = VOLUMES.iter().find(|v| v.name == "msr-hm1").unwrap();
    let c = baseline(v);
    let off = misses(v, &c);
    assert!(off.is_empty(), "msr-hm1 off target (observable, ours, paper): {off:?}");
}

/// Every volume (about 1 s each, optimised): `cargo test -p detour-core
/// --test volumes -- --ignored`.
#[test]
#[ignore]
fn every_volume_hits_its_table_2_and_3_targets() {
    let off: Vec<_> = VOLUMES.iter().map(|v| (v.name, misses(v, &baseline(v)))).filter(|m| !m.1.is_empty()).collect();
    assert!(off.is_empty(), "off target: {off:?}");
}
