//! MQSim's channel order (`scheduler.channel_order = "data_outs_first"`),
//! against hand-computed times on the `small` preset (MLC: program 600
//! µs; 100 ns command; a 4 KiB page takes 12.3 µs on the channel), on one
//! channel of three one-die, one-plane chips, so LPN k is
//! on chip k. When a transfer ends, MQSim's PHY moves out finished reads'
//! data first, in the order they finished (`NVM_PHY_ONFI_NVDDR2::
//! Execute_simulator_event`), and only then does the TSU issue a command,
//! trying the chips round robin from the one after the last that took the
//! channel (`TSU_Base::handle_channel_idle_signal`).

mod common;
use common::*;
use detour_core::config::{ChannelOrder, Config};
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const T_PROG: u64 = 600_000;

const DEV: [&str; 5] =
    ["device.channels=1", "device.chips_per_channel=3", "device.dies_per_chip=1", "device.planes_per_die=1", "scheduler.unit=chip"];

fn dev(order: &str) -> Config {
    small(&[&DEV[..], &[order]].concat())
}

fn run(cfg: Config, reqs: &[detour_core::workload::Request]) -> RunResult {
    let r = sim::run_requests(cfg, reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len(), "every request completes");
    r
}

const FCFS: &str = "scheduler.channel_order=fcfs";
const SSDSIM: &str = "scheduler.channel_order=reads_first";
const MQSIM: &str = "scheduler.channel_order=data_outs_first";

#[test]
fn a_finished_reads_data_out_goes_before_a_write_that_asked_first() {
    // The read's array ends at 50.1 µs while a write holds the channel
    // [45, 57.4 µs] and another write has waited since 50 µs.
    let reqs = [req(0, 0, 1, IoKind::Read), req(45_000, 1, 1, IoKind::Write), req(50_000, 2, 1, IoKind::Write)];
    let busy = 45_000 + CMD + XFER;
    let fcfs = run(dev(FCFS), &reqs);
    assert_eq!(fcfs.requests.latency_ns[0], busy + (CMD + XFER) + XFER);
    let m = run(dev(MQSIM), &reqs);
    assert_eq!(m.requests.latency_ns[0], busy + XFER);
    assert_eq!(m.requests.latency_ns[2], busy + XFER + (CMD + XFER) + T_PROG - 50_000);
}

#[test]
fn data_outs_go_in_the_order_their_reads_finished() {
    // Reads on chips 2 (at 0) and 1 (at 1 µs) finish at 50.1 and 51.1 µs,
    // while a write on chip 0 holds the channel [45, 57.4 µs]. MQSim moves
    // chip 2's data first (it finished first); SSDSim the lowest chip's.
    let reqs = [req(0, 2, 1, IoKind::Read), req(1_000, 1, 1, IoKind::Read), req(45_000, 0, 1, IoKind::Write)];
    let busy = 45_000 + CMD + XFER;
    let m = run(dev(MQSIM), &reqs);
    assert_eq!(m.requests.latency_ns[0], busy + XFER);
    assert_eq!(m.requests.latency_ns[1], busy + 2 * XFER - 1_000);
    let s = run(dev(SSDSIM), &reqs);
    assert_eq!(s.requests.latency_ns[1], busy + XFER - 1_000);
    assert_eq!(s.requests.latency_ns[0], busy + 2 * XFER);
}

#[test]
fn new_commands_go_round_robin_from_the_chip_after_the_last() {
    // A write on chip 1 takes the idle channel at 0 (the turn moves to
    // chip 2); writes on chips 0 (1 µs) and 2 (2 µs) wait for it. At 12.4
    // µs MQSim tries chip 2 first; first come first served (and SSDSim's
    // lowest chip) serve chip 0.
    let reqs = [req(0, 1, 1, IoKind::Write), req(1_000, 0, 1, IoKind::Write), req(2_000, 2, 1, IoKind::Write)];
    let one = CMD + XFER;
    let fcfs = run(dev(FCFS), &reqs);
    assert_eq!(fcfs.requests.latency_ns[1], 2 * one + T_PROG - 1_000);
    assert_eq!(fcfs.requests.latency_ns[2], 3 * one + T_PROG - 2_000);
    let m = run(dev(MQSIM), &reqs);
    assert_eq!(m.requests.latency_ns[2], 2 * one + T_PROG - 2_000);
    assert_eq!(m.requests.latency_ns[1], 3 * one + T_PROG - 1_000);
    assert_eq!(m.requests.latency_ns[0], one + T_PROG);
}

#[test]
fn the_mqsim_bundle_sets_it() {
    assert_eq!(small(&["compat=mqsim"]).scheduler.channel_order, ChannelOrder::DataOutsFirst);
    assert_eq!(small(&[]).scheduler.channel_order, ChannelOrder::Fcfs);
}
