//! The DRAM write buffer's bookkeeping: which logical pages it holds, with
//! which data, in which flush order, and which of them are being flushed.
//! It plans nothing and knows no time; `flush.rs` drives it.
//!
//! A page is `Dirty` (waiting to be flushed, in the flush list) or
//! `Flushing` (its flash write is in flight; still read from DRAM). A host
//! write of a flushing page makes it dirty again once its flush ends, so
//! the newer data is flushed too and never lost. A page evicted to make
//! room (`evict`) gives up its slot at once though it stays readable until
//! its flush ends (SSDSim's `insert2buffer`, MQSim's `Evict_one_slot_lru`).

use super::page_list::PageList;
use crate::config::FlushPolicy;
use crate::ftl::Chunked;
use crate::types::{Lpn, Token};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Dirty,
    /// In flight; `released`: evicted, holding no slot (never with
    /// `rewritten`: new data takes a slot again).
    Flushing {
        rewritten: bool,
        released: bool,
    },
}

/// A flush in flight that holds its slot, not rewritten.
const FLUSHING: State = State::Flushing { rewritten: false, released: false };
/// A flush in flight rewritten meanwhile: it holds a slot for the new data.
const REWRITTEN: State = State::Flushing { rewritten: true, released: false };

pub struct WriteBuffer {
    cap: u32,
    policy: FlushPolicy,
    /// The buffered pages; the order is the flush list (dirty pages only),
    /// first to flush at the front.
    pages: PageList<State>,
    /// One bit per LPN: buffered. Most host pages are not, and 1 bit per
    /// page (not 32) keeps that answer in cache.
    present: Chunked<u64>,
    flushing: u32,
    /// Evicted pages in flight, holding no slot (`State::Flushing {
    /// released: true }`).
    released: u32,
    /// SSDSim's sector-granular buffer (`write_buffer.granularity =
    /// "sector"`); None: whole pages.
    sectors: Option<Box<Sectors>>,
}

/// The sectors SSDSim's buffer nodes hold (`insert2buffer`, flash.c): the
/// capacity and every count are in sectors, not pages.
struct Sectors {
    /// `max_buffer_sector`.
    cap: u32,
    /// `buffer_sector_count`: the sectors of every node; an evicted node's
    /// are free at once (`buffer_sector_count -= sub_req->size`).
    held: u32,
    /// LPN -> its node's `stored` mask (bit i: sector i of the page), for
    /// every page that has a node (dirty, or rewritten while in flight).
    stored: HashMap<Lpn, u32>,
    /// LPN -> the sectors its eviction writes back, while in flight.
    evicted: HashMap<Lpn, u32>,
}

impl WriteBuffer {
    pub fn new(capacity: u32, policy: FlushPolicy, logical_pages: u32) -> Self {
        WriteBuffer {
            cap: capacity,
            policy,
            pages: PageList::new(logical_pages),
            present: Chunked::new((logical_pages as u64).div_ceil(64), 0),
            flushing: 0,
            released: 0,
            sectors: None,
        }
    }

    /// Count the capacity in `cap` sectors and keep each page's written
    /// sectors (SSDSim's buffer; use `write_sectors`).
    pub fn count_sectors(&mut self, cap: u32) {
        self.sectors = Some(Box::new(Sectors { cap, held: 0, stored: HashMap::new(), evicted: HashMap::new() }));
    }

    /// The sectors the eviction of `lpn` in flight writes back (sector
    /// mode); None otherwise.
    pub fn evicted_sectors(&self, lpn: Lpn) -> Option<u32> {
        self.sectors.as_ref().and_then(|x| x.evicted.get(&lpn).copied())
    }

    /// Sectors held (sector mode; 0 otherwise).
    #[cfg(test)]
    fn sectors_held(&self) -> u32 {
        self.sectors.as_ref().map_or(0, |x| x.held)
    }

    /// Sector mode: put sectors `mask` of page `lpn` in, as `insert2buffer`
    /// does. A page with a node takes only the sectors it lacks (true); a
    /// page without one (never buffered, or evicted and still in flight:
    /// SSDSim deleted its node) a new node of `mask` (false). None when
    /// the sectors do not fit: evict (the least recently used node, which
    /// is never this page's, as it was just moved to the back) and retry.
    pub fn write_sectors(&mut self, lpn: Lpn, token: Token, mask: u32) -> Option<bool> {
        let slot = self.slot(lpn);
        let state = slot.map(|s| self.pages.tag(s));
        // a page whose node SSDSim deleted (never buffered, or evicted and
        // still in flight) starts a new node; any other adds to its own
        let fresh = matches!(state, None | Some(State::Flushing { released: true, .. }));
        // the node moves to the LRU head first, so a full buffer evicts
        // the node before it when it is the tail (insert2buffer's swap)
        if let (Some(s), Some(State::Dirty)) = (slot, state) {
            if self.policy == FlushPolicy::Lru {
                self.pages.move_to_back(s);
            }
        }
        let x = self.sectors.as_mut().expect("write_sectors without count_sectors");
        let old = if fresh { 0 } else { x.stored[&lpn] };
        let need = (mask & !old).count_ones();
        if x.held + need > x.cap {
            return None;
        }
        x.held += need;
        x.stored.insert(lpn, old | mask);
        match slot {
            None => {
                self.pages.insert(lpn, token, State::Dirty);
                self.mark(lpn, true);
            }
            Some(s) => {
                if fresh {
                    self.released -= 1;
                }
                self.pages.set_token(s, token);
                if let Some(State::Flushing { .. }) = state {
                    self.pages.set_tag(s, REWRITTEN);
                }
            }
        }
        Some(!fresh)
    }

    /// Pages that hold a slot (all buffered pages but evicted ones).
    #[inline]
    fn held(&self) -> u32 {
        self.used() - self.released
    }

    pub fn used(&self) -> u32 {
        self.pages.len()
    }
    pub fn flushing(&self) -> u32 {
        self.flushing
    }
    /// Pages waiting to be flushed.
    pub fn dirty(&self) -> u32 {
        self.used() - self.flushing
    }

    #[inline]
    fn has(&self, lpn: Lpn) -> bool {
        self.present.get(lpn >> 6) & (1 << (lpn & 63)) != 0
    }

    fn mark(&mut self, lpn: Lpn, on: bool) {
        let w = self.present.get(lpn >> 6);
        let bit = 1 << (lpn & 63);
        self.present.set(lpn >> 6, if on { w | bit } else { w & !bit });
    }

    fn slot(&self, lpn: Lpn) -> Option<u32> {
        if !self.has(lpn) {
            return None;
        }
        self.pages.slot(lpn)
    }

    /// The data the buffer holds for `lpn`, if any; a read counts as a use
    /// under LRU.
    pub fn read(&mut self, lpn: Lpn) -> Option<Token> {
        let s = self.slot(lpn)?;
        if self.policy == FlushPolicy::Lru && self.pages.tag(s) == State::Dirty {
            self.pages.move_to_back(s);
        }
        Some(self.pages.token(s))
    }

    /// Cache hints for the entries of `lpns` (a request read ahead), as the
    /// FTL's map gets: every host page is looked up here first.
    pub fn prefetch(&self, lpns: std::ops::Range<Lpn>) {
        if !lpns.is_empty() {
            self.present.prefetch(lpns.start >> 6);
        }
    }

    /// Whether `lpn` is buffered (no LRU touch).
    pub fn contains(&self, lpn: Lpn) -> bool {
        self.has(lpn)
    }

    /// Put `token` for `lpn` in the buffer. An already buffered page is
    /// overwritten in place (true, `false` for a new page); a new page
    /// needs a free slot (None when the buffer is full).
    pub fn write(&mut self, lpn: Lpn, token: Token) -> Option<bool> {
        if let Some(s) = self.slot(lpn) {
            if let State::Flushing { released: true, .. } = self.pages.tag(s) {
                // evicted: the peer's slot is gone, new data takes a new one
                if self.held() >= self.cap {
                    return None;
                }
                self.released -= 1;
                self.pages.set_token(s, token);
                self.pages.set_tag(s, REWRITTEN);
                return Some(false);
            }
            self.pages.set_token(s, token);
            match self.pages.tag(s) {
                State::Flushing { .. } => self.pages.set_tag(s, REWRITTEN),
                State::Dirty if self.policy == FlushPolicy::Lru => self.pages.move_to_back(s),
                State::Dirty => {}
            }
            return Some(true);
        }
        if self.held() >= self.cap {
            return None;
        }
        self.pages.insert(lpn, token, State::Dirty);
        self.mark(lpn, true);
        Some(false)
    }

    /// The data held for `lpn` (no LRU touch).
    pub fn token(&self, lpn: Lpn) -> Option<Token> {
        self.slot(lpn).map(|s| self.pages.token(s))
    }

    /// Take the next pages to flush, marking them in flight: the first in
    /// flush order and those after it that continue its LPNs, up to `max`
    /// (one flash write request, as the host would have sent them).
    pub fn take_run(&mut self, max: u32) -> Option<(Lpn, u32)> {
        let (start, _) = self.take_victim()?;
        let mut n = 1;
        while n < max && self.pages.front().is_some_and(|s| self.pages.lpn(s) == start.wrapping_add(n)) {
            self.take_victim();
            n += 1;
        }
        Some((start, n))
    }

    /// Mark buffered page `lpn` in flight now, out of flush order (MQSim
    /// writes a cold page back as it enters); false if it is not waiting
    /// to be flushed (absent, or already in flight).
    pub fn take(&mut self, lpn: Lpn) -> bool {
        let Some(s) = self.slot(lpn) else { return false };
        if self.pages.tag(s) != State::Dirty {
            return false;
        }
        self.start_flush(s);
        true
    }

    /// Evict the next page to flush to make room: in flight, its slot free
    /// at once. None if no page waits to be flushed.
    pub fn evict(&mut self) -> Option<Lpn> {
        let (lpn, _) = self.take_victim()?;
        let s = self.slot(lpn).expect("a page just taken");
        self.pages.set_tag(s, State::Flushing { rewritten: false, released: true });
        self.released += 1;
        if let Some(x) = self.sectors.as_mut() {
            // its node's sectors are free now and are what it writes back
            let m = x.stored.remove(&lpn).expect("a buffered page's sectors");
            x.held -= m.count_ones();
            x.evicted.insert(lpn, m);
        }
        Some(lpn)
    }

    /// Take the next page to flush, marking it in flight: (lpn, token).
    pub fn take_victim(&mut self) -> Option<(Lpn, Token)> {
        let s = self.pages.front()?;
        self.start_flush(s);
        Some((self.pages.lpn(s), self.pages.token(s)))
    }

    /// Dirty slot `s` leaves the flush list: its flush is in flight.
    fn start_flush(&mut self, s: u32) {
        self.pages.unlink(s);
        self.pages.set_tag(s, FLUSHING);
        self.flushing += 1;
    }

    /// The flush of `lpn` is programmed: free its slot, or, if the host
    /// wrote it meanwhile, queue it to be flushed again.
    pub fn flushed(&mut self, lpn: Lpn) {
        let Some(s) = self.slot(lpn) else { return };
        let State::Flushing { rewritten, released } = self.pages.tag(s) else { return };
        self.flushing -= 1;
        if released {
            self.released -= 1;
        }
        if let Some(x) = self.sectors.as_mut() {
            x.evicted.remove(&lpn);
        }
        if rewritten {
            self.pages.set_tag(s, State::Dirty);
            self.pages.push_back(s);
        } else {
            self.pages.release(s);
            self.mark(lpn, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(b: &mut WriteBuffer) -> Vec<Lpn> {
        std::iter::from_fn(|| b.take_victim().map(|(l, _)| l)).collect()
    }

    #[test]
    fn fifo_flushes_in_arrival_order_and_lru_by_last_use() {
        for (policy, want) in [(FlushPolicy::Fifo, vec![1, 2, 3]), (FlushPolicy::Lru, vec![2, 3, 1])] {
            let mut b = WriteBuffer::new(3, policy, 16);
            for l in 1..=3 {
                assert_eq!(b.write(l, l as u64 * 10), Some(false));
            }
            assert_eq!(b.read(1), Some(10));
            assert_eq!(b.write(4, 40), None, "full");
            assert_eq!(drain(&mut b), want, "{policy:?}");
        }
    }

    #[test]
    fn runs_follow_consecutive_pages_in_flush_order() {
        let mut b = WriteBuffer::new(16, FlushPolicy::Fifo, 64);
        for l in [4, 5, 6, 9, 10, 11, 12] {
            b.write(l, 1);
        }
        assert_eq!(b.take_run(8), Some((4, 3)));
        assert_eq!(b.take_run(2), Some((9, 2)));
        assert_eq!(b.take_run(8), Some((11, 2)));
        assert_eq!(b.take_run(8), None);
        assert_eq!(b.flushing(), 7);
    }

    #[test]
    fn a_page_taken_out_of_order_is_in_flight_and_leaves_the_flush_list() {
        let mut b = WriteBuffer::new(4, FlushPolicy::Fifo, 16);
        for l in 1..=3 {
            b.write(l, 1);
        }
        assert!(b.take(2));
        assert!(!b.take(2), "already in flight");
        assert!(!b.take(9), "not buffered");
        assert_eq!((b.flushing(), b.dirty()), (1, 2));
        assert_eq!(drain(&mut b), vec![1, 3]);
    }

    #[test]
    fn a_page_rewritten_while_flushing_is_flushed_again_with_the_new_data() {
        let mut b = WriteBuffer::new(2, FlushPolicy::Fifo, 16);
        b.write(5, 1);
        assert_eq!(b.take_victim(), Some((5, 1)));
        assert_eq!(b.write(5, 2), Some(true));
        assert_eq!(b.read(5), Some(2));
        b.flushed(5);
        assert_eq!((b.used(), b.dirty()), (1, 1));
        assert_eq!(b.take_victim(), Some((5, 2)));
        b.flushed(5);
        assert_eq!((b.used(), b.flushing(), b.contains(5)), (0, 0, false));
        assert_eq!(b.write(6, 3), Some(false), "the slot is free again");
    }

    #[test]
    fn an_evicted_page_gives_up_its_slot_at_once_and_takes_one_again_if_rewritten() {
        let mut b = WriteBuffer::new(2, FlushPolicy::Lru, 16);
        b.write(1, 1);
        b.write(2, 2);
        assert_eq!(b.write(3, 3), None, "full");
        assert_eq!(b.evict(), Some(1), "least recently used");
        assert_eq!(b.write(3, 3), Some(false), "the evicted page's slot is free before its flush ends");
        assert_eq!(b.read(1), Some(1), "still readable while in flight");
        assert_eq!(b.write(1, 4), None, "rewriting an evicted page needs a slot");
        assert_eq!(b.evict(), Some(2));
        assert_eq!(b.write(1, 4), Some(false));
        b.flushed(1);
        assert_eq!((b.used(), b.dirty(), b.held()), (3, 2, 2), "page 1 is dirty again with its new data");
        b.flushed(2);
        assert_eq!((b.used(), b.held(), b.contains(2)), (2, 2, false));
    }

    #[test]
    fn sector_mode_counts_sectors_and_never_evicts_the_page_being_written() {
        // SSDSim's example buffer: 256 sectors, 64 pages of 4. Counted in
        // pages, 64 half pages fill it; counted in sectors (2 each), 128.
        let mut pages = WriteBuffer::new(64, FlushPolicy::Lru, 256);
        for l in 0..64 {
            pages.write(l, 1);
        }
        assert_eq!(pages.write(64, 1), None, "full at 64 pages");
        let mut b = WriteBuffer::new(64, FlushPolicy::Lru, 256);
        b.count_sectors(256);
        for l in 0..128 {
            assert_eq!(b.write_sectors(l, 1, 0b0011), Some(false), "page {l}");
        }
        assert_eq!(b.sectors_held(), 256);
        // page 0 is the LRU tail; its 2 new sectors need room: it moves to
        // the head first, so page 1 is the one to go (insert2buffer's swap)
        assert_eq!(b.write_sectors(0, 2, 0b1100), None);
        assert_eq!(b.evict(), Some(1));
        assert_eq!((b.sectors_held(), b.evicted_sectors(1)), (254, Some(0b0011)));
        assert_eq!(b.write_sectors(0, 2, 0b1100), Some(true));
        assert_eq!(b.write_sectors(0, 3, 0b0110), Some(true), "sectors it holds take no room");
        assert_eq!(b.sectors_held(), 256);
        b.flushed(1);
        assert_eq!(b.evicted_sectors(1), None);
    }
}
