//! Per-flow results: each tenant's requests, IOPS, bandwidth and latency,
//! counted as its requests complete (warm-up and ramp excluded), for the
//! summary's `flows` list (docs/results.md). Kept only when the config has
//! `[[flows]]`; a run without them has no per-flow work and no `flows` key.

use super::histogram::LogHistogram;
use super::{ByClass, LatencyStats};
use serde::Serialize;

/// Whether a flow's requests came at their own times or when its queue had room.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FlowKind {
    /// The run's trace, profile or requests, arriving at their times.
    #[default]
    Open,
    /// A `[[flows]]` entry: each stream keeps `iodepth` requests outstanding.
    Closed,
}

/// One flow's figures in summary.json.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlowSummary {
    pub name: String,
    pub kind: FlowKind,
    /// Requests each stream keeps outstanding (0 for an open flow).
    pub iodepth: u32,
    /// Streams (fio's jobs; 1 for an open flow).
    pub jobs: u32,
    /// Measured requests (warm-up and ramp excluded) and their split.
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// First measured arrival to last measured completion of the flow, s.
    pub duration_s: f64,
    pub iops: f64,
    pub read_mib_s: f64,
    pub write_mib_s: f64,
    /// Reads and writes together in MB/s (10^6 bytes, fio's second figure).
    pub bandwidth_mb_s: f64,
    pub latency_us: ByClass<LatencyStats>,
}

/// What is counted of one flow while the run goes.
#[derive(Clone, Debug)]
pub struct FlowTally {
    pub name: String,
    pub kind: FlowKind,
    pub iodepth: u32,
    pub jobs: u32,
    latency: [LogHistogram; 2],
    bytes: [u64; 2],
    first_ns: u64,
    last_ns: u64,
}

impl FlowTally {
    pub fn new(name: String, kind: FlowKind, iodepth: u32, jobs: u32) -> FlowTally {
        FlowTally { name, kind, iodepth, jobs, latency: Default::default(), bytes: [0; 2], first_ns: u64::MAX, last_ns: 0 }
    }

    /// A measured request completed.
    pub fn count(&mut self, write: bool, arrival_ns: u64, latency_ns: u64, size: u32) {
        let w = write as usize;
        self.latency[w].record(latency_ns);
        self.bytes[w] += size as u64;
        self.first_ns = self.first_ns.min(arrival_ns);
        self.last_ns = self.last_ns.max(arrival_ns + latency_ns);
    }

    /// Requests counted so far.
    pub fn requests(&self) -> u64 {
        self.latency[0].len() + self.latency[1].len()
    }

    pub fn summary(&self) -> FlowSummary {
        let (reads, writes) = (self.latency[0].len(), self.latency[1].len());
        let dur = if self.last_ns > self.first_ns { (self.last_ns - self.first_ns) as f64 / 1e9 } else { 0.0 };
        let per_s = |v: f64| if dur > 0.0 { v / dur } else { 0.0 };
        let mib = 1024.0 * 1024.0;
        let mut all = self.latency[0].clone();
        all.merge(&self.latency[1]);
        FlowSummary {
            name: self.name.clone(),
            kind: self.kind,
            iodepth: self.iodepth,
            jobs: self.jobs,
            requests: reads + writes,
            reads,
            writes,
            duration_s: dur,
            iops: per_s((reads + writes) as f64),
            read_mib_s: per_s(self.bytes[0] as f64 / mib),
            write_mib_s: per_s(self.bytes[1] as f64 / mib),
            bandwidth_mb_s: per_s((self.bytes[0] + self.bytes[1]) as f64 / 1e6),
            latency_us: ByClass { read: self.latency[0].stats(), write: self.latency[1].stats(), all: all.stats() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_over_the_measured_span() {
        let mut t = FlowTally::new("a".into(), FlowKind::Closed, 4, 1);
        t.count(false, 0, 500_000, 4096);
        t.count(true, 500_000, 500_000, 8192);
        let s = t.summary();
        assert_eq!((s.requests, s.reads, s.writes), (2, 1, 1));
        assert!((s.duration_s - 1e-3).abs() < 1e-12);
        assert!((s.iops - 2000.0).abs() < 1e-6);
        assert!((s.bandwidth_mb_s - 12288.0 / 1e6 / 1e-3).abs() < 1e-9);
        assert!((s.latency_us.read.mean - 500.0).abs() < 1.0);
    }
}
