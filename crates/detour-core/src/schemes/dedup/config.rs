//! `[scheme.dedup]`: the section shared by the content-addressed schemes
//! ca-ssd, rr-ssd, oracle and pblru (docs/schemes/rr-ssd.md).

use crate::config::{in_range_f, in_range_u, DeviceConfig, SchemeConfig};
use crate::error::Result;
use crate::schemes::registry::{self, SchemeSection, SpanOf};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DedupConfig {
    /// Hashing latency per written page on the request path, µs. Default 12
    /// (the paper's Table II).
    pub hash_us: f64,
    /// Length of one profiling/replication period, s of simulated time.
    /// Default 0 = auto ([`DedupConfig::resolve_period`]): one day of trace
    /// time, or, when the workload's span is known before the run
    /// (profiles, request tables) and shorter than a day, a seventh of it,
    /// so a trace of minutes still gets the paper's week of daily periods
    /// instead of a period that never ends. The synthetic FIU profiles
    /// scale a day to 60 s.
    pub period_s: f64,
    /// Replication space beyond what deduplication saved, in percent of the
    /// workload's unique-LPN footprint (the paper's alpha). Default 0: only
    /// the space deduplication saved.
    pub alpha_pct: f64,
    /// rr-ssd placement of copies. Default "popularity".
    pub placement: Placement,
    /// How the end-of-period copies are made. Default "mirror". On-line and
    /// PBLRU copies are always simulated.
    pub replication_io: ReplicationIo,
    /// Bits of the per-value saturating read counter. Default 0 = log2(chips).
    pub counter_bits: u32,
    /// Periods between the drops of replicas no longer popular. Default 1:
    /// every period (the paper's "during replication, we may need to
    /// invalidate one (or more) copies of a data, if they are no longer
    /// popular for the next day"). The paper adds "this process not need
    /// being done every day ... For instance, we can do it on a weekly
    /// basis" (Sec. III-B): 7. Between drops, kept copies count against the
    /// budget and only the missing ones are made.
    pub drop_every: u32,
    /// PBLRU: blocked reads of a page before it is replicated. Default 2.
    pub pblru_min_blocked: u32,
    /// Run on a workload without content hashes (every trace format but
    /// FIU), giving each written page a unique synthetic value, so nothing
    /// deduplicates. Default false: such a workload is refused.
    pub synthetic_content: bool,
    /// Look written content up and share equal values. Default true. False
    /// stores every write as a new value: ca-ssd is then a conventional SSD
    /// with the hash delay, and oracle (with `hash_us = 0`) the paper's
    /// Ideal-All-Chip Replication over a conventional SSD (its Fig. 3).
    pub deduplicate: bool,
}

/// `scheme.dedup.placement`: where rr-ssd puts a value's copies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// S / (E x Pop), the paper's.
    #[default]
    Popularity,
    Random,
    /// Round robin from the original chip.
    Static,
    /// Copies made during the period, placed by S / (E x Pop x QL).
    Online,
}

/// `scheme.dedup.replication_io`: how end-of-period copies are made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplicationIo {
    /// Instantly, as the paper's mirror SSD serves the host meanwhile; only
    /// the cost is reported.
    #[default]
    Mirror,
    /// Background reads and programs.
    Simulated,
}

/// The paper's period: one day (of trace time).
const DAY_S: f64 = 86_400.0;

impl DedupConfig {
    /// Set an auto period (`period_s = 0`) from the workload's span in s of
    /// trace time, if known: a day, or span / 7 for a span under a day;
    /// scaled by `time_scale` into simulated time like the arrivals. True if
    /// it took the short-workload branch. A set period is left alone.
    pub fn resolve_period(&mut self, span_s: Option<f64>, time_scale: f64) -> bool {
        if self.period_s > 0.0 {
            return false;
        }
        let short = span_s.filter(|&s| s > 0.0 && s < DAY_S);
        // Not below the shortest period a config may set (1 ms).
        self.period_s = (short.map_or(DAY_S, |s| s / 7.0) * time_scale).max(1e-3);
        short.is_some()
    }
}

/// The registry's hook: settle an auto period from the workload's span.
pub fn on_span(scheme: &mut SchemeConfig, span_s: SpanOf, time_scale: f64) -> Result<()> {
    let mut d: DedupConfig = registry::section(scheme)?;
    if d.period_s > 0.0 {
        return Ok(());
    }
    d.resolve_period(span_s()?, time_scale);
    registry::set_section(scheme, &d)
}

impl Default for DedupConfig {
    fn default() -> Self {
        DedupConfig {
            hash_us: 12.0,
            period_s: 0.0,
            alpha_pct: 0.0,
            placement: Placement::Popularity,
            replication_io: ReplicationIo::Mirror,
            counter_bits: 0,
            drop_every: 1,
            pblru_min_blocked: 2,
            synthetic_content: false,
            deduplicate: true,
        }
    }
}

impl SchemeSection for DedupConfig {
    const KEY: &'static str = "dedup";

    fn validate(&self, _: &DeviceConfig) -> Result<()> {
        in_range_f("scheme.dedup.hash_us", self.hash_us, 0.0, 1e6)?;
        // 0 = auto (resolved before the run from the workload's span).
        if self.period_s != 0.0 {
            in_range_f("scheme.dedup.period_s", self.period_s, 1e-3, 1e9)?;
        }
        in_range_f("scheme.dedup.alpha_pct", self.alpha_pct, 0.0, 1000.0)?;
        in_range_u("scheme.dedup.counter_bits", self.counter_bits as u64, 0, 16)?;
        in_range_u("scheme.dedup.drop_every", self.drop_every as u64, 1, 1 << 20)?;
        in_range_u("scheme.dedup.pblru_min_blocked", self.pblru_min_blocked as u64, 1, 1 << 20)
    }
}
