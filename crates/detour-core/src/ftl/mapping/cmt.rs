//! # Cached mapping table (DFTL)
//!
//! **What:** an LRU cache of whole translation pages (page_size / 4 map
//! entries each, `tvpn = lpn / entries_per_page`) and the global
//! translation directory (GTD: where each translation page's latest copy
//! is on flash). A lookup of a cached page moves it to the front; a miss
//! loads it (the simulator reads it from flash first) and, when full,
//! evicts the least recently used page, which is written back if a host
//! write dirtied it.
//!
//! **Why whole pages, not DFTL's single entries:** a miss reads a whole
//! translation page anyway; caching it whole is the common simpler model
//! (the hit ratio counts pages, so it is higher than an entry cache's of
//! the same bytes on sequential access, lower on scattered access), and
//! its write-back is one program with no read-modify-write.
//!
//! **A table that covers the map** (as many pages as the map has) starts
//! with every page loaded and writes none to flash: it is the DRAM map
//! (MQSim's `Ideal_Mapping_Table`), and its results are the DRAM map's.
//! A smaller one starts empty, with every translation page on flash
//! (written at setup, as MQSim's `prepare_mapping_table` does).

use super::{Access, MappingStats};
use crate::types::{Ppn, NO_PAGE};

const NIL: u32 = u32::MAX;
const CACHED: u8 = 1;
const DIRTY: u8 = 2;

pub struct Cmt {
    entries_per_page: u32,
    capacity: u32,
    len: u32,
    /// Where each translation page is on flash (NO_PAGE: not written).
    gtd: Vec<Ppn>,
    /// LRU links by translation page: `head` most recent, `tail` least.
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    flags: Vec<u8>,
    s: MappingStats,
}

impl Cmt {
    /// A table of `size_kib` KiB for `logical_pages` pages of `page_size` B.
    pub fn new(logical_pages: u32, page_size: u32, size_kib: u64) -> Cmt {
        let entries_per_page = (page_size / 4).max(1);
        let pages = logical_pages.div_ceil(entries_per_page);
        let capacity = (size_kib * 1024 / page_size as u64).clamp(1, u32::MAX as u64) as u32;
        let n = pages as usize;
        let mut c = Cmt {
            entries_per_page,
            capacity,
            len: 0,
            gtd: vec![NO_PAGE; n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            head: NIL,
            tail: NIL,
            flags: vec![0; n],
            s: MappingStats { cmt_pages: capacity as u64, translation_pages: pages as u64, ..Default::default() },
        };
        if c.covers() {
            (0..pages).for_each(|t| c.push_front(t));
        }
        c
    }

    /// The cache holds the whole map: nothing is ever read or written.
    pub fn covers(&self) -> bool {
        self.capacity as usize >= self.gtd.len()
    }

    /// The translation page holding `lpn`'s entry.
    #[inline]
    pub fn tvpn(&self, lpn: u32) -> u32 {
        lpn / self.entries_per_page
    }

    pub fn translation_pages(&self) -> u32 {
        self.gtd.len() as u32
    }

    /// Look translation page `tvpn` up for a host read or write (a write
    /// dirties it). A miss loads it as the most recent page.
    pub fn access(&mut self, tvpn: u32, write: bool) -> Access {
        self.s.lookups += 1;
        let t = tvpn as usize;
        let hit = self.flags[t] & CACHED != 0;
        let mut write_back = None;
        if hit {
            self.s.hits += 1;
            self.unlink(tvpn);
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

    /// Drop the least recently used page; Some(it) if it was dirty.
    fn evict(&mut self) -> Option<u32> {
        let victim = self.tail;
        self.unlink(victim);
        self.len -= 1;
        let f = std::mem::take(&mut self.flags[victim as usize]);
        (f & DIRTY != 0).then_some(victim)
    }

    fn unlink(&mut self, t: u32) {
        let (p, n) = (self.prev[t as usize], self.next[t as usize]);
        match p {
            NIL => self.head = n,
            p => self.next[p as usize] = n,
        }
        match n {
            NIL => self.tail = p,
            n => self.prev[n as usize] = p,
        }
    }

    fn push_front(&mut self, t: u32) {
        (self.prev[t as usize], self.next[t as usize]) = (NIL, self.head);
        match self.head {
            NIL => self.tail = t,
            h => self.prev[h as usize] = t,
        }
        self.head = t;
        self.flags[t as usize] |= CACHED;
    }

    /// Where translation page `tvpn` is on flash (NO_PAGE: nowhere yet).
    #[inline]
    pub fn location(&self, tvpn: u32) -> Ppn {
        self.gtd[tvpn as usize]
    }

    /// Point the directory at a new copy; the old one (returned) is stale.
    pub fn relocate(&mut self, tvpn: u32, ppn: Ppn) -> Ppn {
        std::mem::replace(&mut self.gtd[tvpn as usize], ppn)
    }

    /// GC moved a translation page: follow it if the directory still
    /// points at the copy moved (a write-back may have replaced it).
    pub fn moved(&mut self, tvpn: u32, from: Ppn, to: Ppn) {
        if let Some(g) = self.gtd.get_mut(tvpn as usize).filter(|g| **g == from) {
            *g = to;
            self.s.gc_moves += 1;
        }
    }

    pub fn count_read(&mut self) {
        self.s.translation_reads += 1;
    }

    pub fn count_write(&mut self) {
        self.s.translation_writes += 1;
    }

    pub fn stats(&self) -> MappingStats {
        let s = &self.s;
        let hit_ratio = if s.lookups > 0 { s.hits as f64 / s.lookups as f64 } else { 1.0 };
        MappingStats { hit_ratio, ..s.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recent_and_reports_dirty() {
        // 4 KiB pages: 1024 entries a page; 8 KiB of cache: 2 pages.
        let mut c = Cmt::new(10 * 1024, 4096, 8);
        assert!(!c.covers());
        assert!(!c.access(0, true).hit);
        assert!(!c.access(1, false).hit);
        assert!(c.access(0, false).hit); // 1 is now the least recent
        assert_eq!(c.access(2, false), Access { hit: false, write_back: None });
        assert_eq!(c.access(3, false), Access { hit: false, write_back: Some(0) });
        assert_eq!(c.access(0, false).write_back, None); // 2 was clean
        let s = c.stats();
        assert_eq!((s.lookups, s.hits), (6, 1));
    }

    #[test]
    fn covering_table_starts_loaded() {
        let mut c = Cmt::new(4 * 1024, 4096, 16);
        assert!(c.covers());
        assert!((0..4).all(|t| c.access(t, true).hit));
        assert_eq!(c.stats().hit_ratio, 1.0);
    }

    #[test]
    fn gc_move_follows_only_the_current_copy() {
        let mut c = Cmt::new(4096, 4096, 4);
        c.relocate(2, 100);
        c.moved(2, 99, 7);
        assert_eq!(c.location(2), 100);
        c.moved(2, 100, 7);
        assert_eq!((c.location(2), c.stats().gc_moves), (7, 1));
    }
}
