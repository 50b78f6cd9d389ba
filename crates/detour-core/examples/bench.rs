//! This example demonstrates the standard speed benchmark: replay a trace on
//! a preset (bench-matched by default) and print requests per second and
//! peak memory, the two figures ../shared/bench/README.md compares.
//!
//! ```text
//! cargo run --release --example bench -- TRACE [PRESET] [key=value ...]
//! cargo run --release --example bench -- profile:NAME [PRESET] [key=value ...]
//! ```
//!
//! The figures in docs/benchmarks.md come from the build `make bench-core`
//! makes: the same, with the Makefile's `CORE_RUSTC_ARGS` (a higher LLVM
//! inline threshold) given to this final crate, as the Python extension
//! gets it; `cargo run` alone builds without them and runs 4-10% slower.
//!
//! `profile:NAME` replays a named synthetic profile from the generator
//! instead of a trace file (`scripts/pgo-bench.sh` trains on those).
//!
//! `--sink=parquet:PATH` writes the rows to a Parquet file as `detour run`
//! does (the trace then read ahead on a second thread, as there), and
//! `--sink=discard` keeps none; by default they are kept in memory.
//!
//! Requests/s counts the whole run: parsing the trace, preconditioning (if
//! asked for) and simulation. Peak memory is the process's peak resident set.

use detour_core::config::ConfigBuilder;
use detour_core::metrics::parquet::ParquetSink;
use detour_core::metrics::stream::RequestSink;
use detour_core::sim::{NoProgress, Simulation};
use detour_core::workload::ahead::ReadAhead;
use detour_core::workload::generator::Generator;
use detour_core::workload::profiles::profile;
use detour_core::workload::{open_trace, Request, TraceOptions};
use std::time::Instant;

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (sinks, args): (Vec<String>, Vec<String>) = std::env::args().skip(1).partition(|a| a.starts_with("--sink="));
    let sink = sinks.last().map_or("memory", |s| &s["--sink=".len()..]).to_string();
    let Some(trace) = args.first() else {
        eprintln!("usage: bench TRACE [PRESET] [key=value ...]");
        std::process::exit(2);
    };
    let preset = args.get(1).filter(|a| !a.contains('=')).map_or("bench-matched", |s| s.as_str());
    let overrides = args.iter().skip(1).filter(|a| a.contains('=')).map(|s| s.as_str());
    let cfg = ConfigBuilder::from_preset(preset)?.set_all(overrides)?.set("run.record_requests", "true")?.build()?;
    let start = Instant::now();
    let mut stream: Box<dyn Iterator<Item = detour_core::Result<Request>> + Send> = match trace.strip_prefix("profile:") {
        Some(name) => Box::new(Generator::new(&profile(name)?)?.map(Ok)),
        None => Box::new(open_trace(std::path::Path::new(trace), &TraceOptions::default())?),
    };
    let sim = Simulation::new(cfg)?;
    let result = match sink.as_str() {
        "memory" => sim.run(stream.as_mut(), trace, &mut NoProgress)?,
        "discard" => sim.run_with_sink(stream.as_mut(), trace, &mut NoProgress, RequestSink::Discard)?,
        other => {
            let Some(path) = other.strip_prefix("parquet:") else {
                eprintln!("--sink must be memory, discard or parquet:PATH, not {other}");
                std::process::exit(2);
            };
            let sink = RequestSink::Parquet(ParquetSink::create(std::path::Path::new(path))?);
            let mut ahead = ReadAhead::spawn(stream)?;
            sim.run_with_sink(&mut ahead, trace, &mut NoProgress, sink)?
        }
    };
    let wall = start.elapsed().as_secs_f64();
    let s = &result.summary;
    println!("trace            {trace}");
    println!("preset           {preset}");
    println!("requests         {}", s.requests);
    println!("wall_s           {wall:.3}");
    println!("requests_per_s   {:.0}", s.requests as f64 / wall);
    println!("peak_memory_mib  {:.1}", peak_rss_mib());
    println!("events           {}", s.events);
    println!("gc_runs          {}  (pages moved {}, write amplification {:.3})", s.gc.runs, s.gc.moves, s.gc.write_amplification);
    println!("placed_on_read   {}  (pages read before any write: placed without simulated time)", s.pages.placed_on_read);
    println!("host_pages       read {}  written {}", s.pages.host_read, s.pages.host_written);
    println!(
        "read_mean_us     {:.1}  p50 {:.1}  p99 {:.1}  p99.9 {:.1}",
        s.latency_us.read.mean, s.latency_us.read.p50, s.latency_us.read.p99, s.latency_us.read.p999
    );
    println!("write_mean_us    {:.1}  p50 {:.1}  p99 {:.1}", s.latency_us.write.mean, s.latency_us.write.p50, s.latency_us.write.p99);
    Ok(())
}
