//! CR1: channel mirroring. Channel c (c < N/2) pairs with channel c + N/2;
//! an LPN's primary copy goes to channel `lpn % (N/2)` and its mirror copy
//! to the partner channel, each on the least-loaded die there. A write
//! completes when both copies are programmed; a read goes to whichever copy
//! sits on the less busy die, or to the survivor after a failure.

use super::failure::Failure;
use super::stats::Stats;
use super::{abandon, alloc_in, blocked};
use crate::device::Geometry;
use crate::ftl::{Chunked, Stream};
use crate::scheduler::Class;
use super::rebuild::TAG_REBUILD;
use crate::device::OpKind;
use crate::schemes::{Ctx, OpDone, Plan, Scheme, Stall};
use crate::types::{Lpn, Owner, Ppn, Time, Token, NO_PAGE};
use std::ops::Range;

pub struct Cr1 {
    /// Mirror copy of each LPN (the primary is in the shared map).
    mirror: Chunked<Ppn>,
    fail: Failure,
    stats: Stats,
    instant: bool,
    /// Rebuild: (new page, failed page it replaces) per copy in flight,
    /// copies still to finish, pages skipped (their survivor was still being
    /// written), pages copied, start and end time.
    rb_pending: Vec<(Ppn, Ppn)>,
    rb_left: u64,
    rb_retry: Vec<Lpn>,
    rb_pages: u64,
    rb_time: (Time, Option<Time>),
}

impl Cr1 {
    pub fn new(fail: Failure) -> Cr1 {
        Cr1 {
            mirror: Chunked::new(0, NO_PAGE),
            fail,
            stats: Stats::default(),
            instant: false,
            rb_pending: Vec::new(),
            rb_left: 0,
            rb_retry: Vec::new(),
            rb_pages: 0,
            rb_time: (0, None),
        }
    }

    fn half(geo: &Geometry) -> u32 {
        (geo.channels / 2).max(1)
    }

    fn channel_dies(geo: &Geometry, ch: u32) -> Range<u32> {
        let per = geo.dies_per_chip * geo.chips_per_channel;
        ch * per..(ch + 1) * per
    }

    fn ensure_tables(&mut self, ctx: &Ctx) {
        if self.stats.chan_writes.is_empty() {
            self.mirror = Chunked::new(ctx.geo.logical_pages as u64, NO_PAGE);
            self.stats = Stats::new(ctx.geo.channels);
        }
    }

    fn apply_failure(&mut self, ctx: &mut Ctx) {
        if !self.fail.due(ctx.now) {
            return;
        }
        self.fail.active = true;
        let gone = |p: Ppn| p == NO_PAGE || self.fail.dead(ctx.geo.die_of(p));
        self.fail.lost = (0..ctx.geo.logical_pages)
            .filter(|&l| ctx.ftl.map.get(l) != NO_PAGE && gone(ctx.ftl.map.get(l)) && gone(self.mirror.get(l)))
            .count() as u64;
        if self.fail.rebuild {
            self.start_rebuild(ctx);
        }
    }

    /// Copy every page that lost one copy from its survivor onto a live die
    /// of the failed copy's channel, in the background.
    fn start_rebuild(&mut self, ctx: &mut Ctx) {
        self.rb_time.0 = ctx.now;
        self.rebuild_pass((0..ctx.geo.logical_pages).collect(), ctx);
    }

    /// Pages skipped because their survivor was still being programmed are
    /// tried again when the scheme next plans.
    fn retry_rebuild(&mut self, ctx: &mut Ctx) {
        if !self.rb_retry.is_empty() && !self.instant {
            let again = std::mem::take(&mut self.rb_retry);
            self.rebuild_pass(again, ctx);
        }
    }

    fn rebuild_pass(&mut self, lpns: Vec<Lpn>, ctx: &mut Ctx) {
        let mut plan = Plan::default();
        for lpn in lpns {
            if !self.rebuild_one(lpn, ctx, &mut plan) {
                self.rb_retry.push(lpn);
            }
        }
        self.rb_left += plan.ops.len() as u64;
        if self.rb_left == 0 && self.rb_retry.is_empty() {
            self.rb_time.1.get_or_insert(ctx.now);
        } else if !plan.ops.is_empty() {
            ctx.background.push(plan);
        }
    }

    /// Plan the copy of `lpn`'s survivor if it lost a copy; false to retry later.
    fn rebuild_one(&mut self, lpn: Lpn, ctx: &mut Ctx, plan: &mut Plan) -> bool {
        let half = Self::half(ctx.geo);
        let (a, b) = (ctx.ftl.map.get(lpn), self.mirror.get(lpn));
        let dead = |p: Ppn| p != NO_PAGE && self.fail.dead(ctx.geo.die_of(p));
        let in_flight = |p: Ppn| self.rb_pending.iter().any(|&(_, old)| old == p);
        let (from, lost, ch, owner) = match (dead(a), dead(b)) {
            (true, false) if b != NO_PAGE && !in_flight(a) => (b, a, lpn % half, Owner::lpn(lpn)),
            (false, true) if a != NO_PAGE && !in_flight(b) => (a, b, lpn % half + half, Owner::mirror(lpn)),
            _ => return true,
        };
        let dies = Self::channel_dies(ctx.geo, ch);
        if !ctx.ftl.is_programmed(from) || blocked(ctx, dies.clone(), &self.fail, Stream::Aux) {
            return false;
        }
        let Some(new) = alloc_in(ctx, dies, &self.fail, Stream::Aux, owner) else { return true };
        let g = plan.group(lpn, true);
        plan.read(g, 0, from, Class::Background, TAG_REBUILD);
        plan.program_from_prev(g, 1, new, owner, 0, Class::Background, TAG_REBUILD);
        self.rb_pending.push((new, lost));
        self.rb_pages += 1;
        true
    }

    /// The copy to read: live, and on the die with fewer outstanding commands.
    fn pick(&mut self, lpn: Lpn, ctx: &Ctx) -> Option<(Ppn, bool)> {
        let live = |p: Ppn| p != NO_PAGE && !self.fail.dead(ctx.geo.die_of(p));
        let (a, b) = (ctx.ftl.map.get(lpn), self.mirror.get(lpn));
        match (live(a), live(b)) {
            (true, true) if ctx.load.occ(ctx.geo.die_of(b)) < ctx.load.occ(ctx.geo.die_of(a)) => Some((b, true)),
            (true, _) => Some((a, false)),
            (false, true) => Some((b, true)),
            _ => None,
        }
    }
}

impl Scheme for Cr1 {
    fn logical_pages(&self, geo: &Geometry) -> Option<u32> {
        Some((geo.logical_pages / 2).min(Owner::MAX_INDEX))
    }

    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        self.ensure_tables(ctx);
        self.apply_failure(ctx);
        self.retry_rebuild(ctx);
        for lpn in lpns {
            let Some((ppn, mirror)) = self.pick(lpn, ctx) else {
                self.stats.lost_reads += 1;
                plan.lost += 1;
                continue;
            };
            if !ctx.ftl.is_programmed(ppn) {
                plan.buffered += 1;
                continue;
            }
            self.stats.flash_reads += 1;
            self.stats.mirror_reads += mirror as u64;
            let primary = ctx.ftl.map.get(lpn);
            self.stats.mirror_only_reads += (primary == NO_PAGE || self.fail.dead(ctx.geo.die_of(primary))) as u64;
            let g = plan.group(lpn, true);
            plan.read(g, 0, ppn, Class::HostRead, 0);
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        self.ensure_tables(ctx);
        self.apply_failure(ctx);
        self.retry_rebuild(ctx);
        self.stats.write_requests += !self.instant as u64;
        let half = Self::half(ctx.geo);
        for (i, lpn) in lpns.enumerate() {
            let ch = lpn % half;
            let (da, db) = (Self::channel_dies(ctx.geo, ch), Self::channel_dies(ctx.geo, ch + half));
            if blocked(ctx, da, &self.fail, Stream::Host) || blocked(ctx, db, &self.fail, Stream::Aux) {
                return Err(Stall { done: i as u32 }); // nothing allocated yet: no page wasted
            }
            let a = alloc_in(ctx, Self::channel_dies(ctx.geo, ch), &self.fail, Stream::Host, Owner::lpn(lpn));
            let b = alloc_in(ctx, Self::channel_dies(ctx.geo, ch + half), &self.fail, Stream::Aux, Owner::mirror(lpn));
            // After the checks above a copy is missing only when its whole channel failed.
            let ok = a.is_some() || b.is_some();
            if !ok {
                abandon(&[a, b].into_iter().flatten().collect::<Vec<_>>(), ctx, plan);
                return Err(Stall { done: i as u32 });
            }
            for old in [ctx.ftl.map.get(lpn), self.mirror.get(lpn)] {
                if old != NO_PAGE {
                    ctx.ftl.invalidate(old);
                }
            }
            ctx.ftl.map.set(lpn, a.unwrap_or(NO_PAGE));
            self.mirror.set(lpn, b.unwrap_or(NO_PAGE));
            let g = plan.group(lpn, false);
            for (p, ch, owner) in [(a, ch, Owner::lpn(lpn)), (b, ch + half, Owner::mirror(lpn))] {
                if let Some(p) = p {
                    plan.program(g, 0, p, owner, tokens[i], Class::HostWrite, 0);
                    self.stats.chan_writes[ch as usize] += !self.instant as u64;
                }
            }
        }
        Ok(())
    }

    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, scratch: &mut Plan) -> Result<(), Stall> {
        super::write_instantly(self, |s, on| s.instant = on, lpn, token, ctx, scratch)
    }

    fn on_complete(&mut self, op: &OpDone, ctx: &mut Ctx) {
        if op.tag != TAG_REBUILD {
            return;
        }
        if let Some(k) = self.rb_pending.iter().position(|&(new, _)| new == op.ppn && op.kind == OpKind::Program) {
            let (new, old) = self.rb_pending.swap_remove(k);
            let (lpn, mirror) = match op.owner.as_mirror() {
                Some(lpn) => (lpn, true),
                None => (op.owner.index(), false),
            };
            let table_is = |s: &Self, ctx: &Ctx| if mirror { s.mirror.get(lpn) } else { ctx.ftl.map.get(lpn) };
            // Switch only if the host did not rewrite the page meanwhile.
            if table_is(self, ctx) == old {
                ctx.ftl.invalidate(old);
                if mirror { self.mirror.set(lpn, new) } else { ctx.ftl.map.set(lpn, new) }
            } else {
                ctx.ftl.invalidate(new);
            }
        }
        self.rb_left -= 1;
        if self.rb_left == 0 && self.rb_retry.is_empty() {
            self.rb_time.1 = Some(ctx.now);
        }
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        match owner.as_mirror() {
            Some(lpn) if self.mirror.get(lpn) == from => self.mirror.set(lpn, to),
            Some(_) => {}
            None => ctx.remap_moved(owner.index(), from, to),
        }
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let mut v = self.stats.to_vec();
        v.push(("lost_pages", self.fail.lost as f64));
        v.push(("failed_at_us", self.fail.at_us()));
        let time = self.rb_time.1.map_or(-1.0, |t| (t - self.rb_time.0) as f64 / 1e3);
        v.extend([("rebuild_pages", self.rb_pages as f64), ("rebuild_waiting", self.rb_retry.len() as f64), ("rebuild_time_us", time)]);
        v
    }
}
