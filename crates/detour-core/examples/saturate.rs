//! This example demonstrates the write-saturation case of issue 32: the
//! `bench-like` profile made write-heavy and fast enough to overload the
//! `small` device, so that requests keep waiting for free pages while GC
//! runs behind. Its wall time should grow linearly with the requests.
//!
//! ```text
//! saturate SCHEME REQUESTS [RATE_PER_S] [READ_RATIO] [key=value ...]
//!   stdout: one JSON line (summary + latency sum), for diffing two builds
//!   stderr: wall time, stalls, events
//! ```

use detour_core::config::ConfigBuilder;
use detour_core::sim::{NoProgress, Simulation};
use detour_core::workload::generator::{Arrival, Generator};
use detour_core::workload::profiles::profile;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: saturate SCHEME REQUESTS [RATE_PER_S] [READ_RATIO] [key=value ...]");
        std::process::exit(2);
    }
    let requests: u64 = args[1].parse()?;
    let rate: f64 = args.get(2).map_or(Ok(40_000.0), |s| s.parse())?;
    let read_ratio: f64 = args.get(3).map_or(Ok(0.2), |s| s.parse())?;
    let name = format!("scheme.name={}", args[0]);
    let extra = args.iter().skip(4).map(String::as_str);
    let cfg = ConfigBuilder::from_preset("small")?
        .set_all([name.as_str(), "host.address=fold", "run.record_requests=true"])?
        .set_all(extra)?
        .build()?;
    let mut p = profile("bench-like")?;
    p.requests = requests;
    p.arrival = Arrival::Poisson { rate_per_s: rate };
    p.read_ratio = read_ratio;
    let start = Instant::now();
    let mut stream = Generator::new(&p)?.map(Ok);
    let r = Simulation::new(cfg)?.run(&mut stream, "bench-like", &mut NoProgress)?;
    let wall = start.elapsed().as_secs_f64();
    let s = &r.summary;
    eprintln!("{} {requests} wall_s {wall:.2} stalls {} events {}", args[0], s.stalls, s.events);
    let sum: u64 = r.requests.latency_ns.iter().sum();
    println!("{{\"summary\":{},\"latency_sum\":{sum}}}", serde_json::to_string(s)?);
    Ok(())
}
