//! The DRAM write buffer's bookkeeping: which logical pages it holds, with
//! which data, in which flush order, and which of them are being flushed.
//! It plans nothing and knows no time; `flush.rs` drives it.
//!
//! A page is `Dirty` (waiting to be flushed, in the flush list) or
//! `Flushing` (its flash write is in flight; still read from DRAM). A host
//! write of a flushing page makes it dirty again once its flush ends, so
//! the newer data is flushed too and never lost.

use crate::config::FlushPolicy;
use crate::ftl::Chunked;
use crate::types::{Lpn, Token};

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Dirty,
    Flushing { rewritten: bool },
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    lpn: Lpn,
    token: Token,
    state: State,
    prev: u32,
    next: u32,
}

pub struct WriteBuffer {
    cap: u32,
    policy: FlushPolicy,
    /// LPN -> slot + 1 (0: not buffered); lazily mapped like the FTL's map.
    slot_of: Chunked<u32>,
    /// One bit per LPN: buffered. Most host pages are not, and 1 bit per
    /// page (not 32) keeps that answer in cache.
    present: Chunked<u64>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// The flush list (dirty pages only), first to flush at `head`.
    head: u32,
    tail: u32,
    used: u32,
    flushing: u32,
}

impl WriteBuffer {
    pub fn new(capacity: u32, policy: FlushPolicy, logical_pages: u32) -> Self {
        WriteBuffer {
            cap: capacity,
            policy,
            slot_of: Chunked::new(logical_pages as u64, 0),
            present: Chunked::new((logical_pages as u64).div_ceil(64), 0),
            slots: Vec::new(),
            free: Vec::new(),
            head: NONE,
            tail: NONE,
            used: 0,
            flushing: 0,
        }
    }

    pub fn used(&self) -> u32 {
        self.used
    }
    pub fn flushing(&self) -> u32 {
        self.flushing
    }
    /// Pages waiting to be flushed.
    pub fn dirty(&self) -> u32 {
        self.used - self.flushing
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
        match self.slot_of.get(lpn) {
            0 => None,
            s => Some(s - 1),
        }
    }

    /// The data the buffer holds for `lpn`, if any; a read counts as a use
    /// under LRU.
    pub fn read(&mut self, lpn: Lpn) -> Option<Token> {
        let s = self.slot(lpn)?;
        if self.policy == FlushPolicy::Lru && self.slots[s as usize].state == State::Dirty {
            self.unlink(s);
            self.push_back(s);
        }
        Some(self.slots[s as usize].token)
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
            let slot = &mut self.slots[s as usize];
            slot.token = token;
            match slot.state {
                State::Flushing { .. } => slot.state = State::Flushing { rewritten: true },
                State::Dirty if self.policy == FlushPolicy::Lru => {
                    self.unlink(s);
                    self.push_back(s);
                }
                State::Dirty => {}
            }
            return Some(true);
        }
        if self.used >= self.cap {
            return None;
        }
        let slot = Slot { lpn, token, state: State::Dirty, prev: NONE, next: NONE };
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = slot;
                s
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.slot_of.set(lpn, s + 1);
        self.mark(lpn, true);
        self.used += 1;
        self.push_back(s);
        Some(false)
    }

    /// The data held for `lpn` (no LRU touch).
    pub fn token(&self, lpn: Lpn) -> Option<Token> {
        self.slot(lpn).map(|s| self.slots[s as usize].token)
    }

    /// Take the next pages to flush, marking them in flight: the first in
    /// flush order and those after it that continue its LPNs, up to `max`
    /// (one flash write request, as the host would have sent them).
    pub fn take_run(&mut self, max: u32) -> Option<(Lpn, u32)> {
        let (start, _) = self.take_victim()?;
        let mut n = 1;
        while n < max && self.head != NONE && self.slots[self.head as usize].lpn == start.wrapping_add(n) {
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
        if self.slots[s as usize].state != State::Dirty {
            return false;
        }
        self.unlink(s);
        self.slots[s as usize].state = State::Flushing { rewritten: false };
        self.flushing += 1;
        true
    }

    pub fn capacity(&self) -> u32 {
        self.cap
    }

    /// Take the next page to flush, marking it in flight: (lpn, token).
    pub fn take_victim(&mut self) -> Option<(Lpn, Token)> {
        let s = (self.head != NONE).then_some(self.head)?;
        self.unlink(s);
        let slot = &mut self.slots[s as usize];
        slot.state = State::Flushing { rewritten: false };
        self.flushing += 1;
        Some((slot.lpn, slot.token))
    }

    /// The flush of `lpn` is programmed: free its slot, or, if the host
    /// wrote it meanwhile, queue it to be flushed again.
    pub fn flushed(&mut self, lpn: Lpn) {
        let Some(s) = self.slot(lpn) else { return };
        let State::Flushing { rewritten } = self.slots[s as usize].state else { return };
        self.flushing -= 1;
        if rewritten {
            self.slots[s as usize].state = State::Dirty;
            self.push_back(s);
        } else {
            self.slot_of.set(lpn, 0);
            self.mark(lpn, false);
            self.free.push(s);
            self.used -= 1;
        }
    }

    fn push_back(&mut self, s: u32) {
        self.slots[s as usize].prev = self.tail;
        self.slots[s as usize].next = NONE;
        if self.tail == NONE {
            self.head = s;
        } else {
            self.slots[self.tail as usize].next = s;
        }
        self.tail = s;
    }

    fn unlink(&mut self, s: u32) {
        let Slot { prev, next, .. } = self.slots[s as usize];
        if prev == NONE {
            self.head = next;
        } else {
            self.slots[prev as usize].next = next;
        }
        if next == NONE {
            self.tail = prev;
        } else {
            self.slots[next as usize].prev = prev;
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
}
