//! The DRAM read cache (`[read_cache]`): pages read from the flash kept in
//! controller DRAM, so a later read of them is served without the flash.
//!
//! The rules are MQSim's data cache serving reads
//! (`src/ssd/Data_Cache_Manager_Flash_Advanced.cpp`, `src/ssd/Data_Cache_Flash.cpp`):
//! - a host read looks each page up (`process_new_user_request`): a page
//!   the cache holds is served from DRAM, the others go to the flash;
//!   a lookup moves the page to the front of the LRU list (`Get_slot`);
//! - a page read from the flash is put in when its read ends
//!   (`handle_transaction_serviced_signal_from_PHY`), at the front,
//!   evicting the least recently used page when the cache is full
//!   (`Insert_read_data`, `Evict_one_slot_lru`);
//! - `shared` is MQSim's `WRITE_READ_CACHE` with one cache for both: read
//!   pages take the room the write buffer's pages leave, and give it back
//!   (least recently used first) as buffered writes need it.
//!
//! The write buffer is looked up first: it holds the newest data. A host
//! write (or discard) drops the page from this cache when it changes the
//! page's data. A page written while its read was in flight is cached with
//! the newer data, as MQSim keeps the copy with the later timestamp.
//!
//! A hit costs what a write-buffer hit costs (`ftl.buffer_read_ns`, then the
//! host link if one is modelled): the same DRAM and the same path out.

use super::page_list::PageList;
use super::Simulation;
use crate::config::{ReadCacheConfig, ReadCacheMode, WriteBufferConfig};
use crate::metrics::ReadCacheSummary;
use crate::schemes::{Plan, Stall};
use crate::types::{Lpn, Token};
use std::ops::Range;

/// An LRU set of logical pages: least recently used at the front.
pub(super) struct ReadCache {
    /// Its own capacity (`separate`), or the shared DRAM's (`shared`).
    cap: u32,
    shared: bool,
    pages: PageList<()>,
    pub(super) s: ReadCacheSummary,
}

impl ReadCache {
    /// The read cache `[read_cache]` asks for, if any, over pages of
    /// `page_size` bytes (a shared one takes `[write_buffer]`'s capacity).
    pub(super) fn of(rc: &ReadCacheConfig, wb: &WriteBufferConfig, page_size: u32, logical_pages: u32) -> Option<Box<ReadCache>> {
        let (cap, shared) = match rc.mode {
            ReadCacheMode::Off => return None,
            ReadCacheMode::Separate => (rc.capacity(page_size), false),
            ReadCacheMode::Shared => (wb.capacity(page_size), true),
        };
        Some(Box::new(ReadCache::new(cap.min(u32::MAX as u64) as u32, shared, logical_pages)))
    }

    pub(super) fn new(cap: u32, shared: bool, logical_pages: u32) -> ReadCache {
        ReadCache {
            cap,
            shared,
            pages: PageList::new(logical_pages),
            s: ReadCacheSummary { capacity_pages: cap as u64, ..Default::default() },
        }
    }

    /// Pages it may hold when the write buffer holds `buffered` pages.
    fn room(&self, buffered: u32) -> u32 {
        if self.shared {
            self.cap.saturating_sub(buffered)
        } else {
            self.cap
        }
    }

    /// A host read of the page: its data if cached (made most recently
    /// used), counted against the hit ratio.
    pub(super) fn lookup(&mut self, lpn: Lpn, buffered: u32) -> Option<Token> {
        self.s.read_pages += 1;
        let token = self.get(lpn, buffered)?;
        self.s.read_hits += 1;
        Some(token)
    }

    /// The page's data if cached, made most recently used.
    pub(super) fn get(&mut self, lpn: Lpn, buffered: u32) -> Option<Token> {
        self.shrink(buffered);
        let s = self.pages.slot(lpn)?;
        self.pages.move_to_back(s);
        Some(self.pages.token(s))
    }

    /// Put a page read from the flash in (a cached page is left as it is).
    pub(super) fn insert(&mut self, lpn: Lpn, token: Token, buffered: u32) {
        let room = self.room(buffered);
        self.shrink(buffered);
        if room == 0 || self.pages.slot(lpn).is_some() {
            return;
        }
        if self.pages.len() == room {
            self.evict_lru();
        }
        self.pages.insert(lpn, token, ());
        self.s.inserts += 1;
    }

    /// The host changed the page's data: drop it.
    pub(super) fn forget(&mut self, lpn: Lpn) {
        if let Some(s) = self.pages.slot(lpn) {
            self.pages.remove(s);
            self.s.invalidations += 1;
        }
    }

    /// Give room back to buffered writes (`shared`).
    fn shrink(&mut self, buffered: u32) {
        let room = self.room(buffered);
        while self.pages.len() > room {
            self.evict_lru();
        }
    }

    fn evict_lru(&mut self) {
        if let Some(s) = self.pages.front() {
            self.pages.remove(s);
            self.s.evictions += 1;
        }
    }

    /// The summary, with the hit ratio.
    pub(super) fn summary(&self) -> ReadCacheSummary {
        let hit_ratio = if self.s.read_pages > 0 { self.s.read_hits as f64 / self.s.read_pages as f64 } else { 0.0 };
        ReadCacheSummary { hit_ratio, ..self.s.clone() }
    }
}

impl Simulation {
    /// Pages the write buffer holds now (what a shared cache must leave it).
    fn buffered_pages(&self) -> u32 {
        self.wbuf.as_ref().map_or(0, |b| b.pages())
    }

    /// Plan a host read with a read cache or discarded pages: each page from
    /// the write buffer, else "unwritten" if discarded (`trim.rs`), else
    /// from the cache, else (in runs) from the flash.
    pub(super) fn plan_read_cached(&mut self, lpns: Range<Lpn>, plan: &mut Plan) -> Result<(), Stall> {
        let mut start = lpns.start;
        for lpn in lpns.clone() {
            let in_buffer = self.buffered_any(lpn..lpn + 1);
            let hit = !in_buffer && (self.read_discarded(lpn) || self.cache_lookup(lpn));
            if !in_buffer && !hit {
                continue;
            }
            if start < lpn {
                self.with_ctx(|s, ctx| s.plan_read(start..lpn, ctx, plan)).map_err(|_| Stall { done: 0 })?;
            }
            if in_buffer {
                self.plan_read_around_buffer(lpn..lpn + 1, plan)?;
            } else {
                plan.buffered += 1;
            }
            start = lpn + 1;
        }
        if start < lpns.end {
            self.with_ctx(|s, ctx| s.plan_read(start..lpns.end, ctx, plan)).map_err(|_| Stall { done: 0 })?;
        }
        Ok(())
    }

    /// Look a page up (counted against the hit ratio); a hit is checked
    /// against the oracle in verify mode.
    fn cache_lookup(&mut self, lpn: Lpn) -> bool {
        let buffered = self.buffered_pages();
        let Some(c) = self.rcache.as_mut() else { return false };
        let Some(token) = c.lookup(lpn, buffered) else { return false };
        self.check_buffered(lpn, token);
        true
    }

    /// A host read ended: cache the pages it read from the flash.
    pub(super) fn cache_read(&mut self, lpns: Range<Lpn>) {
        let buffered = self.buffered_pages();
        for lpn in lpns {
            if self.buffered_any(lpn..lpn + 1) || self.is_discarded(lpn) {
                continue;
            }
            let token = self.oracle.as_ref().map_or(0, |o| o.host(lpn));
            if let Some(c) = self.rcache.as_mut() {
                c.insert(lpn, token, buffered);
            }
        }
    }

    /// The host changed (wrote or discarded) these pages' data.
    pub(super) fn cache_forget(&mut self, lpns: Range<Lpn>) {
        if let Some(c) = self.rcache.as_mut() {
            lpns.for_each(|l| c.forget(l));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Most recently used first.
    fn order(c: &ReadCache) -> Vec<Lpn> {
        c.pages.order().into_iter().rev().collect()
    }

    /// Worked by hand, capacity 3: insert 1 2 3 -> [3 2 1]; get 1 -> [1 3 2];
    /// insert 4 evicts 2 -> [4 1 3]; get 2 misses; insert 3 (cached) leaves
    /// the order; get 3 -> [3 4 1]; forget 1 -> [3 4]; insert 5 -> [5 3 4];
    /// insert 6 evicts 4 -> [6 5 3].
    #[test]
    fn lru_order_follows_a_hand_worked_sequence() {
        let mut c = ReadCache::new(3, false, 16);
        for l in [1, 2, 3] {
            c.insert(l, l as Token * 10, 0);
        }
        assert_eq!(order(&c), [3, 2, 1]);
        assert_eq!(c.get(1, 0), Some(10));
        assert_eq!(order(&c), [1, 3, 2]);
        c.insert(4, 40, 0);
        assert_eq!(order(&c), [4, 1, 3]);
        assert_eq!(c.get(2, 0), None);
        c.insert(3, 99, 0);
        assert_eq!((order(&c), c.get(3, 0)), (vec![4, 1, 3], Some(30)));
        assert_eq!(order(&c), [3, 4, 1]);
        c.forget(1);
        assert_eq!(order(&c), [3, 4]);
        c.insert(5, 50, 0);
        c.insert(6, 60, 0);
        assert_eq!(order(&c), [6, 5, 3]);
        assert_eq!((c.s.inserts, c.s.evictions, c.s.invalidations), (6, 2, 1));
    }

    #[test]
    fn a_shared_cache_gives_room_back_to_buffered_writes() {
        let mut c = ReadCache::new(4, true, 16);
        for l in 0..4 {
            c.insert(l, 0, 0);
        }
        // Three pages buffered leave one: the most recently used stays.
        assert_eq!(c.get(9, 3), None);
        assert_eq!(order(&c), [3]);
        c.insert(7, 0, 4);
        assert_eq!(order(&c), Vec::<Lpn>::new());
    }
}
