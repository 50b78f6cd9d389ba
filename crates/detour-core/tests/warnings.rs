//! The `warnings` of summary.json (docs/results.md): each is raised by the
//! run it describes and not by a healthy run beside it, and `sim_time_s`
//! ends with the last request, not with a scheme's last periodic tick.

mod common;
use common::*;
use detour_core::metrics::Summary;
use detour_core::workload::{open_trace_reader, Request, TraceFormat, TraceOptions};
use detour_core::{sim, IoKind};
use std::io::Cursor;

fn kinds(s: &Summary) -> Vec<&str> {
    s.warnings.iter().map(|w| w.kind.as_str()).collect()
}

fn message<'a>(s: &'a Summary, kind: &str) -> &'a str {
    let w = s.warnings.iter().find(|w| w.kind == kind);
    &w.unwrap_or_else(|| panic!("no {kind} warning in {:?}", s.warnings)).message
}

fn run(o: &[&str], reqs: &[Request]) -> Summary {
    sim::run_requests(small(o), reqs).unwrap_or_else(|e| panic!("{o:?}: {e}")).summary
}

/// Writes of pages 0..n then reads of them, `gap_ns` apart, with content.
fn write_then_read(n: u64, gap_ns: u64) -> Vec<Request> {
    let w = (0..n).map(|i| req(i * gap_ns, i, 1, IoKind::Write));
    let r = (0..n).map(|i| req((n + i) * gap_ns, i, 1, IoKind::Read));
    w.chain(r)
        .enumerate()
        .map(|(i, mut q)| {
            q.content = if q.kind == IoKind::Write { 1 + i as u64 % 50 } else { 0 };
            q.line = i as u64 + 1;
            q
        })
        .collect()
}

#[test]
fn an_empty_trace_with_its_format_given_is_an_error_naming_the_file() {
    // Not a run that measured nothing: the reader says the file has no requests.
    let opts = TraceOptions { format: Some(TraceFormat::Msr), ..Default::default() };
    let trace = open_trace_reader("empty.csv", Cursor::new(Vec::new()), &opts).unwrap();
    let err = sim::run(small(&[]), trace).unwrap_err().to_string();
    assert!(err.starts_with("empty.csv: no requests read as msr"), "{err}");
}

#[test]
fn warmup_covering_the_whole_trace_measured_nothing() {
    let reqs = write_then_read(50, 100_000);
    let s = run(&["host.warmup_requests=100"], &reqs);
    assert_eq!(s.requests, 0);
    assert!(message(&s, "nothing_measured").contains("host.warmup_requests = 100"), "{:?}", s.warnings);
    assert!(!kinds(&run(&["host.warmup_requests=99"], &reqs)).contains(&"nothing_measured"));
}

#[test]
fn rr_ssd_with_a_period_longer_than_the_trace_says_so_and_ends_with_the_trace() {
    let reqs = write_then_read(200, 5_000_000); // 2 s of arrivals
                                                // A streamed workload (a trace) has no known span: the auto period is a day.
    let s = sim::run(small(&["scheme.name=rr-ssd"]), reqs.iter().map(|r| Ok(*r))).unwrap().summary;
    assert!(message(&s, "scheme_idle").contains("period_s = 86400"), "{:?}", s.warnings);
    let s = run(&["scheme.name=rr-ssd", "scheme.dedup.period_s=86400"], &reqs);
    let m = message(&s, "scheme_idle");
    assert!(m.contains("dedup.replica_reads") && m.contains("period_s = 86400"), "{m}");
    // It used to be the first tick, a day later.
    let last = reqs.last().unwrap().time_ns as f64 / 1e9;
    assert!(s.sim_time_s >= last && s.sim_time_s < last + 0.1, "{}", s.sim_time_s);
}

#[test]
fn rr_ssd_on_a_short_request_table_gets_a_seventh_of_its_span_as_period() {
    // 2 s of arrivals, period not set: 2 / 7 s, so replicas are made and read.
    let reqs = write_then_read(200, 5_000_000);
    let span = (reqs.last().unwrap().time_ns - reqs[0].time_ns) as f64 / 1e9;
    let s = run(&["scheme.name=rr-ssd"], &reqs);
    // Periods end while requests arrive, so replicas are made (whether a
    // read then prefers one depends on the load, idle here).
    assert!(counter(&s, "rrssd.periods") >= 6.0, "{}", counter(&s, "rrssd.periods"));
    assert!(counter(&s, "rrssd.copies_made") > 0.0);
    assert!(!message(&s, "scheme_idle").contains("period_s"), "{:?}", s.warnings);
    let period = counter(&s, "dedup.period_s");
    assert!((period - span / 7.0).abs() < 1e-6, "{period} vs {span} / 7");
    // Scaled arrivals scale the period with them; a set period stays.
    let s = run(&["scheme.name=rr-ssd", "host.time_scale=0.5"], &reqs);
    assert!((counter(&s, "dedup.period_s") - span / 14.0).abs() < 1e-6);
    let s = run(&["scheme.name=rr-ssd", "scheme.dedup.period_s=0.5"], &reqs);
    assert_eq!(counter(&s, "dedup.period_s"), 0.5);
}

#[test]
fn a_zero_replication_budget_and_unique_content_are_named() {
    let mut reqs = write_then_read(200, 50_000);
    reqs.iter_mut().for_each(|r| r.content = 0);
    let unique = ["scheme.dedup.synthetic_content=true", "scheme.dedup.period_s=0.001"];
    let s = run(&[&unique[..], &["scheme.name=pblru"]].concat(), &reqs);
    assert!(message(&s, "scheme_idle").contains("alpha_pct = 0"), "{:?}", s.warnings);
    let s = run(&[&unique[..], &["scheme.name=ca-ssd"]].concat(), &reqs);
    assert!(message(&s, "scheme_idle").contains("synthetic_content"), "{:?}", s.warnings);
    // Repeated content: CA-SSD deduplicates, and says nothing.
    let s = run(&["scheme.name=ca-ssd"], &write_then_read(200, 50_000));
    assert!(counter(&s, "dedup.write_hits") > 0.0 && s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn an_overloaded_device_is_called_saturated_and_a_light_load_is_not() {
    // 20,000 writes at a million per second on 16 dies: far beyond them.
    let heavy = poisson(20_000, 1e6, 0.0, 100_000, 1);
    let s = run(&[], &heavy);
    let all: Vec<&str> = s.warnings.iter().filter(|w| w.kind == "saturated").map(|w| w.message.as_str()).collect();
    assert!(all.iter().any(|m| m.contains("kept growing through the run")), "{all:?}");
    assert!(all.iter().any(|m| m.starts_with("dies busy") && m.contains("(channel ")), "{all:?}");
    // Slow channels (a page takes ~400 µs to move, a read 50 µs): the
    // channels are the bottleneck, and are named.
    let reads = poisson(4_000, 20_000.0, 1.0, 100_000, 3);
    let s = run(&["device.channel.rate_mts=10", "ftl.precondition.valid=1.0"], &reads);
    let m = message(&s, "saturated");
    assert!(s.warnings.iter().any(|w| w.message.starts_with("channels busy") && w.message.contains("channel 0 (")), "{m}");
    let light = poisson(2_000, 500.0, 0.0, 100_000, 1);
    assert!(!kinds(&run(&[], &light)).contains(&"saturated"), "{:?}", run(&[], &light).warnings);
}

#[test]
fn bursts_that_drain_between_them_are_not_called_saturated() {
    // 26 bursts of 160 writes at a million per second, 20 ms apart: each
    // burst queues up to ~150 requests and drains before the next. The
    // middle, three-quarter and last arrivals fall at the start, middle and
    // end of a burst, so the queue at those three arrivals rises; its means
    // over the quarters of the run do not.
    let (bursts, size) = (26u64, 160u64);
    let reqs: Vec<Request> = (0..bursts * size)
        .map(|i| {
            let mut r = req((i / size) * 20_000_000 + (i % size) * 1_000, i % 5_000, 1, IoKind::Write);
            r.line = i + 1;
            r
        })
        .collect();
    let s = run(&[], &reqs);
    assert!(!kinds(&s).contains(&"saturated"), "{:?}", s.warnings);
    // The same writes back to back never drain: that is saturation.
    let packed: Vec<Request> = reqs.iter().enumerate().map(|(i, r)| Request { time_ns: i as u64 * 1_000, ..*r }).collect();
    assert!(message(&run(&[], &packed), "saturated").contains("second quarter"));
}

#[test]
fn reads_of_never_written_pages_are_flagged() {
    let reads = poisson(1_000, 1000.0, 1.0, 100_000, 2);
    let s = run(&[], &reads);
    assert!(message(&s, "reads_unwritten").contains("pages.placed_on_read"), "{:?}", s.warnings);
    assert!(run(&[], &write_then_read(500, 100_000)).warnings.is_empty());
    // Preconditioned pages were written before the run.
    assert!(!kinds(&run(&["ftl.precondition.valid=1.0"], &reads)).contains(&"reads_unwritten"));
}

#[test]
fn warnings_are_deterministic_and_serialised() {
    let reads = poisson(1_000, 1000.0, 1.0, 100_000, 2);
    let (a, b) = (run(&[], &reads), run(&[], &reads));
    let json = |s: &Summary| serde_json::to_string(s).unwrap();
    assert_eq!(json(&a), json(&b));
    assert!(json(&a).contains("\"warnings\":[{\"kind\":\"reads_unwritten\""), "{}", json(&a));
}
