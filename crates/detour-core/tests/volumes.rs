//! The collision paper's traced MSR volumes (msr-hm1, ...): each profile,
//! generated at its own length and run on the original FTL of the paper's
//! device under MQSim's rules with Table 4's P/E suspension (where the
//! paper measured Tables 2 and 3),
//! hits the table's mean OCC, mean pair repetition, top-5% pair share and
//! RSD of reads per die within 10%. The knobs were calibrated to exactly
//! these baseline figures (scripts/calibrate_volumes.py), so a failure
//! means the generator or the simulator changed under them: recalibrate.
//! `KNOWN` lists the figures the calibration could not reach once the
//! sequential volumes read in 64 KiB runs (issue 49): they are held to
//! where the calibration left them instead.

use detour_core::config::ConfigBuilder;
use detour_core::metrics::CollisionSummary;
use detour_core::sim;
use detour_core::workload::generator::Generator;
use detour_core::workload::generator::SizeDist;
use detour_core::workload::profiles::{profile, VolumeRow, VOLUMES};

/// (volume, observable, widest miss allowed): with at most half the reads
/// in pairs (the rest sequential runs, whose accidental collisions add
/// many once-seen pairs), HM1 and WEB2 cannot reach the top-5% share with
/// few pairs without piling reads on a few dies (RSD); WEB2's search
/// (issue 49, fifth round: from 130 pairs) kept the point with the smallest
/// worst miss, RSD +15%; with writes apart (session 38) the searches keep
/// USR1's RSD at +33% and WEB2's at +20%; SRC1-1's 64 KiB runs show
/// an arriving read its own request's other pages, so its per-arrival OCC
/// stays above 2.4 at any rate (docs/schemes/collisions.md, Calibration).
const KNOWN: [(&str, &str, f64); 5] = [
    ("msr-hm1", "reads RSD", 0.25),
    ("msr-hm1", "top pairs' share", 0.30),
    ("msr-usr1", "reads RSD", 0.40),
    ("msr-web2", "reads RSD", 0.25),
    ("msr-src1-1", "mean OCC", 0.25),
];

/// The summary's collision section, and the share of pair occurrences
/// from the top `frac` of pairs (the run's pairs, most repeated first).
fn baseline(v: &VolumeRow) -> (CollisionSummary, Option<f64>) {
    let cfg = ConfigBuilder::from_preset("collisions")
        .unwrap()
        // Table 4's P/E suspension, which the stock mqsim bundle turns off.
        .set_all(["compat=mqsim", "scheduler.suspension=true", "metrics.collisions=true"])
        .unwrap()
        .build()
        .unwrap();
    let spec = profile(v.name).unwrap();
    let r = sim::run(cfg, Generator::new(&spec).unwrap().map(Ok)).unwrap();
    let top = v.top_share.map(|(frac, _)| {
        let k = ((frac * r.collision_pairs.len() as f64).ceil() as usize).max(1);
        let sum = |p: &[detour_core::metrics::PairCount]| p.iter().map(|p| p.count as f64).sum::<f64>();
        sum(&r.collision_pairs[..k]) / sum(&r.collision_pairs)
    });
    (r.summary.collisions.expect("collisions section"), top)
}

/// (observable, ours, target) that miss by more than 10%.
fn misses(v: &VolumeRow, (c, top): &(CollisionSummary, Option<f64>)) -> Vec<(&'static str, f64, f64)> {
    let mut checks =
        vec![("mean OCC", c.mean_occ, v.occ), ("mean repetition", c.mean_repetition, v.repetition), ("reads RSD", c.reads_rsd, v.rsd)];
    if let (Some(ours), Some((_, paper))) = (top, v.top_share) {
        checks.push(("top pairs' share", *ours, paper));
    }
    let allowed = |what: &str| KNOWN.iter().find(|k| k.0 == v.name && k.1 == what).map_or(0.10, |k| k.2);
    checks.into_iter().filter(|&(what, ours, target)| (ours / target - 1.0).abs() > allowed(what)).collect()
}

/// Every volume, about half a second each (optimised test profile).
#[test]
fn every_volume_hits_its_table_2_and_3_targets() {
    let off: Vec<_> = VOLUMES.iter().map(|v| (v.name, misses(v, &baseline(v)))).filter(|m| !m.1.is_empty()).collect();
    assert!(off.is_empty(), "off target (volume, [(observable, ours, paper)]): {off:?}");
}

/// The paper's access pattern per volume: "All seven workloads, except
/// PROJ3, showed fewer collisions than their random-read counterparts. Most
/// of their read requests showed a certain degree of sequentiality"
/// (Sec. II-C). Those read in 64 KiB runs (four pages, one per die under
/// CWDP), half continuing the previous request, at most half their reads
/// in pairs; PROJ3 keeps 16-64 KiB requests, 10% sequential.
#[test]
fn sequential_volumes_read_in_runs_and_proj3_does_not() {
    for v in VOLUMES.iter() {
        let s = profile(v.name).unwrap();
        let pairs = s.pairs.as_ref().unwrap();
        assert_eq!(v.runs, v.name != "msr-proj3", "{}", v.name);
        if v.runs {
            assert_eq!(s.size, SizeDist::Fixed(65536), "{}", v.name);
            assert_eq!(s.sequential, 0.5, "{}", v.name);
            assert!(pairs.read_share <= 0.5, "{}: {} of reads in pairs", v.name, pairs.read_share);
        } else {
            assert!(matches!(s.size, SizeDist::Weighted(_)), "{}", v.name);
            assert_eq!(s.sequential, 0.1, "{}", v.name);
        }
    }
}
