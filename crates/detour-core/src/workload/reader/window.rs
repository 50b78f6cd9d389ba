//! Bounded-window reordering of arrivals (`TraceOptions::reorder_window_ns`).
//!
//! Multi-volume traces (Systor'17, Tencent CBS) interleave per-volume logs
//! whose times step back by small amounts; sorting the whole file would
//! hold it all in memory. The window holds requests until the newest time
//! read is `span` past them: a later line can then only precede one by
//! stepping back more than `span`, which the reader's ordinary rule for
//! backwards time handles (an error, or a clamp). Memory is bounded by the
//! requests of one window; equal times keep file order (the sequence
//! number breaks ties), so a sorted trace passes through unchanged.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use crate::workload::Request;

/// One held request, ordered by (time, file order).
struct Held {
    time: u64,
    seq: u64,
    req: Request,
}

impl PartialEq for Held {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Held {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

pub(super) struct Window {
    span: u64,
    newest: u64,
    seq: u64,
    heap: BinaryHeap<Reverse<Held>>,
    /// Requests read with a time before an earlier line's: those the window moves.
    pub(super) reordered: u64,
}

impl Window {
    pub(super) fn new(span: u64) -> Window {
        Window { span, newest: 0, seq: 0, heap: BinaryHeap::new(), reordered: 0 }
    }

    pub(super) fn push(&mut self, req: Request) {
        let time = req.time_ns;
        if self.seq > 0 && time < self.newest {
            self.reordered += 1;
        }
        self.newest = if self.seq == 0 { time } else { self.newest.max(time) };
        self.heap.push(Reverse(Held { time, seq: self.seq, req }));
        self.seq += 1;
    }

    /// The earliest held request, once no line within the window can still precede it.
    pub(super) fn pop_ready(&mut self) -> Option<Request> {
        let Reverse(top) = self.heap.peek()?;
        (self.newest - top.time >= self.span).then(|| self.heap.pop().map(|Reverse(h)| h.req))?
    }

    /// The earliest held request, whatever the window (the trace has ended).
    pub(super) fn pop_any(&mut self) -> Option<Request> {
        self.heap.pop().map(|Reverse(h)| h.req)
    }
}
