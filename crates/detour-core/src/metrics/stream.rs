//! Per-request results as requests complete, in memory that does not grow
//! with the trace.
//!
//! Requests complete out of arrival order, but their rows leave in arrival
//! order (the order of requests.parquet and of `RequestColumns`): a row
//! waits in a window that starts at the oldest request still in flight, so
//! the window is as long as the span of requests in flight, not the trace.
//! Each row that leaves is counted into the summary's figures ([`Tally`])
//! and handed to the sink: kept in memory, streamed to Parquet, or dropped.

use super::histogram::LogHistogram;
use super::parquet::ParquetSink;
use super::RequestColumns;
use crate::error::{Error, Result};
use std::collections::VecDeque;

/// One request's row (see docs/results.md, requests.parquet).
#[derive(Clone, Copy, Debug, Default)]
pub struct Row {
    pub arrival_ns: u64,
    pub latency_ns: u64,
    pub offset: u64,
    pub size: u32,
    pub bus_ns: u32,
    pub array_ns: u32,
    pub delay_ns: u32,
    pub is_write: bool,
    pub warmup: bool,
    /// The request failed: a page it reads is lost (see `Plan::lost`).
    pub lost: bool,
    /// Read-retry steps of its flash reads, summed (`[nand]`; else 0).
    pub retry_steps: u32,
    /// Time from its arrival to where its latency starts (its entry into
    /// the submission queue, `host.latency_from`; else 0), so that its
    /// completion is `arrival_ns + host_wait_ns + latency_ns`.
    pub host_wait_ns: u64,
    done: bool,
}

impl Row {
    /// Queueing time: what the latency leaves after delay, bus and array.
    pub fn queue_ns(&self) -> u64 {
        self.latency_ns.saturating_sub(self.bus_ns as u64 + self.array_ns as u64 + self.delay_ns as u64)
    }
}

/// Where rows go once they leave the window.
// One per run: boxing the Parquet sink would save nothing worth an indirection.
#[allow(clippy::large_enum_variant)]
pub enum RequestSink {
    /// Into `RequestColumns` (returned in `RunResult::requests`).
    Memory,
    /// Into a Parquet file, written as the run goes.
    Parquet(ParquetSink),
    /// Nowhere: only the summary's figures are kept.
    Discard,
}

/// The run's per-request rows: the window of rows in flight, the figures
/// counted from the rows that left it, and the sink.
pub struct RequestLog {
    /// Arrival index of the window's first row.
    base: u64,
    window: VecDeque<Row>,
    tally: Tally,
    sink: RequestSink,
    kept: RequestColumns,
}

impl RequestLog {
    pub fn new(sink: RequestSink, period_s: f64) -> RequestLog {
        RequestLog { base: 0, window: VecDeque::new(), tally: Tally::new(period_s), sink, kept: RequestColumns::default() }
    }

    /// Requests that have arrived so far.
    pub fn arrived(&self) -> u64 {
        self.base + self.window.len() as u64
    }

    /// A request arrives, with `in_flight` requests arrived and not yet
    /// completed (itself included): returns its index.
    pub fn arrive(&mut self, arrival_ns: u64, offset: u64, size: u32, is_write: bool, warmup: bool, in_flight: u64) -> u64 {
        let i = self.arrived();
        self.tally.shape.outstanding.record(i, in_flight);
        self.window.push_back(Row { arrival_ns, offset, size, is_write, warmup, ..Row::default() });
        i
    }

    /// Request `i` completed: fill its row, and let every row up to the
    /// oldest still in flight leave the window.
    pub fn complete(&mut self, i: u64, latency: u64, bus: u64, array: u64, delay: u64, lost: bool) -> Result<()> {
        let sat = |v: u64| v.min(u32::MAX as u64) as u32;
        let Some(row) = i.checked_sub(self.base).and_then(|k| self.window.get_mut(k as usize)) else {
            return Err(Error::Sim(format!("request {i} completed twice, or before it arrived")));
        };
        (row.latency_ns, row.bus_ns, row.array_ns, row.delay_ns, row.lost, row.done) =
            (latency, sat(bus), sat(array), sat(delay), lost, true);
        while self.window.front().is_some_and(|r| r.done) {
            if let Some(row) = self.window.pop_front() {
                self.base += 1;
                self.tally.count(&row);
                match &mut self.sink {
                    RequestSink::Memory => self.kept.push(&row),
                    RequestSink::Parquet(p) => p.push(&row)?,
                    RequestSink::Discard => {}
                }
            }
        }
        Ok(())
    }

    /// Request `i` (not yet completed) took `steps` read-retry steps.
    pub fn retried(&mut self, i: u64, steps: u32) {
        if let Some(row) = i.checked_sub(self.base).and_then(|k| self.window.get_mut(k as usize)) {
            row.retry_steps = steps;
        }
    }

    /// Request `i` (not yet completed) waited `ns` at the host before its
    /// latency started (`host.latency_from = "submission_queue"`).
    pub fn waited_at_host(&mut self, i: u64, ns: u64) {
        if let Some(row) = i.checked_sub(self.base).and_then(|k| self.window.get_mut(k as usize)) {
            row.host_wait_ns = ns;
        }
    }

    /// Every row has left the window (all requests completed).
    pub fn is_drained(&self) -> bool {
        self.window.is_empty()
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// The rows kept in memory and the Parquet sink, if any, to be closed
    /// once the summary exists.
    pub fn into_parts(self) -> (RequestColumns, Option<ParquetSink>) {
        match self.sink {
            RequestSink::Parquet(p) => (self.kept, Some(p)),
            _ => (self.kept, None),
        }
    }
}

/// The summary's figures, counted row by row in arrival order.
pub struct Tally {
    /// Latency of measured reads [0] and writes [1].
    pub latency: [LogHistogram; 2],
    /// Sums of queue, bus, array and delay time of measured reads and writes, ns.
    pub parts: [[u128; 4]; 2],
    pub bytes: [u64; 2],
    /// First measured arrival and last measured completion, ns.
    pub first_ns: u64,
    pub last_ns: u64,
    pub shape: Shape,
    /// Measured requests that failed (`Row::lost`).
    pub lost: u64,
    period_ns: f64,
    /// Per period (by arrival): read latency sum, reads, all sum, all, µs.
    periods: Vec<[f64; 4]>,
}

/// The trace's shape over every row, warm-up included (for the warnings).
#[derive(Default)]
pub struct Shape {
    pub rows: u64,
    pub first_arrival_ns: Option<u64>,
    pub last_arrival_ns: u64,
    /// When the last request completed, ns.
    pub last_completion_ns: u64,
    /// Requests in flight when each request arrived, sampled.
    pub outstanding: Samples,
}

/// Beyond this many periods, rows count in the last (the scheme has at
/// most as many period rows; `period_rows` folds the rest there too).
const MAX_PERIODS: usize = 1 << 16;

impl Tally {
    fn new(period_s: f64) -> Tally {
        Tally {
            latency: [LogHistogram::default(), LogHistogram::default()],
            parts: [[0; 4]; 2],
            bytes: [0; 2],
            first_ns: u64::MAX,
            last_ns: 0,
            shape: Shape::default(),
            lost: 0,
            period_ns: (period_s * 1e9).max(1.0),
            periods: Vec::new(),
        }
    }

    fn count(&mut self, r: &Row) {
        let sh = &mut self.shape;
        sh.rows += 1;
        sh.first_arrival_ns.get_or_insert(r.arrival_ns);
        sh.last_arrival_ns = r.arrival_ns;
        sh.last_completion_ns = sh.last_completion_ns.max(r.arrival_ns + r.host_wait_ns + r.latency_ns);
        if r.warmup {
            return;
        }
        // A failed request has no response time to count: it is reported.
        if r.lost {
            self.lost += 1;
            return;
        }
        let w = r.is_write as usize;
        self.latency[w].record(r.latency_ns);
        let p = &mut self.parts[w];
        p[0] += r.queue_ns() as u128;
        p[1] += r.bus_ns as u128;
        p[2] += r.array_ns as u128;
        p[3] += r.delay_ns as u128;
        self.first_ns = self.first_ns.min(r.arrival_ns);
        self.last_ns = self.last_ns.max(r.arrival_ns + r.host_wait_ns + r.latency_ns);
        self.bytes[w] += r.size as u64;
        let k = ((r.arrival_ns as f64 / self.period_ns) as usize).min(MAX_PERIODS - 1);
        if self.periods.len() <= k {
            self.periods.resize(k + 1, [0.0; 4]);
        }
        let l = r.latency_ns as f64 / 1e3;
        let s = &mut self.periods[k];
        (s[2], s[3]) = (s[2] + l, s[3] + 1.0);
        if !r.is_write {
            (s[0], s[1]) = (s[0] + l, s[1] + 1.0);
        }
    }

    /// Per-period sums for `rows` period rows: periods beyond the last row
    /// count in it.
    pub fn period_sums(&self, rows: usize) -> Vec<[f64; 4]> {
        let mut out = vec![[0.0; 4]; rows];
        for (k, s) in self.periods.iter().enumerate() {
            if let Some(o) = out.get_mut(k.min(rows.saturating_sub(1))) {
                for j in 0..4 {
                    o[j] += s[j];
                }
            }
        }
        out
    }
}

/// A value per arrival index, sampled at every `stride`-th index; when the
/// samples fill their room, every other one is dropped and the stride
/// doubles, so the room stays fixed however long the trace.
#[derive(Debug)]
pub struct Samples {
    stride: u64,
    vals: Vec<u64>,
}

const SAMPLE_ROOM: usize = 4096;

impl Default for Samples {
    fn default() -> Self {
        Samples { stride: 1, vals: Vec::with_capacity(SAMPLE_ROOM) }
    }
}

impl Samples {
    fn record(&mut self, i: u64, v: u64) {
        if i % self.stride != 0 {
            return;
        }
        if self.vals.len() == SAMPLE_ROOM {
            let kept: Vec<u64> = self.vals.iter().step_by(2).copied().collect();
            self.vals = kept;
            self.stride *= 2;
            if i % self.stride != 0 {
                return;
            }
        }
        self.vals.push(v);
    }

    /// The value at the last sampled index at or before `i` (0 if none).
    pub fn at(&self, i: u64) -> u64 {
        let k = (i / self.stride) as usize;
        self.vals.get(k.min(self.vals.len().saturating_sub(1))).copied().unwrap_or(0)
    }

    /// Mean of the values sampled at indices in `lo..hi` (0 if none).
    pub fn mean_over(&self, lo: u64, hi: u64) -> f64 {
        let first = lo.div_ceil(self.stride) as usize;
        let end = (hi.div_ceil(self.stride) as usize).min(self.vals.len());
        let vals = self.vals.get(first..end).unwrap_or(&[]);
        if vals.is_empty() {
            return 0.0;
        }
        vals.iter().sum::<u64>() as f64 / vals.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_means_cover_the_indices_kept_in_a_range() {
        let mut s = Samples::default();
        for i in 0..(SAMPLE_ROOM as u64 * 2) {
            s.record(i, i);
        }
        // Every second index is kept: 0, 2, .. below 8 -> 0, 2, 4, 6.
        assert_eq!(s.mean_over(0, 8), 3.0);
        assert_eq!(s.mean_over(1, 7), 4.0);
        assert_eq!(s.mean_over(5, 5), 0.0);
        assert_eq!(s.mean_over(u64::MAX - 1, u64::MAX), 0.0);
    }

    #[test]
    fn rows_leave_in_arrival_order_whatever_the_completion_order() {
        let mut log = RequestLog::new(RequestSink::Memory, 1.0);
        for i in 0..5u64 {
            assert_eq!(log.arrive(i * 10, i, 4096, i % 2 == 1, false, 1), i);
        }
        for (i, lat) in [(3u64, 7u64), (1, 5), (0, 9), (4, 1), (2, 2)] {
            log.complete(i, lat, 1, 1, 0, false).unwrap();
        }
        assert!(log.is_drained());
        let (cols, _) = log.into_parts();
        assert_eq!(cols.arrival_ns, vec![0, 10, 20, 30, 40]);
        assert_eq!(cols.latency_ns, vec![9, 5, 2, 7, 1]);
    }

    #[test]
    fn completing_twice_or_unarrived_is_an_error() {
        let mut log = RequestLog::new(RequestSink::Discard, 1.0);
        log.arrive(0, 0, 1, false, false, 1);
        log.complete(0, 1, 0, 0, 0, false).unwrap();
        assert!(log.complete(0, 1, 0, 0, 0, false).is_err());
        assert!(log.complete(7, 1, 0, 0, 0, false).is_err());
    }

    #[test]
    fn the_window_holds_only_rows_in_flight() {
        let mut log = RequestLog::new(RequestSink::Discard, 1.0);
        for i in 0..100_000u64 {
            log.arrive(i, 0, 512, false, i < 10, 1);
            log.complete(i, 100 + i % 7, 0, 0, 0, false).unwrap();
            assert!(log.window.len() <= 1);
        }
        let t = log.tally();
        assert_eq!((t.shape.rows, t.latency[0].len()), (100_000, 99_990));
        assert!(log.kept.is_empty());
    }

    #[test]
    fn samples_keep_fixed_room_and_answer_by_index() {
        let mut s = Samples::default();
        for i in 0..1_000_000u64 {
            s.record(i, i * 2);
        }
        assert!(s.vals.len() <= SAMPLE_ROOM);
        for i in [0u64, 1, 500_000, 999_999] {
            let got = s.at(i);
            assert!(got <= i * 2 && i * 2 - got < 2 * s.stride, "{i}: {got}");
        }
    }
}
