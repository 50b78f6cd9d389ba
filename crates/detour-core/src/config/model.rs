//! The timing-model settings a peer simulator fixes and Detour lets you
//! choose: when a write is acknowledged, how a die (or chip) queue orders
//! its work, which unit serves one operation at a time, the DRAM write
//! buffer, and what becomes of an address beyond the device. `compat.rs`
//! names the peers' choices as bundles of these.

use super::Config;
use crate::ensure_config;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// When the device tells the host a write is done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteAck {
    /// After the page is programmed (tPROG included): DiskSim, MQSim with
    /// its cache off, and Detour's default.
    #[default]
    Program,
    /// When the data has reached the die's page register (command + data
    /// in); the die stays busy for tPROG after. SSDSim's rule.
    Transfer,
    /// When the data has entered the DRAM write buffer (`[write_buffer]`).
    Buffer,
}

/// Where a request's latency starts (`host.latency_from`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencyFrom {
    /// At its arrival: the delay the host sees (Detour's default).
    #[default]
    Arrival,
    /// At its entry into the submission queue, which holds at most
    /// `host.submission_queue` requests not yet fetched: MQSim's device
    /// response time, counted from `Enqueue_time` (IO_Flow_Base.cpp);
    /// the wait at the host before it is not counted.
    SubmissionQueue,
}

/// What becomes of a request beyond the logical space (`host.address`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressMode {
    /// The run stops with an error naming the request: for a user who wants
    /// to know that a trace was meant for a larger device.
    Strict,
    /// The default: the address is taken modulo the logical space and
    /// counted (the summary's `pages.folded`, printed by `detour run`), as
    /// SSDSim and MQSim do with any trace: real traces come from disks far
    /// larger than a simulated SSD, and a new user's first run should run.
    #[default]
    Fold,
}

/// What serves one operation (or multi-plane batch) at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServiceUnit {
    /// Each die works on its own; the dies of a chip overlap.
    #[default]
    Die,
    /// The chip (package) is busy as a whole: one die's operation blocks
    /// the chip's other dies, and the chip has one queue.
    Chip,
}

/// What a read moves over the channel after its array time
/// (`scheduler.read_transfer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadTransfer {
    /// The whole page, whatever the request asked for (Detour's default).
    #[default]
    Page,
    /// Only the bytes asked for, in whole 512-byte sectors: a host read's
    /// part of each of its pages, and one sector for a translation-page
    /// read. MQSim sizes every transaction in sectors and times its data-out
    /// by that size: `segment_user_request` (Host_Interface_NVMe.cpp) gives a
    /// user read `transaction_size * SECTOR_SIZE_IN_BYTE`,
    /// `generate_flash_read_request_for_mapping_data`
    /// (Address_Mapping_Unit_Page_Level.cpp) a mapping read
    /// `SECTOR_SIZE_IN_BYTE`, and NVM_PHY_ONFI_NVDDR2.cpp moves
    /// `NVDDR2DataOutTransferTime(Data_and_metadata_size_in_byte)`. GC and
    /// wear-levelling reads stay whole pages there too.
    Requested,
}

/// What a program moves over the channel before its array time
/// (`scheduler.write_transfer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteTransfer {
    /// The whole page, whatever the write covered (Detour's default).
    #[default]
    Page,
    /// Only the sectors the page's write holds: a host write's part of
    /// each of its pages, a destage write-back's written sectors. MQSim
    /// sizes a write transaction by its sectors (`segment_user_request`,
    /// Host_Interface_NVMe.cpp: `transaction_size * SECTOR_SIZE_IN_BYTE`)
    /// and `NVM_PHY_ONFI_NVDDR2::send_command_to_chip` times each program's
    /// data-in as `NVDDR2DataInTransferTime(Data_and_metadata_size_in_byte)`.
    /// GC moves stay whole pages, and so do LRU evictions of a page-counted
    /// buffer (MQSim sizes those by the slot's
    /// `State_bitmap_of_existing_sectors`; such a buffer does not track an
    /// evicted page's sectors); under `write_buffer.granularity =
    /// "sector"` (SSDSim's) an eviction moves its node's sectors.
    Written,
}

/// Which waiting programs on other planes of a die may join a die's first
/// program in a multi-plane batch (`scheduler.plane_pairing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanePairing {
    /// Any free plane joins (Detour's default; MQSim's same-page rule is
    /// `multiplane_same_page`).
    #[default]
    Any,
    /// SSDSim's static branch of `get_ppn_for_advanced_commands` (flash.c):
    /// per die, the waiting host write on the lowest plane takes its
    /// plane's write point (`get_ppn`); another plane's write joins only if
    /// `make_level_page` succeeds: its plane's write point is in the block
    /// of the same number and not past the first's page. A plane behind is
    /// pulled level by `make_same_level` (`greed MPW command = 1`), the
    /// pages it skips wasted; a refused write stays queued. Write points
    /// advance as writes are dispatched, as SSDSim assigns a page when its
    /// command is issued.
    Level,
}

/// How a channel chooses among the service units waiting for it
/// (`scheduler.channel_order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelOrder {
    /// First come, first served: a unit is granted the channel when the
    /// transfers asked for before it are done (Detour's default).
    #[default]
    Fcfs,
    /// SSDSim's `process()` (flash.c): a unit asks for its channel only
    /// once the channel is idle, and the idle channel serves, in this
    /// order, a read command to an idle chip (`services_2_r_wait`, the
    /// channel's oldest waiting read), a read's data-out
    /// (`services_2_r_data_trans`, lowest chip first), then a write batch
    /// (`services_2_write`, lowest chip first); a unit's batch is formed
    /// when it is granted the channel, not when it asked.
    ReadsFirst,
    /// MQSim's PHY and TSU: a channel that frees moves out every finished
    /// read's data first, first come first served (mapping reads', then
    /// user reads', then GC reads'; `NVM_PHY_ONFI_NVDDR2::
    /// Execute_simulator_event`), and only then lets the TSU issue one new
    /// command, trying the channel's chips round robin from the one after
    /// the last that took it (`TSU_Base::handle_channel_idle_signal`,
    /// `Round_robin_turn_of_channel`); a unit's batch is formed when it is
    /// granted the channel.
    DataOutsFirst,
}

/// Where a multi-plane batch finds the operations that join its first
/// (`scheduler.multiplane_scan`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MultiplaneScan {
    /// As `scheduler.order`'s policy says (`priority` and `fcfs`: the first
    /// operation's queue, twice the plane count deep; `out-of-order`: every
    /// queue, 64 deep). Detour's default.
    #[default]
    Near,
    /// The whole queue the first operation came from, then the whole
    /// background (GC) queue: MQSim's `TSU_Base::issue_command_to_chip`
    /// walks all of `sourceQueue1` (the chip's user queue being served)
    /// and then `sourceQueue2` (its GC queue) for ready transactions of the
    /// same die on free planes (at the same page under
    /// `multiplane_same_page`). It costs a walk of the queue per dispatch.
    Queue,
}

/// Where GC's operations queue on a unit (`scheduler.gc_priority`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcPriority {
    /// Behind every host operation, with replication and parity work.
    /// Detour's default.
    #[default]
    Background,
    /// Before every host operation (GC's moves and erases in their own
    /// queue, served first; other background work keeps its place):
    /// MQSim with `Preemptible_GC_Enabled = false`, where
    /// `GC_and_WL_Unit_Page_Level::GC_is_in_urgent_mode` is always true and
    /// `TSU_Priority_OutOfOrder::service_read_transaction` serves a chip's
    /// GC reads first and no user read while GC writes or erases are
    /// queued, `service_write_transaction` GC writes before user writes
    /// and no user write while GC erases are queued (TSU_OutOfOrder.cpp
    /// alike).
    Urgent,
}

/// Which buffered pages are flushed first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlushPolicy {
    /// The page that entered the buffer first.
    #[default]
    Fifo,
    /// The page least recently written or read.
    Lru,
}

/// The priority class of the buffer's flushes on the dies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlushClass {
    /// As host writes (after host reads when `scheduler.read_priority`).
    Host,
    /// As background work (after every host operation).
    #[default]
    Background,
}

/// Which pages a write may put in the buffer, and when (`write_buffer.admission`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferAdmission {
    /// Any page while the buffer has a free slot; pages are flushed by
    /// `policy` past `flush_at`. Detour's default.
    #[default]
    Room,
    /// MQSim's destage buffer (`Data_Cache_Manager_Flash_Advanced::
    /// write_to_destage_buffer`): a page whose address was not written in
    /// the current second (its "bloom filter", cleared every 1 s of
    /// simulated time) is written back at once ("Eagerly write back cold
    /// data"); the others stay until evicted. A write's pages enter one at
    /// a time while fewer pages are being written back than the device has
    /// planes (`back_pressure_buffer_max_depth`, SSD_Device.cpp); the rest
    /// wait for write-backs to end. A page that finds the cache full evicts
    /// the least recently used dirty page at once (`Evict_one_slot_lru`:
    /// its slot is free and the write goes on) and writes back only the
    /// sectors written to it (`State_bitmap_of_existing_sectors`), after a
    /// DRAM read of them that the write's own DRAM access queues behind.
    Destage,
    /// SSDSim's buffer (`insert2buffer`, flash.c): a write whose page finds
    /// the buffer full evicts the least recently used page at once (its
    /// slot is free as the eviction's write sub-request is made, before any
    /// flash work) and is done when the data of the evictions it made has
    /// reached the chip: they are its own sub-requests, and `trace_output`
    /// (ssd.c) ends a request at the last one's `complete_time`, which for a
    /// write is the end of its transfer (`SR_W_TRANSFER`, `go_one_step` /
    /// `compute_serve_time`). Nothing else is flushed: SSDSim writes back
    /// only to make room, never at the end of the trace.
    Evict,
}

/// What the buffer's capacity counts, and what a buffered page holds
/// (`write_buffer.granularity`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferGranularity {
    /// Whole pages: a page written in part takes a page of the capacity
    /// and is written back whole. Detour's default.
    #[default]
    Page,
    /// 512-byte sectors, SSDSim's buffer (`insert2buffer`, flash.c): the
    /// capacity is `max_buffer_sector` (the DRAM's bytes / 512,
    /// initialize.c), a page's node holds only the sectors written to it
    /// (`stored`), a write adds only the sectors its node lacks
    /// (`buffer_sector_count++` per new sector) and evicts least recently
    /// used nodes until they fit (never its own node: a tail that is the
    /// node being written swaps with the one before it), and an eviction
    /// frees its node's sectors at once and writes back only those
    /// (`creat_sub_request(.., size(stored), stored, ..)`, moved over the
    /// channel as `size x subpage_capacity x tWC` under
    /// `scheduler.write_transfer = "written"`). Only with
    /// `admission = "evict"`: with another admission the buffer counts
    /// pages.
    Sector,
}

/// What a write-back of part of a page does when the flash holds other
/// sectors of that page (`write_buffer.partial_write_back`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialWriteBack {
    /// The write-back programs its sectors at once. Detour's default.
    #[default]
    Program,
    /// SSDSim's update read (`allocate_location`, flash.c): when the page's
    /// map entry holds sectors the write-back does not
    /// (`(sub->state & map.state) != map.state`), a read sub-request of the
    /// old page, sized `size(map.state ^ sub->state)` sectors, joins the
    /// channel's read list (`subs_r`, served as host reads are), and the
    /// write-back is not dispatched until that read is complete
    /// (`find_write_sub_request`, `dynamic_advanced_process` skip it). With
    /// static allocation the write-back then also carries the sectors read
    /// (`sub_req->state |= update->state`); with dynamic allocation only its
    /// own. The entry's sectors are those ever written to it, or read of a
    /// page `pre_process_page` placed (`set_entry_state`). Only with
    /// `granularity = "sector"` under `admission = "evict"`, and the
    /// buffer's write-backs only (not host writes that bypass a buffer).
    ReadFirst,
}

/// `[write_buffer]`: a write-back DRAM buffer in front of the flash (MQSim's
/// data cache, SSDSim's buffer). A host write completes when its pages are
/// in the buffer, or waits for room; buffered pages are read from DRAM
/// (`ftl.buffer_read_ns`); the buffer flushes its oldest pages (by
/// `policy`) as flash writes while more than `flush_at` of it holds
/// unflushed pages, and everything left when the workload ends.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WriteBufferConfig {
    /// Capacity in pages; 0 = none unless `size_mib` is set. Default 0.
    pub pages: u64,
    /// Capacity in MiB (rounded down to whole pages); 0 = use `pages`. Default 0.
    pub size_mib: f64,
    /// Default fifo.
    pub policy: FlushPolicy,
    /// Default background.
    pub flush_class: FlushClass,
    /// Share of the capacity that may hold unflushed pages before flushing
    /// starts. Default 0.5: half the buffer absorbs bursts while pages
    /// still linger long enough to be rewritten or read from DRAM.
    pub flush_at: f64,
    /// Default room; `destage` is MQSim's rule, `evict` SSDSim's (see
    /// `BufferAdmission`).
    pub admission: BufferAdmission,
    /// The DRAM's timing (`[write_buffer.dram]`); untimed by default.
    pub dram: super::DramTiming,
    /// Default page; `sector` is SSDSim's (see `BufferGranularity`).
    pub granularity: BufferGranularity,
    /// Default program; `read_first` is SSDSim's update read (see
    /// `PartialWriteBack`).
    pub partial_write_back: PartialWriteBack,
}

impl Default for WriteBufferConfig {
    fn default() -> Self {
        WriteBufferConfig {
            pages: 0,
            size_mib: 0.0,
            policy: FlushPolicy::Fifo,
            flush_class: FlushClass::Background,
            flush_at: 0.5,
            admission: BufferAdmission::Room,
            dram: Default::default(),
            granularity: BufferGranularity::Page,
            partial_write_back: PartialWriteBack::Program,
        }
    }
}

impl WriteBufferConfig {
    /// The capacity in pages of `page_size` bytes (0: no buffer).
    pub fn capacity(&self, page_size: u32) -> u64 {
        if self.size_mib > 0.0 {
            (self.size_mib * 1_048_576.0 / page_size.max(1) as f64).floor() as u64
        } else {
            self.pages
        }
    }

    /// Whether the buffer counts sectors: `granularity = "sector"` under
    /// SSDSim's own admission (`evict`); with another admission the
    /// setting has no effect (a bundle sets both, a user may change one).
    pub fn sector_granular(&self) -> bool {
        self.granularity == BufferGranularity::Sector && self.admission == BufferAdmission::Evict
    }

    /// Whether partial write-backs read the page's other sectors first
    /// (`partial_write_back = "read_first"`, which needs the sector buffer).
    pub fn update_reads(&self) -> bool {
        self.partial_write_back == PartialWriteBack::ReadFirst && self.sector_granular()
    }

    /// The capacity in 512-byte sectors under `granularity = "sector"`:
    /// SSDSim's `max_buffer_sector` (the DRAM's bytes / 512, initialize.c)
    /// from `size_mib`, or `pages` whole pages' sectors.
    pub fn capacity_sectors(&self, page_size: u32) -> u64 {
        if self.size_mib > 0.0 {
            (self.size_mib * 1_048_576.0 / 512.0).floor() as u64
        } else {
            self.pages * (page_size / 512) as u64
        }
    }
}

impl Config {
    /// The relations between the timing-model settings.
    pub(super) fn validate_model(&self) -> Result<()> {
        let g = self.host.link_gbps;
        ensure_config!(
            g.is_finite() && (0.0..=10_000.0).contains(&g),
            "host.link_gbps",
            "{g} is out of range; valid: 0 (no link time)..=10000"
        );
        let b = &self.write_buffer;
        b.dram.validate()?;
        ensure_config!(
            !(b.pages > 0 && b.size_mib > 0.0),
            "write_buffer.size_mib",
            "give the capacity once: pages ({}) or size_mib ({}), not both",
            b.pages,
            b.size_mib
        );
        ensure_config!(
            b.size_mib.is_finite() && (0.0..=1_048_576.0).contains(&b.size_mib),
            "write_buffer.size_mib",
            "{} is out of range; valid: 0..=1048576",
            b.size_mib
        );
        ensure_config!(b.pages <= 1 << 32, "write_buffer.pages", "{} is out of range; valid: 0..=4294967296", b.pages);
        ensure_config!(
            b.flush_at.is_finite() && (0.0..=1.0).contains(&b.flush_at),
            "write_buffer.flush_at",
            "{} is out of range; valid: 0..=1",
            b.flush_at
        );
        let cap = b.capacity(self.device.page_size);
        ensure_config!(
            b.size_mib == 0.0 || cap > 0,
            "write_buffer.size_mib",
            "{} MiB holds no {}-byte page",
            b.size_mib,
            self.device.page_size
        );
        ensure_config!(
            !(cap > 0 && b.sector_granular()) || (512..=32 * 512).contains(&self.device.page_size),
            "write_buffer.granularity",
            "`sector` keeps a 32-bit mask of 512-byte sectors per page: device.page_size {} must be 512..=16384",
            self.device.page_size
        );
        match self.host.write_ack {
            WriteAck::Buffer => {
                ensure_config!(cap > 0, "host.write_ack", "`buffer` needs a write buffer: set write_buffer.size_mib or write_buffer.pages");
            }
            ack => {
                ensure_config!(
                cap == 0,
                "host.write_ack",
                "`{}` with a write buffer: a buffered write is acknowledged when it enters the buffer, so set host.write_ack = \"buffer\"",
                    if ack == WriteAck::Program { "program" } else { "transfer" }
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigBuilder;

    fn build(kv: &[&str]) -> crate::Result<crate::config::Config> {
        ConfigBuilder::from_preset("small")?.set_all(kv.iter().copied())?.build()
    }

    #[test]
    fn buffer_capacity_from_mib_or_pages() {
        let c = build(&["write_buffer.size_mib=1", "host.write_ack=buffer"]).unwrap();
        assert_eq!(c.write_buffer.capacity(c.device.page_size), 1_048_576 / c.device.page_size as u64);
        let c = build(&["write_buffer.pages=7", "host.write_ack=buffer"]).unwrap();
        assert_eq!(c.write_buffer.capacity(c.device.page_size), 7);
    }

    #[test]
    fn ack_and_buffer_must_agree() {
        let e = build(&["host.write_ack=buffer"]).unwrap_err().to_string();
        assert!(e.contains("host.write_ack") && e.contains("needs a write buffer"), "{e}");
        let e = build(&["write_buffer.pages=8"]).unwrap_err().to_string();
        assert!(e.contains("host.write_ack") && e.contains("\"buffer\""), "{e}");
        let e = build(&["write_buffer.pages=8", "write_buffer.size_mib=1", "host.write_ack=buffer"]).unwrap_err().to_string();
        assert!(e.contains("not both"), "{e}");
    }

    #[test]
    fn enum_settings_name_their_values() {
        let e = build(&["scheduler.order=random"]).unwrap_err().to_string();
        assert!(e.contains("scheduler.order") && e.contains("fcfs"), "{e}");
        let e = build(&["host.write_ack=never"]).unwrap_err().to_string();
        assert!(e.contains("host.write_ack") && e.contains("transfer"), "{e}");
    }
}
