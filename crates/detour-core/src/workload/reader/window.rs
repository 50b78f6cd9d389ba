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
use std::collections::{BinaryHeap, VecDeque};

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
    /// Requests read in order (each at or after the one before it): a sorted
    /// run, kept without the heap's cost. A sorted trace never leaves it.
    run: VecDeque<Held>,
    /// Requests that stepped back behind the run's last: the heap orders them.
    back: BinaryHeap<Reverse<Held>>,
    /// Requests read with a time before an earlier line's: those the window moves.
    pub(super) reordered: u64,
}

impl Window {
    pub(super) fn new(span: u64) -> Window {
        Window { span, newest: 0, seq: 0, run: VecDeque::new(), back: BinaryHeap::new(), reordered: 0 }
    }

    pub(super) fn push(&mut self, req: Request) {
        let time = req.time_ns;
        if self.seq > 0 && time < self.newest {
            self.reordered += 1;
        }
        self.newest = if self.seq == 0 { time } else { self.newest.max(time) };
        let held = Held { time, seq: self.seq, req };
        // Equal times keep file order: the later line goes behind.
        if self.run.back().is_none_or(|last| last.time <= time) {
            self.run.push_back(held);
        } else {
            self.back.push(Reverse(held));
        }
        self.seq += 1;
    }

    /// The earliest held request, by (time, file order), of the run's head
    /// and the heap's.
    fn earliest(&self) -> Option<(u64, bool)> {
        match (self.run.front(), self.back.peek()) {
            (Some(r), Some(Reverse(b))) => Some(if b < r { (b.time, true) } else { (r.time, false) }),
            (Some(r), None) => Some((r.time, false)),
            (None, Some(Reverse(b))) => Some((b.time, true)),
            (None, None) => None,
        }
    }

    fn take(&mut self, from_back: bool) -> Option<Request> {
        if from_back {
            self.back.pop().map(|Reverse(h)| h.req)
        } else {
            self.run.pop_front().map(|h| h.req)
        }
    }

    /// The earliest held request, once no line within the window can still precede it.
    pub(super) fn pop_ready(&mut self) -> Option<Request> {
        let (time, from_back) = self.earliest()?;
        if self.newest - time >= self.span {
            self.take(from_back)
        } else {
            None
        }
    }

    /// The earliest held request, whatever the window (the trace has ended).
    pub(super) fn pop_any(&mut self) -> Option<Request> {
        let (_, from_back) = self.earliest()?;
        self.take(from_back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IoKind;

    fn req(time_ns: u64, line: u64) -> Request {
        Request { time_ns, offset: 0, size: 512, kind: IoKind::Read, content: 0, volume: 0, line }
    }

    /// The sorted run and the heap of stragglers give what one heap gave:
    /// every request by (time, file order), each released once the newest
    /// time read is a window past it.
    #[test]
    fn releases_in_time_then_file_order_as_one_heap_would() {
        let times = [5u64, 7, 7, 3, 9, 8, 8, 20, 2, 21, 21, 19, 40, 41, 30, 60];
        let (mut w, mut reference) = (Window::new(10), BinaryHeap::new());
        let (mut got, mut want) = (Vec::new(), Vec::new());
        let mut newest = 0;
        for (i, &t) in times.iter().enumerate() {
            w.push(req(t, i as u64));
            newest = newest.max(t);
            reference.push(Reverse((t, i as u64)));
            while let Some(r) = w.pop_ready() {
                got.push((r.time_ns, r.line));
            }
            while reference.peek().is_some_and(|Reverse((t, _))| newest - t >= 10) {
                want.push(reference.pop().map(|Reverse(x)| x).unwrap());
            }
            assert_eq!(got, want, "after line {i}");
        }
        got.extend(std::iter::from_fn(|| w.pop_any()).map(|r| (r.time_ns, r.line)));
        want.extend(std::iter::from_fn(|| reference.pop()).map(|Reverse(x)| x));
        assert_eq!(got, want);
        assert_eq!(w.reordered, 6);
    }
}
