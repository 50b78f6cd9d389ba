//! End-to-end runs of the conventional scheme on small workloads.

mod common;
use common::*;
use detour_core::{sim, IoKind};

#[test]
fn single_read_takes_command_array_and_transfer() {
    let cfg = small(&["device.channel.command_ns=100"]);
    let r = sim::run_requests(cfg, &[req(0, 0, 1, IoKind::Read)]).unwrap();
    let s = &r.summary;
    assert_eq!(s.requests, 1);
    // 100 ns command + 50 µs tR + 4096 B at 333 MB/s (12.3 µs).
    assert_eq!(r.requests.latency_ns[0], 100 + 50_000 + 12_300);
    assert_eq!(s.pages.placed_on_read, 1);
}

#[test]
fn single_write_includes_program_time() {
    let cfg = small(&[]);
    let r = sim::run_requests(cfg, &[req(0, 0, 1, IoKind::Write)]).unwrap();
    assert_eq!(r.requests.latency_ns[0], 100 + 12_300 + 600_000);
    assert_eq!(r.summary.breakdown_us.write.array, 600.0);
}

#[test]
fn read_after_write_is_served_from_buffer_then_flash() {
    let cfg = small(&["run.verify=true"]);
    let reqs = [req(0, 7, 1, IoKind::Write), req(1_000, 7, 1, IoKind::Read), req(2_000_000, 7, 1, IoKind::Read)];
    let r = sim::run_requests(cfg, &reqs).unwrap();
    assert_eq!(r.summary.pages.buffered_reads, 1);
    assert_eq!(r.summary.verify_errors, 0);
    assert_eq!(r.requests.latency_ns[1], 1_000);
    assert!(r.requests.latency_ns[2] > 50_000);
}

#[test]
fn multi_page_request_completes_when_all_pages_do() {
    let cfg = small(&[]);
    let r = sim::run_requests(cfg, &[req(0, 0, 16, IoKind::Read)]).unwrap();
    // 16 pages over 4 channels: each channel carries 4 page transfers, so the
    // request takes longer than one page read but far less than 16 serial ones.
    let l = r.requests.latency_ns[0];
    assert!(l > 62_400 && l < 4 * 62_400, "{l}");
}

#[test]
fn mixed_workload_verifies_clean_and_is_deterministic() {
    let reqs = poisson(20_000, 5_000.0, 0.6, 50_000, 3);
    let run = || {
        let cfg = small(&["run.verify=true"]);
        sim::run_requests(cfg, &reqs).unwrap()
    };
    let a = run();
    let b = run();
    assert_eq!(a.summary.requests, 20_000);
    assert_eq!(a.summary.verify_errors, 0);
    let ja = serde_json::to_string(&a.summary).unwrap();
    let jb = serde_json::to_string(&b.summary).unwrap();
    assert_eq!(ja, jb);
    assert_eq!(a.requests.latency_ns, b.requests.latency_ns);
}
