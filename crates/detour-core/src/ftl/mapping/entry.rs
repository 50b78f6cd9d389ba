//! # A cached mapping table of single entries (MQSim's CMT)
//!
//! **What:** `ftl.mapping = "cmt"` with `ftl.cmt_granularity = "entry"`
//! (set by `compat = "mqsim"`): an LRU cache of single LPN -> PPN entries,
//! keyed by LPN, as MQSim's `Cached_Mapping_Table`
//! (Address_Mapping_Unit_Page_Level.cpp). Each rule below is MQSim's:
//!
//! - **Sizes** (the `Address_Mapping_Unit_Page_Level` constructor): an
//!   entry takes `CMT_entry_size = ceil((2 log2(physical pages) + sectors
//!   per page) / 8)` bytes (an LPA, a PPA and a bit per 512-byte sector),
//!   so the table holds `ftl.cmt_size_kib x 1024 / CMT_entry_size` entries;
//!   on flash an entry needs no LPA (`GTD_entry_size = ceil((log2(physical
//!   pages) + sectors per page) / 8)`), so a translation page holds
//!   `page_size / GTD_entry_size` of them and LPN `l` is in translation
//!   page `l / that` (`get_MVPN`).
//! - **Lookup** (`query_cmt`, `Cached_Mapping_Table::Retrieve_ppa`): a hit
//!   moves the entry to the front; a write makes it dirty
//!   (`Update_mapping_info`).
//! - **Miss** (`request_mapping_entry`): if the table is full the least
//!   recently used entry is evicted (`Evict_one_slot`), and the entry's
//!   translation page is read from flash
//!   (`generate_flash_read_request_for_mapping_data`); only the missed
//!   entry enters the table when the read ends
//!   (`handle_transaction_serviced_signal_from_PHY` inserts the LPAs
//!   waiting in `ArrivingMappingEntries`, not the page's other entries).
//!   A miss whose translation page is still being written back reads
//!   nothing (`DepartingMappingEntries`; the simulator's
//!   `Ftl::translation_read` finds its new copy not yet programmed).
//! - **Dirty eviction** (`generate_flash_writeback_request_for_mapping_data`):
//!   every dirty entry of the evicted entry's translation page becomes
//!   clean, and the page is read (the unchanged entries, to merge) and then
//!   programmed to a new place; a clean eviction costs nothing.
//!
//! A table that holds every logical page is the DRAM map, as a covering
//! page-granular table is (mod.rs): MQSim would still read each entry once.
//! The slots are allocated as entries arrive, so a large table of a large
//! device costs only what it holds.

use super::{Access, Cache};
use crate::config::FtlConfig;
use crate::device::Geometry;
use crate::ftl::lru::{Link, Order};
use std::collections::HashMap;

/// MQSim's `SECTOR_SIZE_IN_BYTE` (SSD_Defs.h).
const SECTOR: u32 = 512;

/// (CMT entry bytes, translation entries per page) for this device, by
/// MQSim's formulas (see the module doc).
pub(super) fn sizes(geo: &Geometry) -> (u64, u32) {
    // The device's own chips: spare chips (HotR's) are not MQSim's.
    let physical = geo.host_pages() as f64;
    let (bits, sectors) = (physical.log2(), (geo.page_size / SECTOR).max(1) as f64);
    let cmt_entry = ((2.0 * bits + sectors) / 8.0).ceil().max(1.0) as u64;
    let gtd_entry = ((bits + sectors) / 8.0).ceil().max(1.0) as u32;
    (cmt_entry, (geo.page_size / gtd_entry).max(1))
}

/// The table for `cfg` over the logical pages of `geo`.
pub(super) fn build(cfg: &FtlConfig, geo: &Geometry) -> EntryCmt {
    let (entry, per_page) = sizes(geo);
    let capacity = (cfg.cmt_size_kib * 1024 / entry).clamp(1, u32::MAX as u64) as u32;
    EntryCmt::new(capacity, per_page, geo.logical_pages)
}

pub(super) struct EntryCmt {
    capacity: u32,
    /// Entries per translation page: an entry's page is `lpn / per_page`.
    per_page: u32,
    covers: bool,
    /// LPN -> slot; a slot's LPN, LRU links (front most recent) and dirty bit.
    slot: HashMap<u32, u32>,
    lpn: Vec<u32>,
    links: Vec<Link>,
    lru: Order,
    dirty: Vec<bool>,
}

impl EntryCmt {
    fn new(capacity: u32, per_page: u32, logical: u32) -> EntryCmt {
        let covers = capacity >= logical;
        EntryCmt {
            capacity,
            per_page,
            covers,
            slot: HashMap::new(),
            lpn: Vec::new(),
            links: Vec::new(),
            lru: Order::new(),
            dirty: Vec::new(),
        }
    }

    /// Evict the least recently used entry, returning its slot and, if it
    /// was dirty, its translation page, whose dirty entries all become
    /// clean: one write-back carries them all.
    fn evict(&mut self) -> (u32, Option<u32>) {
        let s = self.lru.back().expect("a full table holds an entry");
        self.lru.unlink(&mut self.links, s);
        self.slot.remove(&self.lpn[s as usize]);
        if !std::mem::take(&mut self.dirty[s as usize]) {
            return (s, None);
        }
        let tvpn = self.lpn[s as usize] / self.per_page;
        let first = tvpn as u64 * self.per_page as u64;
        for l in first..(first + self.per_page as u64).min(u32::MAX as u64) {
            if let Some(&o) = self.slot.get(&(l as u32)) {
                self.dirty[o as usize] = false;
            }
        }
        (s, Some(tvpn))
    }

    /// Entries held now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.slot.len()
    }
}

impl Cache for EntryCmt {
    /// `key` is an LPN; the write-back named is a translation page.
    fn access(&mut self, lpn: u32, write: bool) -> Access {
        if self.covers {
            return Access { hit: true, write_back: None };
        }
        if let Some(&s) = self.slot.get(&lpn) {
            self.lru.move_to_front(&mut self.links, s);
            self.dirty[s as usize] |= write;
            return Access { hit: true, write_back: None };
        }
        let (s, write_back) = if self.slot.len() as u32 >= self.capacity {
            self.evict()
        } else {
            self.lpn.push(lpn);
            self.links.push(Link::NONE);
            self.dirty.push(false);
            ((self.lpn.len() - 1) as u32, None)
        };
        (self.lpn[s as usize], self.dirty[s as usize]) = (lpn, write);
        self.slot.insert(lpn, s);
        self.lru.push_front(&mut self.links, s);
        Access { hit: false, write_back }
    }

    fn capacity(&self) -> u64 {
        self.capacity as u64
    }

    fn covers(&self) -> bool {
        self.covers
    }

    fn entries_per_page(&self) -> Option<u32> {
        Some(self.per_page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_mqsims_for_its_example_device() {
        // MQSim's ssdconfig.xml: 8 x 4 x 2 x 2 planes of 2048 x 256 pages of
        // 8 KiB = 2^26 physical pages, 16 sectors a page. CMT entry:
        // ceil((2 x 26 + 16) / 8) = ceil(8.5) = 9 bytes; GTD entry:
        // ceil((26 + 16) / 8) = ceil(5.25) = 6 bytes, so 8192 / 6 = 1365 a page.
        let mut cfg = crate::config::Config::default();
        let d = &mut cfg.device;
        (d.channels, d.chips_per_channel, d.dies_per_chip, d.planes_per_die) = (8, 4, 2, 2);
        (d.blocks_per_plane, d.pages_per_block, d.page_size) = (2048, 256, 8192);
        let geo = Geometry::from_config(&cfg.device).unwrap();
        assert_eq!(sizes(&geo), (9, 1365));
        // 2 MiB (MQSim's CMT_Capacity = 2097152): 2097152 / 9 = 233,016 entries.
        cfg.ftl.cmt_size_kib = 2048;
        assert_eq!(build(&cfg.ftl, &geo).capacity(), 233_016);
    }

    #[test]
    fn entries_not_pages_are_cached_and_a_dirty_eviction_cleans_its_page() {
        // Three entries, ten a translation page.
        let mut c = EntryCmt::new(3, 10, 1000);
        assert!(!c.covers());
        assert_eq!(c.access(1, true), Access { hit: false, write_back: None });
        // Same translation page, another entry: a miss (MQSim inserts only
        // the entry asked for).
        assert!(!c.access(2, true).hit);
        assert!(!c.access(25, false).hit);
        assert!(c.access(1, false).hit); // LRU now 2, 25, 1 (least first)
        assert_eq!(c.len(), 3);
        // Evicting dirty 2 writes page 0 back and cleans entry 1 with it.
        assert_eq!(c.access(30, false), Access { hit: false, write_back: Some(0) });
        // 25 was clean: nothing written.
        assert_eq!(c.access(40, false), Access { hit: false, write_back: None });
        // 1 is clean now, though a write dirtied it before page 0's write-back.
        assert_eq!(c.access(50, false), Access { hit: false, write_back: None });
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn a_table_that_holds_every_page_is_the_dram_map() {
        let mut c = EntryCmt::new(100, 10, 100);
        assert!(c.covers());
        assert!(c.access(7, true).hit);
    }
}
