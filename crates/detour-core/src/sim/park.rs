//! Requests and flushes waiting for a free page, each woken by the erase
//! that can release it instead of being planned again after every erase.
//!
//! Why: under write saturation thousands of requests wait at once, and
//! planning every one of them again after each erase (one erase per few
//! milliseconds of simulated time, tens of thousands per second of run)
//! made the cost grow with the square of the backlog.
//!
//! How: while a scheme plans, the FTL notes every (plane, stream) that
//! refused it a page (`Ftl::refusals`). A stalled transaction keeps the
//! groups of pairs that refused it since it last got further (its
//! blockers); planned again, it would stop at the first group none of
//! whose pairs has room (schemes check every target before they allocate),
//! so it can get further only when every group has a pair with room.
//! Waiters with the same blockers share a bucket (a min-heap by the order
//! they first waited in), and a bucket is looked at, never its waiters,
//! until it is open: a write needing room on two plane groups at once
//! (mirror and data, data and parity) stays put while either is full,
//! where moving it to the other group's queue at each erase cost a push
//! per waiter per erase. A pair only gets room from an erase on its plane
//! (free blocks grow only by erases; a write point's open block only by
//! taking a free one), and room only shrinks between erases, so after an
//! erase on plane P only buckets naming a pair of P can have opened.
//! Waiters are taken in the order they first waited, the order the single
//! queue this replaces retried them in, while their bucket stays open: the
//! runs are the same, only without the attempts that would have failed. A
//! stall whose refusals are all gone, or any stall under dynamic
//! allocation (whose plane choice turns a rotating counter on every
//! attempt, and follows the load), waits in the `any` queue, retried after
//! every erase as before.

use super::txn::TxnKind;
use super::Simulation;
use crate::error::Result;
use crate::types::Lpn;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

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
const ANY: u32 = u32::MAX;

/// A (plane, stream) pair as one word: `plane << STREAM_BITS | stream`.
const STREAM_BITS: u32 = 3;
const _: () = assert!(crate::ftl::STREAMS <= 1 << STREAM_BITS);

fn pair_word(plane: u32, stream: u8) -> u32 {
    plane << STREAM_BITS | stream as u32
}

fn pair_of(word: u32) -> (u32, u8) {
    (word >> STREAM_BITS, (word & ((1 << STREAM_BITS) - 1)) as u8)
}

/// The waiters whose blockers are `sig` (each group a length, then
/// `pair_word(plane, stream)` per pair, as in `ParkState::blockers`).
struct Bucket {
    sig: Box<[u32]>,
    queue: Queue,
}

/// The queues of waiting transactions.
#[derive(Default)]
pub(super) struct ParkLot {
    buckets: Vec<Bucket>,
    /// Bucket by blockers: a bucket lives as long as the run (there are as
    /// many as the scheme's distinct refusal sets, not as waits).
    index: HashMap<Box<[u32]>, u32>,
    /// Per plane, the buckets naming one of its pairs.
    by_plane: Vec<Vec<u32>>,
    /// Waits whose cause the refusals do not name: woken by every erase.
    any: Queue,
    /// Transactions waiting now.
    waiting: u32,
    next_order: u64,
    next_id: u64,
    /// Entries of this turn that waited again (and their queue), put back
    /// when it ends: a transaction is planned at most once per turn, as
    /// the single queue's one pass did.
    again: Vec<(u32, Waiter)>,
    /// The order of the waiter planned last in this turn: one the turn
    /// becomes able to move on only after passing it waits for the next.
    cursor: u64,
    /// Reads waiting to place a never-written page, by that page: a host
    /// write of it releases them too (they no longer need the page).
    by_lpn: BTreeMap<(Lpn, u64), Waiter>,
    pairs: Vec<(u32, u8)>,
    /// The buckets of this turn still open (kept between turns for its
    /// capacity).
    open: Vec<u32>,
    /// Waiters taken off a queue: planned, dropped as stale or set aside.
    /// Bounded by the waits, not by waits times erases (tests check it).
    pub visits: u64,
}

/// A transaction's place in the lot, kept in its `Txn`.
#[derive(Clone, Debug, Default)]
pub(super) struct ParkState {
    /// The order it first waited in (0: never).
    pub order: u64,
    /// Its current wait's id (0: not waiting).
    pub id: u64,
    /// The groups of (plane, stream) pairs that refused it since it last
    /// got further: each a length, then `pair_word(plane, stream)` per pair.
    pub blockers: Vec<u32>,
    /// A read's never-written page it waits to place.
    pub lpn: Option<Lpn>,
}

impl ParkLot {
    pub(super) fn new(planes: u32) -> ParkLot {
        ParkLot { by_plane: vec![Vec::new(); planes as usize], next_order: 1, next_id: 1, ..ParkLot::default() }
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

    /// The entry pushed to `any` shares the wait's id with the one in its
    /// bucket, and a wait keeps its id until it ends, so the release holds
    /// (when waiters were moved between plane queues under new ids, a read
    /// moved after its release lost it, and waited for room it no longer
    /// needed).
    #[cold]
    fn release_lpn(&mut self, lpn: Lpn) {
        while let Some((_, w)) = self.by_lpn.range((lpn, 0)..=(lpn, u64::MAX)).next().map(|(k, w)| (*k, *w)) {
            self.by_lpn.remove(&(lpn, w.id));
            self.any.push(Reverse(w));
        }
    }

    /// The bucket of waiters blocked by `sig`, made on first use.
    fn bucket(&mut self, sig: &[u32]) -> u32 {
        if let Some(&b) = self.index.get(sig) {
            return b;
        }
        let b = self.buckets.len() as u32;
        let key: Box<[u32]> = sig.into();
        let mut planes: Vec<u32> = groups(sig).flatten().map(|&x| pair_of(x).0).collect();
        planes.sort_unstable();
        planes.dedup();
        for p in planes {
            if let Some(v) = self.by_plane.get_mut(p as usize) {
                v.push(b);
            }
        }
        self.buckets.push(Bucket { sig: key.clone(), queue: Queue::new() });
        self.index.insert(key, b);
        b
    }

    fn queue(&mut self, q: u32) -> &mut Queue {
        match self.buckets.get_mut(q as usize) {
            Some(b) => &mut b.queue,
            None => &mut self.any,
        }
    }
}

/// The groups of a blockers list.
fn groups(sig: &[u32]) -> impl Iterator<Item = &[u32]> {
    let mut rest = sig;
    std::iter::from_fn(move || {
        let (&n, tail) = rest.split_first()?;
        let (g, r) = tail.split_at((n as usize).min(tail.len()));
        rest = r;
        Some(g)
    })
}

impl Simulation {
    /// Transaction `t`, planned from page `start`, stalled at page `from`
    /// (a read: placing never-written page `unplaced`): queue it in the
    /// bucket of the pairs that refused it. True when this is a new wait
    /// (its first, or after it got further), which the `stalls` counter
    /// counts; a retry that planned nothing goes on with the same wait.
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
            return new_wait;
        }
        let at = blockers.len();
        blockers.push(lot.pairs.len() as u32);
        blockers.extend(lot.pairs.iter().map(|&(p, s)| pair_word(p, s)));
        // A group it already had adds nothing (and would split buckets).
        if groups(&blockers[..at]).any(|g| g == &blockers[at + 1..]) {
            blockers.truncate(at);
        }
        let b = lot.bucket(blockers);
        lot.buckets[b as usize].queue.push(Reverse(w));
        new_wait
    }

    /// Every group of `sig` has a pair with room: a waiter blocked by it,
    /// planned again now, could get further.
    fn is_open(&self, sig: &[u32]) -> bool {
        groups(sig).all(|g| {
            g.iter().any(|&x| {
                let (plane, stream) = pair_of(x);
                self.ftl.can_alloc_stream(plane, stream)
            })
        })
    }

    /// An erase on `plane` ended: plan again, in the order they first
    /// waited, the waiters that its free block can move on.
    pub(super) fn wake_parked(&mut self, plane: u32) -> Result<()> {
        if self.lot.waiting == 0 {
            return Ok(());
        }
        let mut open = std::mem::take(&mut self.lot.open);
        open.clear();
        if let Some(bs) = self.lot.by_plane.get(plane as usize) {
            for &b in bs {
                let bucket = &self.lot.buckets[b as usize];
                if !bucket.queue.is_empty() && self.is_open(&bucket.sig) {
                    open.push(b);
                }
            }
        }
        if open.is_empty() && self.lot.any.is_empty() {
            self.lot.open = open;
            return Ok(());
        }
        let turn = self.lot.next_id;
        self.lot.cursor = 0;
        while let Some((q, w)) = self.next_woken(&mut open, turn) {
            self.lot.cursor = w.order;
            // From `any`: its cause unknown, or a read whose page a write
            // placed (its blockers were for placing it): plan it again.
            if q == ANY {
                self.txns.get_mut(w.txn).park.blockers.clear();
            }
            self.resume(w)?;
        }
        self.lot.open = open;
        let ParkLot { again, buckets, any, .. } = &mut self.lot;
        for (q, w) in again.drain(..) {
            buckets.get_mut(q as usize).map_or(&mut *any, |b| &mut b.queue).push(Reverse(w));
        }
        Ok(())
    }

    /// The first (by order) waiter of this turn among `any` and the heads
    /// of the buckets still open; None when there is none. Buckets that
    /// closed (an earlier waiter took the room) or emptied leave `open`.
    fn next_woken(&mut self, open: &mut Vec<u32>, turn: u64) -> Option<(u32, Waiter)> {
        let mut best: Option<(u32, Waiter)> = None;
        let mut i = 0;
        while i < open.len() {
            let b = open[i];
            let head = if self.is_open(&self.lot.buckets[b as usize].sig) { self.head(b, turn) } else { None };
            match head {
                None => {
                    open.swap_remove(i);
                    continue;
                }
                Some(w) if best.is_none_or(|(_, x)| w.order < x.order) => best = Some((b, w)),
                Some(_) => {}
            }
            i += 1;
        }
        // On a tie (a read released to `any` is also in its bucket) the
        // bucket wins, as the plane queues did.
        if let Some(w) = self.head(ANY, turn) {
            if best.is_none_or(|(_, x)| w.order < x.order) {
                best = Some((ANY, w));
            }
        }
        let (q, w) = best?;
        self.lot.queue(q).pop();
        self.lot.visits += 1;
        Some((q, w))
    }

    /// The live head of queue `q` (ANY: the `any` queue): stale entries are
    /// dropped, and entries that waited again in this turn set aside.
    fn head(&mut self, q: u32, turn: u64) -> Option<Waiter> {
        loop {
            let w = self.lot.queue(q).peek()?.0;
            if self.txns.get(w.txn).park.id != w.id {
                self.lot.queue(q).pop();
                self.lot.visits += 1;
            } else if w.id >= turn || w.order < self.lot.cursor {
                self.lot.queue(q).pop();
                self.lot.visits += 1;
                self.lot.again.push((q, w));
            } else {
                return Some(w);
            }
        }
    }

    /// Take `w` out of the lot and plan its transaction again from where
    /// it stopped.
    fn resume(&mut self, w: Waiter) -> Result<()> {
        self.lot.waiting -= 1;
        self.txns.get_mut(w.txn).park.id = 0;
        if let TxnKind::Flush { .. } = self.txns.get(w.txn).kind {
            self.plan_flush(w.txn, w.from)
        } else {
            self.plan_host(w.txn, w.from, false)
        }
    }

    /// The event queue ran dry with transactions still waiting: plan each
    /// once more, in order (a safety net for a stall whose cause its
    /// refusals did not name; normally they stay stuck and the run reports them).
    pub(super) fn wake_all_parked(&mut self) -> Result<()> {
        let mut all: Vec<Waiter> = Vec::new();
        let lot = &mut self.lot;
        for q in lot.buckets.iter_mut().map(|b| &mut b.queue).chain([&mut lot.any]) {
            all.extend(q.drain().map(|r| r.0));
        }
        all.retain(|w| self.txns.get(w.txn).park.id == w.id);
        all.sort_unstable();
        all.dedup_by_key(|w| w.id);
        for w in all {
            self.resume(w)?;
        }
        Ok(())
    }
}
