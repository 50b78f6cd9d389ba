//! `[ftl]`: allocation, garbage collection and its victim policy, wear
//! levelling, the mapping table, and preconditioning.

use super::AllocOrder;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// "static" (plane from the LPN in `order`) or "dynamic" (least-loaded die).
    pub allocation: Allocation,
    /// Static allocation order: a permutation of C, W, D, P; the first letter
    /// varies fastest with the LPN (CWDP = channel first).
    pub order: AllocOrder,
    /// GC starts on a plane when its free blocks (free pages with
    /// `gc_trigger = "free_pages"`) fall below this share.
    pub gc_threshold: f64,
    /// What `gc_threshold` counts and when it is checked: `free_blocks`
    /// (default) or SSDSim's `free_pages` (see `GcTrigger`).
    pub gc_trigger: GcTrigger,
    /// How many victims a plane collects at once, and when a new one
    /// starts: `one` (default) or MQSim's `mqsim` (see `GcConcurrency`).
    pub gc_concurrency: GcConcurrency,
    /// Which block GC reclaims: a name of ftl/gc/victim/'s registry
    /// (`greedy` by default; `detour policies` lists them), checked
    /// against it by setup/.
    pub gc_policy: String,
    /// Candidates drawn by `gc_policy = "random"`. Default 8.
    pub gc_choices: u32,
    /// Static wear levelling: `off` (default), `static` (when a plane's
    /// erase-count spread exceeds `wear_threshold`, its least-erased full
    /// block's data moves to a fresh block) or `mqsim` (MQSim's check as
    /// its code runs it; ftl/gc/wear.rs).
    pub wear_leveling: WearLeveling,
    /// The spread (most minus least erases among a plane's blocks) above
    /// which static wear levelling moves cold data. Default 100.
    pub wear_threshold: u32,
    /// Latency of a read served from the controller's write buffer (a read of
    /// a page whose program has not finished), in ns.
    pub buffer_read_ns: u64,
    /// A read of a page whose program has not finished goes to the flash
    /// like any other (MQSim with its data cache off) instead of being
    /// served from the write buffer. Timing only: the read returns the
    /// page's new data either way. Default false.
    pub pending_reads_from_flash: bool,
    /// Whether a host read of a page that another host read is reading
    /// from the flash is served with it: `off` (default) or SSDSim's
    /// `queued` (see `ReadMerge`).
    pub read_merge: ReadMerge,
    /// Where the LPN -> PPN map lives: a name of ftl/mapping/'s registry
    /// ("dram": all of it, every lookup free, the default; "cmt": a cached
    /// mapping table of `cmt_size_kib`, the rest in translation pages on
    /// flash), checked against it by setup/.
    pub mapping: String,
    /// With `mapping = "cmt"`: the cache's size in KiB, whole translation
    /// pages of `device.page_size` bytes (page_size / 4 entries each), or
    /// entries with `cmt_granularity = "entry"`. Default 2048 (MQSim's
    /// default CMT capacity, 2 MiB).
    pub cmt_size_kib: u64,
    /// With `mapping = "cmt"`: what the table caches. `page` (default):
    /// whole translation pages; `entry`: single map entries, as MQSim's
    /// CMT (ftl/mapping/entry.rs).
    pub cmt_granularity: CmtGranularity,
    /// With `mapping = "cmt"`: what becomes of an evicted dirty
    /// translation page. `program` (default): it is programmed to a new
    /// page; `hold`: MQSim's, it never is (see `CmtWriteBack`).
    pub cmt_write_back: CmtWriteBack,
    /// What a GC victim's moves and erase cost in simulated time: `timed`
    /// (default) or SSDSim's `stale_erases_only` (see `GcTiming`).
    pub gc_timing: GcTiming,
    /// Which open block GC's copies go to: `own` (default, a block of
    /// GC's) or SSDSim's `host` (see `GcWritePoint`).
    pub gc_write_point: GcWritePoint,
    /// What starts a GC run: `below_trigger` (default) or SSDSim's
    /// `host_writes` (see `GcStart`).
    pub gc_start: GcStart,
    pub precondition: PreconditionConfig,
}

/// What starts a GC run on a plane (`ftl.gc_start`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcStart {
    /// Whenever the plane is below its trigger and not collecting: after
    /// a write, when setup ends, and again after each erase until it is
    /// above. Detour's default.
    #[default]
    BelowTrigger,
    /// SSDSim's: each host page write that leaves the plane below its
    /// trigger queues one GC request (`get_ppn`, pagemap.c, and
    /// `find_level_page`, flash.c: a `gc_node` each, also while one is
    /// being served), and `gc_for_channel` serves every request with one
    /// erase, whether or not the plane is still below then; pages placed
    /// before the run (`get_ppn_for_pre_process`) and GC's copies queue
    /// none, and nothing else starts GC. A plane owes one run per such
    /// write; runs start while it owes one. Meant with
    /// `gc_trigger = "free_pages"`.
    HostWrites,
}

/// The open block a GC copy is written to (`ftl.gc_write_point`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcWritePoint {
    /// GC keeps open blocks of its own, so moved (cold) pages stay out of
    /// the host's blocks. Detour's default.
    #[default]
    Own,
    /// SSDSim's: a plane has one active block, and `get_ppn_for_gc`
    /// (pagemap.c, called by `move_page`) takes GC's page from it by
    /// `find_active_block`, as `get_ppn` does for a host write; moved pages
    /// land between the host's. GC keeps its reserve and its copies still
    /// check no GC trigger (SSDSim's `get_ppn_for_gc` queues none).
    Host,
}

/// When a plane falls below `ftl.gc_threshold` (`ftl.gc_trigger`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcTrigger {
    /// Checked when a write opens a block: the plane's whole free blocks
    /// (plus the free pages `layout = "trailing_free"` leaves in aged
    /// blocks) against `gc_threshold x blocks`, rounded up to whole
    /// blocks. The pages left in open blocks do not count. Detour's default.
    #[default]
    FreeBlocks,
    /// SSDSim's: checked after every host page write (`get_ppn`,
    /// pagemap.c, and `find_level_page`, flash.c, for two-plane writes),
    /// the plane's `free_page` (every unwritten page, open blocks'
    /// included) against `page_block x block_plane x gc_hard_threshold`
    /// pages, unrounded. GC's own copies (`get_ppn_for_gc`) and pages
    /// placed before the run (`get_ppn_for_pre_process`) do not check.
    FreePages,
}

/// A host read of a page already being read (`ftl.read_merge`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadMerge {
    /// Every read goes to the flash (or the buffer). Detour's default.
    #[default]
    Off,
    /// SSDSim's: `creat_sub_request` (flash.c) looks through the channel's
    /// read list (`subs_r_head`) for a sub-request of the same physical
    /// page; if there is one the new read is done after 1000 ns (its
    /// `complete_time`) and never reaches the flash. A read stays in that
    /// list from when it is created until it has completed (its data-out
    /// done; `services_2_r_cmd_trans_and_complete` removes it). Its page
    /// is the LPN's map entry, which a write moves only when it is issued
    /// (`get_ppn`, pagemap.c). Here: a host read of an LPN with a host
    /// flash read in flight queued since the LPN's last program was
    /// dispatched is served as a buffer read (`ftl.buffer_read_ns`, 1000
    /// ns by default); ftl/read_merge.rs. Only the page-mapped read path
    /// the schemes share (`read_mapped`) merges. `detour import ssdsim`
    /// sets it, with `pending_reads_from_flash = true`.
    Queued,
}

/// How many victims a plane collects at once (`ftl.gc_concurrency`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcConcurrency {
    /// One victim per plane at a time; a plane still below its trigger
    /// when the victim's erase ends starts the next at once. Detour's
    /// default.
    #[default]
    One,
    /// MQSim's: every block a write takes below the trigger starts a
    /// victim (`Check_gc_required`, GC_and_WL_Unit_Page_Level.cpp, called
    /// from the `Allocate_block_and_page_in_plane_for_*_write` functions of
    /// Flash_Block_Manager.cpp), beside those already collecting, up to
    /// `max_ongoing_gc_reqs_per_plane` at once (its `Ongoing_erase_
    /// operations` check; wear levelling counts too), which SSD_Device.cpp
    /// builds as 10 whatever the file says; an erase's end starts one only
    /// while the plane holds fewer than 10 free blocks (`Stop_servicing_
    /// writes`, in the ERASE case of `GC_and_WL_Unit_Base::handle_
    /// transaction_serviced_signal_from_PHY`).
    Mqsim,
}

/// The simulated time GC takes (`ftl.gc_timing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcTiming {
    /// Every victim's moves (read, program) and erase take their time on
    /// the dies, at background priority. Detour's default.
    #[default]
    Timed,
    /// SSDSim with copyback among its advanced commands and `greed CB
    /// command = 0`: only a block that the run's writes made wholly stale
    /// takes time, its erase (tBERS); `gc_for_channel` (pagemap.c) erases
    /// such blocks first (`gc_direct_erase`, listed by `get_ppn` when a
    /// block's `invalid_page_num` reaches `page_block`; `erase_planes`
    /// sets the chip busy for tBERS). Any other victim goes through
    /// `uninterrupt_gc`, whose timing sets the channel's and chip's
    /// `next_state_predict_time` only when copyback is off or used greedily
    /// (`greed_CB_ad == 1`): here neither branch runs, so its page moves
    /// and erase take no simulated time. Blocks staled by preconditioning
    /// are never listed (SSDSim's `make_aged` leaves 61 of 64 pages stale
    /// and lists nothing), so they too are reclaimed at once.
    StaleErasesOnly,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PreconditionConfig {
    /// Share of the logical pages (of the workload's footprint with
    /// `span = "footprint"`) that hold valid data before measurement.
    pub valid: f64,
    /// What `valid` is a share of: the device's logical space (the
    /// default), or the workload's footprint (the addresses it can touch,
    /// from 0), so a run writes only what its workload can read or
    /// overwrite.
    pub span: PreconditionSpan,
    /// Share of the physical pages that hold invalid (stale) data before
    /// measurement; "fill to the GC threshold" is `to_gc_threshold = true`.
    pub invalid: f64,
    /// Overwrite pages until every plane is one block above its GC threshold.
    ///
    /// Overwrites (here and for `invalid`) pick uniformly random valid
    /// pages, in passes of equal size when they outnumber the valid pages,
    /// so blocks end with a mix of live and stale pages, as on an aged
    /// device, and GC has pages to move from its first run.
    pub to_gc_threshold: bool,
    /// Wear before measurement: random overwrites of the valid pages, as a
    /// multiple of the physical pages, with greedy GC collecting (in no
    /// simulated time) whenever a plane reaches its threshold. Erase counts
    /// then differ between blocks and chips as on a used device; `invalid`
    /// and `to_gc_threshold` cannot do that (their stale pages must fit
    /// above the threshold). 0 = none.
    pub wear: f64,
    /// Steady state from the workload's own writes: after the fill and
    /// `wear`, the workload's write pages, this many times the logical
    /// pages in all, are written in no simulated time (a profile drawn
    /// again over the same hot pages, a trace read again pass after pass,
    /// at most 1,000 passes), greedy GC collecting
    /// whenever a plane reaches its threshold. Blocks then hold the mix of
    /// live and stale pages that a long run of this workload settles into:
    /// skewed writes leave another mix than `wear`'s uniform overwrites,
    /// and a run of a million requests would otherwise spend itself getting
    /// there (MQSim derives its steady state from the workload's address
    /// distribution for the same reason). 0 = none.
    pub steady_writes: f64,
    /// After the other steps, collect every plane (no simulated time)
    /// until it holds this many free blocks above its GC trigger, or has
    /// nothing left to reclaim: an aged device whose idle-time GC has
    /// caught up. 0 = leave the planes as the other steps left them.
    pub headroom_blocks: u32,
    /// Where `invalid`'s stale pages go (see [`PreconditionLayout`]).
    pub layout: PreconditionLayout,
    /// When a page the workload reads before anything wrote it is placed
    /// (see [`PlaceReads`]).
    pub place_reads: PlaceReads,
    /// How `layout = "mqsim_steady"` draws the valid pages beyond the
    /// workload's own (see [`PreconditionDraw`]).
    pub draw: PreconditionDraw,
}

/// How a host write's plane is chosen (`ftl.allocation`; ftl/alloc.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Allocation {
    /// The plane follows from the LPN by `ftl.order`, so a page always
    /// returns to the same plane.
    #[default]
    Static,
    /// The least-loaded die of the device takes the write.
    Dynamic,
}

/// What a cached mapping table holds (`ftl.cmt_granularity`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CmtGranularity {
    /// Whole translation pages (page_size / 4 entries each) in LRU order.
    #[default]
    Page,
    /// Single LPN -> PPN entries in LRU order, sized and grouped into
    /// translation pages as MQSim's `Address_Mapping_Unit_Page_Level`
    /// does; a dirty entry's eviction rewrites its translation page.
    Entry,
}

/// What becomes of an evicted dirty translation page
/// (`ftl.cmt_write_back`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CmtWriteBack {
    /// Programmed to a new page at host-write priority (with an entry
    /// cache, after a read of the old copy to merge the rest).
    #[default]
    Program,
    /// MQSim's: the merge read runs, the program never does. Its
    /// `generate_flash_writeback_request_for_mapping_data`
    /// (Address_Mapping_Unit_Page_Level.cpp) files the write in
    /// `MappingWriteTRQueue`, which no TSU ever serves (TSU_OutofOrder.cpp,
    /// TSU_Priority_OutOfOrder.cpp fill it in `Schedule` and never take
    /// from it), so the page stays in `DepartingMappingEntries` for the
    /// rest of the run and every later miss on it reads nothing.
    Hold,
}

/// Wear levelling (`ftl.wear_leveling`; ftl/gc/wear.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WearLeveling {
    /// Blocks wear as GC leaves them.
    #[default]
    Off,
    /// Move the data of a plane's least-erased full block when the plane's
    /// erase-count spread exceeds `ftl.wear_threshold`.
    Static,
    /// MQSim's check as its code runs it, after every erase and before GC
    /// is reconsidered (`GC_and_WL_Unit_Base::handle_transaction_serviced_
    /// signal_from_PHY`): `Get_min_max_erase_difference`
    /// (Flash_Block_Manager_Base.cpp) returns the *numbers* of the plane's
    /// first most-erased and first least-erased blocks subtracted as
    /// unsigned integers, not their counts, and `check_static_wl_required`
    /// compares that with `ftl.wear_threshold`; `run_static_wearleveling`
    /// then collects the first least-erased block (`Get_coldest_block_id`).
    /// A block's number here is its place in the plane's free order.
    Mqsim,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            allocation: Allocation::Static,
            order: AllocOrder::CWDP,
            gc_threshold: 0.05,
            gc_trigger: GcTrigger::FreeBlocks,
            gc_concurrency: GcConcurrency::One,
            gc_policy: "greedy".into(),
            gc_choices: 8,
            wear_leveling: WearLeveling::Off,
            wear_threshold: 100,
            buffer_read_ns: 1_000,
            pending_reads_from_flash: false,
            read_merge: ReadMerge::Off,
            mapping: "dram".into(),
            cmt_size_kib: 2048,
            cmt_granularity: CmtGranularity::Page,
            cmt_write_back: CmtWriteBack::Program,
            gc_timing: GcTiming::Timed,
            gc_write_point: GcWritePoint::Own,
            gc_start: GcStart::BelowTrigger,
            precondition: PreconditionConfig::default(),
        }
    }
}

/// Where `ftl.precondition.invalid`'s stale pages go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreconditionLayout {
    /// Overwrites of the valid pages: the stale pages fill whole blocks
    /// and the run writes into free blocks.
    #[default]
    WholeBlocks,
    /// SSDSim's `make_aged` (ssd.c): on every plane, blocks in order get
    /// pages `0..n` stale with `n` the integers below `pages_per_block x
    /// invalid + 1`, until the plane holds `pages x invalid` stale pages
    /// (rounded down); no valid page is needed. Their trailing free pages
    /// stay free, and the allocator fills them, block after block, before
    /// a fresh block, as `find_active_block` (flash.c) walks from the
    /// active block to the next with a free page. A block the run's pages
    /// then make wholly stale was staled by the run (timed under
    /// `gc_timing = "stale_erases_only"`).
    TrailingFree,
    /// MQSim's preconditioning (`FTL::Perform_precondition`, FTL.cpp, and
    /// `Address_Mapping_Unit_Page_Level::Allocate_address_for_
    /// preconditioning`): `valid`'s pages spread over each plane's blocks
    /// by the steady-state distribution of valid pages per block that
    /// uniform writes under the GC policy reach (Van Houdt's mean-field
    /// model, as MQSim computes it; ftl/steady.rs), the rest of each block
    /// stale, so GC's victims hold live pages from the first write.
    /// `invalid` must be 0: the layout makes the stale pages.
    MqsimSteady,
}

/// When the pages a workload reads unwritten are placed
/// (`ftl.precondition.place_reads`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaceReads {
    /// At the read, in no simulated time, if still unwritten then (a page
    /// the run writes first is never placed). Detour's default.
    #[default]
    OnRead,
    /// Before the run, after the other steps: every page a read of the
    /// workload covers and nothing placed yet, in the workload's order,
    /// written or not by an earlier write of the run. SSDSim's
    /// `pre_process_page` (pagemap.c), which `main` (ssd.c) runs after
    /// `make_aged`: it reads the trace once, and for every read whose
    /// page's map entry is empty takes a page by `get_ppn_for_pre_process`
    /// (the same plane as a write of that page, `find_active_block` then
    /// `write_page`), without GC. The planes start the run with those
    /// pages gone, so GC can start at the first write; a page a write of
    /// the run overwrites goes stale in a block of the run's.
    BeforeRun,
}

/// How `layout = "mqsim_steady"` draws the valid LPNs the workload does
/// not touch (`ftl.precondition.draw`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PreconditionDraw {
    /// Single LPNs, uniform over the logical pages (ChaCha8 seeded by
    /// `run.seed`): each plane's count a binomial draw.
    #[default]
    Pages,
    /// MQSim's step 1-4 (`FTL::Perform_precondition`, FTL.cpp): requests of
    /// the trace's mean size in sectors (`Average_request_size_sector`)
    /// from start sectors that `Utils::RandomGenerator(seed)` (MRG32k3a,
    /// CMRRandomGenerator.cpp) draws uniformly over MQSim's logical
    /// sectors, until the occupancy's share of MQSim's logical pages is
    /// set; the seed is `run.seed` (MQSim's `preconditioning_seed`, never
    /// initialised, reads 0 in the matched builds; seed 1's numbers are
    /// seed 0's from the second on). With the trace's pages and MQSim's
    /// plane order the drawn set is MQSim's, page for page (sim/mqsim_draw.rs).
    Mqsim,
}

/// What `ftl.precondition.valid` is a share of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PreconditionSpan {
    /// The device's logical space.
    #[default]
    Device,
    /// The workload's footprint: a profile's `footprint_bytes`, or up to
    /// the highest address a trace or request table touches (a trace is
    /// read once more for it). Given by `Simulation::set_footprint`.
    Footprint,
}

impl PreconditionConfig {
    /// The setup reads the workload once before the run: SSDSim's
    /// `pre_process_page` (`place_reads = "before_run"`) and MQSim's
    /// preconditioning, which puts the trace's own pages first
    /// (`layout = "mqsim_steady"`).
    pub fn reads_workload_before_run(&self) -> bool {
        self.place_reads == PlaceReads::BeforeRun || self.layout == PreconditionLayout::MqsimSteady
    }
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        PreconditionConfig {
            valid: 0.0,
            span: PreconditionSpan::Device,
            invalid: 0.0,
            to_gc_threshold: false,
            wear: 0.0,
            steady_writes: 0.0,
            headroom_blocks: 0,
            layout: PreconditionLayout::WholeBlocks,
            place_reads: PlaceReads::OnRead,
            draw: PreconditionDraw::Pages,
        }
    }
}
