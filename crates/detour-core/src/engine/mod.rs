//! The event engine: integer-nanosecond time and a queue ordered by
//! (time, sequence number), so equal-time events run in the order they were
//! scheduled and every run is deterministic.
//!
//! Events are a small `Copy` enum of indices into the simulator's arenas; the
//! queue is a binary heap whose storage is reused, so the hot path does not
//! allocate once the heap has grown to its working size.

use crate::error::{Error, Result};
use crate::types::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Everything that can happen at a point in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The next host request of the workload arrives.
    Arrival,
    /// A transaction's delay (e.g. hashing on the request path) is over.
    TxnStart(u32),
    /// A channel finished its current transfer.
    BusDone(u32),
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

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // BinaryHeap is a max-heap: reverse so the earliest (time, seq) pops first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// The simulator's clock and pending events.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    now: Time,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), seq: 0, now: 0 }
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
        self.heap.push(Entry { time: at, seq: self.seq, event });
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
        let e = self.heap.pop()?;
        self.now = e.time;
        Some((e.time, e.event))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.schedule(10, Event::BusDone(1)).unwrap();
        q.schedule(5, Event::BusDone(2)).unwrap();
        q.schedule(10, Event::BusDone(3)).unwrap();
        q.schedule(5, Event::BusDone(4)).unwrap();
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![(5, Event::BusDone(2)), (5, Event::BusDone(4)), (10, Event::BusDone(1)), (10, Event::BusDone(3))]
        );
        assert_eq!(q.now(), 10);
    }

    #[test]
    fn past_is_an_error() {
        let mut q = EventQueue::new();
        q.schedule(100, Event::Tick).unwrap();
        q.pop();
        let err = q.schedule(99, Event::Tick).unwrap_err();
        assert!(err.to_string().contains("before now"), "{err}");
        assert!(q.schedule(100, Event::Tick).is_ok());
    }

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
