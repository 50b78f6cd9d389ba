//! The host interface: open-loop arrivals at trace time (scaled; the
//! closed-loop flows' issue is `closed.rs`), the
//! optional queue-depth limit, splitting requests into pages, and planning
//! them through the scheme (parking a request when a plane has no free page).
//!
//! [`HostFront`] owns the front end's state: the request whose arrival is
//! scheduled and the one read ahead, the arrival-order check, the requests
//! queued behind `host.queue_depth` and the count of those out. The
//! `Simulation` methods below join it to the FTL and the scheme.

use super::txn::{HostIo, TxnKind};
use super::{mark_written, Replay, Simulation};
use crate::config::{AddressMode, HostConfig, LatencyFrom};
use crate::device::Geometry;
use crate::engine::Event;
use crate::error::{Error, Result};
use crate::schemes::Plan;
use crate::types::{mix64, page_token, IoKind, Lpn, Time, Token};
use crate::workload::Request;
use std::collections::VecDeque;

const UNIQUE_SALT: u64 = 0x5DEE_CE66_D1CE_4E5B;

/// The host front end: what the workload sends next, and what waits at
/// the host for a queue slot.
pub(super) struct HostFront {
    /// The request whose `Event::Arrival` is scheduled.
    next: Option<HostIo>,
    /// The request after `next`, read one ahead so that the FTL entries
    /// it will touch are fetched into cache before it is planned (None: not
    /// read yet; Some(None): the workload has ended).
    ahead: Option<Option<Result<Request>>>,
    last_arrival: Time,
    /// Requests arrived while `queue_depth` were out, in arrival order.
    queue: VecDeque<HostIo>,
    /// Requests admitted and not yet complete.
    outstanding: u32,
    /// `host.queue_depth` (0: no limit).
    queue_depth: u32,
    /// The first this many of `queue` are in the submission queue, whose
    /// entry starts their latency (0: `host.latency_from = "arrival"`, or
    /// no limit: each starts at its arrival).
    submission_queue: u32,
    /// `host.time_scale`.
    time_scale: f64,
    /// `host.address = "fold"`.
    fold: bool,
    /// Names the workload in error messages.
    source: String,
    /// Bytes the workload can address from 0, where known before the run
    /// (`ftl.precondition.span = "footprint"`).
    footprint_bytes: Option<u64>,
    /// The workload made again, for `ftl.precondition.steady_writes`.
    replay: Option<Replay>,
    /// The workload again exactly as the run sees it, for
    /// `ftl.precondition.place_reads = "before_run"`.
    again: Option<Replay>,
}

impl HostFront {
    pub(super) fn new(cfg: &HostConfig) -> HostFront {
        HostFront {
            next: None,
            ahead: None,
            last_arrival: 0,
            queue: VecDeque::new(),
            outstanding: 0,
            queue_depth: cfg.queue_depth,
            submission_queue: if cfg.latency_from == LatencyFrom::SubmissionQueue { cfg.submission_queue } else { 0 },
            time_scale: cfg.time_scale,
            fold: cfg.address == AddressMode::Fold,
            source: "<workload>".into(),
            footprint_bytes: None,
            replay: None,
            again: None,
        }
    }

    /// The workload's next request (the one read ahead, if any), reading
    /// one more ahead of it; None when the workload has ended.
    fn read(&mut self, workload: &mut dyn Iterator<Item = Result<Request>>) -> Option<Result<Request>> {
        let next = match self.ahead.take() {
            Some(r) => r,
            None => workload.next(),
        };
        let r = next?;
        self.ahead = Some(workload.next());
        Some(r)
    }

    /// The request read ahead, if it is one.
    fn ahead(&self) -> Option<&Request> {
        match &self.ahead {
            Some(Some(Ok(r))) => Some(r),
            _ => None,
        }
    }

    /// `r`'s arrival (its time times `host.time_scale`), checked to come
    /// no earlier than the previous request's.
    fn arrival(&mut self, r: &Request) -> Result<Time> {
        let scale = self.time_scale;
        let arrival = if scale == 1.0 { r.time_ns } else { (r.time_ns as f64 * scale).round() as u64 };
        if arrival < self.last_arrival {
            return Err(Error::trace(
                &self.source,
                r.line,
                format!("arrival time {} ns is before the previous request's ({} ns)", arrival, self.last_arrival),
            ));
        }
        self.last_arrival = arrival;
        Ok(arrival)
    }

    /// Split a request into its page range, checking its address; its
    /// arrival is its time as it stands. True with it: its address was
    /// folded into the logical space.
    fn split(&self, r: &Request, geo: &Geometry) -> Result<(HostIo, bool)> {
        let err = |reason: String| Err(Error::trace(&self.source, r.line, reason));
        if r.size == 0 {
            return err("request of size 0".into());
        }
        let logical = geo.logical_pages as u64;
        let (first, end) = geo.page_span(r.offset, r.size);
        let pages = end - first;
        if pages > logical || pages > u32::MAX as u64 / 2 {
            return err(format!("request of {pages} pages exceeds the logical space ({logical} pages)"));
        }
        let mut lpn = first;
        let folded = first + pages > logical;
        if folded {
            if !self.fold {
                return err(format!(
                    "bytes {}..{} are beyond the logical space ({} bytes); host.address = \"strict\" refuses them (the default, \"fold\", folds them into it)",
                    r.offset,
                    r.offset.saturating_add(r.size as u64),
                    geo.logical_bytes()
                ));
            }
            lpn = (first % logical).min(logical - pages);
        }
        let io = HostIo {
            req: 0,
            arrival: r.time_ns,
            start: r.time_ns,
            offset: r.offset,
            size: r.size,
            lpn: lpn as u32,
            pages: pages as u32,
            write: r.kind == IoKind::Write,
            discard: r.kind == IoKind::Discard,
            content: r.content,
            seq: 0,
            stream: 0,
        };
        Ok((io, folded))
    }

    /// The workload's request whose arrival is scheduled, taken as it arrives.
    fn take_next(&mut self) -> Option<HostIo> {
        self.next.take()
    }

    /// Whether the workload has a request still to arrive.
    pub(super) fn has_next(&self) -> bool {
        self.next.is_some()
    }

    /// Requests admitted and not complete, and queued at the host.
    pub(super) fn waiting(&self) -> u64 {
        self.outstanding as u64 + self.queue.len() as u64
    }

    /// Requests admitted and not complete.
    pub(super) fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// Whether a request arriving now waits at the host: `queue_depth`
    /// are out (`behind`: or others already wait, as a discard must not
    /// overtake them).
    pub(super) fn full(&self, behind: bool) -> bool {
        let qd = self.queue_depth;
        qd > 0 && (self.outstanding >= qd || (behind && !self.queue.is_empty()))
    }

    /// `io` waits at the host for a slot.
    pub(super) fn wait(&mut self, io: HostIo) {
        self.queue.push_back(io);
    }

    /// The request waiting longest at the host, taken to be admitted
    /// (`now`). With a bounded submission queue the first request beyond
    /// it enters it now: MQSim's host refills the ring as completions show
    /// room (IO_Flow_Base::NVMe_consume_io_request) and the device fetches
    /// in ring order, one per completion (Input_Stream_Manager_NVMe::
    /// Handle_serviced_request); a request reaches that position only from
    /// the one behind it, so each entry's start is set once.
    pub(super) fn next_queued(&mut self, now: Time) -> Option<HostIo> {
        let io = self.queue.pop_front()?;
        if self.submission_queue > 0 {
            if let Some(entered) = self.queue.get_mut(self.submission_queue as usize - 1) {
                entered.start = now;
            }
        }
        Some(io)
    }

    /// A request was admitted (takes a slot) or completed (frees one).
    pub(super) fn admitted(&mut self) {
        self.outstanding += 1;
    }

    pub(super) fn completed(&mut self) {
        self.outstanding -= 1;
    }

    pub(super) fn set_source(&mut self, source: &str) {
        self.source = source.to_string();
    }

    pub(super) fn set_footprint(&mut self, bytes: u64) {
        self.footprint_bytes = Some(bytes);
    }

    pub(super) fn footprint(&self) -> Option<u64> {
        self.footprint_bytes
    }

    pub(super) fn set_replay(&mut self, replay: Replay) {
        self.replay = Some(replay);
    }

    pub(super) fn take_replay(&mut self) -> Option<Replay> {
        self.replay.take()
    }

    pub(super) fn set_again(&mut self, again: Replay) {
        self.again = Some(again);
    }

    pub(super) fn take_again(&mut self) -> Option<Replay> {
        self.again.take()
    }
}

impl Simulation {
    /// Read the next request and schedule its arrival.
    pub(super) fn pull_next(&mut self, workload: &mut dyn Iterator<Item = Result<Request>>) -> Result<()> {
        let Some(r) = self.host.read(workload) else { return Ok(()) };
        self.prefetch();
        let io = self.split_request(&r?)?;
        // The entries of the pages it maps to, now that its map entries had
        // one arrival's time to come in.
        for lpn in io.lpn..io.lpn + io.pages.min(16) {
            self.ftl.prefetch_mapped(lpn);
        }
        self.host.next = Some(io);
        self.q.schedule(io.arrival, Event::Arrival)
    }

    /// Cache hints for the request read ahead: its map entries and its words
    /// of the placed bitmap (an error or an address out of range is left
    /// for `split_request` to report; a hint past a table's end reads nothing).
    fn prefetch(&self) {
        if let Some(r) = self.host.ahead() {
            let (first, end) = self.geo.page_span(r.offset, r.size);
            if end <= u32::MAX as u64 {
                self.ftl.prefetch_map(first as u32..end as u32);
                self.placed.prefetch((first >> 6) as u32);
                if end <= self.geo.logical_pages as u64 {
                    self.prefetch_buffer(first as u32..end as u32);
                }
            }
        }
    }

    /// Split a request into its page range, checking its address and time.
    fn split_request(&mut self, r: &Request) -> Result<HostIo> {
        let mut io = self.split_pages(r)?;
        io.arrival = self.host.arrival(r)?;
        Ok(io)
    }

    /// Split a request into its page range, checking its address (and
    /// counting it if folded); its arrival is its time as it stands.
    pub(super) fn split_pages(&mut self, r: &Request) -> Result<HostIo> {
        let (io, folded) = self.host.split(r, &self.geo)?;
        self.n.folded += folded as u64;
        Ok(io)
    }

    /// The pending request arrives: record it and admit it (or queue it at
    /// the host when the queue-depth limit is reached).
    pub(super) fn arrive(&mut self) -> Result<()> {
        let Some(io) = self.host.take_next() else { return Ok(()) };
        self.enter(io, false)
    }

    /// Record a request arriving now and admit it (or queue it at the
    /// host); `ramp`: it is left out of the statistics (a closed-loop
    /// flow's ramp).
    pub(super) fn enter(&mut self, mut io: HostIo, ramp: bool) -> Result<()> {
        if io.discard {
            return self.enter_discard(io);
        }
        // In the submission queue at once unless it is full (`next_queued`).
        io.start = io.arrival;
        let counted_warm = self.log.arrived() < self.cfg.host.warmup_requests;
        // A ramp request beyond the warm-up count is warm-up all the same.
        self.n.ramped += (ramp && !counted_warm) as u64;
        let warm = ramp || counted_warm;
        let in_flight = self.host.waiting() + 1;
        io.req = self.log.arrive(io.arrival, io.offset, io.size, io.write, warm, in_flight);
        if io.write {
            io.seq = self.n.write_seq;
            self.n.write_seq += io.pages as u64;
            self.n.host_written += io.pages as u64;
        } else {
            self.n.host_read += io.pages as u64;
        }
        self.n.arrivals += 1;
        if self.host.full(false) {
            self.host.wait(io);
            return Ok(());
        }
        self.admit(io)
    }

    pub(super) fn admit(&mut self, io: HostIo) -> Result<()> {
        if io.discard {
            return self.apply_discard(io);
        }
        self.host.admitted();
        let t = self.txns.alloc(TxnKind::Host { req: io.req });
        self.txns.get_mut(t).io = io;
        // Written as the two cases that need no translation first: a DRAM map, a write the buffer takes.
        #[allow(clippy::nonminimal_bool)]
        if !self.ftl.mapping.is_dram() && !(io.write && self.wbuf.is_some()) && self.translate(t)? {
            return self.after_plan(t);
        }
        self.plan_host(t, 0, true)
    }

    /// The token of page `i` of a host write.
    pub(super) fn write_token(io: &HostIo, i: u32) -> Token {
        if io.content != 0 {
            page_token(io.content, i)
        } else {
            mix64((io.seq + i as u64) ^ UNIQUE_SALT) | 1
        }
    }

    /// Plan pages `from..` of a host transaction and start what was planned.
    pub(super) fn plan_host(&mut self, t: u32, from: u32, first: bool) -> Result<()> {
        let io = self.txns.get(t).io;
        if io.write && self.wbuf.is_some() {
            return self.plan_buffered_write(t, from);
        }
        let range = io.lpn + from..io.lpn + io.pages;
        self.scratch.plan.clear();
        self.ftl.clear_refusals();
        let mut unplaced = None;
        let stalled = if io.write {
            self.scratch.tokens.clear();
            self.scratch.tokens.extend((from..io.pages).map(|i| Self::write_token(&io, i)));
            let mut plan = std::mem::take(&mut self.scratch.plan);
            let tokens = std::mem::take(&mut self.scratch.tokens);
            let r = self.with_ctx(|s, ctx| s.plan_write(range.clone(), &tokens, ctx, &mut plan));
            let done = r.err().map_or(io.pages - from, |s| s.done);
            self.fix_background_expectations();
            for (i, lpn) in (range.start..range.start + done).enumerate() {
                mark_written(&mut self.placed, &mut self.oracle, lpn, tokens[i]);
                self.lot.placed(lpn);
            }
            self.cache_forget(range.start..range.start + done);
            self.scratch.plan = plan;
            self.scratch.tokens = tokens;
            r.err().map(|s| from + s.done)
        } else {
            match self.place_unwritten(range.clone()) {
                Some(lpn) => {
                    unplaced = Some(lpn);
                    Some(from)
                }
                None => {
                    let mut plan = std::mem::take(&mut self.scratch.plan);
                    plan.clear();
                    if first {
                        self.count_buffer_reads(io.pages);
                    }
                    let r = if self.rcache.is_some() || self.trim.is_some() {
                        self.plan_read_cached(range.clone(), &mut plan)
                    } else if self.buffered_any(range.clone()) {
                        self.plan_read_around_buffer(range.clone(), &mut plan)
                    } else {
                        self.with_ctx(|s, ctx| s.plan_read(range.clone(), ctx, &mut plan))
                    };
                    self.n.buffered_reads += plan.buffered as u64;
                    self.scratch.plan = plan;
                    r.err().map(|s| from + s.done)
                }
            }
        };
        let mut plan = std::mem::take(&mut self.scratch.plan);
        if stalled.is_some() && !io.write {
            plan.clear(); // a read waits whole for its pages to be placed
        }
        if first && io.write {
            plan.delay_ns += self.link.as_mut().map_or(0, |l| l.to_device(self.q.now(), io.size));
        }
        self.launch_planned(t, plan, first, from, stalled, unplaced)
    }

    /// Start what was planned for `t` (`plan`, handed back to `self.scratch.plan`
    /// afterwards), and park the rest from page `stalled` on, if any, until
    /// an erase frees a page.
    #[inline]
    pub(super) fn launch_planned(
        &mut self,
        t: u32,
        plan: Plan,
        first: bool,
        from: u32,
        stalled: Option<u32>,
        unplaced: Option<Lpn>,
    ) -> Result<()> {
        self.materialize(t, &plan, first)?;
        self.scratch.plan = plan;
        self.txns.get_mut(t).stalled = stalled.is_some();
        if let Some(at) = stalled {
            self.n.stalls += self.park(t, from, at, unplaced) as u64;
        }
        self.after_plan(t)
    }

    /// Background plans the scheme submitted while planning a write (e.g.
    /// a rebuild) read the data as it was before the write: verify them
    /// against that, not against the write's tokens.
    pub(super) fn fix_background_expectations(&mut self) {
        let Some(o) = self.oracle.as_ref() else { return };
        for g in self.scratch.bg.iter_mut().flat_map(|p| p.groups.iter_mut()) {
            if g.check && g.expect.is_none() {
                g.expect = Some(o.flash(g.lpn));
            }
        }
    }

    /// A read's data is out of the flash: send it over the host link, if
    /// one is modelled and it has not been sent yet (true: it completes later).
    pub(super) fn send_to_host(&mut self, t: u32) -> Result<bool> {
        let txn = self.txns.get(t);
        let Some(link) = self.link.as_mut().filter(|_| !txn.io.write && !txn.sent) else { return Ok(false) };
        let wait = link.to_host(self.q.now(), txn.io.size);
        let txn = self.txns.get_mut(t);
        (txn.sent, txn.scheduled) = (true, true);
        txn.delay_ns += wait;
        self.q.after(wait, Event::TxnFinish(t))?;
        Ok(true)
    }

    /// A host request finished: record it and admit a queued one.
    pub(super) fn finish_host(&mut self, t: u32) -> Result<()> {
        let txn = self.txns.get(t);
        let io = txn.io;
        let end = if txn.early { txn.ack_at } else { self.q.now() };
        let latency = end - io.start;
        if io.start != io.arrival {
            self.log.waited_at_host(io.req, io.start - io.arrival);
        }
        let (bus, array) = (txn.bus_ns + txn.map_bus_ns, txn.array_ns + txn.map_array_ns);
        if txn.retry_steps > 0 {
            self.log.retried(io.req, txn.retry_steps);
        }
        self.log.complete(io.req, latency, bus, array, txn.delay_ns, txn.lost > 0)?;
        if !io.write && self.rcache.is_some() {
            self.cache_read(io.lpn..io.lpn + io.pages);
        }
        self.host.completed();
        self.closed_done(&io, latency)?;
        self.admit_queued()
    }
}
