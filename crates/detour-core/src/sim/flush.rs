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
//! while fewer write-backs are in flight than the device has planes, and
//! nothing is flushed at the end (MQSim has no such flush).
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

    /// Plan the flash write of buffered pages `lpn..lpn + pages`, already
    /// marked in flight.
    fn start_flush(&mut self, lpn: Lpn, pages: u32) -> Result<()> {
        if let Some(b) = self.wbuf.as_mut() {
            b.count_flush(pages);
        }
        let t = self.txns.alloc(TxnKind::Flush { lpn, pages });
        if !self.ftl.mapping.is_dram() && self.translate(t)? {
            return self.after_plan(t);
        }
        self.plan_flush(t, 0)
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
            let txn = self.txns.get_mut(t);
            txn.stalled = false;
            txn.buffered = pages;
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
        self.launch_planned(t, plan, from == 0, from, stalled, None)
    }

    /// Flushed pages `lpns` are on the flash: free their slots and use the room.
    pub(super) fn flush_done(&mut self, lpns: Range<Lpn>) -> Result<()> {
        let now = self.q.now();
        if let Some(b) = self.wbuf.as_mut() {
            b.flushed(lpns, now);
        }
        self.admit_waiting()?;
        self.flush_some()
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
