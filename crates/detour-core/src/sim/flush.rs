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
//! below) a page first written in the current second is written back as
//! it enters, the others stay until the buffer is full, pages enter only
//! while fewer write-backs are in flight than the device has planes, and
//! nothing is flushed at the end (MQSim has no such flush).

use super::buffer::WriteBuffer;
use super::txn::TxnKind;
use super::{mark_buffered, Simulation};
use crate::config::{BufferAdmission, FlushClass, WriteBufferConfig};
use crate::engine::Event;
use crate::error::Result;
use crate::ftl::Chunked;
use crate::metrics::WriteBufferSummary;
use crate::scheduler::Class;
use crate::schemes::{Plan, Stall};
use crate::types::{Lpn, Time, Token};
use std::collections::{HashMap, VecDeque};
use std::ops::Range;

/// Pages flushed in one flash write at most (a run of consecutive LPNs, as
/// a host's large write would be).
const FLUSH_RUN: u32 = 64;

/// MQSim's destage-buffer admission
/// (`Data_Cache_Manager_Flash_Advanced::write_to_destage_buffer`).
struct Destage {
    /// Sectors of write-backs in flight before a write's next page must
    /// wait: one page per plane of the device (`back_pressure_buffer_max_depth`,
    /// set in SSD_Device.cpp to channels x chips x dies x planes x
    /// Page_Capacity / SECTOR_SIZE_IN_BYTE). MQSim counts sectors
    /// (`back_pressure_buffer_depth` grows by the sectors a page's write
    /// holds and shrinks by the written-back transaction's size), so write-
    /// backs of partial pages leave room for more.
    max_sectors: u64,
    sectors_per_page: u64,
    /// Sectors the partial pages written back and in flight lack of a full
    /// page, by LPN, and their sum: the depth is the flushing pages x
    /// sectors a page, less this.
    short_by: HashMap<Lpn, u64>,
    short: u64,
    /// LPN -> the window (its number + 1) it was last written in: MQSim's
    /// per-stream "bloom filter" of written LPAs, cleared at the end of an
    /// admission once the time passes `next_reset`.
    seen: Chunked<u32>,
    window: u32,
    next_reset: Time,
    /// Cold pages of the admission under way, to write back.
    cold: Vec<Lpn>,
}

/// MQSim's `SECTOR_SIZE_IN_BYTE` (SSD_Defs.h).
const SECTOR: u32 = 512;

/// Sectors of page `i` of write `io` that it writes (MQSim's
/// `write_sectors_bitmap` of the page's transaction): all of them but in
/// a first or last page the request covers in part.
fn sectors_of_page(io: &super::txn::HostIo, i: u32, page_size: u32) -> u64 {
    let ps = page_size as u64;
    let lo = if i == 0 { io.offset % ps } else { 0 };
    let end = io.offset + io.size as u64;
    let hi = if i + 1 == io.pages && end % ps != 0 { end % ps } else { ps };
    (hi.div_ceil(SECTOR as u64)).saturating_sub(lo / SECTOR as u64).max(1)
}

/// `bloom_filter_reset_step` (Data_Cache_Manager_Flash_Advanced.h): 1 s.
const SEEN_WINDOW_NS: Time = 1_000_000_000;

impl Destage {
    /// Sectors of write-backs in flight, with `flushing` pages flushing.
    fn depth(&self, flushing: u32) -> u64 {
        (flushing as u64 * self.sectors_per_page).saturating_sub(self.short)
    }

    /// Cold page `lpn` holding `sectors` of data goes to the flash.
    fn written_back(&mut self, lpn: Lpn, sectors: u64) {
        let lack = self.sectors_per_page.saturating_sub(sectors);
        if lack > 0 {
            *self.short_by.entry(lpn).or_default() += lack;
            self.short += lack;
        }
    }

    /// Page `lpn`'s write-back has ended.
    fn ended(&mut self, lpn: Lpn) {
        if let Some(lack) = self.short_by.remove(&lpn) {
            self.short -= lack;
        }
    }

    /// A page of a write enters: whether it is cold (not written in this
    /// window), marking it written.
    fn cold(&mut self, lpn: Lpn) -> bool {
        let w = self.window + 1;
        let cold = self.seen.get(lpn) != w;
        self.seen.set(lpn, w);
        cold
    }

    /// The end of an admission at `now`: a new window once the last is over.
    fn end_admission(&mut self, now: Time) {
        if now > self.next_reset {
            self.window += 1;
            self.next_reset = now + SEEN_WINDOW_NS;
        }
    }
}

/// A host write waiting for room, from page `from` on, since `since`.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    txn: u32,
    from: u32,
    since: Time,
}

pub(super) struct BufferRun {
    buf: WriteBuffer,
    /// Unflushed pages the buffer keeps before it starts flushing.
    keep: u32,
    class: FlushClass,
    waiting: VecDeque<Waiting>,
    /// The last request has arrived: flush everything.
    draining: bool,
    destage: Option<Destage>,
    s: WriteBufferSummary,
    /// Occupancy integral (pages x ns) up to `last_t`.
    area: u128,
    last_t: Time,
    /// `[write_buffer.dram]` when timed: one first-come-first-served server
    /// (MQSim's data-cache DRAM), busy until `dram_busy`.
    dram: Option<crate::config::DramTiming>,
    dram_busy: Time,
}

impl BufferRun {
    /// Pages the buffer holds now (for the probe).
    pub(super) fn pages(&self) -> u32 {
        self.buf.used()
    }

    pub(super) fn new(cfg: &WriteBufferConfig, page_size: u32, logical_pages: u32, planes: u32) -> Option<Box<BufferRun>> {
        let cap = cfg.capacity(page_size).min(u32::MAX as u64) as u32;
        (cap > 0).then(|| {
            Box::new(BufferRun {
                buf: WriteBuffer::new(cap, cfg.policy, logical_pages),
                keep: (cfg.flush_at * cap as f64).floor() as u32,
                class: cfg.flush_class,
                waiting: VecDeque::new(),
                draining: false,
                destage: (cfg.admission == BufferAdmission::Destage).then(|| Destage {
                    max_sectors: planes.max(1) as u64 * (page_size / SECTOR).max(1) as u64,
                    sectors_per_page: (page_size / SECTOR).max(1) as u64,
                    short_by: HashMap::new(),
                    short: 0,
                    seen: Chunked::new(logical_pages as u64, 0),
                    window: 0,
                    next_reset: 0,
                    cold: Vec::new(),
                }),
                s: WriteBufferSummary { capacity_pages: cap as u64, ..Default::default() },
                area: 0,
                last_t: 0,
                dram: cfg.dram.timed().then(|| cfg.dram.clone()),
                dram_busy: 0,
            })
        })
    }

    /// Account the occupancy up to `now` (before it changes).
    fn advance(&mut self, now: Time) {
        self.area += self.buf.used() as u128 * (now - self.last_t) as u128;
        self.last_t = now;
    }

    fn note_max(&mut self) {
        self.s.occupancy_max = self.s.occupancy_max.max(self.buf.used() as u64);
    }

    pub(super) fn summary(&self, end: Time) -> WriteBufferSummary {
        let mut s = self.s.clone();
        let area = self.area + self.buf.used() as u128 * end.saturating_sub(self.last_t) as u128;
        s.occupancy_mean = if end > 0 { area as f64 / end as f64 } else { 0.0 };
        s.hit_ratio = if s.read_pages > 0 { s.read_hits as f64 / s.read_pages as f64 } else { 0.0 };
        s.wait_us_mean = if s.writes_waited > 0 { s.wait_us_total / s.writes_waited as f64 } else { 0.0 };
        s
    }
}

impl Simulation {
    /// Put pages `from..` of host write `t` in the buffer; how many of its
    /// pages are in after this (all of them unless it filled up).
    fn fill_buffer(&mut self, t: u32, from: u32) -> u32 {
        let io = self.txns.get(t).io;
        let b = self.wbuf.as_mut().expect("buffered write without a buffer");
        b.advance(self.q.now());
        let mut i = from;
        while i < io.pages {
            if b.destage.as_ref().is_some_and(|d| d.depth(b.buf.flushing()) >= d.max_sectors) {
                break;
            }
            let token = Self::write_token(&io, i);
            let Some(hit) = b.buf.write(io.lpn + i, token) else { break };
            if let Some(d) = b.destage.as_mut() {
                // a cold page goes to the flash now ("Eagerly write back cold data")
                if d.cold(io.lpn + i) && b.buf.take(io.lpn + i) {
                    d.cold.push(io.lpn + i);
                    d.written_back(io.lpn + i, sectors_of_page(&io, i, self.cfg.device.page_size));
                }
            }
            b.s.write_pages += 1;
            b.s.write_hits += hit as u64;
            mark_buffered(&mut self.placed, &mut self.oracle, io.lpn + i, token);
            if let Some(c) = self.rcache.as_mut() {
                c.forget(io.lpn + i);
            }
            self.lot.placed(io.lpn + i);
            i += 1;
        }
        b.note_max();
        if let Some(d) = b.destage.as_mut() {
            d.end_admission(self.q.now());
        }
        i
    }

    /// Put pages `from..` of host write `t` in the buffer and start the
    /// write-backs that admits (destage); how many of its pages are in.
    fn admit_pages(&mut self, t: u32, from: u32) -> Result<u32> {
        let done = self.fill_buffer(t, from);
        let cold = match self.wbuf.as_mut().and_then(|b| b.destage.as_mut()) {
            Some(d) if !d.cold.is_empty() => std::mem::take(&mut d.cold),
            _ => return Ok(done),
        };
        // one transaction per page, as MQSim's write-backs are
        for &lpn in &cold {
            self.start_flush(lpn, 1)?;
        }
        if let Some(d) = self.wbuf.as_mut().and_then(|b| b.destage.as_mut()) {
            d.cold = cold;
            d.cold.clear();
        }
        Ok(done)
    }

    /// Plan the flash write of buffered pages `lpn..lpn + pages`, already
    /// marked in flight.
    fn start_flush(&mut self, lpn: Lpn, pages: u32) -> Result<()> {
        if let Some(b) = self.wbuf.as_mut() {
            b.s.flushes += pages as u64;
            b.s.drained += if b.draining { pages as u64 } else { 0 };
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
            b.waiting.push_back(Waiting { txn: t, from: done, since: now });
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
        let Some(b) = self.wbuf.as_mut().filter(|b| b.dram.is_some()) else {
            return self.cfg.ftl.buffer_read_ns;
        };
        let bytes = if io.write { io.size as u64 } else { (buffered as u64 * page).min(io.size as u64) };
        let start = b.dram_busy.max(now);
        b.dram_busy = start + b.dram.as_ref().map_or(0, |d| d.access_ns(bytes));
        b.dram_busy - now
    }

    /// Flushes freed room: let waiting writes in, in arrival order.
    fn admit_waiting(&mut self) -> Result<()> {
        while let Some(w) = self.wbuf.as_ref().and_then(|b| b.waiting.front().copied()) {
            let done = self.admit_pages(w.txn, w.from)?;
            let pages = self.txns.get(w.txn).io.pages;
            let b = self.wbuf.as_mut().expect("waiting without a buffer");
            if done < pages {
                b.waiting[0].from = done;
                break;
            }
            b.waiting.pop_front();
            b.s.writes_waited += 1;
            b.s.wait_us_total += (self.q.now() - w.since) as f64 / 1e3;
            let txn = self.txns.get_mut(w.txn);
            txn.stalled = false;
            txn.buffered = pages;
            self.after_plan(w.txn)?;
        }
        Ok(())
    }

    /// Start flushes while the buffer holds more unflushed pages than it
    /// keeps, or a waiting write needs the room.
    pub(super) fn flush_some(&mut self) -> Result<()> {
        loop {
            let Some(b) = self.wbuf.as_mut() else { return Ok(()) };
            let run = match &b.destage {
                // MQSim evicts (least recently used first) only to make room
                // for a write that finds the cache full, one page at a time
                Some(d) => {
                    let full = b.buf.used() >= b.buf.capacity();
                    if !(full && !b.waiting.is_empty() && d.depth(b.buf.flushing()) < d.max_sectors) {
                        return Ok(());
                    }
                    1
                }
                None => {
                    let keep = if b.draining { 0 } else { b.keep };
                    let need = b.waiting.front().map_or(0, |w| self.txns.get(w.txn).io.pages - w.from);
                    if b.buf.dirty() <= keep && b.buf.flushing() >= need {
                        return Ok(());
                    }
                    FLUSH_RUN
                }
            };
            let Some((lpn, pages)) = b.buf.take_run(run) else { return Ok(()) };
            self.start_flush(lpn, pages)?;
        }
    }

    /// Plan pages `from..` of flush transaction `t` as the scheme plans a
    /// host write of them (again from where it stopped after a stall for a
    /// free page), with the data the buffer holds for them now.
    pub(super) fn plan_flush(&mut self, t: u32, from: u32) -> Result<()> {
        let TxnKind::Flush { lpn, pages } = self.txns.get(t).kind else { return Ok(()) };
        let range = lpn + from..lpn + pages;
        let b = self.wbuf.as_ref().expect("a flush without a buffer");
        self.scratch.tokens.clear();
        self.scratch.tokens.extend(range.clone().map(|l| b.buf.token(l).expect("a page in flight stays buffered")));
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
        if self.wbuf.as_ref().is_some_and(|b| b.class == FlushClass::Background) {
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
            b.advance(now);
            for lpn in lpns {
                b.buf.flushed(lpn);
                if let Some(d) = b.destage.as_mut() {
                    d.ended(lpn);
                }
            }
        }
        self.admit_waiting()?;
        self.flush_some()
    }

    /// The last request has arrived: flush whatever the buffer holds.
    pub(super) fn drain_buffer(&mut self) -> Result<()> {
        match self.wbuf.as_mut() {
            Some(b) if !b.draining => b.draining = true,
            _ => return Ok(()),
        }
        self.flush_some()
    }

    /// Cache hints for a request read ahead (see `WriteBuffer::prefetch`).
    pub(super) fn prefetch_buffer(&self, lpns: Range<Lpn>) {
        if let Some(b) = self.wbuf.as_ref() {
            b.buf.prefetch(lpns);
        }
    }

    /// Whether any page of `lpns` is buffered.
    pub(super) fn buffered_any(&self, lpns: Range<Lpn>) -> bool {
        let Some(b) = self.wbuf.as_ref() else { return false };
        lpns.into_iter().any(|l| b.buf.contains(l))
    }

    /// Plan a host read whose pages are partly in the buffer: those come
    /// from DRAM (checked against the oracle in verify mode), the runs
    /// between them from the flash.
    pub(super) fn plan_read_around_buffer(&mut self, lpns: Range<Lpn>, plan: &mut Plan) -> Result<(), Stall> {
        let mut start = lpns.start;
        for lpn in lpns.clone() {
            let Some(token) = self.wbuf.as_mut().and_then(|b| b.buf.read(lpn)) else { continue };
            if start < lpn {
                self.with_ctx(|s, ctx| s.plan_read(start..lpn, ctx, plan)).map_err(|_| Stall { done: 0 })?;
            }
            plan.buffered += 1;
            self.check_buffered(lpn, token);
            if let Some(b) = self.wbuf.as_mut() {
                b.s.read_hits += 1;
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
            b.s.read_pages += pages as u64;
        }
    }
}
