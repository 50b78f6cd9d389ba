//! The `[probes]` load sampler (metrics/probe.rs): off by default, it never
//! changes a run's numbers, samples every interval up to the last event,
//! and its chip series are the sums of its die series.

mod common;
use common::*;
use detour_core::sim;

fn run(extra: &[&str]) -> sim::RunResult {
    let reqs = poisson(4000, 40_000.0, 0.7, 1 << 14, 7);
    sim::run_requests(small(extra), &reqs).expect("runs")
}

#[test]
fn off_by_default_and_on_changes_nothing_else() {
    let off = run(&[]);
    assert!(off.timeseries.is_none());
    assert!(off.summary.probe.is_none());
    let on = run(&["probes.interval_us=50"]);
    let p = on.summary.probe.clone().expect("probe summary");
    let mut a = on.summary.clone();
    a.probe = None;
    assert_eq!(a, off.summary, "sampling must not perturb the run");
    assert_eq!(on.requests.latency_ns, off.requests.latency_ns);
    assert!(p.samples > 10, "{p:?}");
    assert!(p.chip_queue_peak >= 1, "a loaded run queues somewhere: {p:?}");
}

#[test]
fn series_cover_the_run_and_chips_sum_their_dies() {
    let r = run(&["probes.interval_us=20"]);
    let t = r.timeseries.expect("series");
    let geo = detour_core::device::Geometry::from_config(&small(&[]).device).expect("geometry");
    assert_eq!(t.dies, geo.dies());
    assert_eq!(t.chips, geo.chips());
    let n = t.t_ns.len();
    assert_eq!(t.die_queue.len(), n * t.dies as usize);
    assert_eq!(t.chip_busy.len(), n * t.chips as usize);
    assert!(t.t_ns.windows(2).all(|w| w[1] - w[0] == 20_000));
    // Samples stop with the last event, which is no earlier than the last completion.
    let last_done = (0..r.requests.len()).map(|i| r.requests.arrival_ns[i] + r.requests.latency_ns[i]).max().unwrap_or(0);
    assert!(*t.t_ns.last().expect("samples") + 20_000 >= last_done);
    let per_chip = (t.dies / t.chips) as usize;
    for s in 0..n {
        for c in 0..t.chips as usize {
            let dies = s * t.dies as usize + c * per_chip..s * t.dies as usize + (c + 1) * per_chip;
            assert_eq!(t.chip_queue[s * t.chips as usize + c], t.die_queue[dies.clone()].iter().sum::<u32>());
            let busy: u32 = t.die_busy[dies].iter().map(|&b| b as u32).sum();
            assert_eq!(t.chip_busy[s * t.chips as usize + c] as u32, busy);
        }
    }
    // The run ends drained: the last sample after the last completion is empty,
    // and some sample saw work.
    assert!(t.die_queue.iter().any(|&q| q > 0));
}

#[test]
fn out_of_range_interval_is_refused() {
    let e = detour_core::config::ConfigBuilder::new().set("probes.interval_us", "0.5").and_then(|b| b.build());
    let msg = format!("{}", e.expect_err("0.5 us is below the range"));
    assert!(msg.contains("probes.interval_us"), "{msg}");
}

/// The die's free blocks summed over the device, one per sample.
fn free_total(t: &detour_core::metrics::ProbeSeries) -> Vec<u32> {
    t.die_free_blocks.chunks(t.dies as usize).map(|c| c.iter().sum()).collect()
}

#[test]
fn free_blocks_fall_as_a_fresh_device_fills_and_rise_after_gc() {
    // Write the tiny device's logical space twice over: the free blocks fall
    // from every block, GC starts at the threshold, and its erases give some back.
    let mut kv = TINY.to_vec();
    kv.push("probes.interval_us=200");
    let cfg = small(&kv);
    let pages = detour_core::device::Geometry::from_config(&cfg.device).unwrap().logical_pages as u64;
    let reqs: Vec<_> = (0..2 * pages).map(|i| req(i * 60_000, i % pages, 1, detour_core::IoKind::Write)).collect();
    let r = sim::run_requests(cfg, &reqs).expect("runs");
    assert!(r.summary.gc.erases > 0, "the run must collect");
    let free = free_total(r.timeseries.as_ref().expect("series"));
    let lowest = (0..free.len()).min_by_key(|&i| free[i]).unwrap();
    assert!(free[0] > free[lowest] + 100, "a fresh device's free blocks fall: {} -> {}", free[0], free[lowest]);
    assert!(free.windows(2).any(|w| w[1] > w[0]), "GC's erases add free blocks back");
    assert!(r.timeseries.unwrap().buffer_pages.is_none(), "no buffer, no buffer series");
}

#[test]
fn buffer_occupancy_is_sampled_when_the_buffer_exists() {
    let r = run(&["probes.interval_us=20", "write_buffer.pages=64", "host.write_ack=buffer"]);
    let t = r.timeseries.expect("series");
    let b = t.buffer_pages.expect("a buffer series");
    assert_eq!(b.len(), t.t_ns.len());
    assert!(b.iter().any(|&p| p > 0) && b.iter().all(|&p| p <= 64), "{:?}", &b[..b.len().min(20)]);
}
