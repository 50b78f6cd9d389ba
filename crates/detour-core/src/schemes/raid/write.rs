//! Stripe writes for CR4, CR5 and CR5M: full-stripe writes compute the
//! parity directly; partial-stripe writes pre-read by read-modify-write or
//! reconstruct-write, whichever reads fewer pages (reconstruct-write on a
//! tie, paper III.A). Every parity update also reclaims CR5M's expired data
//! in the stripe: afterwards the parity covers the current data of every
//! member, so the stripe's mirror and expired pages are released.
//!
//! The new parity's token is the XOR of the members' tokens, which the
//! scheme tracks; the pre-reads carry the time. Degraded reads later XOR
//! what the flash actually holds, so verify mode checks this bookkeeping.

use super::mirror::invalidate;
use super::parity::ParityRaid;
use super::{abandon, alloc_in, blocked};
use crate::ftl::Stream;
use crate::scheduler::Class;
use crate::schemes::{Ctx, Plan, Stall};
use crate::types::{Lpn, Owner, Ppn, Token, NO_PAGE};

impl ParityRaid {
    /// Plan the write of `upd` (pages of stripe `j`); `done` is for stalls.
    pub(super) fn write_stripe(&mut self, j: u32, upd: &[(Lpn, Token)], ctx: &mut Ctx, plan: &mut Plan, done: u32) -> Result<(), Stall> {
        let full = upd.len() as u32 == self.layout.width();
        if self.org_mirrors() && !full && self.mw_ok(upd, ctx) {
            return self.mirror_write(upd, ctx, plan, done);
        }
        self.parity_update(j, upd, Class::HostWrite, ctx, plan).map_err(|_| Stall { done })
    }

    /// Write `upd` (possibly nothing: a reclaim) and a new parity for stripe `j`.
    pub(super) fn parity_update(&mut self, j: u32, upd: &[(Lpn, Token)], class: Class, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        let (data, parity) = self.alloc_stripe(j, upd, ctx, plan)?;
        let g = plan.group(self.layout.members(j).start, false);
        let reads = if parity.is_some() { self.pre_reads(j, upd, g, class, ctx, plan) } else { 0 };
        let stage = (reads > 0) as u8;
        self.release_entries(j, upd, ctx);
        let wclass = if class == Class::Background { Class::Background } else { Class::HostWrite };
        for (k, &(lpn, token)) in upd.iter().enumerate() {
            invalidate(ctx, ctx.ftl.map.get(lpn));
            // No page when the data channel has failed: the data lives in the parity only.
            ctx.ftl.map.set(lpn, data[k].unwrap_or(NO_PAGE));
            self.page_tokens.set(lpn, token);
            if let Some(p) = data[k] {
                plan.program(g, stage, p, Owner::lpn(lpn), token, wclass, 0);
                self.count_writes(self.layout.data_channel(lpn), 1);
            }
        }
        invalidate(ctx, self.parity.get(j));
        let ptok = self.layout.members(j).fold(0, |acc, m| acc ^ self.page_tokens.get(m));
        self.parity.set(j, parity.unwrap_or(NO_PAGE));
        self.parity_tokens.set(j, ptok);
        match parity {
            Some(p) => {
                plan.program(g, stage, p, Owner::aux(j), ptok, wclass, 0);
                self.count_writes(self.layout.parity_channel(j), 1);
            }
            None => self.stats.unprotected += 1,
        }
        self.alloc_buf = data;
        Ok(())
    }

    /// New pages for the data (None on a failed channel), in `upd`'s order
    /// in the reused `alloc_buf` (the caller puts it back), and the parity
    /// (None when the parity channel failed); all or nothing.
    #[allow(clippy::type_complexity)]
    fn alloc_stripe(&mut self, j: u32, upd: &[(Lpn, Token)], ctx: &mut Ctx, plan: &mut Plan) -> Result<(Vec<Option<Ppn>>, Option<Ppn>), Stall> {
        let parity_ch = self.layout.parity_channel(j);
        let layout = &self.layout;
        let target = |k: usize| match upd.get(k) {
            Some(&(lpn, _)) => (layout.data_channel(lpn), Owner::lpn(lpn), Stream::Host),
            None => (parity_ch, Owner::aux(j), Stream::Aux),
        };
        // Each channel takes at most one page of a stripe per stream, so this check is exact.
        for k in 0..=upd.len() {
            let (ch, _, st) = target(k);
            if blocked(ctx, layout.data_dies(ch), &self.fail, st) {
                return Err(Stall { done: 0 });
            }
        }
        let mut got = std::mem::take(&mut self.alloc_buf);
        got.clear();
        for k in 0..=upd.len() {
            let (ch, owner, stream) = target(k);
            let dies = layout.data_dies(ch);
            let page = alloc_in(ctx, dies.clone(), &self.fail, stream, owner);
            if page.is_none() && dies.clone().any(|d| !self.fail.dead(d)) {
                let pages: Vec<Ppn> = got.iter().flatten().copied().collect();
                abandon(&pages, ctx, plan);
                self.alloc_buf = got;
                return Err(Stall { done: 0 });
            }
            got.push(page);
        }
        let parity = got.pop().flatten();
        Ok((got, parity))
    }

    /// Plan the pre-reads (stage 0 of group `g`) and return how many.
    fn pre_reads(&mut self, j: u32, upd: &[(Lpn, Token)], g: u32, class: Class, ctx: &mut Ctx, plan: &mut Plan) -> u32 {
        let members = self.layout.members(j);
        let updated = |m: Lpn| upd.iter().any(|&(l, _)| l == m);
        let u = upd.len() as u32;
        let others_mirrored = members.clone().filter(|&m| !updated(m) && self.mt_get(m).is_some()).count() as u32;
        let full = u == self.layout.width();
        // RMW reads the old version of each update and the parity, plus the
        // expired and current pages of other mirrored members (to fold them
        // into the parity); RCW reads the current data not being updated.
        let rmw = u + 1 + 2 * others_mirrored;
        let rcw = self.layout.width() - u;
        let mut pages = std::mem::take(&mut self.read_buf);
        pages.clear();
        if full {
        } else if rcw <= rmw {
            pages.extend(members.filter(|&m| !updated(m)).map(|m| ctx.ftl.map.get(m)));
        } else {
            for m in members {
                let cur = ctx.ftl.map.get(m);
                match (updated(m), self.mt_get(m)) {
                    (true, Some(e)) => pages.push(e.eppn),
                    (true, None) => pages.push(cur),
                    (false, Some(e)) => pages.extend([e.eppn, cur]),
                    (false, None) => {}
                }
            }
            pages.push(self.parity.get(j));
        }
        let mut n = 0;
        for &p in &pages {
            // Never-written, still-buffered or failed pages need no flash read here.
            if p != NO_PAGE && ctx.ftl.is_programmed(p) && !self.fail.dead(ctx.geo.die_of(p)) {
                let rc = if class == Class::Background { Class::Background } else { Class::HostRead };
                plan.read_only(g, 0, p, rc, 0);
                n += 1;
            }
        }
        self.read_buf = pages;
        self.count_method(full, rcw <= rmw, class == Class::Background, n);
        n
    }

    fn count_method(&mut self, full: bool, rcw: bool, background: bool, reads: u32) {
        let s = &mut self.stats;
        if self.instant {
            return;
        }
        if background {
            s.prereads_reclaim += reads as u64;
        } else if full {
            s.full_stripe += 1;
        } else if rcw {
            s.rcw += 1;
            s.prereads_rcw += reads as u64;
        } else {
            s.rmw += 1;
            s.prereads_rmw += reads as u64;
        }
    }

    /// The parity is being recomputed over current data: drop the stripe's
    /// mirror entries and their expired and mirror pages.
    fn release_entries(&mut self, j: u32, upd: &[(Lpn, Token)], ctx: &mut Ctx) {
        if !self.org_mirrors() {
            return;
        }
        let _ = upd; // updated members are released like the others
        for m in self.layout.members(j) {
            let ch = self.layout.data_channel(m);
            if let Some(e) = self.mirror_table.remove(m, ch) {
                invalidate(ctx, e.eppn);
                invalidate(ctx, e.mppn);
            }
        }
    }
}
