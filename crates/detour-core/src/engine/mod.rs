//! The event engine: integer-nanosecond time and a queue ordered by
//! (time, sequence number), so equal-time events run in the order they were
//! scheduled and every run is deterministic.
//!
//! Events are a small `Copy` enum of indices into the simulator's arenas; the
//! queue's buckets keep their storage, so the hot path does not allocate once
//! they have grown to their working size.
//!
//! ## What is where
//!
//! `Time` in integer ns; `EventQueue`: a calendar wheel of 1.024 µs buckets
//! over the next ~4.2 ms (each bucket a list threaded through the event
//! slots, kept in time order with equal times in insertion order), a binary
//! heap for later events (keyed by time, sequence and slot) and a place for
//! the one pending arrival, so events run in (time, sequence) order and
//! equal-time events in insertion order; `Event`, a `Copy` enum of indices.
//! Scheduling in the past is an error: `schedule` returns it; the scheduler's
//! `post` keeps it, and the run reports it after the event being handled. The
//! wheel's tables have fixed sizes and slot indices come only from the queue
//! itself, so its hot path reads them without bounds checks.

use crate::error::{Error, Result};
use crate::types::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Everything that can happen at a point in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The next host request of the workload arrives.
    Arrival,
    /// A transaction's delay (e.g. hashing on the request path) is over.
    TxnStart(u32),
    /// A die finished moving a read's data out over its channel.
    TransferDone(u32),
    /// A die finished its array operation; `gen` cancels stale events after a
    /// suspension.
    ArrayDone { die: u32, gen: u32 },
    /// A die finished suspending its program/erase.
    SuspendDone { die: u32, gen: u32 },
    /// A transaction served without flash (write-buffer hit) completes.
    TxnFinish(u32),
    /// The scheme's periodic background tick.
    Tick,
    /// Closed-loop stream `s` may issue its next request (sim/closed.rs).
    Issue(u32),
    /// A channel that units wait for is free (`scheduler.channel_order =
    /// "reads_first"` only).
    ChannelFree(u32),
}

/// The simulator's clock and pending events.
///
/// A calendar wheel: 4096 buckets of 1.024 µs cover the next ~4.2 ms, where
/// nearly every flash event falls; later events wait in a binary heap and
/// move into the wheel as time reaches them. The smallest (time, sequence)
/// is always popped first, so the order is exactly (time, insertion). The
/// one pending `Arrival` waits beside both: a million requests are a
/// million fewer queue moves.
///
/// A bucket is a list threaded through the event slots, kept in time order
/// with equal times in insertion order: an event goes in after every event
/// of its bucket that is not later. That is (time, sequence) order because
/// a bucket's far events are all filed when the wheel's window first
/// reaches it, before any event can be posted to it directly, and each
/// group arrives in sequence order. A slot holds its event, time, sequence
/// and the next slot of its list, so filing and popping touch the slot
/// (reused last-freed-first, so mostly in cache) and one small head/tail
/// entry, rather than a vector per bucket whose memory has gone cold since
/// the wheel last came round. Free slots form a list of their own.
#[derive(Debug)]
pub struct EventQueue {
    /// First and last slot of each bucket's list ([`NONE`] when empty).
    ends: Box<[[u32; 2]; WHEEL as usize]>,
    /// Bit i set: bucket i holds events.
    occupied: [u64; WORDS],
    in_wheel: usize,
    /// Absolute bucket of `now`; the wheel covers [cur, cur + WHEEL).
    cur: u64,
    /// Events beyond the wheel, keyed (time, sequence, slot).
    far: BinaryHeap<Reverse<u128>>,
    /// The pending arrival's (time, sequence); [`NO_ARRIVAL`] when none, so
    /// comparing it with the wheel's first event needs no test for absence.
    arrival: (Time, u64),
    slots: Vec<Slot>,
    /// First free slot; the free ones are chained through `next`.
    free: u32,
    seq: u64,
    now: Time,
    /// The first event `post` could not take (in the past, or too many
    /// pending): the run reports it once the current event is handled.
    fault: Option<Box<Error>>,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    at: Time,
    seq: u64,
    event: Event,
    /// The next slot in the same bucket (or in the free list).
    next: u32,
}

const NONE: u32 = u32::MAX;
/// Sequence numbers stay below this (one per post), so it marks "no arrival".
const NO_ARRIVAL: (Time, u64) = (Time::MAX, u64::MAX);
const SLOT_BITS: u32 = 24;
const SEQ_MASK: u64 = (1 << 40) - 1;
const GRAIN_BITS: u32 = 10;
const WHEEL_BITS: u32 = 12;
const WHEEL: u64 = 1 << WHEEL_BITS;
const MASK: usize = (WHEEL - 1) as usize;
const WORDS: usize = (WHEEL / 64) as usize;

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

#[cold]
fn too_many_pending() -> Error {
    Error::Sim(format!("more than {} events pending at once", 1u32 << SLOT_BITS))
}

/// A far event's heap key: (time, 40-bit sequence, 24-bit slot), so the
/// heap orders by (time, sequence) and the key names the event's slot.
fn far_key(at: Time, seq: u64, s: u32) -> u128 {
    ((at as u128) << 64) | (((seq & SEQ_MASK) << SLOT_BITS) | s as u64) as u128
}

fn far_slot(k: u128) -> u32 {
    (k as u64 & ((1 << SLOT_BITS) - 1)) as u32
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            ends: Box::new([[NONE; 2]; WHEEL as usize]),
            occupied: [0; WORDS],
            in_wheel: 0,
            cur: 0,
            far: BinaryHeap::new(),
            arrival: NO_ARRIVAL,
            slots: Vec::with_capacity(1024),
            free: NONE,
            seq: 0,
            now: 0,
            fault: None,
        }
    }

    // Slot indices come only from this queue (`post` takes them from the
    // free list or pushes a new slot, and `slots` never shrinks), so they
    // are always in range: the hot path skips the bounds check.
    #[inline(always)]
    fn slot(&self, i: u32) -> &Slot {
        debug_assert!((i as usize) < self.slots.len());
        // SAFETY: see above; every index was handed out by `post`.
        unsafe { self.slots.get_unchecked(i as usize) }
    }

    #[inline(always)]
    fn slot_mut(&mut self, i: u32) -> &mut Slot {
        debug_assert!((i as usize) < self.slots.len());
        // SAFETY: as for `slot`.
        unsafe { self.slots.get_unchecked_mut(i as usize) }
    }

    /// Current simulated time: the time of the last popped event.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at absolute time `at`; scheduling in the past is an error.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: Event) -> Result<()> {
        self.post(at, event);
        self.take_fault().map_or(Ok(()), Err)
    }

    /// Schedule `event` at `at`, keeping an error (in the past, too many
    /// pending) for [`take_fault`](Self::take_fault) instead of returning
    /// it: the device's own state machines post their events this way, so
    /// no call on their per-event path returns a `Result`.
    #[inline(always)]
    pub fn post(&mut self, at: Time, event: Event) {
        if at < self.now {
            return self.keep_fault(self.in_the_past(at, event));
        }
        let seq = self.seq;
        self.seq += 1;
        if event == Event::Arrival && self.arrival == NO_ARRIVAL {
            self.arrival = (at, seq);
            return;
        }
        let slot = Slot { at, seq, event, next: NONE };
        let s = self.free;
        let s = if s != NONE {
            self.free = self.slot(s).next;
            s
        } else {
            if self.slots.len() >= 1 << SLOT_BITS {
                return self.keep_fault(too_many_pending());
            }
            self.slots.push(slot);
            (self.slots.len() - 1) as u32
        };
        *self.slot_mut(s) = slot;
        self.file(s);
    }

    #[cold]
    fn keep_fault(&mut self, e: Error) {
        self.fault.get_or_insert_with(|| Box::new(e));
    }

    /// The first error a `post` kept, if any (taking it).
    #[inline]
    pub fn take_fault(&mut self) -> Option<Error> {
        // Checked first, so the usual case (no fault) writes nothing.
        self.fault.as_ref()?;
        self.fault.take().map(|e| *e)
    }

    #[cold]
    fn in_the_past(&self, at: Time, event: Event) -> Error {
        Error::Sim(format!("{event:?} scheduled at {at} ns, before now ({} ns)", self.now))
    }

    /// Put slot `s` (its event, time and sequence stored) at its place in
    /// its bucket's list: after every event of the bucket not later than
    /// it. Or in the far heap.
    #[inline(always)]
    fn file(&mut self, s: u32) {
        let at = self.slot(s).at;
        let b = at >> GRAIN_BITS;
        if b >= self.cur + WHEEL {
            return self.file_far(s);
        }
        let i = b as usize & MASK;
        let [head, tail] = self.ends[i];
        if head == NONE {
            self.ends[i] = [s, s];
            self.occupied[i >> 6] |= 1 << (i & 63);
        } else if self.slot(tail).at <= at {
            // Times mostly come in order: append.
            self.slot_mut(tail).next = s;
            self.ends[i][1] = s;
        } else if at < self.slot(head).at {
            self.slot_mut(s).next = head;
            self.ends[i][0] = s;
        } else {
            // Somewhere inside; the tail is later, so this stops.
            let mut p = head;
            loop {
                let n = self.slot(p).next;
                if self.slot(n).at > at {
                    break;
                }
                p = n;
            }
            self.slot_mut(s).next = self.slot(p).next;
            self.slot_mut(p).next = s;
        }
        self.in_wheel += 1;
    }

    #[inline(never)]
    fn file_far(&mut self, s: u32) {
        let Slot { at, seq, .. } = *self.slot(s);
        self.far.push(Reverse(far_key(at, seq, s)));
    }

    /// Schedule `event` `delay` ns from now.
    #[inline]
    pub fn after(&mut self, delay: Time, event: Event) -> Result<()> {
        let Some(at) = self.now.checked_add(delay) else {
            return Err(Error::Sim(format!("{event:?} {delay} ns after {} ns lies past the end of simulated time", self.now)));
        };
        self.schedule(at, event)
    }

    /// Post `event` `delay` ns from now (see [`post`](Self::post)).
    #[inline]
    pub fn post_after(&mut self, delay: Time, event: Event) {
        self.post(self.now + delay, event)
    }

    /// The first occupied bucket at or after `cur`, going round the wheel
    /// (only called with `in_wheel > 0`).
    #[inline]
    fn first_bucket(&self) -> usize {
        let start = self.cur as usize & MASK;
        let words = self.occupied.len();
        let (w0, b0) = (start >> 6, start & 63);
        let head = self.occupied[w0] & (!0u64 << b0);
        if head != 0 {
            return (w0 << 6) | head.trailing_zeros() as usize;
        }
        for k in 1..=words {
            let w = (w0 + k) % words;
            let bits = if w == w0 { self.occupied[w] & !(!0u64 << b0) } else { self.occupied[w] };
            if bits != 0 {
                return (w << 6) | bits.trailing_zeros() as usize;
            }
        }
        unreachable!("in_wheel > 0 but no bucket occupied")
    }

    /// Take the earliest event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if self.in_wheel == 0 {
            return self.pop_beyond_wheel();
        }
        // Far events lie beyond the wheel: its first event is the earliest.
        let i = self.first_bucket();
        let h = self.ends[i][0];
        let (at, seq) = (self.slot(h).at, self.slot(h).seq);
        if self.arrival < (at, seq) {
            return Some(self.take_arrival());
        }
        let next = self.slot(h).next;
        self.ends[i][0] = next;
        if next == NONE {
            self.ends[i][1] = NONE;
            self.occupied[i >> 6] &= !(1 << (i & 63));
        }
        self.in_wheel -= 1;
        self.slot_mut(h).next = self.free;
        self.free = h;
        self.advance(at);
        Some((at, self.slot(h).event))
    }

    fn take_arrival(&mut self) -> (Time, Event) {
        let at = self.arrival.0;
        self.arrival = NO_ARRIVAL;
        self.advance(at);
        (at, Event::Arrival)
    }

    /// `pop` with the wheel empty: the arrival or the first far event.
    #[inline(never)]
    fn pop_beyond_wheel(&mut self) -> Option<(Time, Event)> {
        let far = self.far.peek().map(|Reverse(k)| *k);
        // Sequence numbers are unique, so the slot part never decides.
        let before_far = far.is_none_or(|k| far_key(self.arrival.0, self.arrival.1, 0) < k);
        if self.arrival != NO_ARRIVAL && before_far {
            return Some(self.take_arrival());
        }
        let k = self.far.pop()?.0;
        let s = far_slot(k);
        let Slot { at, event, .. } = *self.slot(s);
        self.slot_mut(s).next = self.free;
        self.free = s;
        self.advance(at);
        Some((at, event))
    }

    /// Move the clock (and the wheel's window) to `t`, pulling far events in.
    #[inline(always)]
    fn advance(&mut self, t: Time) {
        self.now = t;
        let b = t >> GRAIN_BITS;
        if b != self.cur {
            self.cur = b;
            // Usually empty: few events lie beyond the wheel's ~4.2 ms.
            if !self.far.is_empty() {
                self.pull_far();
            }
        }
    }

    /// File the far events the wheel's window now reaches, in key order.
    #[inline(never)]
    fn pull_far(&mut self) {
        while let Some(Reverse(k)) = self.far.peek() {
            if ((k >> 64) as Time) >> GRAIN_BITS >= self.cur + WHEEL {
                break;
            }
            let s = far_slot(*k);
            self.far.pop();
            self.file(s);
        }
    }

    pub fn len(&self) -> usize {
        self.in_wheel + self.far.len() + (self.arrival != NO_ARRIVAL) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Another event is pending at the current time (it can only be in the
    /// current bucket, or be the arrival).
    #[inline]
    pub fn more_now(&self) -> bool {
        let now = self.now;
        let head = self.ends[self.cur as usize & MASK][0];
        (self.arrival.0 == now && self.arrival != NO_ARRIVAL) || (head != NONE && self.slot(head).at == now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.schedule(10, Event::TransferDone(1)).unwrap();
        q.schedule(5, Event::TransferDone(2)).unwrap();
        q.schedule(10, Event::TransferDone(3)).unwrap();
        q.schedule(5, Event::TransferDone(4)).unwrap();
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![(5, Event::TransferDone(2)), (5, Event::TransferDone(4)), (10, Event::TransferDone(1)), (10, Event::TransferDone(3))]
        );
        assert_eq!(q.now(), 10);
    }

    #[test]
    fn the_arrival_beside_the_heap_keeps_its_place_in_line() {
        let mut q = EventQueue::new();
        q.schedule(5, Event::TransferDone(1)).unwrap();
        q.schedule(5, Event::Arrival).unwrap();
        q.schedule(5, Event::TransferDone(2)).unwrap();
        q.schedule(3, Event::TransferDone(3)).unwrap();
        assert_eq!(q.len(), 4);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec![Event::TransferDone(3), Event::TransferDone(1), Event::Arrival, Event::TransferDone(2)]);
        assert!(q.is_empty());
    }

    #[test]
    fn past_is_an_error() {
        let mut q = EventQueue::new();
        q.schedule(100, Event::Tick).unwrap();
        q.schedule(100, Event::Arrival).unwrap();
        q.schedule(200, Event::Arrival).unwrap();
        q.pop();
        assert!(q.more_now());
        q.pop();
        assert!(!q.more_now());
        let err = q.schedule(99, Event::Tick).unwrap_err();
        assert!(err.to_string().contains("before now"), "{err}");
        assert!(q.schedule(100, Event::Tick).is_ok());
    }

    #[test]
    fn post_keeps_the_first_fault_for_the_run_to_report() {
        let mut q = EventQueue::new();
        q.post(100, Event::Tick);
        q.pop();
        assert!(q.take_fault().is_none());
        q.post(50, Event::TransferDone(1));
        q.post(40, Event::TransferDone(2));
        q.post(150, Event::TransferDone(3));
        let err = q.take_fault().expect("a post in the past is kept");
        assert!(err.to_string().contains("TransferDone(1) scheduled at 50 ns"), "{err}");
        assert!(q.take_fault().is_none(), "taken once");
        assert_eq!(q.len(), 1, "only the valid post was queued");
    }

    #[test]
    fn matches_a_sorted_reference_under_random_interleaving() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64)> = Vec::new();
        let mut id = 0u64;
        let mut popped = Vec::new();
        for _ in 0..20_000 {
            if rng.random::<f64>() < 0.55 {
                let at = q.now() + [0, 0, 1, 7, 1000, 75_000, 3_000_000, 9_000_000, 1 << 40][rng.random_range(0..9)];
                q.schedule(at, Event::TxnStart(id as u32)).unwrap();
                reference.push((at, id));
                id += 1;
            } else if let Some((t, Event::TxnStart(i))) = q.pop() {
                popped.push((t, i as u64));
            }
        }
        while let Some((t, Event::TxnStart(i))) = q.pop() {
            popped.push((t, i as u64));
        }
        reference.sort();
        let mut expect = reference.clone();
        expect.sort();
        // Popping interleaved with pushes: check monotone time, FIFO on ties, nothing lost.
        assert_eq!(popped.len(), reference.len());
        for w in popped.windows(2) {
            assert!(w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1), "{w:?}");
        }
        let mut got = popped.clone();
        got.sort();
        assert_eq!(got, expect);
    }

    #[test]
    fn far_events_keep_their_place_before_later_posts_at_the_same_time() {
        let mut q = EventQueue::new();
        let far = 9_000_000; // beyond the wheel's window at time 0
        q.schedule(far, Event::TransferDone(1)).unwrap();
        q.schedule(far, Event::Arrival).unwrap();
        q.schedule(5_000_000, Event::TransferDone(2)).unwrap();
        assert_eq!(q.pop(), Some((5_000_000, Event::TransferDone(2))));
        // The window now reaches `far`: posted directly, after the far ones.
        q.schedule(far, Event::TransferDone(3)).unwrap();
        q.schedule(far - 1, Event::TransferDone(4)).unwrap();
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![(far - 1, Event::TransferDone(4)), (far, Event::TransferDone(1)), (far, Event::Arrival), (far, Event::TransferDone(3)),]
        );
    }

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
