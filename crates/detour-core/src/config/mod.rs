//! Configuration: one typed tree, read from layers of TOML.
//!
//! A run's configuration is built in one direction: a preset (a TOML table),
//! then a user file, then `--set key=value` overrides are merged as TOML
//! values, and only then deserialised into [`Config`] with unknown keys
//! rejected and every value range-checked by [`Config::validate`]. Errors name
//! the dotted key and the valid range.
//!
//! This layer is data: it imports nothing above it. Names of registered
//! things (the scheme, the policies) are kept as text and the checks that
//! need the device's geometry are not made here: `ConfigBuilder::build`,
//! `Config::preset` and `Config::from_toml_str` are setup/'s, the step
//! above, which resolves and checks them.

pub mod arbitration;
mod builder;
pub mod compat;
mod dram;
mod energy;
pub mod flows;
mod ftl;
mod model;
pub mod nand;
mod order;
pub mod presets;
mod read_cache;
#[cfg(test)]
mod tests;
mod trim;
mod validate;
pub(crate) use validate::{in_range_f, in_range_u};

pub use builder::ConfigBuilder;
pub use compat::Compat;
pub use dram::DramTiming;
pub use energy::{EnergyConfig, EnergyCosts};
pub use flows::{FlowConfig, RwMode};
pub use ftl::{
    Allocation, CmtGranularity, CmtWriteBack, FtlConfig, GcConcurrency, GcStart, GcTiming, GcTrigger, GcWritePoint, PlaceReads,
    PreconditionConfig, PreconditionDraw, PreconditionLayout, PreconditionSpan, ReadMerge, WearLeveling,
};
pub use model::{
    AddressMode, BufferAdmission, BufferGranularity, ChannelOrder, FlushClass, FlushPolicy, GcPriority, LatencyFrom, MultiplaneScan,
    PartialWriteBack, PlanePairing, ReadTransfer, ServiceUnit, WriteAck, WriteBufferConfig, WriteTransfer,
};
pub use nand::{DriftFit, ErrorModel, NandConfig, RberFit};
pub use order::AllocOrder;
pub use presets::CellType;
pub use read_cache::{ReadCacheConfig, ReadCacheMode};
pub use trim::{DiscardMode, TrimConfig};

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
    /// The flash's imperfections (read retry, wear-out, aging): all off by
    /// default, and then left out of a written config.
    #[serde(skip_serializing_if = "NandConfig::is_off")]
    pub nand: NandConfig,
    /// Closed-loop tenants beside (or instead of) the run's workload
    /// (`flows.rs`; none by default, and then absent when written out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowConfig>,
    /// A DRAM cache serving reads (off by default).
    #[serde(skip_serializing_if = "ReadCacheConfig::is_off")]
    pub read_cache: ReadCacheConfig,
    /// What operations cost in energy (summary's `energy`).
    pub energy: EnergyConfig,
    /// What a discard (TRIM) in the workload does.
    pub trim: TrimConfig,
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
    /// Chips beyond `channels x chips_per_channel` that the host never
    /// addresses, all on one channel of their own (HotR's dedicated spare
    /// chip, `scheme.hotr.staging = "spare-chip"`; docs/schemes/hotr.md).
    /// The logical space and the placement of host data are the device's
    /// without them. Default 0; 0..=chips_per_channel.
    #[serde(skip_serializing_if = "is_zero")]
    pub spare_chips: u32,
    pub flash: FlashConfig,
    pub channel: ChannelConfig,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Array timing. Setting `cell` in a layer resets the three times to that
/// cell type's preset unless the same layer sets them too.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlashConfig {
    /// slc, mlc, tlc, qlc, or custom. The three times, µs, must be above 0.
    pub cell: CellType,
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
    pub order: String,
    /// What serves one operation at a time and owns a queue: `die` or `chip`.
    pub unit: ServiceUnit,
    /// With `order = "priority"` or `"out-of-order"`: host reads are dispatched before host
    /// writes; off = host reads and writes share one FIFO (background after).
    pub read_priority: bool,
    /// A host read may suspend an in-progress program or erase. With
    /// `unit = "chip"`, a read for another die of the chip runs beside the
    /// program instead (MQSim issues it die-interleaved): no suspend time,
    /// the program's end unchanged unless the reads outlast it.
    pub suspension: bool,
    pub suspend_us: f64,
    pub resume_us: f64,
    /// A read suspends (or runs beside) only a program or erase with at
    /// least this much array time left, µs (MQSim's
    /// Preferred_suspend_write_time_for_read, 100). Default 0.
    pub suspend_min_remaining_us: f64,
    /// How many times one program/erase may be suspended.
    pub max_suspends: u32,
    /// Combine same-kind operations on different planes of a die.
    pub multiplane: bool,
    /// With `multiplane`: reads are combined too (off: programs and erases only).
    pub multiplane_reads: bool,
    /// With `multiplane`: an operation joins a batch only at the same page
    /// of its block as the batch's first (MQSim's multi-plane rule; pages
    /// are allocated when queued, so planes whose write points differ are
    /// programmed one at a time). Default false: any free plane joins.
    pub multiplane_same_page: bool,
    /// With `multiplane`: a program batch takes one waiting program per
    /// die and plane of the whole service unit (the chip under `unit =
    /// "chip"`), and when a die has two planes in it every page's data
    /// crosses the channel at once: one command and one page transfer
    /// (SSDSim's INTERLEAVE_TWO_PLANE, `compute_serve_time`). Default false:
    /// a batch is one die's planes, each page transferred in turn.
    pub chip_program_batches: bool,
    /// With `multiplane`: which host programs on a die's other planes may
    /// join its first: `any` (default) or `level` (SSDSim's
    /// `make_level_page`: same block number, not past the first's page; a
    /// plane behind is pulled level, wasting the pages it skips), see
    /// [`PlanePairing`].
    pub plane_pairing: PlanePairing,
    /// With `multiplane`: an erase batch takes one queued erase per die and
    /// plane of the whole service unit, erased under one tBERS (SSDSim's
    /// INTERLEAVE_TWO_PLANE `erase_planes`, pagemap.c). Under `ftl.gc_timing
    /// = "stale_erases_only"` a timed direct erase also takes a wholly stale
    /// block of every other die of its chip (`gc_direct_erase`). Default
    /// false: a batch is one die's planes.
    pub chip_erase_batches: bool,
    /// How a unit chooses among its queued host operations' NVMe priority
    /// classes (`flows[].priority`): `fifo` (ignored; default) or
    /// `nvme_wrr` (URGENT first, then HIGH/MEDIUM/LOW by `wrr_weights`;
    /// MQSim's PRIORITY_OUT_OF_ORDER TSU, scheduler/arbiter.rs).
    pub arbitration: arbitration::Arbitration,
    /// Weights of HIGH, MEDIUM and LOW under `nvme_wrr`. Default [4, 2, 1]
    /// (MQSim's IO_Flow_Priority_Class::get_scheduling_weight).
    pub wrr_weights: [u32; 3],
    /// What a read moves over the channel: `page` (default) or `requested`
    /// (the sectors asked for; MQSim, see [`ReadTransfer`]).
    pub read_transfer: ReadTransfer,
    /// What a program moves over the channel: `page` (default) or
    /// `written` (the sectors its write holds; MQSim, see [`WriteTransfer`]).
    pub write_transfer: WriteTransfer,
    /// Which waiting unit an idle channel serves next: `fcfs` (default) or
    /// `reads_first` (read commands, then read data-outs, then writes;
    /// SSDSim's `process()`) or `data_outs_first` (read data-outs, then
    /// new commands round robin over chips; MQSim), see [`ChannelOrder`].
    pub channel_order: ChannelOrder,
    /// With `multiplane`: where a batch looks for operations to join it:
    /// `near` (the policy's own scan; default) or `queue` (the whole queue,
    /// then the background queue; MQSim, see [`MultiplaneScan`]).
    pub multiplane_scan: MultiplaneScan,
    /// Where GC's operations queue: `background` (behind host work;
    /// default) or `urgent` (before it; MQSim's non-preemptible GC, see
    /// [`GcPriority`]).
    pub gc_priority: GcPriority,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Requests outstanding at most; 0 = unlimited (pure open loop). The
    /// rest wait in arrival order and are admitted as requests complete:
    /// MQSim's fetch window (`Queue_Fetch_Size`).
    pub queue_depth: u32,
    /// Of the requests waiting for a `queue_depth` slot, how many are in
    /// the submission queue (the first ones); the rest wait at the host.
    /// 0 = no limit. Only matters with `latency_from = "submission_queue"`.
    /// MQSim: `IO_Queue_Depth` - 1 (`NVME_SQ_FULL`, IO_Flow_Base.h).
    pub submission_queue: u32,
    /// Where a request's latency starts: `arrival` (default) or
    /// `submission_queue` (see [`LatencyFrom`]).
    pub latency_from: LatencyFrom,
    /// Arrival times are multiplied by this (0.5 = twice as fast).
    pub time_scale: f64,
    /// Requests left out of the statistics at the start (still simulated).
    pub warmup_requests: u64,
    /// "fold" (default): an address beyond the logical space is taken
    /// modulo it and counted (`pages.folded`); "strict": it is an error.
    pub address: AddressMode,
    /// When a write is done: `program`, `transfer` or `buffer`.
    pub write_ack: WriteAck,
    /// Data rate of the host link (PCIe) in GB/s, each direction a FIFO;
    /// 0 = the link takes no time (default).
    pub link_gbps: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct SchemeConfig {
    /// Which scheme plans the flash operations (`detour schemes`).
    pub name: String,
    /// Interval of the scheme's background tick in µs (0 = the scheme's own;
    /// otherwise at least 1).
    pub tick_us: f64,
    /// The schemes' own sections (`[scheme.hotr]`, `[scheme.raid]`, ...),
    /// kept as TOML: each is a struct in its scheme's file, read, checked
    /// and completed by the registry (`schemes::registry::resolve`), so
    /// this layer knows no scheme. Unknown sections are refused there.
    #[serde(flatten)]
    pub sections: toml::Table,
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
        presets::cell_timing(CellType::Mlc).unwrap_or(FlashConfig {
            cell: CellType::Custom,
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
            order: "priority".into(),
            unit: ServiceUnit::Die,
            read_priority: true,
            suspension: false,
            suspend_us: 50.0,
            resume_us: 0.0,
            suspend_min_remaining_us: 0.0,
            max_suspends: 8,
            multiplane: true,
            multiplane_reads: true,
            multiplane_same_page: false,
            chip_program_batches: false,
            chip_erase_batches: false,
            plane_pairing: PlanePairing::Any,
            arbitration: arbitration::Arbitration::Fifo,
            wrr_weights: [4, 2, 1],
            read_transfer: ReadTransfer::Page,
            write_transfer: WriteTransfer::Page,
            channel_order: ChannelOrder::Fcfs,
            multiplane_scan: MultiplaneScan::Near,
            gc_priority: GcPriority::Background,
        }
    }
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            queue_depth: 0,
            submission_queue: 0,
            latency_from: LatencyFrom::Arrival,
            time_scale: 1.0,
            warmup_requests: 0,
            address: AddressMode::Fold,
            write_ack: WriteAck::Program,
            link_gbps: 0.0,
        }
    }
}

impl Default for SchemeConfig {
    fn default() -> Self {
        SchemeConfig { name: "conventional".into(), tick_us: 0.0, sections: toml::Table::new() }
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
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}
