//! # Cached mapping table (DFTL)
//!
//! **What:** `ftl.mapping = "cmt"`: an LRU cache of `ftl.cmt_size_kib` of
//! whole translation pages (page_size / 4 map entries each, `tvpn = lpn /
//! entries_per_page`). A lookup of a cached page moves it to the front; a
//! miss loads it (the simulator reads it from flash first, where the
//! directory in mod.rs says it is) and, when full, evicts the least
//! recently used page, which is written back if a host write dirtied it.
//!
//! **Why whole pages, not DFTL's single entries:** a miss reads a whole
//! translation page anyway; caching it whole is the common simpler model
//! (the hit ratio counts pages, so it is higher than an entry cache's of
//! the same bytes on sequential access, lower on scattered access), and
//! its write-back is one program with no read-modify-write.
//!
//! `ftl.cmt_granularity = "entry"` caches single entries instead, as
//! MQSim does (entry.rs).
//!
//! **A table that covers the map** (as many pages as the map has) starts
//! with every page loaded and writes none to flash: it is the DRAM map
//! (MQSim's `Ideal_Mapping_Table`), and its results are the DRAM map's.
//! A smaller one starts empty, with every translation page on flash
//! (written at setup, as MQSim's `prepare_mapping_table` does).

use super::{Access, Cache, Variant};
use crate::config::{CmtGranularity, FtlConfig};
use crate::device::Geometry;
use crate::ensure_config;
use crate::error::Result;
use crate::ftl::lru::{Link, Order};

pub(super) const ENTRY: Variant = Variant {
    name: "cmt",
    about: "a cached mapping table (DFTL) of ftl.cmt_size_kib, whole translation pages in LRU order, the rest on flash",
    check,
    build: |cfg, geo, pages| {
        Some(match cfg.cmt_granularity {
            CmtGranularity::Page => Box::new(Cmt::new(pages, capacity(cfg, geo.page_size))),
            // Entries are keyed by LPN: the table needs the logical page count.
            CmtGranularity::Entry => Box::new(super::entry::build(cfg, geo)),
        })
    },
};

/// The table holds at least one translation page (one KiB of entries with
/// `ftl.cmt_granularity = "entry"`).
fn check(cfg: &FtlConfig, geo: &Geometry) -> Result<()> {
    let page = match cfg.cmt_granularity {
        CmtGranularity::Page => (geo.page_size as u64).div_ceil(1024).max(1),
        CmtGranularity::Entry => 1,
    };
    let (v, lo, hi) = (cfg.cmt_size_kib, page, 1u64 << 30);
    ensure_config!(v >= lo && v <= hi, "ftl.cmt_size_kib", "{v} is out of range; valid: {lo}..={hi}");
    Ok(())
}

/// Translation pages (of `page_size` bytes) `ftl.cmt_size_kib` holds.
fn capacity(cfg: &FtlConfig, page_size: u32) -> u32 {
    (cfg.cmt_size_kib * 1024 / page_size as u64).clamp(1, u32::MAX as u64) as u32
}

const CACHED: u8 = 1;
const DIRTY: u8 = 2;

struct Cmt {
    capacity: u32,
    len: u32,
    /// LRU order of translation pages (ftl/lru.rs): front most recent.
    links: Vec<Link>,
    lru: Order,
    flags: Vec<u8>,
}

impl Cmt {
    /// A table of `capacity` pages for a map of `pages` translation pages.
    fn new(pages: u32, capacity: u32) -> Cmt {
        let n = pages as usize;
        let mut c = Cmt { capacity, len: 0, links: vec![Link::NONE; n], lru: Order::new(), flags: vec![0; n] };
        if c.covers() {
            (0..pages).for_each(|t| c.push_front(t));
        }
        c
    }

    /// Drop the least recently used page; Some(it) if it was dirty.
    fn evict(&mut self) -> Option<u32> {
        let victim = self.lru.back().expect("a full table holds a page");
        self.lru.unlink(&mut self.links, victim);
        self.len -= 1;
        let f = std::mem::take(&mut self.flags[victim as usize]);
        (f & DIRTY != 0).then_some(victim)
    }

    fn push_front(&mut self, t: u32) {
        self.lru.push_front(&mut self.links, t);
        self.flags[t as usize] |= CACHED;
    }
}

impl Cache for Cmt {
    fn access(&mut self, tvpn: u32, write: bool) -> Access {
        let t = tvpn as usize;
        let hit = self.flags[t] & CACHED != 0;
        let mut write_back = None;
        if hit {
            self.lru.unlink(&mut self.links, tvpn);
        } else {
            if self.len == self.capacity {
                write_back = self.evict();
            }
            self.len += 1;
        }
        self.push_front(tvpn);
        self.flags[t] |= CACHED | if write { DIRTY } else { 0 };
        Access { hit, write_back }
    }

    fn capacity(&self) -> u64 {
        self.capacity as u64
    }

    /// The cache holds the whole map: nothing is ever read or written.
    fn covers(&self) -> bool {
        self.capacity as usize >= self.flags.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recent_and_reports_dirty() {
        // Ten translation pages, two cached.
        let mut c = Cmt::new(10, 2);
        assert!(!c.covers());
        assert!(!c.access(0, true).hit);
        assert!(!c.access(1, false).hit);
        assert!(c.access(0, false).hit); // 1 is now the least recent
        assert_eq!(c.access(2, false), Access { hit: false, write_back: None });
        assert_eq!(c.access(3, false), Access { hit: false, write_back: Some(0) });
        assert_eq!(c.access(0, false).write_back, None); // 2 was clean
    }

    #[test]
    fn covering_table_starts_loaded() {
        let mut c = Cmt::new(4, 4);
        assert!(c.covers());
        assert!((0..4).all(|t| c.access(t, true).hit));
    }

    #[test]
    fn capacity_is_whole_pages_of_the_size_and_at_least_one_is_required() {
        let mut dev = crate::config::Config::preset("small").unwrap().device;
        dev.page_size = 4096;
        let geo = Geometry::from_config(&dev).unwrap();
        let mut cfg = FtlConfig { cmt_size_kib: 10, ..FtlConfig::default() };
        assert_eq!(capacity(&cfg, 4096), 2);
        assert!(check(&cfg, &geo).is_ok());
        cfg.cmt_size_kib = 3;
        let e = check(&cfg, &geo).unwrap_err().to_string();
        assert!(e.contains("ftl.cmt_size_kib") && e.contains("4..="), "{e}");
    }
}
