//! Closed-loop flows (`[[flows]]`, sim/closed.rs): each stream keeps its
//! queue depth outstanding. Checked against the analytic device: on the
//! `small` preset (MLC read 50 µs, 100 ns command, a 4 KiB page 12.3 µs on
//! its 8-bit 333 MT/s channel) a lone read takes command + tR + transfer.

mod common;
use common::*;
use detour_core::config::{Config, FlowConfig, RwMode};
use detour_core::metrics::{FlowKind, Summary};
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const CMD: f64 = 100.0;
const XFER_SMALL: f64 = 12_300.0;
const T_READ: f64 = 50_000.0;

fn job(rw: RwMode, iodepth: u32) -> FlowConfig {
    FlowConfig { rw, iodepth, ..FlowConfig::default() }
}

fn run_flows(mut cfg: Config, flows: Vec<FlowConfig>) -> RunResult {
    cfg.flows = flows;
    sim::run(cfg, std::iter::empty()).unwrap()
}

fn json(s: &Summary) -> String {
    serde_json::to_string(s).unwrap()
}

#[test]
fn qd1_random_reads_take_a_lone_reads_service_time() {
    let r = run_flows(small(&[]), vec![FlowConfig { ios: 2000, ..job(RwMode::RandRead, 1) }]);
    let lone = (CMD + T_READ + XFER_SMALL) / 1e3;
    let mean = r.summary.latency_us.read.mean;
    println!("QD1 randread: mean {mean:.3} µs, analytic lone read {lone:.3} µs");
    assert_eq!(r.summary.requests, 2000);
    assert!((mean - lone).abs() / lone < 0.01, "mean {mean} vs {lone}");
    // QD1: one request at a time, so IOPS is 1 / latency.
    let f = &r.summary.flows[0];
    assert!((f.iops - 1e6 / lone).abs() / (1e6 / lone) < 0.01, "{}", f.iops);
    assert_eq!((f.kind, f.iodepth, f.requests), (FlowKind::Closed, 1, 2000));
}

#[test]
fn iops_at_depth_on_one_die_saturates_at_one_over_tr() {
    // One die, one plane, a fast channel (16 bits at 1600 MT/s: 1.28 µs a
    // page), so the die's service is tR plus 1.38 µs of bus.
    let one_die = [
        "device.channels=1",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "device.planes_per_die=1",
        "device.channel.width_bits=16",
        "device.channel.rate_mts=1600",
    ];
    let xfer = 4096.0 / (2.0 * 1600.0) * 1e3;
    let service_ns = CMD + T_READ + xfer;
    for depth in [1, 64] {
        let r = run_flows(small(&one_die), vec![FlowConfig { ios: 4000, ..job(RwMode::RandRead, depth) }]);
        let iops = r.summary.flows[0].iops;
        println!("QD{depth}: {iops:.0} IOPS; 1/tR = {:.0}, 1/(cmd + tR + xfer) = {:.0}", 1e9 / T_READ, 1e9 / service_ns);
        assert!((iops - 1e9 / service_ns).abs() / (1e9 / service_ns) < 0.005, "the die's service rate");
        assert!((iops - 1e9 / T_READ).abs() / (1e9 / T_READ) < 0.03, "within 3% of 1/tR");
        if depth > 1 {
            // The queue is at the die: latency is depth x service.
            let mean = r.summary.latency_us.read.mean * 1e3;
            assert!((mean - depth as f64 * service_ns).abs() / mean < 0.02, "{mean}");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_summary_byte_for_byte() {
    let flows = || {
        vec![
            FlowConfig { rwmixread: 70.0, numjobs: 2, runtime_s: 0.01, ramp_s: 0.002, ..job(RwMode::RandRw, 8) },
            FlowConfig { name: "seq".into(), ios: 300, think_us: 20.0, ..job(RwMode::Write, 2) },
        ]
    };
    let a = run_flows(small(&[]), flows());
    let b = run_flows(small(&[]), flows());
    assert_eq!(json(&a.summary), json(&b.summary));
    assert_eq!(a.requests.offset, b.requests.offset);
    let c = run_flows(small(&["run.seed=2"]), flows());
    assert_ne!(a.requests.offset, c.requests.offset, "another seed, other addresses");
    let names: Vec<&str> = a.summary.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["flow1", "seq"]);
    assert_eq!(a.summary.flows[1].requests, 300, "ios counts every request of a stream");
    let mix = a.summary.flows[0].reads as f64 / a.summary.flows[0].requests as f64;
    assert!((mix - 0.7).abs() < 0.05, "{mix}");
}

#[test]
fn ramp_requests_are_simulated_but_not_counted() {
    let (ramp, runtime) = (0.002, 0.01);
    let f = FlowConfig { ramp_s: ramp, runtime_s: runtime, ..job(RwMode::RandRead, 4) };
    let r = run_flows(small(&[]), vec![f]);
    let ramp_ns = (ramp * 1e9) as u64;
    let cols = &r.requests;
    let ramped = cols.arrival_ns.iter().filter(|&&a| a < ramp_ns).count();
    assert!(ramped > 50, "the ramp issued requests: {ramped}");
    assert!(cols.arrival_ns.iter().zip(&cols.warmup).all(|(&a, &w)| w == (a < ramp_ns)), "warm-up is exactly the ramp");
    let measured = cols.len() - ramped;
    assert_eq!(r.summary.requests as usize, measured);
    assert_eq!(r.summary.flows[0].requests as usize, measured);
    assert_eq!(r.summary.warmup_requests as usize, ramped, "ramp requests count as warm-up");
    assert!(cols.arrival_ns.iter().all(|&a| a < ramp_ns + (runtime * 1e9) as u64), "nothing issued after the runtime");
    // Measured duration is the runtime (plus the last requests' service).
    let d = r.summary.flows[0].duration_s;
    assert!(d >= runtime && d < runtime * 1.05, "{d}");
}

#[test]
fn a_write_flow_slows_a_read_flow_sharing_the_device() {
    let reader = || FlowConfig { name: "reader".into(), runtime_s: 0.02, ..job(RwMode::RandRead, 4) };
    let alone = run_flows(small(&[]), vec![reader()]);
    let writer = FlowConfig { name: "writer".into(), runtime_s: 0.02, ..job(RwMode::RandWrite, 16) };
    let shared = run_flows(small(&[]), vec![reader(), writer]);
    let (a, s) = (&alone.summary.flows[0], &shared.summary.flows[0]);
    println!(
        "reader alone: {:.1} µs mean, {:.0} IOPS; beside the writer: {:.1} µs mean, p99 {:.1} µs, {:.0} IOPS",
        a.latency_us.read.mean, a.iops, s.latency_us.read.mean, s.latency_us.read.p99, s.iops
    );
    assert!(s.latency_us.read.mean > 1.5 * a.latency_us.read.mean, "reads wait behind programs");
    assert!(s.iops < a.iops, "and the reader gets fewer done");
    assert!(shared.summary.flows[1].writes > 0 && shared.summary.flows[1].reads == 0);
}

#[test]
fn an_open_workload_runs_beside_the_flows_as_its_own_flow() {
    let trace: Vec<_> = (0..200).map(|i| req(i * 50_000, 1000 + i, 1, IoKind::Write)).collect();
    let mut cfg = small(&["flows=[{rw = \"randread\", iodepth = 2, ios = 500, size_bytes = 4096000}]"]);
    assert_eq!(cfg.flows.len(), 1, "flows set as a key=value override");
    cfg.flows[0].name = "fio".into();
    let r = sim::run_requests(cfg, &trace).unwrap();
    let f = &r.summary.flows;
    assert_eq!((f[0].name.as_str(), f[0].kind, f[0].writes), ("workload", FlowKind::Open, 200));
    assert_eq!((f[1].name.as_str(), f[1].reads), ("fio", 500), "ios is per stream, not per slot");
    assert_eq!(r.summary.requests, 700);
    assert!(r.requests.offset.iter().zip(&r.requests.is_write).all(|(&o, &w)| w || o < 4_096_000));
}

#[test]
fn without_flows_nothing_changes_and_bad_flows_name_their_key() {
    let r = sim::run_requests(small(&[]), &[req(0, 1, 1, IoKind::Read)]).unwrap();
    assert!(r.summary.flows.is_empty() && !json(&r.summary).contains("\"flows\""));
    let mut cfg = small(&[]);
    cfg.flows = vec![FlowConfig { ios: 1, size_bytes: 1 << 50, ..FlowConfig::default() }];
    let e = sim::run(cfg, std::iter::empty()).unwrap_err().to_string();
    assert!(e.contains("flows[0].size_bytes"), "{e}");
    let e = detour_core::config::ConfigBuilder::from_preset("small").unwrap().set_all(["flows=[{iodepth = 0, ios = 1}]"]);
    let e = e.and_then(|b| b.build()).unwrap_err().to_string();
    assert!(e.contains("flows[0].iodepth"), "{e}");
}

#[test]
fn open_flows_replay_their_own_trace_or_profile_beside_a_closed_flow() {
    let dir = std::env::temp_dir().join(format!("detour-flows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tenant.disksim");
    let writes = (0..100).map(|i| Ok(req(i * 100_000, 5000 + i, 1, IoKind::Write)));
    detour_core::workload::write_trace(detour_core::workload::TraceFormat::Disksim, writes, std::fs::File::create(&path).unwrap()).unwrap();
    let trace = FlowConfig { name: "trace".into(), trace: path.display().to_string(), ..FlowConfig::default() };
    let sets = ["requests=300", "footprint_bytes=16777216"].map(String::from).to_vec();
    let prof = FlowConfig { name: "prof".into(), profile: "bench-like".into(), profile_set: sets, ..FlowConfig::default() };
    let fio = FlowConfig { name: "fio".into(), ios: 200, ..job(RwMode::RandRead, 2) };
    let r = run_flows(small(&[]), vec![trace.clone(), prof.clone(), fio.clone()]);
    let kinds: Vec<_> = r.summary.flows.iter().map(|f| (f.name.as_str(), f.kind, f.requests)).collect();
    assert_eq!(kinds, [("trace", FlowKind::Open, 100), ("prof", FlowKind::Open, 300), ("fio", FlowKind::Closed, 200)]);
    assert_eq!(r.summary.requests, 600);
    // Arrivals at their own times: the trace's writes come 100 µs apart.
    let trace_arrivals: Vec<u64> = r
        .requests
        .arrival_ns
        .iter()
        .zip(&r.requests.offset)
        .filter(|(_, &o)| (5000 * 4096..5100 * 4096).contains(&o))
        .map(|(&a, _)| a)
        .collect();
    assert_eq!(trace_arrivals.len(), 100);
    assert!(trace_arrivals.windows(2).all(|w| w[1] - w[0] == 100_000), "{:?}", &trace_arrivals[..4]);
    let again = run_flows(small(&[]), vec![trace, prof.clone(), fio]);
    assert_eq!(json(&r.summary), json(&again.summary));
    let bad = FlowConfig { profile: "no-such-profile".into(), ..FlowConfig::default() };
    let e = sim::run(
        {
            let mut c = small(&[]);
            c.flows = vec![bad];
            c
        },
        std::iter::empty(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("flows[0].profile"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
