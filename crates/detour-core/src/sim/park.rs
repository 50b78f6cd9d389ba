//! Requests and flushes waiting for a free page, each woken by the erase
//! that can release it instead of being planned again after every erase.
//!
//! Why: under write saturation thousands of requests wait at once, and
//! planning every one of them again after each erase (one erase per few
//! milliseconds of simulated time, tens of thousands per second of run)
//! made the cost grow with the square of the backlog.
//!
//! How: while a scheme plans, the FTL notes every (plane, stream) that
//! refused it a page (`Ftl::refusals`). A stalled transaction waits in the
//! queue of each of those pairs (a min-heap by the order it first waited
//! in). A pair only gets room from an erase on its plane (free blocks grow
//! only by erases; a write point's open block only by taking a free one),
//! so after an erase on plane P only P's queues can hold a waiter that
//! would now get further, and only while the pair still has room: the
//! first waiter that stalls again on it ends that queue's turn. Waiters
//! are taken in the order they first waited, the order the single queue
//! this replaces retried them in, so the runs are the same, only without
//! the attempts that would have failed. A stall whose refusals are all
//! gone, or any stall under dynamic allocation (whose plane choice turns
//! a rotating counter on every attempt, and follows the load), waits in
//! the `any` queue, retried after every erase as before.

use super::txn::TxnKind;
use super::Simulation;
use crate::error::Result;
use crate::ftl::STREAMS;
use std::cmp::Reverse;
use crate::types::Lpn;
use std::collections::{BTreeMap, BinaryHeap};

/// One wait of one transaction in one queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Waiter {
    /// When the transaction first waited (stable across its waits).
    order: u64,
    /// This wait (a transaction waiting again gets a new id; queues keep
    /// stale entries until they reach the top).
    id: u64,
    txn: u32,
    /// The page of the transaction to plan from.
    from: u32,
}

type Queue = BinaryHeap<Reverse<Waiter>>;

/// The index that names the `any` queue.
const ANY: usize = usize::MAX;

/// The queues of waiting transactions.
#[derive(Default)]
pub(super) struct ParkLot {
    /// Per plane and stream (index plane * STREAMS + stream).
    by_pair: Vec<Queue>,
    /// Waits whose cause the refusals do not name: woken by every erase.
    any: Queue,
    /// Transactions waiting now.
    waiting: u32,
    next_order: u64,
    next_id: u64,
    /// Entries of this turn that waited again (and their queue), put back
    /// when it ends: a transaction is planned at most once per turn, as
    /// the single queue's one pass did.
    again: Vec<(usize, Waiter)>,
    /// The order of the waiter planned last in this turn: one the turn
    /// becomes able to move on only after passing it waits for the next.
    cursor: u64,
    /// Reads waiting to place a never-written page, by that page: a host
    /// write of it releases them too (they no longer need the page).
    by_lpn: BTreeMap<(Lpn, u64), Waiter>,
    pairs: Vec<(u32, u8)>,
}

/// A transaction's place in the lot, kept in its `Txn`.
#[derive(Clone, Debug, Default)]
pub(super) struct ParkState {
    /// The order it first waited in (0: never).
    pub order: u64,
    /// Its current wait's id (0: not waiting).
    pub id: u64,
    /// The groups of (plane, stream) pairs that refused it since it last
    /// got further: each a length, then `plane << 2 | stream` per pair.
    pub blockers: Vec<u32>,
    /// A read's never-written page it waits to place.
    pub lpn: Option<Lpn>,
}

impl ParkLot {
    pub(super) fn new(planes: u32) -> ParkLot {
        let n = planes as usize * STREAMS;
        ParkLot { by_pair: (0..n).map(|_| Queue::new()).collect(), next_order: 1, next_id: 1, ..ParkLot::default() }
    }

    pub(super) fn len(&self) -> usize {
        self.waiting as usize
    }

    /// Page `lpn` now holds data: reads waiting to place it may go on at
    /// the next erase, as the single queue retried every waiter then.
    #[inline]
    pub(super) fn placed(&mut self, lpn: Lpn) {
        if !self.by_lpn.is_empty() {
            self.release_lpn(lpn);
        }
    }

    #[cold]
    fn release_lpn(&mut self, lpn: Lpn) {
        while let Some((_, w)) = self.by_lpn.range((lpn, 0)..=(lpn, u64::MAX)).next().map(|(k, w)| (*k, *w)) {
            self.by_lpn.remove(&(lpn, w.id));
            self.any.push(Reverse(w));
        }
    }
}

impl Simulation {
    /// Transaction `t`, planned from page `start`, stalled at page `from`
    /// (a read: placing never-written page `unplaced`): queue it on the
    /// pairs that refused it. True when this is a new wait (its first, or
    /// after it got further), which the `stalls` counter counts; a retry
    /// that planned nothing goes on with the same wait.
    pub(super) fn park(&mut self, t: u32, start: u32, from: u32, unplaced: Option<Lpn>) -> bool {
        let lot = &mut self.lot;
        let st = &mut self.txns.get_mut(t).park;
        let new_wait = st.order == 0 || from != start;
        if st.order == 0 {
            st.order = lot.next_order;
            lot.next_order += 1;
        }
        let w = Waiter { order: st.order, id: lot.next_id, txn: t, from };
        st.id = w.id;
        lot.next_id += 1;
        lot.waiting += 1;
        lot.pairs.clear();
        if !self.ftl.dynamic() {
            self.ftl.refusals(&mut lot.pairs);
        }
        // Only pairs still without room block it (one refused for an
        // earlier page may have been passed over for another).
        let ftl = &self.ftl;
        lot.pairs.retain(|&(p, s)| !ftl.can_alloc_stream(p, s));
        if let Some(lpn) = unplaced {
            lot.by_lpn.insert((lpn, w.id), w);
        }
        let st = &mut self.txns.get_mut(t).park;
        st.lpn = unplaced;
        let blockers = &mut st.blockers;
        if new_wait || lot.pairs.is_empty() {
            blockers.clear();
        }
        if lot.pairs.is_empty() {
            // No refusal names the cause: wait for any erase.
            lot.any.push(Reverse(w));
        } else {
            blockers.push(lot.pairs.len() as u32);
            blockers.extend(lot.pairs.iter().map(|&(p, s)| p << 2 | s as u32));
        }
        for &(p, s) in &lot.pairs {
            lot.by_pair[p as usize * STREAMS + s as usize].push(Reverse(w));
        }
        new_wait
    }

    /// Waiter `w`, passed over, waits on the pairs of its blockers `g`
    /// under a new id (so its other entries go stale, and none is copied
    /// into several queues again and again).
    fn wait_on(&mut self, w: Waiter, g: std::ops::Range<usize>) {
        let lot = &mut self.lot;
        let st = &mut self.txns.get_mut(w.txn).park;
        let w2 = Waiter { id: lot.next_id, ..w };
        lot.next_id += 1;
        st.id = w2.id;
        if let Some(lpn) = st.lpn {
            lot.by_lpn.remove(&(lpn, w.id));
            lot.by_lpn.insert((lpn, w2.id), w2);
        }
        for &x in &st.blockers[g] {
            lot.by_pair[(x >> 2) as usize * STREAMS + (x & 3) as usize].push(Reverse(w2));
        }
    }

    /// A group of pairs that refused `t` since it last got further and
    /// none of which has room yet: planned again now, it would stop at the
    /// same check (schemes check every target before they allocate), so it
    /// waits on. None when every group has a pair with room.
    fn still_blocked(&self, t: u32) -> Option<std::ops::Range<usize>> {
        let b = &self.txns.get(t).park.blockers;
        let mut i = 0;
        while i < b.len() {
            let g = i + 1..i + 1 + b[i] as usize;
            if !b[g.clone()].iter().any(|&x| self.ftl.can_alloc_stream(x >> 2, (x & 3) as u8)) {
                return Some(g);
            }
            i = g.end;
        }
        None
    }

    /// An erase on `plane` ended: plan again, in the order they first
    /// waited, the waiters that its free block can move on.
    pub(super) fn wake_parked(&mut self, plane: u32) -> Result<()> {
        if self.lot.waiting == 0 {
            return Ok(());
        }
        let turn = self.lot.next_id;
        let base = plane as usize * STREAMS;
        self.lot.cursor = 0;
        while let Some((q, w)) = self.next_woken(base, turn) {
            self.lot.cursor = w.order;
            // From `any`: its cause unknown, or a read whose page a write
            // placed (its blockers were for placing it): plan it again.
            if q == ANY {
                self.txns.get_mut(w.txn).park.blockers.clear();
            } else if let Some(g) = self.still_blocked(w.txn) {
                self.wait_on(w, g);
                continue;
            }
            self.lot.waiting -= 1;
            self.txns.get_mut(w.txn).park.id = 0;
            if let TxnKind::Flush { .. } = self.txns.get(w.txn).kind {
                self.plan_flush(w.txn, w.from)?;
            } else {
                self.plan_host(w.txn, w.from, false)?;
            }
        }
        let lot = &mut self.lot;
        for (q, w) in lot.again.drain(..) {
            lot.by_pair.get_mut(q).unwrap_or(&mut lot.any).push(Reverse(w));
        }
        Ok(())
    }

    /// The first (by order) waiter of this turn among `any` and the queues
    /// of the plane's pairs that have room now; None when there is none.
    fn next_woken(&mut self, base: usize, turn: u64) -> Option<(usize, Waiter)> {
        let mut best: Option<(usize, Waiter)> = None;
        for q in (base..base + STREAMS).chain([ANY]) {
            if q != ANY && !self.ftl.can_alloc_stream((q / STREAMS) as u32, (q % STREAMS) as u8) {
                continue;
            }
            let Some(w) = self.head(q, turn) else { continue };
            if best.is_none_or(|(_, b)| w.order < b.order) {
                best = Some((q, w));
            }
        }
        let (q, w) = best?;
        self.queue(q).pop();
        Some((q, w))
    }

    /// The live head of queue `q` (ANY: the `any` queue): stale entries are
    /// dropped, and entries that waited again in this turn set aside.
    fn head(&mut self, q: usize, turn: u64) -> Option<Waiter> {
        loop {
            let w = self.queue(q).peek()?.0;
            if self.txns.get(w.txn).park.id != w.id {
                self.queue(q).pop();
            } else if w.id >= turn || w.order < self.lot.cursor {
                self.queue(q).pop();
                self.lot.again.push((q, w));
            } else {
                return Some(w);
            }
        }
    }

    fn queue(&mut self, q: usize) -> &mut Queue {
        let lot = &mut self.lot;
        lot.by_pair.get_mut(q).unwrap_or(&mut lot.any)
    }

    /// The event queue ran dry with transactions still waiting: plan each
    /// once more, in order (a safety net for a stall whose cause its
    /// refusals did not name; normally they stay stuck and the run reports them).
    pub(super) fn wake_all_parked(&mut self) -> Result<()> {
        let mut all: Vec<Waiter> = Vec::new();
        let lot = &mut self.lot;
        for q in lot.by_pair.iter_mut().chain([&mut lot.any]) {
            all.extend(q.drain().map(|r| r.0));
        }
        all.retain(|w| self.txns.get(w.txn).park.id == w.id);
        all.sort_unstable();
        all.dedup_by_key(|w| w.id);
        for w in all {
            self.lot.waiting -= 1;
            self.txns.get_mut(w.txn).park.id = 0;
            if let TxnKind::Flush { .. } = self.txns.get(w.txn).kind {
                self.plan_flush(w.txn, w.from)?;
            } else {
                self.plan_host(w.txn, w.from, false)?;
            }
        }
        Ok(())
    }
}
