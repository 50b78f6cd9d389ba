//! Compatibility bundles: the timing rules of the simulators the papers ran
//! on, as sets of ordinary config keys. `compat = "ssdsim"` in any layer
//! (or `--compat ssdsim`) merges the bundle at that point, so keys given
//! after it still win. Every entry cites the peer behaviour it follows, as
//! read from the peer's source (docs/validation.md lists the places); none
//! is a constant fitted to a peer's output.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A peer simulator whose rules a run follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compat {
    /// Detour's own model: read priority per die, writes done after tPROG.
    #[default]
    None,
    /// SSDSim (RR-SSD and CR5M ran on it).
    Ssdsim,
    /// DiskSim 4.0 with the MSR SSD extension (HotR ran on it).
    Disksim,
    /// MQSim (the read-collision paper ran on it).
    Mqsim,
}

/// One setting of a bundle: the dotted key, its TOML value, and why.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    pub key: &'static str,
    pub value: &'static str,
    pub because: &'static str,
}

const fn s(key: &'static str, value: &'static str, because: &'static str) -> Setting {
    Setting { key, value, because }
}

/// SSDSim as the benchmark's page.parameters configures it
/// (docs/validation/peer-configs/ssdsim-page.parameters: static
/// allocation, `advanced command = 31`), plus every rule SSDSim applies
/// whatever the file says. Left to `detour import ssdsim` because SSDSim
/// applies it only for some file settings: `scheduler.plane_pairing =
/// "level"`, make_level_page's static branch (get_ppn_for_advanced_commands,
/// flash.c), which runs only with static allocation, the two-plane bit of
/// `advanced command` and `greed MPW command = 1` (SSDSim's own
/// page.parameters has `allocation = 0`, under which a write's plane is
/// chosen at issue); the importer sets it from the file.
const SSDSIM: &[Setting] = &[
    s("host.write_ack", "\"transfer\"", "a write's sub-request completes at SR_W_TRANSFER, when its data has reached the chip (go_one_step in ssd.c); the chip then stays busy for tPROG (next_state_predict_time)"),
    s("scheduler.unit", "\"chip\"", "busy state is kept per chip (chip_head[].current_state / next_state_predict_time; die_info has none): a read waits while another die of its chip programs"),
    s("scheduler.order", "\"priority\"", "process() issues a channel's waiting reads (services_2_r_wait, services_2_r_data_trans) before any write (services_2_write); GC first when pending"),
    s("scheduler.read_priority", "true", "as above: reads first on every channel (the parsed `scheduling algorithm = FCFS` is never read)"),
    s("scheduler.multiplane", "true", "page.parameters enables every advanced command (advanced command = 31): a chip's waiting writes are programmed together under one tPROG (get_ppn_for_advanced_commands, compute_serve_time)"),
    s("scheduler.chip_program_batches", "true", "with static allocation and advanced command = 31, dynamic_advanced_process takes one waiting write per die and plane of the chip from the channel's write queue and get_ppn_for_advanced_commands issues them as one COPY_BACK / INTERLEAVE_TWO_PLANE command; compute_serve_time starts every sub-request's transfer at the same time (next_state_predict_time = now + 7 tWC + bytes x tWC each), holds the channel until the last, then keeps the chip busy for one tPROG (flash.c)"),
    s("scheduler.multiplane_reads", "false", "two-plane reads are never issued: find_interleave_twoplane_sub_request takes its output pointers by value, so services_2_r_wait always issues one read (flash.c)"),
    s("scheduler.suspension", "false", "SSDSim has no program/erase suspension"),
    s("scheduler.read_transfer", "\"requested\"", "a read's data-out moves only the sectors its sub-request needs: distribute (ssd.c) sizes each page's sub-request by transfer_size (the request's sectors of that page not found in the buffer), and go_one_step (flash.c) times SR_R_DATA_TRANSFER as size x subpage_capacity x tRC"),
    s("write_buffer.admission", "\"evict\"", "insert2buffer (flash.c): a write whose page finds the buffer full evicts the LRU tail at once (avlTreeDel before any flash work) as a write sub-request of that request (creat_sub_request with req), and trace_output (ssd.c) ends the request at its sub-requests' latest complete_time, a write's being the end of its transfer (SR_W_TRANSFER); a write that evicts nothing ends after 1000 ns of DRAM; nothing else is written back, not even at the end. Only matters with a [write_buffer]"),
    s("write_buffer.granularity", "\"sector\"", "insert2buffer (flash.c) counts the buffer in sectors: max_buffer_sector is the DRAM's bytes / 512 (initialize.c), a page's node holds only the sectors written (stored; buffer_sector_count grows by each new sector), a write evicts LRU nodes until its sectors fit (never its own node: a tail that is the node being written swaps with the one before), and an eviction frees and writes back only its node's sectors (creat_sub_request(.., size(stored), stored, ..)). Only matters with a [write_buffer]"),
    s("scheduler.write_transfer", "\"written\"", "a write sub-request moves only its sectors: creat_sub_request sizes it by size(state) (a host write's part of the page, an eviction's stored sectors), and compute_serve_time / static_write (flash.c) time its transfer as 7 tWC + size x subpage_capacity x tWC. GC moves stay whole pages"),
    s("scheduler.channel_order", "\"reads_first\"", "process() (flash.c) serves an idle channel in turn: services_2_r_wait (the command of the channel's oldest waiting read whose chip is idle), else services_2_r_data_trans (a finished read's data-out, lowest chip first), else services_2_write (the lowest idle chip with waiting writes, its batch formed then by dynamic_advanced_process); one per idle channel per step, so a chip's writes wait while any read of its channel can use it"),
    s("ftl.precondition.place_reads", "\"before_run\"", "main (ssd.c) runs pre_process_page (pagemap.c) after make_aged whatever the file says: it reads the trace once and places every page a read covers whose map entry is empty, before the run"),
    s("ftl.pending_reads_from_flash", "true", "a read sub-request reads the page its LPN's map entry names (creat_sub_request, flash.c), whatever the file says: SSDSim never serves a read from a write still queued"),
    s("ftl.read_merge", "\"queued\"", "creat_sub_request (flash.c), whatever the file says, ends a read after 1000 ns without the flash when a read of the same physical page is still in the channel's read list (subs_r, until it completes)"),
    s("ftl.gc_trigger", "\"free_pages\"", "get_ppn (pagemap.c) queues a GC request after every host page write that leaves the plane's free_page (every unwritten page, the active block's included) below page_block x block_plane x gc_hard_threshold, unrounded; it does so while `active write` is 0, its value when the file does not set it (load_parameters, initialize.c, zeroes the parameters), as neither the benchmark's page.parameters nor SSDSim's own sets it"),
    s("ftl.gc_start", "\"host_writes\"", "as above, get_ppn (pagemap.c) queues one GC request per host page write that leaves the plane below the threshold, even while one is served, and gc_for_channel serves each with one erase; pre_process_page queues none and nothing re-checks after an erase"),
    s("ftl.gc_write_point", "\"host\"", "a plane has one active block whatever the file says: move_page's get_ppn_for_gc (pagemap.c) takes GC's page from it by find_active_block, as get_ppn does for a host write, so moved pages land between the host's"),
];

const DISKSIM: &[Setting] = &[
    s("host.write_ack", "\"program\"", "the MSR SSD extension completes a write after its program (ssd_write_page includes the program time)"),
    s("scheduler.order", "\"fcfs\"", "each flash package (element) serves its queue first come, first served: reads wait behind every queued write and cleaning operation"),
    s("scheduler.unit", "\"chip\"", "one request at a time per package (element); there is no die-level overlap"),
    s("scheduler.multiplane", "false", "the extension's default parameter set (HotR's Table II) runs one plane operation per package request"),
    s("scheduler.multiplane_reads", "false", "as above"),
    s("scheduler.suspension", "false", "no program/erase suspension"),
];

const MQSIM: &[Setting] = &[
    s("host.write_ack", "\"program\"", "with the data cache off a write is acknowledged when its flash program ends (Data_Cache_Manager_Flash_Advanced: TURNED_OFF path; PHY ready signal after tPROG)"),
    s("scheduler.order", "\"priority\"", "the example ssdconfig.xml selects PRIORITY_OUT_OF_ORDER: per chip, user reads are served before writes (service_read_transaction, then service_write_transaction)"),
    s("scheduler.read_priority", "true", "as above"),
    s("scheduler.unit", "\"chip\"", "the PHY keeps one status per chip (ChipBookKeepingEntry.Status), busy from command issue until every die is done and its data is out; the TSU issues to IDLE chips only, and issue_command_to_chip serves one die per command"),
    s("scheduler.multiplane", "true", "issue_command_to_chip combines ready transactions of the same die on different planes (TSU_Base.cpp)"),
    s("scheduler.multiplane_reads", "true", "as above, for reads too"),
    s("scheduler.multiplane_scan", "\"queue\"", "issue_command_to_chip (TSU_Base.cpp) fills a multi-plane command by walking the whole of sourceQueue1 (the chip's user queue being served) and then sourceQueue2 (its GC queue) for ready transactions of the first's die on free planes"),
    s("scheduler.channel_order", "\"data_outs_first\"", "when a transfer ends, NVM_PHY_ONFI_NVDDR2::Execute_simulator_event moves out a finished read's data if any waits (WaitingMappingRead_TX, then WaitingReadTX, then WaitingGCRead_TX, each first come first served) and only then signals the TSU, whose handle_channel_idle_signal (TSU_Base.cpp) tries the channel's chips round robin from Round_robin_turn_of_channel until one issues a command"),
    s("scheduler.multiplane_same_page", "true", "issue_command_to_chip adds a transaction to a multi-plane command only if its Address.PageID equals the first's (\"Check for identical pages when running multiplane command\", TSU_Base.cpp); pages are assigned at translation, before the TSU queues them, so random reads and planes whose write points differ go one plane at a time"),
    s("ftl.pending_reads_from_flash", "true", "with the data cache TURNED_OFF, process_new_user_request (Data_Cache_Manager_Flash_Advanced.cpp) hands every read to Translate_lpa_to_ppa_and_dispatch, which submits each transaction with a known address to the TSU: a read of a page whose program is still queued goes to the flash, at the page's new address"),
    s("write_buffer.admission", "\"destage\"", "with WRITE_CACHE, write_to_destage_buffer (Data_Cache_Manager_Flash_Advanced.cpp) writes a page back at once when its LPA is not in the bloom filter of LPAs written since its last reset (every bloom_filter_reset_step, 1 s): \"Eagerly write back cold data\"; it admits a request's pages only while back_pressure_buffer_depth stays under back_pressure_buffer_max_depth, one page per plane of the device (SSD_Device.cpp); the rest of the request waits for write-backs to end (handle_transaction_serviced_signal_from_PHY); a page that finds the cache full evicts the LRU slot at once (Evict_one_slot_lru: the write goes on) and writes back only the slot's sectors (State_bitmap_of_existing_sectors) after one DRAM read of the admission's evictions, which its own DRAM write queues behind; no flush at the end. Only matters with a [write_buffer]"),
    s("write_buffer.flush_class", "\"host\"", "the cache's write-backs are host writes at the chips: both TSUs file a write transaction whose Source is CACHE (an eviction) with the USERIO ones (an eager write-back is the user's own transaction) in UserWriteTRQueue (TSU_Priority_OutOfOrder.cpp, TSU_OutofOrder.cpp: Schedule), ahead of the GC/mapping queues; Detour's default flushes at background priority. Only matters with a [write_buffer]"),
    s("host.latency_from", "\"submission_queue\"", "MQSim's device response time, which its per-request figures report, runs from Enqueue_time, set when the request enters the NVMe submission queue (IO_Flow_Base::Submit_io_request, or the refill in NVMe_consume_io_request once a completion shows room: NVME_SQ_FULL, at most IO_Queue_Depth - 1 unfetched entries); the wait at the host before it is not counted. Only matters with host.submission_queue set, which `detour import mqsim` maps from IO_Queue_Depth (with host.queue_depth from Queue_Fetch_Size)"),
    s("host.link_gbps", "3.2821", "PCIe: 4 lanes x 1.0 GB/s (ssdconfig.xml) carrying 128-byte payloads in 156-byte packets (PCIe_Link::estimate_transfer_time): 4 x 128 / 156 GB/s; write data is fetched before the request is split, read data sent after its last transaction, one FIFO per direction"),
    s("scheduler.suspension", "false", "a non-idle chip refuses new reads (service_read_transaction falls through to `return false` for WRITING/ERASING), so suspension never happens"),
    s("scheduler.arbitration", "\"nvme_wrr\"", "PRIORITY_OUT_OF_ORDER keeps user read and write queues per chip and priority class and serves URGENT first, then HIGH/MEDIUM/LOW by weighted round robin (get_next_read_service_queue / get_next_write_service_queue, TSU_Priority_OutOfOrder.cpp; weights 4/2/1 from IO_Flow_Priority_Class::get_scheduling_weight), with mapping transactions of no class served before any (MappingReadTRQueue first in service_read_transaction); the host fetches every submission queue on its own (Input_Stream_Manager_NVMe::Submission_queue_tail_pointer_update), so classes act at the chips only"),
    s("scheduler.read_transfer", "\"requested\"", "a read's data-out moves only the sectors its transaction carries: a user read its request's part of the page (segment_user_request, Host_Interface_NVMe.cpp: transaction_size * SECTOR_SIZE_IN_BYTE), a mapping read one sector (generate_flash_read_request_for_mapping_data, Address_Mapping_Unit_Page_Level.cpp: SECTOR_SIZE_IN_BYTE); NVM_PHY_ONFI_NVDDR2.cpp times it as NVDDR2DataOutTransferTime(Data_and_metadata_size_in_byte)"),
    s("scheduler.write_transfer", "\"written\"", "a program's data-in moves only the sectors its transaction carries: a user write its request's part of the page (segment_user_request, Host_Interface_NVMe.cpp: transaction_size * SECTOR_SIZE_IN_BYTE; an eager write-back is that same transaction); NVM_PHY_ONFI_NVDDR2::send_command_to_chip times each as NVDDR2DataInTransferTime(Data_and_metadata_size_in_byte); a cache eviction moves its slot's sectors (State_bitmap_of_existing_sectors, write_to_destage_buffer)"),
    s("ftl.cmt_granularity", "\"entry\"", "Cached_Mapping_Table (Address_Mapping_Unit_Page_Level.cpp) holds single entries in LRU order, cmt_capacity = CMT_Capacity / CMT_entry_size, CMT_entry_size = ceil((2 log2(physical pages) + sectors per page) / 8) bytes; a miss reads the entry's translation page (request_mapping_entry, generate_flash_read_request_for_mapping_data) and inserts that entry only; evicting a dirty entry reads and rewrites its translation page with every dirty entry of it (generate_flash_writeback_request_for_mapping_data). Only matters with ftl.mapping = \"cmt\""),
    s("ftl.cmt_write_back", "\"hold\"", "generate_flash_writeback_request_for_mapping_data (Address_Mapping_Unit_Page_Level.cpp) reads the evicted page's old copy (a MAPPING read, served) and files its write in MappingWriteTRQueue, which no TSU ever serves (TSU_Priority_OutOfOrder.cpp and TSU_OutofOrder.cpp fill it in Schedule and never take from it): the page stays in DepartingMappingEntries, so every later miss on it reads nothing (request_mapping_entry). Only matters with ftl.mapping = \"cmt\""),
    s("scheduler.gc_priority", "\"urgent\"", "the example ssdconfig.xml has Preemptible_GC_Enabled = false, so GC_and_WL_Unit_Page_Level::GC_is_in_urgent_mode is always true and TSU_Priority_OutOfOrder::service_read_transaction serves a chip's GC reads first and no user read while GC writes or erases are queued, service_write_transaction GC writes before user writes (mapping reads still go first; not modelled); `detour import mqsim` sets it from the file"),
    s("ftl.gc_concurrency", "\"mqsim\"", "Check_gc_required (GC_and_WL_Unit_Page_Level.cpp) runs whenever a write takes a new block (Allocate_block_and_page_in_plane_for_user_write / _gc_write / _translation_write, Flash_Block_Manager.cpp) and starts another victim below the trigger unless the plane already has max_ongoing_gc_reqs_per_plane erases ongoing, which SSD_Device.cpp builds as 10 whatever the file says; after an erase it runs only while the pool is below 10 (Stop_servicing_writes, GC_and_WL_Unit_Base::handle_transaction_serviced_signal_from_PHY). Each victim queues its erase at once (TSU GCEraseTRQueue), so while any is open the chip serves no user read or write (service_read_transaction / service_write_transaction)"),
    s("ftl.wear_leveling", "\"mqsim\"", "static wear levelling runs whatever the file says: SSD_Device.cpp builds GC_and_WL_Unit_Page_Level with (..., max_rho, 10, parameters->Seed++), so the seed lands in dynamic_wearleveling_enabled and static_wearleveling_enabled and its threshold keep their defaults (true, 100; GC_and_WL_Unit_Page_Level.h); after each erase check_static_wl_required compares Get_min_max_erase_difference (Flash_Block_Manager_Base.cpp), which returns the numbers of the plane's first most- and least-erased blocks subtracted unsigned, with 100, and run_static_wearleveling moves the first least-erased block's valid pages and erases it (ftl/gc/wear.rs); ftl.wear_threshold keeps Detour's default, 100"),
    s("ftl.precondition.draw", "\"mqsim\"", "under the mqsim_steady layout, the valid LPAs beyond the trace's are MQSim's own: FTL::Perform_precondition (FTL.cpp) step 1-4 adds requests of Average_request_size_sector sectors (IO_Flow_Trace_Based::Get_statistics: the trace's sectors over its requests, truncated) from start sectors Uniform_ulong draws over the flow's logical sectors with Utils::RandomGenerator(preconditioning_seed++), MQSim's MRG32k3a (CMRRandomGenerator.cpp), until the occupancy's share of its logical pages is set; the seed is run.seed (MQSim's preconditioning_seed is never initialised and reads 0 in the matched builds; seed 1's numbers are seed 0's from the second on), so each plane's valid pages, its free blocks after preconditioning and where GC and wear levelling start first are MQSim's (sim/mqsim_draw.rs)"),
    s("scheduler.suspend_min_remaining_us", "100", "where suspension is turned back on (a TSU with that fall-through mended), a read is issued to a programming chip only while the program has Preferred_suspend_write_time_for_read (100 us) left; it suspends the program if it is for the same die, else runs beside it (NVM_PHY_ONFI_NVDDR2::send_command_to_chip suspends a busy die only)"),
];

impl Compat {
    pub const ALL: [Compat; 4] = [Compat::None, Compat::Ssdsim, Compat::Disksim, Compat::Mqsim];

    pub fn name(self) -> &'static str {
        match self {
            Compat::None => "none",
            Compat::Ssdsim => "ssdsim",
            Compat::Disksim => "disksim",
            Compat::Mqsim => "mqsim",
        }
    }

    pub fn parse(name: &str) -> Result<Compat> {
        Compat::ALL.into_iter().find(|c| c.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Compat::ALL.iter().map(|c| c.name()).collect();
            Error::config("compat", format!("unknown peer `{name}`; known: {}", known.join(", ")))
        })
    }

    /// The settings of the bundle, in the order they are applied. `none`
    /// restores Detour's defaults for the same keys.
    pub fn settings(self) -> &'static [Setting] {
        const NONE: &[Setting] = &[
            s("host.write_ack", "\"program\"", "Detour's default: a write is done when programmed"),
            s("scheduler.order", "\"priority\"", "Detour's default: host reads, host writes, background"),
            s("scheduler.read_priority", "true", "Detour's default"),
            s("scheduler.unit", "\"die\"", "Detour's default: dies work independently"),
            s("scheduler.multiplane", "true", "Detour's default"),
            s("scheduler.multiplane_reads", "true", "Detour's default"),
            s("scheduler.multiplane_same_page", "false", "Detour's default: any free plane joins a batch"),
            s("scheduler.chip_program_batches", "false", "Detour's default: a batch is one die's planes, each page transferred in turn"),
            s("scheduler.plane_pairing", "\"any\"", "Detour's default: any free plane joins a program batch"),
            s("scheduler.suspension", "false", "Detour's default"),
            s(
                "ftl.pending_reads_from_flash",
                "false",
                "Detour's default: a read of a page being programmed is served from the write buffer",
            ),
            s("ftl.read_merge", "\"off\"", "Detour's default: every read goes to the flash"),
            s("ftl.precondition.place_reads", "\"on_read\"", "Detour's default: an unwritten page is placed at its read"),
            s("ftl.precondition.draw", "\"pages\"", "Detour's default: mqsim_steady draws single pages uniformly"),
            s("ftl.gc_trigger", "\"free_blocks\"", "Detour's default: GC's trigger counts whole free blocks"),
            s("ftl.gc_start", "\"below_trigger\"", "Detour's default: GC runs whenever a plane is below its trigger"),
            s("ftl.gc_write_point", "\"own\"", "Detour's default: GC's copies go to open blocks of its own"),
            s("scheduler.suspend_min_remaining_us", "0", "Detour's default"),
            s("scheduler.arbitration", "\"fifo\"", "Detour's default: flows' priority classes are not read"),
            s("scheduler.multiplane_scan", "\"near\"", "Detour's default: a batch looks only near its first operation (the policy's scan)"),
            s("scheduler.gc_priority", "\"background\"", "Detour's default: GC behind host work"),
            s("scheduler.read_transfer", "\"page\"", "Detour's default: a read moves its whole page"),
            s(
                "scheduler.channel_order",
                "\"fcfs\"",
                "Detour's default: a channel serves the units that ask for it first come, first served",
            ),
            s("host.link_gbps", "0", "Detour's default: the host link takes no time"),
            s("host.latency_from", "\"arrival\"", "Detour's default: a request's latency starts at its arrival"),
            s("write_buffer.admission", "\"room\"", "Detour's default: a page enters while the buffer has room"),
            s("write_buffer.flush_class", "\"background\"", "Detour's default: the buffer flushes after every host operation"),
            s("ftl.cmt_granularity", "\"page\"", "Detour's default: a cached mapping table holds whole translation pages"),
            s("ftl.cmt_write_back", "\"program\"", "Detour's default: an evicted dirty translation page is programmed anew"),
            s("write_buffer.granularity", "\"page\"", "Detour's default: the buffer holds and writes back whole pages"),
            s("scheduler.write_transfer", "\"page\"", "Detour's default: a program moves its whole page"),
        ];
        match self {
            Compat::None => NONE,
            Compat::Ssdsim => SSDSIM,
            Compat::Disksim => DISKSIM,
            Compat::Mqsim => MQSIM,
        }
    }

    /// What the bundle follows, in one line.
    pub fn description(self) -> &'static str {
        match self {
            Compat::None => "Detour's own model: per-die queues, host reads first, writes done after tPROG",
            Compat::Ssdsim => "SSDSim: writes done at transfer, one command per chip, reads first, multi-plane writes only",
            Compat::Disksim => "DiskSim + MSR SSD extension: one FCFS queue per package, writes done after tPROG, no multi-plane",
            Compat::Mqsim => "MQSim: one command per chip, reads first (priority out-of-order TSU), multi-plane, writes done after tPROG",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ConfigBuilder, FlushClass, ServiceUnit, WriteAck};

    #[test]
    fn every_bundle_builds_and_records_itself() {
        for c in Compat::ALL {
            let cfg = ConfigBuilder::from_preset("small").unwrap().set("compat", c.name()).unwrap().build().unwrap();
            assert_eq!(cfg.compat, c);
            for st in c.settings() {
                assert!(!st.because.is_empty(), "{} {} has no reason", c.name(), st.key);
            }
        }
    }

    #[test]
    fn bundle_keys_and_later_overrides() {
        let cfg = ConfigBuilder::from_preset("small").unwrap().set("compat", "disksim").unwrap().build().unwrap();
        assert_eq!((cfg.scheduler.order.as_str(), cfg.scheduler.unit, cfg.scheduler.multiplane), ("fcfs", ServiceUnit::Chip, false));
        let cfg = ConfigBuilder::from_preset("small").unwrap().set_all(["compat=ssdsim", "scheduler.unit=die"]).unwrap().build().unwrap();
        assert_eq!((cfg.host.write_ack, cfg.scheduler.unit), (WriteAck::Transfer, ServiceUnit::Die));
    }

    #[test]
    fn mqsims_cache_write_backs_are_host_writes() {
        // Both MQSim TSUs queue CACHE-source writes with the user's (UserWriteTRQueue);
        // Detour's default and the other bundles flush in the background.
        let class =
            |c: &str| ConfigBuilder::from_preset("small").unwrap().set("compat", c).unwrap().build().unwrap().write_buffer.flush_class;
        assert_eq!(class("mqsim"), FlushClass::Host);
        for c in ["none", "ssdsim", "disksim"] {
            assert_eq!(class(c), FlushClass::Background, "{c}");
        }
    }

    #[test]
    fn ssdsims_rules_whatever_the_file_says_are_its_bundles_and_none_undoes_them() {
        use crate::config::{GcStart, GcTrigger, GcWritePoint, PlaceReads, ReadMerge};
        let build = |kv: &[&str]| ConfigBuilder::from_preset("small").unwrap().set_all(kv.iter().copied()).unwrap().build().unwrap();
        let rules = |c: &crate::config::Config| {
            let f = &c.ftl;
            (f.precondition.place_reads, f.gc_trigger, f.gc_start, f.gc_write_point, f.read_merge, f.pending_reads_from_flash)
        };
        let ssdsim = build(&["compat=ssdsim"]);
        let want = (PlaceReads::BeforeRun, GcTrigger::FreePages, GcStart::HostWrites, GcWritePoint::Host, ReadMerge::Queued, true);
        assert_eq!(rules(&ssdsim), want);
        // make_level_page's pairing depends on the file's allocation, two-plane
        // bit and greed MPW: `detour import ssdsim` sets it, not the bundle.
        assert_eq!(ssdsim.scheduler.plane_pairing, crate::config::PlanePairing::Any);
        let default = build(&[]);
        assert_eq!(rules(&build(&["compat=ssdsim", "compat=none"])), rules(&default));
        assert_ne!(rules(&default), want);
    }

    #[test]
    fn mqsims_bundle_draws_the_preconditioned_pages_as_mqsim() {
        use crate::config::PreconditionDraw;
        let draw = |kv: &[&str]| {
            ConfigBuilder::from_preset("small").unwrap().set_all(kv.iter().copied()).unwrap().build().unwrap().ftl.precondition.draw
        };
        assert_eq!(draw(&["compat=mqsim"]), PreconditionDraw::Mqsim);
        assert_eq!(draw(&[]), PreconditionDraw::Pages);
        assert_eq!(draw(&["compat=mqsim", "compat=none"]), PreconditionDraw::Pages);
    }

    #[test]
    fn unknown_peer_is_named() {
        let e = ConfigBuilder::new().set("compat", "flashsim").unwrap_err().to_string();
        assert!(e.contains("flashsim") && e.contains("mqsim"), "{e}");
    }
}
