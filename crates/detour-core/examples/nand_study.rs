//! docs/nand.md's study: do schemes that route reads around busy dies
//! (HotR, RR-SSD) still help when read retries dominate? Each scheme and
//! its baseline (conventional) on a fresh and an aged QLC drive; prints a
//! Markdown table of read mean and p99 (µs) and the retry steps per read.
//!
//! Usage: nand_study [requests] (default 100000 per run).

use detour_core::config::ConfigBuilder;
use detour_core::sim::{NoProgress, Simulation};
use detour_core::workload::generator::Generator;
use detour_core::workload::profiles::profile;

/// A QLC drive at 70% of a 1000-cycle rating whose data is a year old
/// (docs/nand.md: the 72-layer TLC fit stands in for QLC).
const AGED: [&str; 6] = [
    "nand.error_model=power_law",
    "nand.fit=tlc3d72",
    "nand.pe_limit=1000",
    "nand.initial_pe=700",
    "nand.initial_pe_spread=0.1",
    "nand.initial_age_days=365",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let requests: u64 = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(100_000);
    println!("| preset | profile | scheme | drive | read mean µs | read p99 µs | retry steps / flash read |");
    println!("|---|---|---|---|---|---|---|");
    let mut verdicts = Vec::new();
    for (preset, prof, schemes) in [("hotr", "fin2", ["conventional", "hotr"]), ("rr-ssd", "webvm", ["conventional", "rr-ssd"])] {
        // Read mean per (scheme, aged): baseline first.
        let mut mean = [[0.0f64; 2]; 2];
        for (i, scheme) in schemes.into_iter().enumerate() {
            for aged in [false, true] {
                let name = format!("scheme.name={scheme}");
                let mut b = ConfigBuilder::from_preset(preset)?.set_all([name.as_str(), "device.flash.cell=qlc"])?;
                if aged {
                    b = b.set_all(AGED)?;
                }
                let cfg = b.build()?;
                let mut p = profile(prof)?;
                p.requests = requests;
                let mut stream = Generator::new(&p)?.map(Ok);
                let r = Simulation::new(cfg)?.run(&mut stream, prof, &mut NoProgress)?;
                let s = &r.summary;
                let steps = s.nand.as_ref().map_or(0.0, |n| n.retry_steps_mean);
                let drive = if aged { "aged" } else { "fresh" };
                let read = &s.latency_us.read;
                println!("| {preset} | {prof} | {scheme} | {drive} | {:.1} | {:.1} | {steps:.2} |", read.mean, read.p99);
                mean[i][aged as usize] = read.mean;
            }
        }
        // The rule: routing around busy dies still matters on the aged
        // drive if the scheme's cut in read mean there is at least half
        // its cut on the fresh drive (both relative to the baseline).
        let cut = |d: usize| 1.0 - mean[1][d] / mean[0][d];
        let (fresh, aged) = (cut(0), cut(1));
        let holds = fresh > 0.0 && aged >= 0.5 * fresh;
        verdicts.push(format!(
            "{}: read mean cut {:.1}% fresh, {:.1}% aged: {}",
            schemes[1],
            100.0 * fresh,
            100.0 * aged,
            if holds { "still matters" } else { "matters much less" }
        ));
    }
    println!();
    for v in verdicts {
        println!("- {v}");
    }
    Ok(())
}
