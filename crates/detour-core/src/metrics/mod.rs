//! Results: per-request rows and the run summary. Every field is defined
//! in docs/results.md; latency percentiles come from a histogram within a
//! stated bound (see `histogram`), the rest is exact.
//!
//! ## What is where
//!
//! - `stream.rs`: the `RequestLog`, a window of the rows of requests in
//!   flight that leave in arrival order once every earlier request has
//!   completed, each counted into the `Tally` (log-linear latency histograms
//!   in `histogram.rs`; breakdown sums; per-period sums; the trace's shape
//!   for the warnings) and handed to the sink: `RequestColumns` in memory,
//!   `parquet.rs` (row groups encoded and compressed on a second thread) or
//!   nothing. Memory stays flat in the trace's length.
//! - `percentile.rs`: exact nearest-rank statistics (the histogram's
//!   reference); `collisions.rs`, the optional read-collision accounting
//!   (`metrics.collisions`); `buffer.rs`, the write buffer's part;
//!   `probe.rs`, the optional sampler of queue lengths, busy state, free
//!   blocks and write-buffer pages (`probes.interval_us`); `flows.rs`, the
//!   per-flow figures of closed-loop runs; `warnings/`, the summary's
//!   `warnings` (checks of a finished run that change no number; a scheme's
//!   own idle reason comes from its registry entry).

pub mod buffer;
pub mod collisions;
mod columns;
pub mod energy;
pub mod flows;
pub mod histogram;
pub mod parquet;
pub mod percentile;
pub mod probe;
pub mod read_cache;
pub mod stream;
pub mod trim;
pub mod warnings;

pub use buffer::WriteBufferSummary;
pub use collisions::{CollisionSummary, CollisionTracker, PairCount};
pub use columns::RequestColumns;
pub use energy::EnergySummary;
pub use flows::{FlowKind, FlowSummary, FlowTally};
pub use percentile::{nearest_rank, rsd, LatencyStats};
pub use probe::{Probe, ProbeInput, ProbeSeries, ProbeSummary};
pub use read_cache::ReadCacheSummary;
pub use stream::{RequestLog, RequestSink, Tally};
pub use trim::TrimSummary;

use crate::ftl::FtlStats;
use crate::scheduler::DieCounts;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ByClass<T> {
    pub read: T,
    pub write: T,
    pub all: T,
}

/// Mean time per request in each part of its critical path, µs. The parts
/// add up to the mean latency.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Breakdown {
    pub queue: f64,
    pub bus: f64,
    pub array: f64,
    pub delay: f64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Throughput {
    /// First measured arrival to last measured completion, s.
    pub duration_s: f64,
    pub iops: f64,
    pub read_mib_s: f64,
    pub write_mib_s: f64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Pages {
    /// Host pages read and written (a request of n pages counts n).
    pub host_read: u64,
    pub host_written: u64,
    /// Reads served from the write buffer (program still pending).
    pub buffered_reads: u64,
    /// Never-written pages placed on first read (see docs/results.md).
    pub placed_on_read: u64,
    /// Addresses folded into the logical space (`host.address = "fold"`).
    pub folded: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct DieSummary {
    pub reads: Vec<u64>,
    pub programs: Vec<u64>,
    pub erases: Vec<u64>,
    pub suspensions: u64,
    /// Relative standard deviation of operations (all kinds) per die.
    pub ops_rsd: f64,
    /// Relative standard deviation of reads per die.
    pub reads_rsd: f64,
    /// Busy time / measured duration, mean and max over dies.
    pub utilization_mean: f64,
    pub utilization_max: f64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct GcSummary {
    pub runs: u64,
    pub moves: u64,
    pub moves_dropped: u64,
    pub erases: u64,
    pub programs_host: u64,
    pub programs_gc: u64,
    pub programs_aux: u64,
    /// Flash programs / host pages written.
    pub write_amplification: f64,
    pub erase_count_min: u32,
    pub erase_count_mean: f64,
    pub erase_count_max: u32,
    /// Blocks static wear levelling migrated; absent when it is off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wl_migrations: Option<u64>,
    /// Pages wasted pulling planes level for multi-plane programs
    /// (SSDSim's `waste page count`); absent unless `scheduler.plane_pairing = "level"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages_skipped: Option<u64>,
}

/// The run's summary: written as summary.json.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Summary {
    pub scheme: String,
    pub device: String,
    pub seed: u64,
    /// Measured requests (warm-up excluded) and their split.
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub warmup_requests: u64,
    /// Measured requests that failed, left out of every latency figure: a
    /// read of a page no copy or stripe holds after a failure.
    pub lost_requests: u64,
    pub verify: bool,
    /// Reads whose data did not match the latest write (0 when not verifying).
    pub verify_errors: u64,
    pub latency_us: ByClass<LatencyStats>,
    pub breakdown_us: ByClass<Breakdown>,
    pub throughput: Throughput,
    pub pages: Pages,
    pub dies: DieSummary,
    pub gc: GcSummary,
    /// Times a request waited for a free page (GC behind).
    pub stalls: u64,
    pub scheme_counters: BTreeMap<String, f64>,
    /// Read-collision accounting (`metrics.collisions = true`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collisions: Option<CollisionSummary>,
    /// Per-period rows of schemes that work in periods (RR-SSD and the other
    /// deduplicating schemes: one row per day); absent for the others.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub periods: Vec<BTreeMap<String, f64>>,
    /// The DRAM write buffer's activity (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_buffer: Option<WriteBufferSummary>,
    /// The cached mapping table's traffic (`ftl.mapping = "cmt"`; absent
    /// with the DRAM map).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping: Option<crate::ftl::mapping::MappingStats>,
    /// The load sampler's digest (`probes.interval_us` > 0; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeSummary>,
    /// Per-flow figures when the config has `[[flows]]` (the run's own
    /// workload first, if it had requests); absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowSummary>,
    /// Events processed, and simulated time at the end, s.
    pub events: u64,
    pub sim_time_s: f64,
    /// Waiters taken off the stalled-work queues (sim/park.rs): not in
    /// summary.json (a measure of the simulator's work, not the device's);
    /// tests check it grows with the requests, not with requests x erases.
    #[serde(skip)]
    pub park_visits: u64,
    /// What makes the numbers mean less than they seem (docs/results.md).
    pub warnings: Vec<warnings::Warning>,
    /// The DRAM read cache (`read_cache.mode` not off; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_cache: Option<ReadCacheSummary>,
    /// Joules and average power (`[energy]`; docs/nand.md): every
    /// operation's, idle time and power over 0..`sim_time_s`.
    pub energy: EnergySummary,
    /// The workload's discards (only when it had any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim: Option<TrimSummary>,
    /// Read retry, wear-out and aging (`[nand]`; absent for the ideal flash).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nand: Option<crate::device::nand::NandSummary>,
}

/// Add each period's mean read and mean overall latency (µs, measured
/// requests by arrival time) to the scheme's period rows.
pub fn period_latency(t: &Tally, rows: &mut [BTreeMap<String, f64>]) {
    if rows.is_empty() {
        return;
    }
    let sums = t.period_sums(rows.len());
    for (row, s) in rows.iter_mut().zip(&sums) {
        row.insert("read_mean_us".into(), if s[1] > 0.0 { s[0] / s[1] } else { 0.0 });
        row.insert("all_mean_us".into(), if s[3] > 0.0 { s[2] / s[3] } else { 0.0 });
    }
}

/// Fill the latency, breakdown and throughput parts from the tally.
pub fn latency_parts(t: &Tally, s: &mut Summary) {
    let count = [t.latency[0].len(), t.latency[1].len()];
    let mk = |p: [u128; 4], n: u64| {
        let n = n.max(1) as f64 * 1000.0;
        Breakdown { queue: p[0] as f64 / n, bus: p[1] as f64 / n, array: p[2] as f64 / n, delay: p[3] as f64 / n }
    };
    let sum = |a: [u128; 4], b: [u128; 4]| [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]];
    s.breakdown_us = ByClass {
        read: mk(t.parts[0], count[0]),
        write: mk(t.parts[1], count[1]),
        all: mk(sum(t.parts[0], t.parts[1]), count[0] + count[1]),
    };
    s.reads = count[0];
    s.writes = count[1];
    s.requests = s.reads + s.writes;
    let mut all = t.latency[0].clone();
    all.merge(&t.latency[1]);
    s.latency_us = ByClass { read: t.latency[0].stats(), write: t.latency[1].stats(), all: all.stats() };
    let (first, last, bytes) = (t.first_ns, t.last_ns, t.bytes);
    let dur = if last > first { (last - first) as f64 / 1e9 } else { 0.0 };
    let mib = 1024.0 * 1024.0;
    s.throughput = Throughput {
        duration_s: dur,
        iops: if dur > 0.0 { s.requests as f64 / dur } else { 0.0 },
        read_mib_s: if dur > 0.0 { bytes[0] as f64 / mib / dur } else { 0.0 },
        write_mib_s: if dur > 0.0 { bytes[1] as f64 / mib / dur } else { 0.0 },
    };
}

/// Fill the per-die part.
pub fn die_parts(counts: &[DieCounts], busy_ns: &[u64], duration_s: f64, s: &mut Summary) {
    let reads: Vec<u64> = counts.iter().map(|c| c.reads).collect();
    let ops: Vec<u64> = counts.iter().map(|c| c.reads + c.programs + c.erases).collect();
    let util: Vec<f64> = busy_ns.iter().map(|&b| if duration_s > 0.0 { b as f64 / 1e9 / duration_s } else { 0.0 }).collect();
    s.dies = DieSummary {
        reads_rsd: rsd(&reads).1,
        ops_rsd: rsd(&ops).1,
        reads,
        programs: counts.iter().map(|c| c.programs).collect(),
        erases: counts.iter().map(|c| c.erases).collect(),
        suspensions: counts.iter().map(|c| c.suspensions).sum(),
        utilization_mean: util.iter().sum::<f64>() / util.len().max(1) as f64,
        utilization_max: util.iter().cloned().fold(0.0, f64::max),
    };
}

/// Fill the GC part.
pub fn gc_parts(f: &FtlStats, wear_leveling: bool, host_written: u64, erase_spread: (u32, f64, u32), s: &mut Summary) {
    let programs = f.programs_host + f.programs_gc + f.programs_aux + f.programs_map;
    s.gc = GcSummary {
        runs: f.gc_runs,
        moves: f.gc_moves,
        moves_dropped: f.gc_moves_dropped,
        erases: f.erases,
        programs_host: f.programs_host,
        programs_gc: f.programs_gc,
        programs_aux: f.programs_aux,
        write_amplification: if host_written > 0 { programs as f64 / host_written as f64 } else { 0.0 },
        erase_count_min: erase_spread.0,
        erase_count_mean: erase_spread.1,
        erase_count_max: erase_spread.2,
        wl_migrations: wear_leveling.then_some(f.wl_migrations),
        pages_skipped: None,
    };
}
