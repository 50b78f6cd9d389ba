//! Whole runs on random input: random traces (every format, valid or
//! mutated, read with detection or a given format, strict or skipping) x
//! random schemes x, for the channel-RAID schemes, a die, chip or channel
//! failing at a random time; verify mode always on. Every case must either
//! complete, with every request the reader produced accounted for and no
//! wrong read beyond the reads the scheme itself counts as lost, or be
//! refused with an error that is the input's fault. No panic, and no hang:
//! each case runs on its own thread and must end within `CASE_TIMEOUT`.
//!
//! The case count is small enough for CI; `DETOUR_FUZZ_CASES=N` runs N
//! (and `DETOUR_FUZZ_SEED=S` starts at seed S: a failing case prints its
//! seed). Beyond `config_fuzz.rs` (configs on in-memory requests) this goes
//! through the trace reader and injects failures.

mod case;
mod shrink;

use case::{case, Case};
use detour_core::metrics::Summary;
use detour_core::workload::open_trace_reader;
use detour_core::{config::ConfigBuilder, sim, Error, Request};
use std::io::Cursor;
use std::sync::mpsc;
use std::time::Duration;

/// Far above any case's run time (milliseconds): only a hang reaches it.
const CASE_TIMEOUT: Duration = Duration::from_secs(30);
const DEFAULT_CASES: u64 = 2000;

/// How one case ended.
#[derive(Debug)]
enum Outcome {
    Completed {
        losses: u64,
        failed: bool,
    },
    /// Refused, with the error's kind (and the key, for a config error).
    Refused(&'static str, String),
    /// A failure of the simulator's own, with the reason.
    Bad(String),
}

#[derive(Debug, Default)]
struct Tally {
    cases: u64,
    completed: u64,
    refused: u64,
    /// Refusals by error kind: config, geometry, trace, io, sim.
    refused_by: std::collections::BTreeMap<&'static str, u64>,
    /// Config refusals by the key they named.
    refused_keys: std::collections::BTreeMap<String, u64>,
    with_counted_losses: u64,
    /// Seeds of the first few of those, to look at.
    loss_seeds: Vec<u64>,
    /// Completed runs in which an injected failure happened.
    with_failure: u64,
    panics: u64,
    hangs: u64,
    /// (seed, what went wrong and the case) of every failing case.
    bad: Vec<(u64, String)>,
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// An error that is the input's fault, said as such (as in config_fuzz.rs).
fn reported(e: &Error) -> bool {
    match e {
        Error::Config { .. } | Error::Trace { .. } | Error::Geometry(_) | Error::Io { .. } => true,
        Error::Sim(m) => m.contains("could not complete") || m.contains("ran out of spare space"),
        _ => false,
    }
}

fn kind(e: &Error) -> &'static str {
    match e {
        Error::Config { .. } => "config",
        Error::Geometry(_) => "geometry",
        Error::Trace { .. } => "trace",
        Error::Io { .. } => "io",
        _ => "sim",
    }
}

fn counter(s: &Summary, key: &str) -> f64 {
    s.scheme_counters.get(key).copied().unwrap_or(0.0)
}

/// The case's run, and how many requests its reader handed the simulator.
fn simulate(c: &Case) -> Result<(sim::RunResult, u64), Error> {
    let cfg = ConfigBuilder::new().set_all(c.keys.iter().map(String::as_str)).and_then(|b| b.build())?;
    let stream = open_trace_reader("fuzz.trace", Cursor::new(c.trace.clone()), &c.opts)?;
    let mut produced = 0u64;
    let counted = stream.inspect(|r: &detour_core::Result<Request>| produced += r.is_ok() as u64);
    let r = sim::run(cfg, counted)?;
    Ok((r, produced))
}

/// Events a run of this much work may take: a few per flash operation and
/// per page the host moved, one per tick (the smallest period drawn is
/// 1 ms), and a floor. A run past it loops without making progress.
fn event_bound(s: &Summary) -> u64 {
    let d = &s.dies;
    let ops: u64 = d.reads.iter().chain(&d.programs).chain(&d.erases).sum();
    10_000 + 50 * (ops + s.pages.host_read + s.pages.host_written) + (s.sim_time_s * 1000.0) as u64
}

fn run_case(c: &Case) -> Outcome {
    let (r, produced) = match simulate(c) {
        Ok(x) => x,
        Err(Error::Config { key, reason }) if key.is_empty() || !(key.contains('.') || key.contains('[') || key == "preset") => {
            return Outcome::Bad(format!("a refused configuration names no key: `{key}`: {reason}"));
        }
        Err(e) if reported(&e) => {
            let key = if let Error::Config { key, .. } = &e { key.clone() } else { String::new() };
            return Outcome::Refused(kind(&e), key);
        }
        Err(e) => return Outcome::Bad(format!("run: {e}")),
    };
    let s = &r.summary;
    // A real loss after an injected failure is counted by the scheme
    // (lost_reads) and its request fails (lost_requests): never a wrong
    // read, and never a read counted as served.
    let lost = counter(s, "lost_reads") as u64;
    let failed_rows = r.requests.lost.iter().filter(|&&l| l).count() as u64;
    let discards = s.trim.as_ref().map_or(0, |t| t.requests);
    if s.requests + s.warmup_requests + s.lost_requests + discards != produced {
        return Outcome::Bad(format!(
            "{} measured + {} warm-up + {} lost + {discards} discards of {produced} requests",
            s.requests, s.warmup_requests, s.lost_requests
        ));
    }
    if s.verify_errors > 0 {
        return Outcome::Bad(format!("{} verify errors, {lost} lost reads: {:?}", s.verify_errors, r.verify_failures));
    }
    if s.lost_requests > lost || (lost > 0 && failed_rows == 0) {
        return Outcome::Bad(format!("{} lost requests, {failed_rows} lost rows, {lost} lost reads", s.lost_requests));
    }
    if s.events > event_bound(s) {
        return Outcome::Bad(format!("{} events, beyond the bound {} for its work", s.events, event_bound(s)));
    }
    // Every fourth case again: the same seed must give the same bytes.
    if c.seed % 4 == 0 {
        let again = simulate(c).map(|(r, _)| r);
        let same = again.as_ref().is_ok_and(|a| {
            serde_json::to_string(&a.summary).ok() == serde_json::to_string(s).ok() && a.requests.latency_ns == r.requests.latency_ns
        });
        if !same {
            return Outcome::Bad("a second run of the same case differs".into());
        }
    }
    Outcome::Completed {
        losses: s.lost_requests,
        failed: counter(s, "failed_at_us") >= 0.0 && s.scheme_counters.contains_key("failed_at_us"),
    }
}

/// Run one case on its own thread; None: it panicked; Err: it hung.
fn bounded(seed: u64) -> Result<Option<Outcome>, ()> {
    bounded_case(case(seed))
}

fn bounded_case(c: Case) -> Result<Option<Outcome>, ()> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run_case(&c));
    });
    match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(outcome) => Ok(Some(outcome)),
        Err(mpsc::RecvTimeoutError::Disconnected) => Ok(None),
        // The thread is left behind: a hung simulation cannot be stopped.
        Err(mpsc::RecvTimeoutError::Timeout) => Err(()),
    }
}

#[test]
fn every_random_run_completes_clean_or_is_refused() {
    let (first, cases) = (env("DETOUR_FUZZ_SEED", 0), env("DETOUR_FUZZ_CASES", DEFAULT_CASES));
    let mut t = Tally::default();
    // 1: each seed before its run; 2: each whole case (to find a case that
    // takes the process down, which no thread can report).
    let verbose = env("DETOUR_FUZZ_VERBOSE", 0);
    for seed in first..first + cases {
        match verbose {
            0 => {}
            1 => eprintln!("seed {seed}"),
            _ => eprintln!("{:?}", case(seed)),
        }
        t.cases += 1;
        match bounded(seed) {
            Ok(Some(Outcome::Completed { losses, failed })) => {
                t.completed += 1;
                t.with_counted_losses += (losses > 0) as u64;
                if losses > 0 && t.loss_seeds.len() < 5 {
                    t.loss_seeds.push(seed);
                }
                t.with_failure += failed as u64;
            }
            Ok(Some(Outcome::Refused(kind, key))) => {
                t.refused += 1;
                *t.refused_by.entry(kind).or_default() += 1;
                if !key.is_empty() {
                    *t.refused_keys.entry(key).or_default() += 1;
                }
            }
            Ok(Some(Outcome::Bad(why))) => t.bad.push((seed, format!("{why}\n{:?}", case(seed)))),
            Ok(None) => {
                t.panics += 1;
                t.bad.push((seed, format!("panic\n{:?}", case(seed))));
            }
            Err(()) => {
                t.hangs += 1;
                t.bad.push((seed, format!("no end within {CASE_TIMEOUT:?}\n{:?}", case(seed))));
            }
        }
    }
    println!(
        "run fuzz: {} cases from seed {first}: {} completed ({} with an injected failure, {} with reads the scheme \
         counted lost after it: seeds {:?}), {} refused {:?} (config keys {:?}); {} panics, {} hangs, {} other failures",
        t.cases,
        t.completed,
        t.with_failure,
        t.with_counted_losses,
        t.loss_seeds,
        t.refused,
        t.refused_by,
        t.refused_keys,
        t.panics,
        t.hangs,
        t.bad.len() - t.panics as usize - t.hangs as usize
    );
    let seeds: Vec<u64> = t.bad.iter().map(|(seed, _)| *seed).collect();
    if let Some((seed, why)) = t.bad.first() {
        let c = case(*seed);
        let small = shrink::shrink(&c, &bounded(*seed));
        panic!(
            "failing seeds {seeds:?}; the first:\n{why}\nshrunk to {} keys and {} trace bytes; replay:\n{}",
            small.keys.len(),
            small.trace.len(),
            shrink::command(&small)
        );
    }
    // The mix must exercise both ends, or the generator has drifted.
    assert!(t.completed * 5 >= t.cases && t.refused > 0, "{t:?}");
}
