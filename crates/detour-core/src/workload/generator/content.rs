//! The content value model: which values writes carry and which pages reads
//! hit, so that the unique-value shares of RR-SSD Table III come out by
//! construction (see docs/workloads.md for the design).
//!
//! Invariants that make the shares exact:
//! * a "new" write value comes from a counter and was never written before;
//!   a duplicate write copies a value from the write pool, which holds only
//!   values written before;
//! * a "fresh" read returns a value never read before: either a page never
//!   touched (its pre-existing value is unique to it) or a page whose current
//!   value was written new and not read since (the `unread` list);
//! * a "repeat" read returns a read-pool value, and the pool holds only values
//!   read before, checked against the page's current value at read time.
//!
//! Pages holding read-pool values are pinned; writes steer clear of them so
//! that popular read values survive.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::arrival::uniform;
use super::perm::Perm;
use super::pool::Pool;
use super::spec::ContentSpec;
use crate::types::mix64;

/// A page and the value it held when read (0 = never written).
type Held = (u32, u64);

pub(crate) struct ContentModel {
    write_unique: f64,
    read_unique: f64,
    fresh_from_written: f64,
    drift: f64,
    day_ns: f64,
    day: u64,
    salt: u64,
    counter: u64,
    /// Current value of each page, 0 = never written (pre-existing data).
    value: Vec<u64>,
    pins: Vec<u8>,
    touched: Vec<u64>,
    cold: Perm,
    cold_next: u64,
    reads: Pool<Held>,
    writes: Pool<u64>,
    /// Pages whose current value was written new and never read.
    unread: Vec<Held>,
    rng: ChaCha8Rng,
}

impl ContentModel {
    pub(crate) fn new(c: &ContentSpec, pages: u64, seed: u64, rng: ChaCha8Rng) -> Self {
        ContentModel {
            write_unique: c.write_unique,
            read_unique: c.read_unique,
            fresh_from_written: c.fresh_from_written,
            drift: c.drift_per_day,
            day_ns: c.day_s * 1e9,
            day: 0,
            salt: mix64(seed ^ 0xC0_47E7),
            counter: 0,
            value: vec![0; pages as usize],
            pins: vec![0; pages as usize],
            touched: vec![0; pages.div_ceil(64) as usize],
            cold: Perm::new(pages, mix64(seed ^ 0xC01D)),
            cold_next: 0,
            reads: Pool::new(c.read_pool as usize, c.read_theta),
            writes: Pool::new(c.write_pool as usize, c.write_theta),
            unread: Vec::new(),
            rng,
        }
    }

    fn touch(&mut self, lpn: u32) {
        self.touched[lpn as usize / 64] |= 1 << (lpn % 64);
    }

    fn is_touched(&self, lpn: u64) -> bool {
        self.touched[lpn as usize / 64] & (1 << (lpn % 64)) != 0
    }

    fn valid(value: &[u64], (lpn, v): Held) -> bool {
        value[lpn as usize] == v
    }

    fn pin(&mut self, lpn: u32, up: bool) {
        let p = &mut self.pins[lpn as usize];
        *p = if up { p.saturating_add(1) } else { p.saturating_sub(1) };
    }

    /// Whether `lpn` holds a popular read value that writes should avoid.
    pub(crate) fn is_pinned(&self, lpn: u64) -> bool {
        self.pins[lpn as usize] > 0
    }

    /// Advance to the day of `t_ns`, drifting both pools once per boundary
    /// (several skipped days drift once: nothing new arrived in between).
    pub(crate) fn advance(&mut self, t_ns: f64) {
        let day = (t_ns / self.day_ns) as u64;
        if day <= self.day {
            return;
        }
        self.day = day;
        if self.drift == 0.0 {
            return;
        }
        let value = &self.value;
        let moved = self.reads.drift(self.drift, &mut self.rng, |h| Self::valid(value, h));
        for (old, new) in moved {
            self.pin(old.0, false);
            self.pin(new.0, true);
        }
        self.writes.drift(self.drift, &mut self.rng, |_| true);
    }

    /// The value of the next write and whether it is new.
    pub(crate) fn write_value(&mut self) -> (u64, bool) {
        if !self.writes.is_empty() && uniform(&mut self.rng) >= self.write_unique {
            let rank = self.writes.draw(&mut self.rng).expect("non-empty");
            return (self.writes.get(rank), false);
        }
        self.counter += 1;
        let v = mix64(self.salt ^ self.counter);
        (if v == 0 { 1 } else { v }, true)
    }

    /// Record that `lpn` now holds `v`.
    pub(crate) fn record_write(&mut self, lpn: u64, v: u64, new: bool) {
        let lpn32 = lpn as u32;
        self.value[lpn as usize] = v;
        self.touch(lpn32);
        if new {
            self.writes.offer(v);
            // Bounded by the footprint: past it, a random old entry (likely
            // stale by now) gives way.
            if self.unread.len() < self.value.len() {
                self.unread.push((lpn32, v));
            } else {
                let i = self.rng.random_range(0..self.unread.len());
                self.unread[i] = (lpn32, v);
            }
        }
    }

    /// The page the next read hits.
    pub(crate) fn read(&mut self) -> u64 {
        let want_fresh = self.reads.is_empty() || uniform(&mut self.rng) < self.read_unique;
        let lpn = if want_fresh { self.fresh().or_else(|| self.repeat()) } else { self.repeat().or_else(|| self.fresh()) };
        // Both sources dry (tiny footprint): any page will do.
        let lpn = lpn.unwrap_or_else(|| self.rng.random_range(0..self.value.len() as u32));
        self.touch(lpn);
        lpn as u64
    }

    fn fresh(&mut self) -> Option<u32> {
        let written_first = uniform(&mut self.rng) < self.fresh_from_written;
        let got =
            if written_first { self.take_unread().or_else(|| self.take_cold()) } else { self.take_cold().or_else(|| self.take_unread()) };
        let h = got?;
        if self.reads.offer(h) {
            self.pin(h.0, true);
        }
        Some(h.0)
    }

    fn take_unread(&mut self) -> Option<Held> {
        while !self.unread.is_empty() {
            let i = self.rng.random_range(0..self.unread.len());
            let h = self.unread.swap_remove(i);
            if Self::valid(&self.value, h) {
                return Some(h);
            }
        }
        None
    }

    fn take_cold(&mut self) -> Option<Held> {
        while self.cold_next < self.cold.len() {
            let lpn = self.cold.fwd(self.cold_next);
            self.cold_next += 1;
            if !self.is_touched(lpn) {
                return Some((lpn as u32, 0));
            }
        }
        None
    }

    /// A page holding a popular, already-read value. A stale slot (its page
    /// was overwritten) is refilled from recent fresh reads and redrawn.
    fn repeat(&mut self) -> Option<u32> {
        for _ in 0..4 {
            let rank = self.reads.draw(&mut self.rng)?;
            let h = self.reads.get(rank);
            if Self::valid(&self.value, h) {
                return Some(h.0);
            }
            let value = &self.value;
            if let Some((old, new)) = self.reads.refresh(rank, &mut self.rng, |x| Self::valid(value, x)) {
                self.pin(old.0, false);
                self.pin(new.0, true);
            }
        }
        None
    }
}
