//! `[nand]`: read retry, wear-out and aging, each against its analytic
//! value or the ideal flash on the `small` preset (MLC timing: read 50 µs;
//! 64 pages per block).

mod common;
use common::*;
use detour_core::config::{Config, RberFit};
use detour_core::device::nand::{Ecc, Fit};
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const T_READ: u64 = 50_000;
const DECODE: u64 = 5_000;
const DAY_NS: f64 = 86400.0 * 1e9;

fn run(cfg: Config, reqs: &[detour_core::workload::Request]) -> RunResult {
    let r = sim::run_requests(cfg, reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len(), "every request completes");
    r
}

#[test]
fn a_read_with_k_retry_steps_takes_k_more_reads_and_decodes() {
    let aged = ["nand.error_model=power_law", "nand.fit=tlc3d72", "nand.initial_pe=3000", "nand.initial_age_days=365"];
    let reqs = [req(0, 5, 1, IoKind::Read)];
    let ideal = run(small(&[]), &reqs);
    let r = run(small(&aged), &reqs);
    // The model by hand: the block's first read, at time 0, of data a year old.
    let rber = Fit::of(RberFit::Tlc3d72).rber(3000.0, 365.0 * DAY_NS, 1.0, 64.0);
    let (k, failed) = Ecc { codeword_bits: 8192.0, t: 40.0, max_retries: 15 }.steps(rber);
    assert!(k >= 2 && !failed, "a year-old block at 3000 cycles retries: k = {k}");
    assert_eq!(r.requests.latency_ns[0] - ideal.requests.latency_ns[0], k as u64 * (T_READ + DECODE));
    assert_eq!(r.requests.retry_steps[0], k);
    let n = r.summary.nand.as_ref().unwrap();
    assert_eq!((n.reads, n.retry_steps, n.retry_steps_max), (1, k as u64, k));
}

#[test]
fn fresh_and_young_data_read_as_on_the_ideal_flash() {
    let reqs = stress(7, 20_000);
    let ideal = run(small(&["run.verify=true"]), &reqs);
    let r = run(small(&["run.verify=true", "nand.error_model=power_law", "nand.fit=tlc3d72"]), &reqs);
    let n = r.summary.nand.clone().unwrap();
    assert!(n.reads > 0);
    assert_eq!(n.retry_steps, 0, "fresh blocks, data under a second old: no retries");
    assert_eq!(r.requests.latency_ns, ideal.requests.latency_ns);
    let mut s = r.summary.clone();
    s.nand = None;
    assert_eq!(s, ideal.summary);
}

#[test]
fn a_drift_model_read_takes_its_table_entries_in_steps() {
    // vth_drift, tlc3d48, 1000 P/E, 90-day-old data. By hand (docs/nand.md):
    // rate = 0.520978 + 0.000835573 x 1000 = 1.356551 steps per e-fold;
    // D = 1.356551 x ln(90 x 24 h / 1 h) = 1.356551 x 7.677864 = 10.4155;
    // steps = ceil(D - 1/2) = 10.
    let aged = ["nand.error_model=vth_drift", "nand.initial_pe=1000", "nand.initial_age_days=90"];
    let reqs = [req(0, 5, 1, IoKind::Read)];
    let ideal = run(small(&[]), &reqs);
    let r = run(small(&aged), &reqs);
    assert_eq!(r.requests.retry_steps[0], 10);
    assert_eq!(r.requests.latency_ns[0] - ideal.requests.latency_ns[0], 10 * (T_READ + DECODE));
    let n = r.summary.nand.as_ref().unwrap();
    assert_eq!((n.reads, n.retry_steps, n.uncorrectable), (1, 10, 0));
    // The same block unworn: its data still drifted (3D NAND loses charge
    // without wear): 0.520978 x 7.677864 = 4.0000, 4 steps.
    let r = run(small(&["nand.error_model=vth_drift", "nand.initial_age_days=90"]), &reqs);
    assert_eq!(r.requests.retry_steps[0], 4);
}

#[test]
fn drift_model_on_young_data_reads_as_the_ideal_flash() {
    // Data younger than the drift's reference age (1 h) needs no retry.
    let reqs = stress(7, 20_000);
    let ideal = run(small(&["run.verify=true"]), &reqs);
    let r = run(small(&["run.verify=true", "nand.error_model=vth_drift", "nand.initial_pe=3000"]), &reqs);
    let n = r.summary.nand.clone().unwrap();
    assert!(n.reads > 0 && r.summary.sim_time_s < 3600.0);
    assert_eq!(n.retry_steps, 0);
    assert_eq!(r.requests.latency_ns, ideal.requests.latency_ns);
}

#[test]
fn a_block_at_its_pe_limit_is_retired_and_never_written_again() {
    let mut kv = TINY.to_vec();
    kv.extend(["nand.pe_limit=10", "nand.initial_pe=8", "nand.initial_pe_spread=0.125", "ftl.precondition.valid=0.5"]);
    let cfg = small(&kv);
    let reqs = stress(3, cfg.device.blocks_per_plane as u64 * 8 * 32 / 2);
    let s = run(cfg, &reqs[..6_000]).summary;
    let n = s.nand.unwrap();
    assert!(n.blocks_retired_wear > 0, "{n:?}");
    assert_eq!(n.retired_reopened, 0);
    assert_eq!(s.verify_errors, 0);
    assert!(n.pe_max < 10, "every block in service is below the limit: {n:?}");
}

#[test]
fn running_out_of_spare_blocks_ends_with_a_report() {
    let mut kv = TINY.to_vec();
    kv.extend(["nand.pe_limit=2", "nand.initial_pe=1"]);
    let cfg = small(&kv);
    let logical = cfg.device.blocks_per_plane as u64 * 8 * 32 / 2;
    let err = sim::run_requests(cfg, &stress(5, logical)).expect_err("the device wears out under the stress workload");
    assert!(err.to_string().contains("ran out of spare space"), "{err}");
}

#[test]
fn factory_bad_blocks_are_never_written() {
    let mut kv = TINY.to_vec();
    kv.push("nand.bad_block_fraction=0.05");
    let cfg = small(&kv);
    let r = run(cfg, &stress(9, 2_000));
    let n = r.summary.nand.unwrap();
    assert!(n.blocks_bad_factory > 0);
    assert_eq!(n.blocks_usable, n.blocks - n.blocks_bad_factory);
    assert_eq!(n.retired_reopened, 0);
    assert_eq!(r.summary.verify_errors, 0);
}

#[test]
fn refresh_rewrites_blocks_whose_reads_retry_and_later_reads_retry_less() {
    let mut kv = TINY.to_vec();
    kv.extend([
        "ftl.precondition.valid=0.5",
        "nand.error_model=power_law",
        "nand.fit=tlc3d72",
        "nand.initial_pe=3000",
        "nand.initial_age_days=365",
    ]);
    let cfg = small(&kv);
    // Reads only, over the preconditioned half, each page read many times.
    let reqs = poisson(20_000, 4_000.0, 1.0, 2_000, 11);
    let plain = run(cfg.clone(), &reqs).summary;
    kv.push("nand.refresh_steps=4");
    let refreshed = run(small(&kv), &reqs).summary;
    let (a, b) = (plain.nand.unwrap(), refreshed.nand.unwrap());
    assert_eq!(a.refreshes, 0);
    assert!(b.refreshes > 0, "{b:?}");
    assert!(b.retry_steps_mean < a.retry_steps_mean, "{a:?}\n{b:?}\n{:?}", refreshed.gc);
    assert!(refreshed.latency_us.read.mean < plain.latency_us.read.mean);
    assert_eq!(refreshed.verify_errors, 0);
}
