//! Every scheme's summary and per-request latencies on fixed workloads, as
//! one JSON line per run: diff two builds' output to show a refactor left
//! results byte-identical (`cargo run --release --example golden > a.txt`).
//!
//! Usage: golden [key=value ...] (applied to every run).

use detour_core::config::ConfigBuilder;
use detour_core::schemes::SCHEMES;
use detour_core::sim::{NoProgress, Simulation};
use detour_core::workload::generator::Generator;
use detour_core::workload::profiles::profile;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let extra: Vec<String> = std::env::args().skip(1).collect();
    for scheme in SCHEMES.iter().map(|e| e.name) {
        for (preset, prof, kv) in [("small", "bench-like", "run.verify=true"), ("small", "bench-like", "ftl.precondition.valid=0.5")] {
            let name = format!("scheme.name={scheme}");
            let cfg = ConfigBuilder::from_preset(preset)?
                .set_all([name.as_str(), kv, "host.address=fold"])?
                .set_all(extra.iter().map(String::as_str))?
                .build()?;
            let mut p = profile(prof)?;
            p.requests = 20_000;
            let mut stream = Generator::new(&p)?.map(Ok);
            let line = match Simulation::new(cfg).and_then(|s| s.run(&mut stream, prof, &mut NoProgress)) {
                Ok(r) => format!(
                    "{{\"scheme\":\"{}\",\"kv\":\"{kv}\",\"summary\":{},\"latency_sum\":{}}}",
                    scheme,
                    serde_json::to_string(&r.summary)?,
                    r.requests.latency_ns.iter().sum::<u64>()
                ),
                Err(e) => format!("{{\"scheme\":\"{}\",\"kv\":\"{kv}\",\"error\":{:?}}}", scheme, e.to_string()),
            };
            println!("{line}");
        }
    }
    Ok(())
}
