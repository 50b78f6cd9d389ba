//! NVMe priority classes under `scheduler.arbitration = "nvme_wrr"`
//! (scheduler/arbiter.rs: MQSim's PRIORITY_OUT_OF_ORDER TSU, URGENT first,
//! then HIGH/MEDIUM/LOW by weighted round robin), with closed-loop flows.

mod common;
use common::*;
use detour_core::config::{Config, FlowConfig, RwMode};
use detour_core::scheduler::arbiter::PriorityClass;
use detour_core::sim::{self, RunResult};

/// One die, one plane (so no batch mixes classes): a read is command
/// (100 ns) + tR (50 µs) + a 4 KiB transfer at 8 bits x 333 MT/s (12.3 µs).
const ONE_DIE: [&str; 4] = ["device.channels=1", "device.chips_per_channel=1", "device.dies_per_chip=1", "device.planes_per_die=1"];
const SERVICE_US: f64 = 0.1 + 50.0 + 12.3;

fn flow(name: &str, priority: PriorityClass, iodepth: u32) -> FlowConfig {
    FlowConfig { name: name.into(), rw: RwMode::RandRead, iodepth, priority, ..FlowConfig::default() }
}

fn run(mut cfg: Config, flows: Vec<FlowConfig>) -> RunResult {
    cfg.flows = flows;
    sim::run(cfg, std::iter::empty()).unwrap()
}

fn with(extra: &[&str]) -> Config {
    let mut keys: Vec<&str> = ONE_DIE.to_vec();
    keys.extend_from_slice(extra);
    small(&keys)
}

/// Hand-computed: an URGENT stream at depth 1 beside a HIGH stream at
/// depth 8 on one die, reads of one service time s each. When a read
/// ends the die starts the next queued one at that instant, before the
/// stream's next request is issued (as in MQSim, where the new command
/// still has to be fetched): so under nvme_wrr every URGENT read but the
/// first (issued first at time 0, picked first) waits for exactly one
/// HIGH read and is served next, 2 s; mean (1 + 199 x 2) / 200 s. Under
/// fifo it queues behind the die's 8 HIGH reads, 9 s, until the HIGH
/// flow's 400 are done (after 450 reads, 50 of them URGENT), then runs
/// alone at s: mean (50 x 9 + 150) / 200 = 3 s.
#[test]
fn an_urgent_stream_is_served_before_queued_high_reads() {
    let flows = || {
        vec![
            FlowConfig { ios: 200, ..flow("urgent", PriorityClass::Urgent, 1) },
            FlowConfig { ios: 400, ..flow("high", PriorityClass::High, 8) },
        ]
    };
    let wrr = run(with(&["scheduler.arbitration=\"nvme_wrr\""]), flows());
    let fifo = run(with(&[]), flows());
    let urgent = |r: &RunResult| r.summary.flows.iter().find(|f| f.name == "urgent").unwrap().latency_us.read.mean;
    let want = (1.0 + 199.0 * 2.0) / 200.0 * SERVICE_US;
    println!("urgent mean: nvme_wrr {:.2} us (want {want:.2}), fifo {:.2} us; one read {SERVICE_US:.2} us", urgent(&wrr), urgent(&fifo));
    assert!((urgent(&wrr) - want).abs() / want < 0.005, "{}", urgent(&wrr));
    assert!((urgent(&fifo) / SERVICE_US - 3.0).abs() < 0.05, "{}", urgent(&fifo));
}

/// Issue 46's check: two saturating closed-loop flows share the device in
/// the ratio of their classes' weights (HIGH:LOW = 4:1 with MQSim's 4/2/1;
/// HIGH:MEDIUM = 3:2 with weights set to 3/2/1), and as equals under fifo.
/// On one die both classes are queued at every pick, so the rule's ratio
/// is the bandwidth ratio, but for the drain at the end: each flow's last
/// `iodepth` requests are counted too, (4n + 8) / (n + 8) for n rounds.
/// Over several dies a die sometimes holds no HIGH operation and serves
/// LOW meanwhile (a closed network spreads a flow's requests over the dies
/// evenly over all splits: with d requests on 4 dies one die has none with
/// probability 3 / (d + 3)); at depth 256 on 4 dies that costs about 1%
/// and the drain about 2%, so that case is held to 4%.
#[test]
fn weighted_round_robin_shares_bandwidth_in_the_configured_ratio() {
    let four = ["device.channels=2", "device.chips_per_channel=1", "device.dies_per_chip=2", "device.planes_per_die=1"];
    let wrr = "scheduler.arbitration=\"nvme_wrr\"";
    let cases: [(&[&str], PriorityClass, u32, f64, f64); 4] = [
        (&[wrr], PriorityClass::Low, 8, 4.0, 0.01),
        (&[wrr, "scheduler.wrr_weights=[3, 2, 1]"], PriorityClass::Medium, 8, 1.5, 0.01),
        (&[], PriorityClass::Low, 8, 1.0, 0.01),
        (&[wrr, four[0], four[1], four[2]], PriorityClass::Low, 256, 4.0, 0.04),
    ];
    for (extra, other, depth, ratio, tol) in cases {
        let r = run(
            with(extra),
            vec![
                FlowConfig { runtime_s: 1.0, ..flow("high", PriorityClass::High, depth) },
                FlowConfig { runtime_s: 1.0, ..flow("other", other, depth) },
            ],
        );
        let iops = |name: &str| r.summary.flows.iter().find(|f| f.name == name).unwrap().iops;
        let got = iops("high") / iops("other");
        println!("{extra:?} HIGH vs {other:?} at depth {depth}: {:.0} / {:.0} IOPS = {got:.3} (want {ratio})", iops("high"), iops("other"));
        assert!((got - ratio).abs() / ratio < tol, "{got} vs {ratio}");
    }
}

#[test]
fn weights_out_of_order_are_refused_naming_the_key() {
    let e = detour_core::config::ConfigBuilder::from_preset("small").unwrap().set("scheduler.wrr_weights", "[1, 2, 4]").unwrap().build();
    assert!(e.unwrap_err().to_string().contains("scheduler.wrr_weights"));
}

/// Mapping work above every class (`TSU_Priority_OutOfOrder::
/// service_read_transaction` serves `MappingReadTRQueue` before it asks
/// for a class): one URGENT and two HIGH requests at time 0 on one die,
/// each missing the cached mapping table (translation pages of their own),
/// every read one service time s. A die starts its next read the instant
/// one ends, before the ended read's request plans its data. Translation
/// reads run first: U's (submitted first) to s, H1's to 2s; U's data
/// read, queued at s, then waits for H2's translation read (to 3s) and
/// ends at 4s; H1's data at 5s, H2's at 6s. Were translation reads of
/// their request's class, U's data read would go before H2's HIGH
/// translation read: U ends at 3s (H1 and H2 still 5s and 6s).
#[test]
fn translation_reads_go_before_every_class() {
    let cmt = ["ftl.precondition.valid=1.0", "ftl.mapping=\"cmt\"", "ftl.cmt_granularity=\"entry\"", "ftl.cmt_size_kib=1"];
    let flows = |keys: &[&str]| {
        let one = |name, prio, offset_bytes| FlowConfig { ios: 1, offset_bytes, size_bytes: 1 << 20, ..flow(name, prio, 1) };
        let (u, h) = (PriorityClass::Urgent, PriorityClass::High);
        run(with(keys), vec![one("u", u, 0), one("h1", h, 8 << 20), one("h2", h, 16 << 20)])
    };
    let mut keys = cmt.to_vec();
    keys.push("scheduler.arbitration=\"nvme_wrr\"");
    let r = flows(&keys);
    let s = flows(&["ftl.precondition.valid=1.0"]).summary.flows[0].latency_us.read.mean;
    let lat = |name: &str| r.summary.flows.iter().find(|f| f.name == name).unwrap().latency_us.read.mean / s;
    println!("one read {s:.2} us; in reads: u {:.3}, h1 {:.3}, h2 {:.3}", lat("u"), lat("h1"), lat("h2"));
    for (name, want) in [("u", 4.0), ("h1", 5.0), ("h2", 6.0)] {
        assert!((lat(name) - want).abs() < 0.001, "{name}: {} reads, want {want}", lat(name));
    }
}
