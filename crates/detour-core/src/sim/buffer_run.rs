//! The DRAM write buffer as a part (`[write_buffer]`): its pages
//! (`buffer.rs`), the writes waiting for room, MQSim's destage admission,
//! and its figures. It knows the time only as it is told; `flush.rs` joins
//! it to the event loop, the scheme and the FTL (the rules are there).

use super::buffer::WriteBuffer;
use super::txn::HostIo;
use super::Simulation;
use crate::config::{BufferAdmission, FlushClass, WriteBufferConfig};
use crate::ftl::Chunked;
use crate::metrics::WriteBufferSummary;
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
    /// Cold pages of the admission under way, to write back, then the
    /// pages it evicted.
    cold: Vec<Lpn>,
    evicted: Vec<Lpn>,
    /// The sectors each cache slot holds (MQSim's `State_bitmap_of_
    /// existing_sectors`, bit k: sector k of the page): a new slot takes
    /// its write's, a write to a slot adds its own (`Update_data`); the
    /// slot goes when its write-back ends (`Remove_slot`) or it is evicted.
    slots: HashMap<Lpn, u32>,
    /// Sectors the admission under way evicted: one DRAM read of them all
    /// (`MEMORY_READ_FOR_CACHE_EVICTION_FINISHED`), which the evictions'
    /// write-backs wait for, and the write's own DRAM access queues behind.
    evicted_sectors: u64,
    /// Evicted page -> when its DRAM read ends, until its flush is planned.
    read_end: HashMap<Lpn, Time>,
}

/// MQSim's `SECTOR_SIZE_IN_BYTE` (SSD_Defs.h).
const SECTOR: u32 = 512;

/// Sectors of page `i` of write `io` that it writes (MQSim's
/// `write_sectors_bitmap` of the page's transaction), at least one.
fn sectors_of_page(io: &HostIo, i: u32, page_size: u32) -> u64 {
    let (lo, hi) = io.page_sectors(i, page_size);
    hi.saturating_sub(lo).max(1)
}

/// The sectors of page `i` of write `io` that it writes, as a mask (bit k:
/// the page's sector k): SSDSim's `state` for `insert2buffer`
/// (`buffer_management`, ssd.c); the whole page if none.
pub(super) fn sector_mask(io: &HostIo, i: u32, page_size: u32) -> u32 {
    let below = |n: u64| if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    let full = below((page_size / SECTOR) as u64);
    let (lo, hi) = io.page_sectors(i, page_size);
    match below(hi) & !below(lo) & full {
        0 => full,
        m => m,
    }
}

/// `bloom_filter_reset_step` (Data_Cache_Manager_Flash_Advanced.h): 1 s.
const SEEN_WINDOW_NS: Time = 1_000_000_000;

impl Destage {
    fn new(page_size: u32, logical_pages: u32, planes: u32) -> Destage {
        Destage {
            max_sectors: planes.max(1) as u64 * (page_size / SECTOR).max(1) as u64,
            sectors_per_page: (page_size / SECTOR).max(1) as u64,
            short_by: HashMap::new(),
            short: 0,
            seen: Chunked::new(logical_pages as u64, 0),
            window: 0,
            next_reset: 0,
            cold: Vec::new(),
            evicted: Vec::new(),
            slots: HashMap::new(),
            evicted_sectors: 0,
            read_end: HashMap::new(),
        }
    }

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

    /// Sectors `mask` of page `lpn` are written to its cache slot.
    fn slot_written(&mut self, lpn: Lpn, mask: u32) {
        *self.slots.entry(lpn).or_default() |= mask;
    }

    /// Page `lpn` is evicted (`Evict_one_slot_lru`): its slot's sectors go
    /// to the flash, and only those (the write-back transaction's size).
    fn evicted(&mut self, lpn: Lpn) {
        let mask = self.slots.remove(&lpn).unwrap_or(0);
        let sectors = match mask.count_ones() as u64 {
            0 => self.sectors_per_page,
            n => n,
        };
        self.written_back(lpn, sectors);
        self.evicted_sectors += sectors;
        self.evicted.push(lpn);
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

/// SSDSim's eviction (`BufferAdmission::Evict`, `insert2buffer` in
/// flash.c): the pages the admission under way evicted, to flush now, and
/// which host write waits for which flush's data to reach its chip.
#[derive(Default)]
struct Evict {
    evicted: Vec<Lpn>,
    /// Flush transaction -> the host write that evicted its page.
    owner: HashMap<u32, u32>,
    /// Host write -> (its evictions still in flight, the latest end of
    /// their transfers so far).
    open: HashMap<u32, (u32, Time)>,
}

/// A host write waiting for room, from page `from` of its `pages` on,
/// since `since`.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    txn: u32,
    from: u32,
    pages: u32,
    since: Time,
}

pub(super) struct BufferRun {
    buf: WriteBuffer,
    page_size: u32,
    /// Unflushed pages the buffer keeps before it starts flushing.
    keep: u32,
    class: FlushClass,
    waiting: VecDeque<Waiting>,
    /// The last request has arrived: flush everything.
    draining: bool,
    destage: Option<Destage>,
    evict: Option<Box<Evict>>,
    s: WriteBufferSummary,
    /// Occupancy integral (pages x ns) up to `last_t`.
    area: u128,
    last_t: Time,
    /// `[write_buffer.dram]` when timed: one first-come-first-served server
    /// (MQSim's data-cache DRAM), busy until `dram_busy`.
    dram: Option<crate::config::DramTiming>,
    dram_busy: Time,
    /// `write_buffer.granularity = "sector"` (SSDSim's buffer).
    sectors: bool,
}

impl BufferRun {
    pub(super) fn new(cfg: &WriteBufferConfig, page_size: u32, logical_pages: u32, planes: u32) -> Option<Box<BufferRun>> {
        let cap = cfg.capacity(page_size).min(u32::MAX as u64) as u32;
        (cap > 0).then(|| {
            let evict = cfg.admission == BufferAdmission::Evict;
            let mut buf = WriteBuffer::new(cap, cfg.policy, logical_pages);
            let sectors = cfg.sector_granular();
            if sectors {
                buf.count_sectors(cfg.capacity_sectors(page_size).min(u32::MAX as u64) as u32);
            }
            Box::new(BufferRun {
                buf,
                page_size,
                keep: (cfg.flush_at * cap as f64).floor() as u32,
                class: cfg.flush_class,
                waiting: VecDeque::new(),
                draining: false,
                destage: (cfg.admission == BufferAdmission::Destage).then(|| Destage::new(page_size, logical_pages, planes)),
                evict: evict.then(Box::default),
                s: WriteBufferSummary { capacity_pages: cap as u64, ..Default::default() },
                area: 0,
                last_t: 0,
                dram: cfg.dram.timed().then(|| cfg.dram.clone()),
                dram_busy: 0,
                sectors,
            })
        })
    }

    /// Pages the buffer holds now (for the probe and a shared read cache).
    pub(super) fn pages(&self) -> u32 {
        self.buf.used()
    }

    /// Account the occupancy up to `now` (before it changes).
    fn advance(&mut self, now: Time) {
        self.area += self.buf.used() as u128 * (now - self.last_t) as u128;
        self.last_t = now;
    }

    /// An access of `bytes` arriving at `now` on a timed DRAM: its turn
    /// on the one channel (MQSim's `service_dram_access_request`, first
    /// come, first served) plus `estimate_dram_access_time`; when it ends.
    /// None when the DRAM is not timed.
    pub(super) fn dram_access(&mut self, now: Time, bytes: u64) -> Option<Time> {
        let d = self.dram.as_ref()?;
        self.dram_busy = self.dram_busy.max(now) + d.access_ns(bytes);
        Some(self.dram_busy)
    }

    pub(super) fn summary(&self, end: Time) -> WriteBufferSummary {
        let mut s = self.s.clone();
        let area = self.area + self.buf.used() as u128 * end.saturating_sub(self.last_t) as u128;
        s.occupancy_mean = if end > 0 { area as f64 / end as f64 } else { 0.0 };
        s.hit_ratio = if s.read_pages > 0 { s.read_hits as f64 / s.read_pages as f64 } else { 0.0 };
        s.wait_us_mean = if s.writes_waited > 0 { s.wait_us_total / s.writes_waited as f64 } else { 0.0 };
        s
    }

    /// Put pages `from..` of host write `io` in at `now`, calling
    /// `entered(lpn, token)` for each page that goes in; how many of its
    /// pages are in after this (all of them unless it filled up, or the
    /// destage admission's write-backs are at their limit).
    #[inline]
    pub(super) fn fill(&mut self, io: &HostIo, from: u32, now: Time, mut entered: impl FnMut(Lpn, Token)) -> u32 {
        self.advance(now);
        let mut i = from;
        // MQSim checks the back-pressure depth once per page, before it
        // evicts for it: a page that evicted goes in regardless
        let mut evicted = false;
        while i < io.pages {
            let checked = !std::mem::take(&mut evicted);
            if checked && self.destage.as_ref().is_some_and(|d| d.depth(self.buf.flushing()) >= d.max_sectors) {
                break;
            }
            let token = Simulation::write_token(io, i);
            let put = if self.sectors {
                self.buf.write_sectors(io.lpn + i, token, sector_mask(io, i, self.page_size))
            } else {
                self.buf.write(io.lpn + i, token)
            };
            let Some(hit) = put else {
                // SSDSim makes room by evicting the least recently used page
                if let Some(e) = self.evict.as_mut() {
                    if let Some(victim) = self.buf.evict() {
                        e.evicted.push(victim);
                        continue;
                    }
                }
                // MQSim too (`write_to_destage_buffer`): the slot is free at
                // once and the write goes on; only the slot's sectors go back
                if let Some(d) = self.destage.as_mut() {
                    if let Some(victim) = self.buf.evict() {
                        d.evicted(victim);
                        evicted = true;
                        continue;
                    }
                }
                break;
            };
            if let Some(d) = self.destage.as_mut() {
                d.slot_written(io.lpn + i, sector_mask(io, i, self.page_size));
                // a cold page goes to the flash now ("Eagerly write back cold data")
                if d.cold(io.lpn + i) && self.buf.take(io.lpn + i) {
                    d.cold.push(io.lpn + i);
                    d.written_back(io.lpn + i, sectors_of_page(io, i, self.page_size));
                }
            }
            self.s.write_pages += 1;
            self.s.write_hits += hit as u64;
            entered(io.lpn + i, token);
            i += 1;
        }
        self.s.occupancy_max = self.s.occupancy_max.max(self.buf.used() as u64);
        if let Some(d) = self.destage.as_mut() {
            if d.evicted_sectors > 0 {
                // one DRAM read of every slot it evicted, ahead of its own write
                let bytes = std::mem::take(&mut d.evicted_sectors) * SECTOR as u64;
                if let Some(c) = self.dram.as_ref() {
                    self.dram_busy = self.dram_busy.max(now) + c.access_ns(bytes);
                    d.read_end.extend(d.evicted.iter().map(|&l| (l, self.dram_busy)));
                }
                d.cold.append(&mut d.evicted);
            }
            d.end_admission(now);
        }
        i
    }

    /// When the DRAM read of evicted page `lpn` ends (destage, timed DRAM):
    /// its write-back waits for it (MQSim dispatches it on
    /// `MEMORY_READ_FOR_CACHE_EVICTION_FINISHED`). Asked once, as it is
    /// planned.
    pub(super) fn eviction_read_end(&mut self, lpn: Lpn) -> Option<Time> {
        self.destage.as_mut()?.read_end.remove(&lpn)
    }

    /// The cold pages the last `fill` took out of order, to write back
    /// now (destage); None if there are none. Hand the list back with
    /// `return_cold`, so admissions allocate nothing.
    pub(super) fn take_cold(&mut self) -> Option<Vec<Lpn>> {
        match self.destage.as_mut() {
            Some(d) if !d.cold.is_empty() => Some(std::mem::take(&mut d.cold)),
            _ => None,
        }
    }

    pub(super) fn return_cold(&mut self, cold: Vec<Lpn>) {
        if let Some(d) = self.destage.as_mut() {
            d.cold = cold;
            d.cold.clear();
        }
    }

    /// The pages the last `fill` evicted (SSDSim's rule), to flush now;
    /// None if none. Hand the list back with `return_evicted`.
    pub(super) fn take_evicted(&mut self) -> Option<Vec<Lpn>> {
        match self.evict.as_mut() {
            Some(e) if !e.evicted.is_empty() => Some(std::mem::take(&mut e.evicted)),
            _ => None,
        }
    }

    pub(super) fn return_evicted(&mut self, evicted: Vec<Lpn>) {
        if let Some(e) = self.evict.as_mut() {
            e.evicted = evicted;
            e.evicted.clear();
        }
    }

    /// Host write `host` waits for flush transaction `flush`, of a page it
    /// evicted, to have its data on the chip.
    pub(super) fn await_eviction(&mut self, host: u32, flush: u32) {
        let e = self.evict.as_mut().expect("evictions without SSDSim's rule");
        e.owner.insert(flush, host);
        e.open.entry(host).or_insert((0, 0)).0 += 1;
    }

    /// Whether host write `host` waits for evictions' transfers.
    pub(super) fn awaits_evictions(&self, host: u32) -> bool {
        self.evict.as_ref().is_some_and(|e| e.open.contains_key(&host))
    }

    /// Flush transaction `flush` ended, its data on the chip at `in_at`:
    /// the host write that evicted its page, with the time its data was all
    /// in, if this was its last eviction in flight.
    pub(super) fn eviction_done(&mut self, flush: u32, in_at: Time) -> Option<(u32, Time)> {
        let e = self.evict.as_mut()?;
        let host = e.owner.remove(&flush)?;
        let w = e.open.get_mut(&host).expect("an eviction's writer");
        w.0 -= 1;
        w.1 = w.1.max(in_at);
        let at = w.1;
        (w.0 == 0).then(|| {
            e.open.remove(&host);
            (host, at)
        })
    }

    /// A flush of `pages` pages starts.
    pub(super) fn count_flush(&mut self, pages: u32) {
        self.s.flushes += pages as u64;
        self.s.drained += if self.draining { pages as u64 } else { 0 };
    }

    /// Host write `txn` of `pages` pages waits for room from page `from`
    /// on, behind those already waiting.
    pub(super) fn wait(&mut self, txn: u32, from: u32, pages: u32, since: Time) {
        self.waiting.push_back(Waiting { txn, from, pages, since });
    }

    /// The write waiting longest: (its transaction, its first page not in).
    pub(super) fn first_waiting(&self) -> Option<(u32, u32)> {
        self.waiting.front().map(|w| (w.txn, w.from))
    }

    /// Whether host write `txn` waits for room.
    pub(super) fn is_waiting(&self, txn: u32) -> bool {
        self.waiting.iter().any(|w| w.txn == txn)
    }

    /// The first waiting write is in up to page `done`: it waits on.
    pub(super) fn still_waiting(&mut self, done: u32) {
        self.waiting[0].from = done;
    }

    /// The first waiting write is in whole at `now`: it waits no more.
    pub(super) fn stop_waiting(&mut self, now: Time) {
        let Some(w) = self.waiting.pop_front() else { return };
        self.s.writes_waited += 1;
        self.s.wait_us_total += (now - w.since) as f64 / 1e3;
    }

    /// The next run of pages to flush, marked in flight, while the buffer
    /// holds more unflushed pages than it keeps or a waiting write needs
    /// the room; None when nothing is to be flushed now.
    pub(super) fn next_flush(&mut self) -> Option<(Lpn, u32)> {
        if self.evict.is_some() {
            // SSDSim writes back only the pages a write evicts (`fill`)
            return None;
        }
        if self.destage.is_some() {
            // MQSim writes back cold pages as they enter and evicts a slot
            // for each write that finds the cache full (`fill`), nothing else
            return None;
        }
        let keep = if self.draining { 0 } else { self.keep };
        let need = self.waiting.front().map_or(0, |w| w.pages - w.from);
        if self.buf.dirty() <= keep && self.buf.flushing() >= need {
            return None;
        }
        self.buf.take_run(FLUSH_RUN)
    }

    /// The data the buffer holds for in-flight pages `lpns`, into `out`.
    pub(super) fn tokens(&self, lpns: Range<Lpn>, out: &mut Vec<Token>) {
        out.extend(lpns.map(|l| self.buf.token(l).expect("a page in flight stays buffered")));
    }

    /// The bytes the buffer holds of in-flight page `lpn`, when less than
    /// a page: a destage write-back of a partial page (its sectors, as
    /// MQSim's transaction carries them), an eviction of a node holding
    /// part of a page under `granularity = "sector"` (SSDSim's
    /// `size(stored)`); 0 (the whole page) otherwise.
    pub(super) fn written_bytes(&self, lpn: Lpn) -> u32 {
        if let Some(m) = self.buf.evicted_sectors(lpn) {
            // SSDSim's eviction writes back its node's sectors
            let bytes = m.count_ones() * SECTOR;
            return if bytes < self.page_size { bytes } else { 0 };
        }
        let Some(d) = self.destage.as_ref() else { return 0 };
        match d.short_by.get(&lpn) {
            Some(&lack) if lack > 0 && lack < d.sectors_per_page => ((d.sectors_per_page - lack) * SECTOR as u64) as u32,
            _ => 0,
        }
    }

    /// The sectors the eviction of `lpn` in flight writes back (sector
    /// mode; None otherwise).
    pub(super) fn evicted_sectors(&self, lpn: Lpn) -> Option<u32> {
        self.buf.evicted_sectors(lpn)
    }

    /// Flushes run at background priority (`write_buffer.flush_class`).
    pub(super) fn flushes_in_background(&self) -> bool {
        self.class == FlushClass::Background
    }

    /// Flushed pages `lpns` are on the flash at `now`: free their slots.
    pub(super) fn flushed(&mut self, lpns: Range<Lpn>, now: Time) {
        self.advance(now);
        for lpn in lpns {
            self.buf.flushed(lpn);
            if let Some(d) = self.destage.as_mut() {
                d.ended(lpn);
                if !self.buf.contains(lpn) {
                    // `Remove_slot`: the write-back ended, not rewritten since
                    d.slots.remove(&lpn);
                }
            }
        }
    }

    /// The last request has arrived: flush everything from now on. False
    /// if it was already draining.
    pub(super) fn start_draining(&mut self) -> bool {
        !std::mem::replace(&mut self.draining, true)
    }

    /// Cache hints for a request read ahead (see `WriteBuffer::prefetch`).
    pub(super) fn prefetch(&self, lpns: Range<Lpn>) {
        self.buf.prefetch(lpns);
    }

    /// Whether any page of `lpns` is buffered.
    pub(super) fn holds_any(&self, lpns: Range<Lpn>) -> bool {
        lpns.into_iter().any(|l| self.buf.contains(l))
    }

    /// A host read of `lpn`: the data buffered for it, if any (a use
    /// under LRU).
    pub(super) fn read(&mut self, lpn: Lpn) -> Option<Token> {
        self.buf.read(lpn)
    }

    /// A host read took a page from the buffer.
    pub(super) fn count_read_hit(&mut self) {
        self.s.read_hits += 1;
    }

    /// A host read of `pages` pages arrived (the hit ratio's denominator).
    pub(super) fn count_reads(&mut self, pages: u32) {
        self.s.read_pages += pages as u64;
    }
}
