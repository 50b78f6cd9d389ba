//! The event engine: integer-nanosecond time and a queue ordered by
//! (time, sequence number), so equal-time events run in the order they were
//! scheduled and every run is deterministic.
//!
//! Events are a small `Copy` enum of indices into the simulator's arenas; the
//! queue's buckets keep their storage, so the hot path does not allocate once
//! they have grown to their working size.

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
}

/// The simulator's clock and pending events.
///
/// A binary heap of 16-byte keys: time in the high 64 bits, then a 40-bit
/// sequence number (ties break in insertion order), then the 24-bit slot
/// where the event itself waits. Small keys keep the heap's sifting cheap.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<u128>>,
    /// The one pending `Arrival` (there is never more than one) waits
    /// beside the heap: a million requests are a million fewer heap moves.
    arrival: Option<u128>,
    slots: Vec<Event>,
    free: Vec<u32>,
    seq: u64,
    now: Time,
}

const SLOT_BITS: u32 = 24;
const SEQ_MASK: u64 = (1 << 40) - 1;

impl EventQueue {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), arrival: None, slots: Vec::with_capacity(1024), free: Vec::new(), seq: 0, now: 0 }
    }

    /// Current simulated time: the time of the last popped event.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at absolute time `at`; scheduling in the past is an error.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: Event) -> Result<()> {
        if at < self.now {
            return Err(Error::Sim(format!("{event:?} scheduled at {at} ns, before now ({} ns)", self.now)));
        }
        if event == Event::Arrival && self.arrival.is_none() {
            self.arrival = Some(((at as u128) << 64) | ((self.seq & SEQ_MASK) << SLOT_BITS) as u128);
            self.seq += 1;
            return Ok(());
        }
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = event;
                s
            }
            None => {
                if self.slots.len() >= 1 << SLOT_BITS {
                    return Err(Error::Sim(format!("more than {} events pending at once", 1u32 << SLOT_BITS)));
                }
                self.slots.push(event);
                (self.slots.len() - 1) as u32
            }
        };
        let tag = ((self.seq & SEQ_MASK) << SLOT_BITS) | slot as u64;
        self.heap.push(Reverse(((at as u128) << 64) | tag as u128));
        self.seq += 1;
        Ok(())
    }

    /// Schedule `event` `delay` ns from now.
    #[inline]
    pub fn after(&mut self, delay: Time, event: Event) -> Result<()> {
        self.schedule(self.now + delay, event)
    }

    /// Take the earliest event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if let Some(a) = self.arrival {
            if self.heap.peek().is_none_or(|Reverse(k)| a < *k) {
                self.arrival = None;
                self.now = (a >> 64) as Time;
                return Some((self.now, Event::Arrival));
            }
        }
        let Reverse(k) = self.heap.pop()?;
        self.now = (k >> 64) as Time;
        let slot = (k as u64 & ((1 << SLOT_BITS) - 1)) as u32;
        self.free.push(slot);
        Some((self.now, self.slots[slot as usize]))
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.arrival.is_some() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Another event is pending at the current time.
    #[inline]
    pub fn more_now(&self) -> bool {
        let at_now = |k: u128| (k >> 64) as Time == self.now;
        self.arrival.is_some_and(at_now) || self.heap.peek().is_some_and(|Reverse(k)| at_now(*k))
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
    fn matches_a_sorted_reference_under_random_interleaving() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64)> = Vec::new();
        let mut id = 0u64;
        let mut popped = Vec::new();
        for _ in 0..20_000 {
            if rng.random::<f64>() < 0.55 {
                let at = q.now() + [0, 0, 1, 7, 1000, 1 << 40][rng.random_range(0..6)];
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
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
