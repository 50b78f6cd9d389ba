//! Die-level scheduling: suspension, multi-plane batches, channel sharing.

mod common;
use common::*;
use detour_core::config::Config;
use detour_core::{sim, IoKind};

fn one_die(extra: &[&str]) -> Config {
    let mut o = vec!["device.channels=1", "device.chips_per_channel=1", "device.dies_per_chip=1", "device.planes_per_die=2"];
    o.extend_from_slice(extra);
    small(&o)
}

const READ: u64 = 100 + 50_000 + 12_300;
const PROG_BUS: u64 = 100 + 12_300;

#[test]
fn read_waits_for_a_program_without_suspension() {
    // A write at 0, a read of another page 100 µs later, same die.
    let reqs = [req(0, 0, 1, IoKind::Write), req(100_000, 10, 1, IoKind::Read)];
    let r = sim::run_requests(one_die(&["scheduler.suspension=false"]), &reqs).unwrap();
    let program_end = PROG_BUS + 600_000;
    assert_eq!(r.requests.latency_ns[1], program_end - 100_000 + READ);
}

#[test]
fn suspension_lets_a_read_interrupt_a_program() {
    let reqs = [req(0, 0, 1, IoKind::Write), req(100_000, 10, 1, IoKind::Read)];
    let cfg = one_die(&["scheduler.suspension=true", "scheduler.suspend_us=20", "scheduler.resume_us=5"]);
    let r = sim::run_requests(cfg, &reqs).unwrap();
    assert_eq!(r.requests.latency_ns[1], 20_000 + READ);
    // The program resumes after the read and takes its remaining time plus the resume.
    let remaining = PROG_BUS + 600_000 - 100_000;
    assert_eq!(r.requests.latency_ns[0], 100_000 + 20_000 + READ + 5_000 + remaining);
    assert_eq!(r.summary.dies.suspensions, 1);
}

#[test]
fn reads_on_two_planes_of_a_die_share_one_array_read() {
    // Pages 0 and 1 go to planes 0 and 1 of the only die (CWDP, one channel/chip/die).
    let reqs = [req(0, 0, 1, IoKind::Read), req(0, 1, 1, IoKind::Read)];
    let multi = sim::run_requests(one_die(&["scheduler.multiplane=true"]), &reqs).unwrap();
    let single = sim::run_requests(one_die(&["scheduler.multiplane=false"]), &reqs).unwrap();
    // Together: two commands, one tR, two transfers.
    assert_eq!(multi.requests.latency_ns[1], 200 + 50_000 + 2 * 12_300);
    assert_eq!(single.requests.latency_ns[1], 2 * READ);
}

#[test]
fn dies_on_one_channel_share_its_bus() {
    // Two chips on one channel read at once: arrays overlap, transfers queue.
    let cfg = small(&["device.channels=1", "device.chips_per_channel=2", "device.dies_per_chip=1", "device.planes_per_die=1"]);
    let reqs = [req(0, 0, 1, IoKind::Read), req(0, 1, 1, IoKind::Read)];
    let r = sim::run_requests(cfg, &reqs).unwrap();
    let mut l = r.requests.latency_ns.clone();
    l.sort();
    assert_eq!(l[0], READ);
    // The second command waits 100 ns for the first; its data then follows the first transfer.
    assert_eq!(l[1], READ + 100 + 12_300 - 100);
}

#[test]
fn write_ops_are_counted_per_die_and_spread_is_reported() {
    let reqs: Vec<_> = (0..64).map(|i| req(i * 1000, i, 1, IoKind::Write)).collect();
    let r = sim::run_requests(small(&[]), &reqs).unwrap();
    let d = &r.summary.dies;
    assert_eq!(d.programs.iter().sum::<u64>(), 64);
    assert_eq!(d.programs.len(), 16);
    // CWDP spreads 64 consecutive pages evenly over 16 dies.
    assert!(d.programs.iter().all(|&p| p == 4));
    assert_eq!(d.ops_rsd, 0.0);
}

#[test]
fn out_of_order_serves_a_read_past_a_queued_write_during_a_suspension() {
    // Writes at 0 on pages 0 and 2 (both plane 0: the second waits behind
    // the first), a read at 100 µs. With reads and writes in one queue
    // (fcfs, or priority without read priority) the read suspends the
    // program, but the queued write heads the queue, so the program resumes
    // and the read waits for both; out of order serves the read at once.
    let reqs = [req(0, 0, 1, IoKind::Write), req(0, 2, 1, IoKind::Write), req(100_000, 10, 1, IoKind::Read)];
    let susp = ["scheduler.suspension=true", "scheduler.suspend_us=20", "scheduler.resume_us=5", "scheduler.read_priority=false"];
    let read_latency = |order: &str| {
        let mut kv = susp.to_vec();
        let o = format!("scheduler.order={order}");
        kv.push(&o);
        sim::run_requests(one_die(&kv), &reqs).unwrap().requests.latency_ns[2]
    };
    assert_eq!(read_latency("out-of-order"), 20_000 + READ);
    let both_writes = 2 * (PROG_BUS + 600_000) - 100_000;
    for order in ["priority", "fcfs"] {
        assert!(read_latency(order) > both_writes, "{order}: {}", read_latency(order));
    }
}

#[test]
fn out_of_order_on_one_plane_without_suspension_is_priority() {
    // Nothing to pass and nothing to batch: the same run to the nanosecond.
    let reqs = poisson(3000, 4000.0, 0.7, 1 << 12, 21);
    let one = |order: &str| {
        let o = format!("scheduler.order={order}");
        sim::run_requests(one_die(&["device.planes_per_die=1", o.as_str()]), &reqs).unwrap()
    };
    let (p, o) = (one("priority"), one("out-of-order"));
    assert_eq!(p.requests.latency_ns, o.requests.latency_ns);
    assert_eq!(p.summary, o.summary);
}
