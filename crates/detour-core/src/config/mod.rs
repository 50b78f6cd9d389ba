//! Configuration: one typed tree, read from layers of TOML.
//!
//! A run's configuration is built in one direction: a preset (a TOML table),
//! then a user file, then `--set key=value` overrides are merged as TOML
//! values, and only then deserialised into [`Config`] with unknown keys
//! rejected and every value range-checked by [`Config::validate`]. Errors name
//! the dotted key and the valid range.

mod builder;
pub mod compat;
pub mod flows;
mod ftl;
mod model;
pub mod presets;
mod validate;

pub use builder::ConfigBuilder;
pub use compat::Compat;
pub use flows::{FlowConfig, RwMode};
pub use ftl::{FtlConfig, GcPolicy, MappingKind, PreconditionConfig, WearLeveling};
pub use model::{FlushClass, FlushPolicy, QueueOrder, ServiceUnit, WriteAck, WriteBufferConfig};

use serde::{Deserialize, Serialize};

/// Everything a run needs besides its workload.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Free text, e.g. the preset it came from.
    pub name: String,
    /// The peer simulator whose timing rules were applied (`compat.rs`);
    /// set by the builder when a layer names one.
    pub compat: Compat,
    pub device: DeviceConfig,
    pub scheduler: SchedulerConfig,
    pub ftl: FtlConfig,
    pub host: HostConfig,
    pub write_buffer: WriteBufferConfig,
    pub scheme: SchemeConfig,
    pub run: RunConfig,
    pub metrics: MetricsConfig,
    pub probes: ProbesConfig,
    /// Closed-loop tenants beside (or instead of) the run's workload
    /// (`flows.rs`; none by default, and then absent when written out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowConfig>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DeviceConfig {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Bytes of user data per page: a power of two, 512 to 1 MiB.
    pub page_size: u32,
    /// Share of physical pages hidden from the host (0.10 = 10%).
    pub overprovisioning: f64,
    pub flash: FlashConfig,
    pub channel: ChannelConfig,
}

/// Array timing. Setting `cell` in a layer resets the three times to that
/// cell type's preset unless the same layer sets them too.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlashConfig {
    /// slc, mlc, tlc, qlc, or custom. The three times, µs, must be above 0.
    pub cell: String,
    pub read_us: f64,
    pub program_us: f64,
    pub erase_us: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ChannelConfig {
    /// Bus width in bits (8 or 16).
    pub width_bits: u32,
    /// Transfer rate in mega-transfers per second (ONFI/Toggle "MT/s").
    pub rate_mts: f64,
    /// Command and address cycles per operation on the bus, in ns.
    pub command_ns: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerConfig {
    /// How a queue picks its next operation: a name of scheduler/policy/'s
    /// registry: `priority` (classes in order; default), `fcfs` (one queue
    /// for every class) or `out-of-order` (priority's queues, a read may
    /// pass a queued write during a suspension, batches filled from every
    /// queue).
    pub order: QueueOrder,
    /// What serves one operation at a time and owns a queue: `die` or `chip`.
    pub unit: ServiceUnit,
    /// With `order = "priority"` or `"out-of-order"`: host reads are dispatched before host
    /// writes; off = host reads and writes share one FIFO (background after).
    pub read_priority: bool,
    /// A host read may suspend an in-progress program or erase.
    pub suspension: bool,
    pub suspend_us: f64,
    pub resume_us: f64,
    /// How many times one program/erase may be suspended.
    pub max_suspends: u32,
    /// Combine same-kind operations on different planes of a die.
    pub multiplane: bool,
    /// With `multiplane`: reads are combined too (off: programs and erases only).
    pub multiplane_reads: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Requests outstanding at most; 0 = unlimited (pure open loop).
    pub queue_depth: u32,
    /// Arrival times are multiplied by this (0.5 = twice as fast).
    pub time_scale: f64,
    /// Requests left out of the statistics at the start (still simulated).
    pub warmup_requests: u64,
    /// "strict": an address beyond the logical space is an error; "fold":
    /// it is taken modulo the logical space and counted.
    pub address: String,
    /// When a write is done: `program`, `transfer` or `buffer`.
    pub write_ack: WriteAck,
    /// Data rate of the host link (PCIe) in GB/s, each direction a FIFO;
    /// 0 = the link takes no time (default).
    pub link_gbps: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SchemeConfig {
    /// Which scheme plans the flash operations (see `schemes`).
    pub name: String,
    /// Interval of the scheme's background tick in µs (0 = the scheme's own;
    /// otherwise at least 1).
    pub tick_us: f64,
    pub hotr: HotrConfig,
    pub rails: RailsConfig,
    pub ttflash: TtflashConfig,
    /// Channel RAID (cr1, cr4, cr5, cr5m): mirror threshold and failure injection.
    pub raid: RaidConfig,
    pub collisions: CollisionsConfig,
    /// Deduplicating schemes (ca-ssd, rr-ssd, oracle, pblru).
    pub rrssd: RrssdConfig,
}

/// `[scheme.collisions]`: replication of pages in patterned read collisions
/// (docs/schemes/collisions.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CollisionsConfig {
    /// The scheme the collision layer wraps (any but `collisions`). Default
    /// "conventional".
    pub base: String,
    /// l_R: collision pairs tracked per die. Default 5; 0 tracks nothing.
    pub l_r: u32,
    /// l_M: replicated pages at most, as a share of the physical pages.
    /// Default 0.002 (the paper's 0.2% of capacity).
    pub l_m: f64,
    /// Over what time the cost term's read rate r is measured: "lifetime"
    /// (reads since the start / elapsed time; default) or "recent" (the
    /// last `rate_window_ms`). docs/schemes/collisions.md.
    pub rate: crate::schemes::RateWindow,
    /// Length of the `recent` window in ms. Default 10; 0.001..=1e9.
    pub rate_window_ms: f64,
}

impl Default for CollisionsConfig {
    fn default() -> Self {
        CollisionsConfig {
            base: "conventional".into(),
            l_r: 5,
            l_m: 0.002,
            rate: Default::default(),
            rate_window_ms: 10.0,
        }
    }
}

/// `[scheme.rrssd]`: the content-addressed schemes ca-ssd, rr-ssd, oracle
/// and pblru (docs/schemes/rr-ssd.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RrssdConfig {
    /// Hashing latency per written page on the request path, µs. Default 12
    /// (the paper's Table II).
    pub hash_us: f64,
    /// Length of one profiling/replication period, s of simulated time.
    /// Default 0 = auto (`resolve_period`): one day of trace time, or, when
    /// the workload's span is known before the run (profiles, request
    /// tables) and shorter than a day, a seventh of it, so a trace of
    /// minutes still gets the paper's week of daily periods instead of a
    /// period that never ends. The synthetic FIU profiles scale a day to 60 s.
    pub period_s: f64,
    /// Replication space beyond what deduplication saved, in percent of the
    /// workload's unique-LPN footprint (the paper's alpha). Default 0: only
    /// the space deduplication saved.
    pub alpha_pct: f64,
    /// rr-ssd placement of copies: "popularity" (S / (E x Pop), the paper's),
    /// "random", "static" (round robin from the original chip) or "online"
    /// (copies made during the period, placed by S / (E x Pop x QL)).
    /// Default "popularity".
    pub placement: String,
    /// How the end-of-period copies are made: "mirror" (instantly, as the
    /// paper's mirror SSD serves the host meanwhile; only the cost is
    /// reported) or "simulated" (background reads and programs). Default
    /// "mirror". On-line and PBLRU copies are always simulated.
    pub replication_io: String,
    /// Bits of the per-value saturating read counter. Default 0 = log2(chips).
    pub counter_bits: u32,
    /// PBLRU: blocked reads of a page before it is replicated. Default 2.
    pub pblru_min_blocked: u32,
    /// Run on a workload without content hashes (every trace format but
    /// FIU), giving each written page a unique synthetic value, so nothing
    /// deduplicates. Default false: such a workload is refused.
    pub synthetic_content: bool,
}

/// The paper's period: one day (of trace time).
pub const DAY_S: f64 = 86_400.0;

impl RrssdConfig {
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

impl Default for RrssdConfig {
    fn default() -> Self {
        RrssdConfig {
            hash_us: 12.0,
            period_s: 0.0,
            alpha_pct: 0.0,
            placement: "popularity".into(),
            replication_io: "mirror".into(),
            counter_bits: 0,
            pblru_min_blocked: 2,
            synthetic_content: false,
        }
    }
}

/// `[scheme.hotr]`: hot read replication (docs/schemes/hotr.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HotrConfig {
    /// "op": staging copies live in over-provisioned space on any die other
    /// than the original's; "chip": the last chip is a dedicated staging chip
    /// hidden from the host. Default "op".
    pub staging: String,
    /// Staging capacity as a share of the physical pages (op mode only; in
    /// chip mode it is the chip). Default 0.02.
    pub staging_share: f64,
    /// Share of the pages read so far that may be held in staging (the paper's
    /// "10% hot read pages migrated"). Default 0.10; 0 disables migration.
    pub migrate_share: f64,
    /// R-LRU entries per chip. Default 4096.
    pub rlru_per_chip: u32,
    /// R-LRU hits (reads while listed) before a page is migrated. Default 1:
    /// the second read of a listed page migrates it, as in the paper's Fig. 4.
    pub min_hits: u32,
    /// When the staged set is full, a page read more often than the
    /// coldest staged page (fewest reads while listed, then least recently)
    /// takes its place. Default false: a full staged set takes no new page
    /// until one of its pages is written or falls out of the R-LRU.
    pub replace: bool,
}

/// `[scheme.rails]`: in-drive Rails (docs/schemes/rails.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RailsConfig {
    /// Time between role swaps of the two halves, µs. Default 50,000.
    pub swap_us: f64,
}

/// `[scheme.ttflash]`: RAID-5 with read reconstruction (docs/schemes/ttflash.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TtflashConfig {
    /// Stripe width k+1 (data plus parity); it must divide the number of
    /// units. Default 0 = the largest of 5, 4, 3, 2 that divides it (the
    /// paper's 4+1 when the device allows).
    pub width: u32,
    /// What a stripe member is: "chip" or "channel". Default "chip".
    pub unit: String,
    /// Rotating GC: a plane starts collecting only while no other member of
    /// its stripe group collects, so a rebuild meets at most one busy
    /// member. Default true (TTFlash's GC-rotation).
    pub rotating_gc: bool,
}

impl Default for HotrConfig {
    fn default() -> Self {
        HotrConfig { staging: "op".into(), staging_share: 0.02, migrate_share: 0.10, rlru_per_chip: 4096, min_hits: 1, replace: false }
    }
}

impl Default for RailsConfig {
    fn default() -> Self {
        RailsConfig { swap_us: 50_000.0 }
    }
}

impl Default for TtflashConfig {
    fn default() -> Self {
        TtflashConfig { width: 0, unit: "chip".into(), rotating_gc: true }
    }
}

/// CR5M's mirroring write on the channel (`scheme.raid.mirror_write`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MirrorWrite {
    /// One data transfer for the page and its mirror copy.
    #[default]
    Interleaved,
    /// One data transfer per chip.
    Separate,
}

/// `[scheme.raid]`: parameters of the channel-RAID schemes (cr1, cr4, cr5, cr5m).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RaidConfig {
    /// CR5M: mirroring writes stop (and expired data is reclaimed) when the
    /// mirror chip's free space falls below this share of its capacity. Default 0.02 (the paper's 2%).
    pub mirror_threshold: f64,
    /// CR5M: which channel's mirror chip holds a channel's mirror copies.
    /// "same" (default, the paper's Fig. 4: the update and its copy share a
    /// channel, so losing the channel loses updates not yet in the parity)
    /// or "next" (channel c's copies on channel c+1's mirror chip: one
    /// channel failure loses nothing, and the two programs of a mirroring
    /// write use two buses).
    pub mirror_channel: String,
    /// CR5M: how a mirroring write uses the channel when its copy is on the
    /// same channel. "interleaved" (default, the paper's count: "as chips on
    /// the same channel can work in an interleaving way, the overhead of an
    /// MW operation is equivalent to a write operation"): the mirror chip
    /// takes the data from the same transfer; "separate": the data crosses
    /// the channel twice, once per chip.
    pub mirror_write: MirrorWrite,
    /// What fails: "none" (default), "die", "chip" or "channel".
    pub fail_unit: String,
    /// Index of the failed die, chip or channel (dense ids). Default 0.
    pub fail_index: u32,
    /// When the failure happens, in µs of simulated time. Default 0 (at the first request).
    pub fail_at_us: f64,
    /// Rebuild a failed die's or chip's pages onto the surviving dies of the
    /// same channel, in the background, right after the failure. Default false.
    pub rebuild: bool,
}

impl Default for RaidConfig {
    fn default() -> Self {
        RaidConfig { mirror_threshold: 0.02, mirror_channel: "same".into(), mirror_write: MirrorWrite::Interleaved, fail_unit: "none".into(), fail_index: 0, fail_at_us: 0.0, rebuild: false }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    pub seed: u64,
    /// Check every completed read against the latest token of its page.
    pub verify: bool,
    /// Keep per-request columns (arrival, latency, breakdown).
    pub record_requests: bool,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        presets::bench_matched().device
    }
}

impl Default for FlashConfig {
    fn default() -> Self {
        presets::cell_timing("mlc").unwrap_or(FlashConfig {
            cell: "custom".into(),
            read_us: 50.0,
            program_us: 600.0,
            erase_us: 3000.0,
        })
    }
}

impl Default for ChannelConfig {
    fn default() -> Self {
        ChannelConfig { width_bits: 8, rate_mts: 333.0, command_ns: 100 }
    }
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            order: QueueOrder::default(),
            unit: ServiceUnit::Die,
            read_priority: true,
            suspension: false,
            suspend_us: 50.0,
            resume_us: 0.0,
            max_suspends: 8,
            multiplane: true,
            multiplane_reads: true,
        }
    }
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig { queue_depth: 0, time_scale: 1.0, warmup_requests: 0, address: "strict".into(), write_ack: WriteAck::Program, link_gbps: 0.0 }
    }
}

impl Default for SchemeConfig {
    fn default() -> Self {
        SchemeConfig {
            name: "conventional".into(),
            tick_us: 0.0,
            hotr: HotrConfig::default(),
            rails: RailsConfig::default(),
            ttflash: TtflashConfig::default(),
            raid: RaidConfig::default(),
            collisions: CollisionsConfig::default(),
            rrssd: RrssdConfig::default(),
        }
    }
}

/// `[metrics]`: optional measurements that cost time when on.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Read-collision accounting: the summary's `collisions` section and the
    /// collision pairs (docs/schemes/collisions.md). Default false.
    pub collisions: bool,
}

/// `[probes]`: samplers of the device's state over time (metrics/probe.rs).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ProbesConfig {
    /// Sample every die's and chip's queue length and busy state every this
    /// many µs of simulated time (the result's `timeseries`). Default 0 =
    /// off; else 1 to 1e9.
    pub interval_us: f64,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig { seed: 1, verify: false, record_requests: true }
    }
}

impl Config {
    /// Parse a complete TOML document (on top of the defaults).
    pub fn from_toml_str(text: &str) -> crate::Result<Config> {
        ConfigBuilder::new().merge_toml_str(text)?.build()
    }

    /// A named preset, validated.
    pub fn preset(name: &str) -> crate::Result<Config> {
        ConfigBuilder::from_preset(name)?.build()
    }

    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}
