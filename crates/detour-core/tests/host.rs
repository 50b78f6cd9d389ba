//! The host interface: queue depth, time scaling, warm-up, addresses.

mod common;
use common::*;
use detour_core::{sim, IoKind};

const READ: u64 = 100 + 50_000 + 12_300;

#[test]
fn queue_depth_one_serialises_requests() {
    let reqs = [req(0, 0, 1, IoKind::Read), req(0, 1, 1, IoKind::Read)];
    let open = sim::run_requests(small(&[]), &reqs).unwrap();
    let qd1 = sim::run_requests(small(&["host.queue_depth=1"]), &reqs).unwrap();
    // Open loop: different channels, both take one read.
    assert_eq!(open.requests.latency_ns, vec![READ, READ]);
    // QD 1: the second waits at the host; its response time counts from arrival.
    assert_eq!(qd1.requests.latency_ns, vec![READ, 2 * READ]);
}

#[test]
fn time_scale_compresses_arrivals() {
    let reqs = [req(0, 0, 1, IoKind::Read), req(1_000_000, 1, 1, IoKind::Read)];
    let r = sim::run_requests(small(&["host.time_scale=0.5"]), &reqs).unwrap();
    assert_eq!(r.requests.arrival_ns, vec![0, 500_000]);
}

#[test]
fn warmup_requests_are_left_out_of_the_statistics() {
    let reqs: Vec<_> = (0..10).map(|i| req(i * 1_000_000, i, 1, IoKind::Read)).collect();
    let r = sim::run_requests(small(&["host.warmup_requests=4"]), &reqs).unwrap();
    assert_eq!(r.summary.requests, 6);
    assert_eq!(r.summary.warmup_requests, 4);
    assert_eq!(r.requests.len(), 10);
    assert!(r.requests.warmup[..4].iter().all(|&w| w));
}

#[test]
fn address_beyond_the_device_is_folded_by_default_or_an_error_when_strict() {
    let cfg = small(&["host.address=strict"]);
    let logical = detour_core::device::Geometry::from_config(&cfg.device).unwrap().logical_pages as u64;
    let mut r = req(0, logical + 5, 1, IoKind::Read);
    r.line = 42;
    let err = sim::run_requests(cfg, &[r]).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(":42:") && msg.contains("beyond the logical space"), "{msg}");
    let folded = sim::run_requests(small(&[]), &[r]).unwrap();
    assert_eq!(folded.summary.pages.folded, 1);
    assert_eq!(folded.summary.requests, 1);
}

#[test]
fn an_address_at_the_end_of_u64_is_an_error_not_an_overflow() {
    let mut r = req(0, 0, 1, IoKind::Read);
    (r.offset, r.size, r.line) = (u64::MAX - 100, 4096, 7);
    let err = sim::run_requests(small(&["host.address=strict"]), &[r]).unwrap_err().to_string();
    assert!(err.contains(":7:") && err.contains("beyond the logical space"), "{err}");
    assert!(err.contains(&format!("..{} ", u64::MAX)), "the end saturates: {err}");
}

#[test]
fn time_going_backwards_is_an_error_naming_the_line() {
    let mut b = req(500, 1, 1, IoKind::Read);
    b.line = 2;
    let err = sim::run_requests(small(&[]), &[req(1000, 0, 1, IoKind::Read), b]).unwrap_err();
    assert!(err.to_string().contains(":2:"), "{err}");
}

#[test]
fn unaligned_request_covers_every_page_it_touches() {
    let mut r = req(0, 0, 1, IoKind::Read);
    r.offset = 4096 - 512;
    r.size = 1024; // straddles pages 0 and 1
    let s = sim::run_requests(small(&[]), &[r]).unwrap().summary;
    assert_eq!(s.pages.host_read, 2);
}

#[test]
fn dynamic_allocation_sends_writes_to_idle_dies() {
    // 16 writes of the same page arriving together: static CWDP puts them all
    // on one die; dynamic allocation spreads them over the least-loaded dies.
    let reqs: Vec<_> = (0..16).map(|_| req(0, 0, 1, IoKind::Write)).collect();
    let stat = sim::run_requests(small(&["ftl.allocation=static"]), &reqs).unwrap();
    let dynm = sim::run_requests(small(&["ftl.allocation=dynamic"]), &reqs).unwrap();
    assert_eq!(stat.summary.dies.programs.iter().filter(|&&p| p > 0).count(), 1);
    assert_eq!(dynm.summary.dies.programs.iter().filter(|&&p| p > 0).count(), 16);
    assert!(dynm.summary.latency_us.write.mean < stat.summary.latency_us.write.mean / 4.0);
}

/// Regression (issue 50.3): the pages of one request are all planned before
/// any is queued, so the load the allocator saw did not move between them
/// and ties went to die 0: a 64 KiB write put its 16 pages on one die, and
/// at QD1 (the device idle between requests) so did every request.
#[test]
fn dynamic_allocation_spreads_the_pages_of_one_request_and_of_requests_in_turn() {
    let dies = |r: &sim::RunResult| r.summary.dies.programs.iter().filter(|&&p| p > 0).count();
    let one = sim::run_requests(small(&["ftl.allocation=dynamic"]), &[req(0, 0, 16, IoKind::Write)]).unwrap();
    assert_eq!(dies(&one), 16, "{:?}", one.summary.dies.programs);
    // One page at a time, each after the last has finished: round the dies.
    let seq: Vec<_> = (0..64).map(|i| req(i * 10_000_000, i, 1, IoKind::Write)).collect();
    let qd1 = sim::run_requests(small(&["ftl.allocation=dynamic"]), &seq).unwrap();
    assert!(qd1.summary.dies.programs.iter().all(|&p| p == 4), "{:?}", qd1.summary.dies.programs);
}

/// A single write larger than one die's space completes on an empty device
/// under dynamic allocation (it used to fill die 0 and stop).
#[test]
fn one_large_write_fits_an_empty_device_under_dynamic_allocation() {
    let pages = 128 << 8; // 128 MiB of 4 KiB pages
    let r = sim::run_requests(small(&["ftl.allocation=dynamic", "run.verify=true"]), &[req(0, 0, pages, IoKind::Write)]).unwrap();
    assert_eq!(r.summary.writes, 1);
    assert_eq!(r.summary.dies.programs.iter().sum::<u64>(), pages as u64);
    assert!(r.summary.dies.programs.iter().all(|&p| p == pages as u64 / 16), "{:?}", r.summary.dies.programs);
}

/// MQSim's fetch window and submission queue (issue 46, h41fetch): four
/// reads arrive together, each on its own channel, so one alone takes READ.
/// `host.queue_depth` admits `window` of them; the next `sq` wait in the
/// submission queue, whose entry starts their latency under
/// `latency_from = "submission_queue"`; the rest wait at the host, entering
/// it as the one ahead is fetched (IO_Flow_Base.cpp, Enqueue_time).
#[test]
fn latency_counts_from_the_submission_queue_entry_when_asked() {
    let reqs: Vec<_> = (0..4).map(|i| req(0, i, 1, IoKind::Read)).collect();
    let run = |keys: &[&str]| sim::run_requests(small(keys), &reqs).unwrap().requests.latency_ns;
    let (r, sq) = (READ, "host.latency_from=submission_queue");
    // Window 1: done at R, 2R, 3R, 4R. From arrival, that; the second sits
    // in the queue from 0, the third enters it at R (the second fetched),
    // the fourth at 2R: each counts two reads.
    assert_eq!(run(&["host.queue_depth=1", "host.submission_queue=1"]), vec![r, 2 * r, 3 * r, 4 * r]);
    assert_eq!(run(&["host.queue_depth=1", "host.submission_queue=1", sq]), vec![r, 2 * r, 2 * r, 2 * r]);
    // No limit on the submission queue: every request is in it on arrival.
    assert_eq!(run(&["host.queue_depth=1", sq]), vec![r, 2 * r, 3 * r, 4 * r]);
    // Window 2: the first two done at R; the third in the queue from 0,
    // the fourth entering it at R (the third fetched); both done at 2R.
    assert_eq!(run(&["host.queue_depth=2", "host.submission_queue=1"]), vec![r, r, 2 * r, 2 * r]);
    assert_eq!(run(&["host.queue_depth=2", "host.submission_queue=1", sq]), vec![r, r, 2 * r, r]);
}

#[test]
fn a_request_s_completion_stays_its_arrival_plus_host_wait_plus_latency() {
    // The run's end is the last completion, not arrival + latency.
    let reqs: Vec<_> = (0..4).map(|i| req(0, i, 1, IoKind::Read)).collect();
    let keys = ["host.queue_depth=1", "host.submission_queue=1"];
    let a = sim::run_requests(small(&keys), &reqs).unwrap().summary;
    let b = sim::run_requests(small(&[&keys[..], &["host.latency_from=submission_queue"]].concat()), &reqs).unwrap().summary;
    assert_eq!(a.throughput.duration_s, 4.0 * READ as f64 / 1e9);
    assert_eq!(b.throughput.duration_s, a.throughput.duration_s);
}
