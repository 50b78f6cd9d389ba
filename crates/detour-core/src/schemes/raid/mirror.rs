//! CR5M's mirror table and mirroring writes.
//!
//! An LPN updated by a mirroring write (MW) keeps its entry here until the
//! stripe's parity is recomputed: the entry holds the expired page (EPPN:
//! the version the parity still covers, with its token) and the mirror copy
//! (MPPN) on the channel's mirror chip. The `ma` table is the paper's MA
//! field of the mapping entry: 0 is NULL, otherwise the entry's index + 1.

use super::config::Reclaim;
use super::parity::ParityRaid;
use super::{abandon, alloc_in, can_alloc_in};
use crate::ftl::{Chunked, Stream};
use crate::scheduler::Class;
use crate::schemes::{Ctx, Plan, Stall};
use crate::types::{Lpn, Owner, Ppn, Token, NO_PAGE};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Expired page: the version the stripe's parity covers (NO_PAGE if none).
    pub eppn: Ppn,
    /// The mirror copy of the current data.
    pub mppn: Ppn,
}

pub struct MirrorTable {
    ma: Chunked<u32>,
    entries: Vec<Entry>,
    free: Vec<u32>,
    /// Entries per channel, and how many a channel may hold.
    pub count: Vec<u32>,
    pub limit: Vec<u32>,
    /// LPNs in the order they were mirrored (stale ones are skipped): the
    /// oldest are reclaimed first when a mirror chip runs out of room.
    pub fifo: Vec<VecDeque<Lpn>>,
    /// `reclaim = "drain"`: channels whose mirroring is off while their
    /// entries are reclaimed, and the reclaim operations still in flight.
    pub draining: Vec<bool>,
    pub drain_left: u64,
}

impl MirrorTable {
    pub fn new(logical: u32, channels: u32, limit: u32) -> MirrorTable {
        MirrorTable {
            ma: Chunked::new(logical as u64, 0),
            count: vec![0; channels as usize],
            limit: vec![limit; channels as usize],
            fifo: vec![VecDeque::new(); channels as usize],
            draining: vec![false; channels as usize],
            drain_left: 0,
            entries: Vec::new(),
            free: Vec::new(),
        }
    }

    pub fn get(&self, lpn: Lpn) -> Option<Entry> {
        match self.ma.get(lpn) {
            0 => None,
            i => Some(self.entries[i as usize - 1]),
        }
    }

    pub fn set(&mut self, lpn: Lpn, ch: u32, e: Entry) {
        let i = self.ma.get(lpn);
        if i > 0 {
            self.entries[i as usize - 1] = e;
            return;
        }
        let idx = match self.free.pop() {
            Some(k) => {
                self.entries[k as usize] = e;
                k
            }
            None => {
                self.entries.push(e);
                self.entries.len() as u32 - 1
            }
        };
        self.ma.set(lpn, idx + 1);
        self.count[ch as usize] += 1;
        self.fifo[ch as usize].push_back(lpn);
    }

    pub fn remove(&mut self, lpn: Lpn, ch: u32) -> Option<Entry> {
        let e = self.get(lpn)?;
        let i = self.ma.get(lpn);
        self.free.push(i - 1);
        self.ma.set(lpn, 0);
        self.count[ch as usize] -= 1;
        Some(e)
    }

    /// The oldest LPN of `ch` that still has an entry.
    pub fn oldest(&mut self, ch: u32) -> Option<Lpn> {
        while let Some(lpn) = self.fifo[ch as usize].pop_front() {
            if self.get(lpn).is_some() {
                return Some(lpn);
            }
        }
        None
    }

    pub fn full(&self, ch: u32) -> bool {
        self.count[ch as usize] >= self.limit[ch as usize]
    }
}

impl ParityRaid {
    /// MW is possible for every updated page: no failure, and each page's
    /// mirror chip is idle (no outstanding command), below its threshold
    /// and not being drained.
    pub(super) fn mw_ok(&self, upd: &[(Lpn, Token)], ctx: &Ctx) -> bool {
        if self.fail.active || self.instant {
            return false;
        }
        upd.iter().all(|&(lpn, _)| {
            let ch = self.layout.data_channel(lpn);
            let t = &self.mirror_table;
            !t.full(ch) && !t.draining[ch as usize] && self.mirror_dies_of(ch).all(|d| ctx.load.occ(d) == 0)
        })
    }

    /// Mirroring write: each page to a data chip and to its channel's mirror
    /// chip at once; the parity is left alone (it still covers the expired version).
    pub(super) fn mirror_write(&mut self, upd: &[(Lpn, Token)], ctx: &mut Ctx, plan: &mut Plan, done: u32) -> Result<(), Stall> {
        for &(lpn, _) in upd {
            let ch = self.layout.data_channel(lpn);
            if !can_alloc_in(ctx, self.layout.data_dies(ch), &self.fail, Stream::Host) || !can_alloc_in(ctx, self.mirror_dies_of(ch), &self.fail, Stream::Aux) {
                return Err(Stall { done });
            }
        }
        let mut got: Vec<Ppn> = Vec::with_capacity(upd.len() * 2);
        for &(lpn, _) in upd {
            let ch = self.layout.data_channel(lpn);
            let d = alloc_in(ctx, self.layout.data_dies(ch), &self.fail, Stream::Host, Owner::lpn(lpn));
            let m = alloc_in(ctx, self.mirror_dies_of(ch), &self.fail, Stream::Aux, Owner::mirror(lpn));
            got.extend(d.iter().chain(m.iter()));
            if d.is_none() || m.is_none() {
                abandon(&got, ctx, plan);
                return Err(Stall { done });
            }
        }
        let g = plan.group(upd[0].0, false);
        for (k, &(lpn, token)) in upd.iter().enumerate() {
            let (data, copy) = (got[2 * k], got[2 * k + 1]);
            let ch = self.layout.data_channel(lpn);
            let old = ctx.ftl.map.get(lpn);
            let entry = match self.mirror_table.get(lpn) {
                Some(e) => {
                    // Already mirrored: the old current and its copy are simply stale.
                    invalidate(ctx, old);
                    invalidate(ctx, e.mppn);
                    Entry { mppn: copy, ..e }
                }
                None => Entry { eppn: old, mppn: copy },
            };
            self.mirror_table.set(lpn, ch, entry);
            ctx.ftl.map.set(lpn, data);
            self.page_tokens.set(lpn, token);
            plan.program(g, 0, data, Owner::lpn(lpn), token, Class::HostWrite, 0);
            if self.mirror_shared {
                plan.program_shared(g, 0, copy, Owner::mirror(lpn), token, Class::HostWrite, 0);
            } else {
                plan.program(g, 0, copy, Owner::mirror(lpn), token, Class::HostWrite, 0);
            }
            self.count_writes(ch, 1);
            self.stats.mirror_writes += !self.instant as u64;
        }
        self.stats.mw += 1;
        Ok(())
    }

    /// Read the mirror copy instead of the data page when the data chip is
    /// busy and the mirror chip less so (paper III.B.2).
    pub(super) fn mirror_for_read(&self, lpn: Lpn, cur: Ppn, ctx: &Ctx) -> Option<Ppn> {
        let e = self.mt_get(lpn)?;
        let (dd, md) = (ctx.geo.die_of(cur), ctx.geo.die_of(e.mppn));
        let usable = !self.fail.dead(md) && ctx.ftl.is_programmed(e.mppn);
        (usable && ctx.load.occ(dd) > 0 && ctx.load.occ(md) < ctx.load.occ(dd)).then_some(e.mppn)
    }

    /// Mirror chips at their threshold: recompute the parity of the stripe
    /// of the oldest mirrored page (`rolling`), or of every mirrored page of
    /// the channel (`drain`), in the background.
    pub(super) fn reclaim_full_mirrors(&mut self, ctx: &mut Ctx) {
        for ch in 0..self.layout.n {
            if self.reclaim == Reclaim::Drain {
                self.drain(ch, ctx);
                continue;
            }
            if !self.mirror_table.full(ch) {
                continue;
            }
            let Some(lpn) = self.mirror_table.oldest(ch) else { continue };
            let mut plan = Plan::default();
            let j = self.layout.stripe(lpn);
            if self.parity_update(j, &[], Class::Background, ctx, &mut plan).is_ok() {
                self.stats.reclaims += 1;
                ctx.background.push(plan);
            } else {
                self.mirror_table.fifo[ch as usize].push_front(lpn);
            }
        }
    }

    /// `reclaim = "drain"`: a full channel stops mirroring and reclaims all
    /// its entries; one that could not plan them all (no free page) goes on
    /// at the next write. Its ops are tagged so their completions can turn
    /// mirroring back on (`drain_done`).
    fn drain(&mut self, ch: u32, ctx: &mut Ctx) {
        let c = ch as usize;
        if self.mirror_table.full(ch) && !self.mirror_table.draining[c] {
            self.mirror_table.draining[c] = true;
            self.stats.drains += 1;
        }
        if !self.mirror_table.draining[c] {
            return;
        }
        let mut plan = Plan::default();
        while let Some(lpn) = self.mirror_table.oldest(ch) {
            let j = self.layout.stripe(lpn);
            if self.parity_update(j, &[], Class::Background, ctx, &mut plan).is_err() {
                self.mirror_table.fifo[c].push_front(lpn);
                break;
            }
            self.stats.reclaims += 1;
        }
        for op in plan.ops.iter_mut() {
            op.tag = TAG_RECLAIM;
        }
        self.mirror_table.drain_left += plan.ops.len() as u64;
        if !plan.ops.is_empty() {
            ctx.background.push(plan);
        }
        self.end_drains();
    }

    /// One reclaim operation of a drain finished.
    pub(super) fn drain_done(&mut self) {
        self.mirror_table.drain_left -= 1;
        self.end_drains();
    }

    /// With no reclaim in flight, every drained (empty) channel mirrors again.
    fn end_drains(&mut self) {
        let t = &mut self.mirror_table;
        if t.drain_left == 0 {
            for ch in 0..t.draining.len() {
                t.draining[ch] &= t.count[ch] > 0;
            }
        }
    }
}

/// Tags the operations of a drain's reclaims (`Reclaim::Drain`).
pub const TAG_RECLAIM: u32 = 0x5EC1_A000;

pub fn invalidate(ctx: &mut Ctx, ppn: Ppn) {
    if ppn != NO_PAGE {
        ctx.ftl.invalidate(ppn);
    }
}
