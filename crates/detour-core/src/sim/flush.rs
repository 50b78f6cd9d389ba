//! The DRAM write buffer in the request path (`[write_buffer]`).
//!
//! A host write puts its pages in the buffer and completes after the DRAM
//! access (`ftl.buffer_read_ns`); with no room it waits, whole, in arrival
//! order, until flushes free slots (back-pressure: nothing is dropped).
//! A host read takes its buffered pages from DRAM and plans the others on
//! the flash as usual. The buffer flushes its first pages (FIFO or LRU) as
//! flash writes planned by the scheme, like host writes, while more than
//! `flush_at` of it is unflushed, while a write waits for room, and all of
//! it once the last request has arrived.
//!
//! Under `write_buffer.admission = "destage"` (MQSim's rule, `Destage`
//! in buffer_run.rs) a page first written in the current second is written back as
//! it enters, the others stay until the buffer is full, pages enter only
//! while fewer write-backs are in flight than the device has planes, a
//! page that finds the buffer full evicts the least recently used one at
//! once (its slot free before the flush ends; the flush moves the sectors
//! written to it, after their DRAM read), and nothing is flushed at the
//! end (MQSim has no such flush).
//!
//! Under `write_buffer.admission = "evict"` (SSDSim's `insert2buffer`,
//! `Evict` in buffer_run.rs) a write that finds the buffer full evicts the
//! least recently used page at once (its slot free before the flush ends),
//! and completes when the data of every page it evicted is on its chip
//! (the flushes' programs are marked with their transfer's end, as host
//! programs are under transfer acknowledgement); nothing else is flushed.
//!
//! The buffer's state is its own (`buffer_run::BufferRun`); the methods
//! below join it to the event loop, the scheme and the FTL.

use super::txn::TxnKind;
use super::{mark_buffered, Simulation};
use crate::engine::Event;
use crate::error::Result;
use crate::scheduler::Class;
use crate::schemes::{Plan, Stall};
use crate::types::{Lpn, Time, Token};
use std::ops::Range;

impl Simulation {
    /// Put pages `from..` of host write `t` in the buffer; how many of its
    /// pages are in after this (all of them unless it filled up).
    fn fill_buffer(&mut self, t: u32, from: u32) -> u32 {
        let (io, now) = (self.txns.get(t).io, self.q.now());
        let b = self.wbuf.as_mut().expect("buffered write without a buffer");
        let (placed, oracle, rcache, lot) = (&mut self.placed, &mut self.oracle, &mut self.rcache, &mut self.lot);
        b.fill(&io, from, now, |lpn, token| {
            mark_buffered(placed, oracle, lpn, token);
            if let Some(c) = rcache.as_mut() {
                c.forget(lpn);
            }
            lot.placed(lpn);
        })
    }

    /// Put pages `from..` of host write `t` in the buffer and start the
    /// write-backs that admits (destage); how many of its pages are in.
    fn admit_pages(&mut self, t: u32, from: u32) -> Result<u32> {
        let done = self.fill_buffer(t, from);
        if let Some(evicted) = self.wbuf.as_mut().and_then(|b| b.take_evicted()) {
            self.start_evictions(t, evicted)?;
        }
        let Some(cold) = self.wbuf.as_mut().and_then(|b| b.take_cold()) else { return Ok(done) };
        // one transaction per page, as MQSim's write-backs are
        for &lpn in &cold {
            self.start_flush(lpn, 1)?;
        }
        if let Some(b) = self.wbuf.as_mut() {
            b.return_cold(cold);
        }
        Ok(done)
    }

    /// SSDSim's eviction (`write_buffer.admission = "evict"`): flush each
    /// page host write `t` evicted, one sub-request each (`creat_sub_request`
    /// in `insert2buffer`), and make `t` wait for their data to be on the chip.
    #[cold]
    #[inline(never)]
    fn start_evictions(&mut self, t: u32, evicted: Vec<Lpn>) -> Result<()> {
        for &lpn in &evicted {
            let f = self.start_flush(lpn, 1)?;
            if let Some(b) = self.wbuf.as_mut() {
                b.await_eviction(t, f);
            }
        }
        if let Some(b) = self.wbuf.as_mut() {
            b.return_evicted(evicted);
        }
        Ok(())
    }

    /// Plan the flash write of buffered pages `lpn..lpn + pages`, already
    /// marked in flight; its transaction.
    fn start_flush(&mut self, lpn: Lpn, pages: u32) -> Result<u32> {
        if let Some(b) = self.wbuf.as_mut() {
            b.count_flush(pages);
        }
        let t = self.txns.alloc(TxnKind::Flush { lpn, pages });
        if !self.ftl.mapping.is_dram() && self.translate(t)? {
            self.after_plan(t)?;
            return Ok(t);
        }
        self.plan_flush(t, 0)?;
        Ok(t)
    }

    /// Plan a host write through the buffer: its data crosses the host link
    /// first (if modelled; `launch_all` brings it back here), then it goes
    /// into the buffer now or waits for room.
    pub(super) fn plan_buffered_write(&mut self, t: u32, from: u32) -> Result<()> {
        let (io, now) = (self.txns.get(t).io, self.q.now());
        let txn = self.txns.get_mut(t);
        if from == 0 && txn.delay_ns == 0 {
            if let Some(fetch) = self.link.as_mut().map(|l| l.to_device(now, io.size)).filter(|&f| f > 0) {
                (txn.delay_ns, txn.scheduled) = (fetch, true);
                return self.q.after(fetch, Event::TxnStart(t));
            }
        }
        let done = self.admit_pages(t, from)?;
        let pages = io.pages;
        let b = self.wbuf.as_mut().expect("buffered write without a buffer");
        let txn = self.txns.get_mut(t);
        if done < pages {
            txn.stalled = true;
            b.wait(t, done, pages, now);
        } else {
            txn.buffered = pages;
            // in, but done only when the pages it evicted are on their chips
            txn.stalled = b.awaits_evictions(t);
        }
        self.flush_some()?;
        self.after_plan(t)
    }

    /// How long transaction `t`, `buffered` of whose pages the buffer
    /// serves, waits for its DRAM access: a flat `ftl.buffer_read_ns`, or
    /// under a timed `[write_buffer.dram]` its turn on MQSim's one DRAM
    /// channel (`service_dram_access_request`, first come, first served)
    /// plus `estimate_dram_access_time` of its bytes: a write's data
    /// (`dram_write_size_in_sectors`), a read's buffered pages.
    pub(super) fn buffer_access_ns(&mut self, t: u32, buffered: u32) -> Time {
        let (io, now, page) = (self.txns.get(t).io, self.q.now(), self.cfg.device.page_size as u64);
        let bytes = if io.write { io.size as u64 } else { (buffered as u64 * page).min(io.size as u64) };
        match self.wbuf.as_mut().and_then(|b| b.dram_access(now, bytes)) {
            Some(end) => end - now,
            None => self.cfg.ftl.buffer_read_ns,
        }
    }

    /// Flushes freed room: let waiting writes in, in arrival order.
    fn admit_waiting(&mut self) -> Result<()> {
        while let Some((t, from)) = self.wbuf.as_ref().and_then(|b| b.first_waiting()) {
            let done = self.admit_pages(t, from)?;
            let pages = self.txns.get(t).io.pages;
            let b = self.wbuf.as_mut().expect("waiting without a buffer");
            if done < pages {
                b.still_waiting(done);
                break;
            }
            b.stop_waiting(self.q.now());
            let evicting = b.awaits_evictions(t);
            let (txn, now) = (self.txns.get_mut(t), self.q.now());
            txn.stalled = evicting;
            txn.buffered = pages;
            if txn.early {
                // its evictions were in before its last pages entered
                txn.ack_at = txn.ack_at.max(now);
            }
            self.after_plan(t)?;
        }
        Ok(())
    }

    /// Start flushes while the buffer holds more unflushed pages than it
    /// keeps, or a waiting write needs the room.
    pub(super) fn flush_some(&mut self) -> Result<()> {
        while let Some((lpn, pages)) = self.wbuf.as_mut().and_then(|b| b.next_flush()) {
            self.start_flush(lpn, pages)?;
        }
        Ok(())
    }

    /// Plan pages `from..` of flush transaction `t` as the scheme plans a
    /// host write of them (again from where it stopped after a stall for a
    /// free page), with the data the buffer holds for them now.
    pub(super) fn plan_flush(&mut self, t: u32, from: u32) -> Result<()> {
        let TxnKind::Flush { lpn, pages } = self.txns.get(t).kind else { return Ok(()) };
        let range = lpn + from..lpn + pages;
        let b = self.wbuf.as_ref().expect("a flush without a buffer");
        self.scratch.tokens.clear();
        b.tokens(range.clone(), &mut self.scratch.tokens);
        let mut plan = std::mem::take(&mut self.scratch.plan);
        let tokens = std::mem::take(&mut self.scratch.tokens);
        plan.clear();
        self.ftl.clear_refusals();
        let updates = self.decide_update_reads(range.clone());
        let r = self.with_ctx(|s, ctx| s.plan_write(range.clone(), &tokens, ctx, &mut plan));
        self.scratch.tokens = tokens;
        let stalled = r.err().map(|s| from + s.done);
        self.fix_background_expectations();
        if let Some(o) = self.oracle.as_mut() {
            let done = stalled.unwrap_or(pages) - from;
            for (i, lpn) in (range.start..range.start + done).enumerate() {
                o.flushed(lpn, self.scratch.tokens[i]);
            }
        }
        if self.wbuf.as_ref().is_some_and(|b| b.flushes_in_background()) {
            for op in plan.ops.iter_mut() {
                op.class = Class::Background;
            }
        }
        if !updates.is_empty() {
            self.add_update_reads(&mut plan, &updates);
        }
        if let Some(end) = self.wbuf.as_mut().and_then(|b| b.eviction_read_end(lpn)).filter(|_| from == 0) {
            // an evicted page's data is read from DRAM first (destage)
            plan.delay_ns = plan.delay_ns.max(end.saturating_sub(self.q.now()));
        }
        self.launch_planned(t, plan, from == 0, from, stalled, None)
    }

    /// Flushed pages `lpns` (flush transaction `f`, its data on the chip at
    /// `in_at`) are on the flash: free their slots and use the room.
    pub(super) fn flush_done(&mut self, lpns: Range<Lpn>, f: u32, in_at: Time) -> Result<()> {
        let now = self.q.now();
        let mut evictor = None;
        if let Some(b) = self.wbuf.as_mut() {
            b.flushed(lpns, now);
            evictor = b.eviction_done(f, in_at);
        }
        if let Some((t, at)) = evictor {
            self.evictions_in(t, at)?;
        }
        self.admit_waiting()?;
        self.flush_some()
    }

    /// The pages host write `t` evicted all had their data on the chip by
    /// `at`: SSDSim ends the request then (`trace_output`: the latest
    /// `complete_time` of its sub-requests), not after a DRAM access.
    #[cold]
    #[inline(never)]
    fn evictions_in(&mut self, t: u32, at: Time) -> Result<()> {
        let txn = self.txns.get_mut(t);
        (txn.ack_at, txn.early) = (at, true);
        if txn.stalled && self.wbuf.as_ref().is_some_and(|b| b.is_waiting(t)) {
            return Ok(());
        }
        txn.stalled = false;
        self.after_plan(t)
    }

    /// The last request has arrived: flush whatever the buffer holds.
    pub(super) fn drain_buffer(&mut self) -> Result<()> {
        if self.wbuf.as_mut().is_some_and(|b| b.start_draining()) {
            return self.flush_some();
        }
        Ok(())
    }

    /// Cache hints for a request read ahead (see `WriteBuffer::prefetch`).
    pub(super) fn prefetch_buffer(&self, lpns: Range<Lpn>) {
        if let Some(b) = self.wbuf.as_ref() {
            b.prefetch(lpns);
        }
    }

    /// Whether any page of `lpns` is buffered.
    pub(super) fn buffered_any(&self, lpns: Range<Lpn>) -> bool {
        self.wbuf.as_ref().is_some_and(|b| b.holds_any(lpns))
    }

    /// Plan a host read whose pages are partly in the buffer: those come
    /// from DRAM (checked against the oracle in verify mode), the runs
    /// between them from the flash.
    pub(super) fn plan_read_around_buffer(&mut self, lpns: Range<Lpn>, plan: &mut Plan) -> Result<(), Stall> {
        let mut start = lpns.start;
        for lpn in lpns.clone() {
            let Some(token) = self.wbuf.as_mut().and_then(|b| b.read(lpn)) else { continue };
            if start < lpn {
                self.with_ctx(|s, ctx| s.plan_read(start..lpn, ctx, plan)).map_err(|_| Stall { done: 0 })?;
            }
            plan.buffered += 1;
            self.check_buffered(lpn, token);
            if let Some(b) = self.wbuf.as_mut() {
                b.count_read_hit();
            }
            start = lpn + 1;
        }
        if start < lpns.end {
            self.with_ctx(|s, ctx| s.plan_read(start..lpns.end, ctx, plan)).map_err(|_| Stall { done: 0 })?;
        }
        Ok(())
    }

    /// Verify mode: the buffer must hold the page's latest data.
    pub(super) fn check_buffered(&mut self, lpn: Lpn, token: Token) {
        let Some(expected) = self.oracle.as_ref().map(|o| o.host(lpn)) else { return };
        if expected != token {
            self.n.verify_errors += 1;
            if self.failures.len() < 16 {
                self.failures.push(super::VerifyFailure { time_ns: self.q.now(), lpn, expected, got: token });
            }
        }
    }

    /// Count a host read's pages against the buffer's hit ratio.
    pub(super) fn count_buffer_reads(&mut self, pages: u32) {
        if let Some(b) = self.wbuf.as_mut() {
            b.count_reads(pages);
        }
    }
}
