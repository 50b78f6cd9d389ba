//! The pure SSD of the CR5M paper: no redundancy, one copy of every page,
//! placed exactly as the conventional FTL places it; but it takes the same
//! failure injection as the RAID organisations (`scheme.raid.fail_*`), so
//! "how many logical pages does a die, chip or channel failure lose" has an
//! answer for every organisation. After the failure, reads of pages on the
//! failed dies are lost (`lost_reads`) and writes whose planned plane is on
//! a failed die go to a live die of the same channel, or of any channel when
//! the whole channel failed.

use super::failure::Failure;
use super::stats::Stats;
use super::alloc_in;
use crate::schemes::{Ctx, Plan, Scheme, Stall};
use crate::ftl::Stream;
use crate::scheduler::Class;
use crate::types::{Lpn, Owner, Ppn, Token, NO_PAGE};
use std::ops::Range;

pub struct Pure {
    fail: Failure,
    stats: Stats,
}

impl Pure {
    pub fn new(fail: Failure, channels: u32) -> Pure {
        Pure { fail, stats: Stats::new(channels) }
    }

    fn apply_failure(&mut self, ctx: &mut Ctx) {
        if !self.fail.due(ctx.now) {
            return;
        }
        self.fail.active = true;
        let fail = &self.fail;
        self.fail.lost = (0..ctx.geo.logical_pages)
            .filter(|&l| {
                let p = ctx.ftl.map.get(l);
                p != NO_PAGE && fail.dead(ctx.geo.die_of(p))
            })
            .count() as u64;
    }

    /// A page for `lpn`: the allocation policy's plane, unless its die has
    /// failed.
    fn alloc(&mut self, lpn: Lpn, ctx: &mut Ctx) -> Option<Ppn> {
        let plane = ctx.ftl.plane_for_write(lpn, &ctx.load);
        let die = ctx.geo.die_of_plane(plane);
        if !self.fail.dead(die) {
            return ctx.ftl.alloc(plane, Stream::Host, Owner::lpn(lpn));
        }
        let per = ctx.geo.dies_per_channel();
        let chan = die / per;
        alloc_in(ctx, chan * per..(chan + 1) * per, &self.fail, Stream::Host, Owner::lpn(lpn))
            .or_else(|| alloc_in(ctx, 0..ctx.geo.dies(), &self.fail, Stream::Host, Owner::lpn(lpn)))
    }
}

impl Scheme for Pure {
    fn logical_pages(&self, geo: &crate::device::Geometry) -> Option<u32> {
        Some(geo.logical_pages.min(Owner::MAX_INDEX))
    }

    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        self.apply_failure(ctx);
        for lpn in lpns {
            let ppn = ctx.ftl.map.get(lpn);
            if self.fail.dead(ctx.geo.die_of(ppn)) {
                self.stats.lost_reads += 1;
                plan.lost += 1;
                continue;
            }
            self.stats.flash_reads += ctx.ftl.is_programmed(ppn) as u64;
            ctx.read_mapped(lpn, Class::HostRead, plan);
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        self.apply_failure(ctx);
        self.stats.write_requests += 1;
        for (i, lpn) in lpns.enumerate() {
            let ppn = self.alloc(lpn, ctx).ok_or(Stall { done: i as u32 })?;
            ctx.remap_to(lpn, ppn);
            self.stats.chan_writes[ctx.geo.channel_of_die(ctx.geo.die_of(ppn)) as usize] += 1;
            let g = plan.group(lpn, false);
            plan.program(g, 0, ppn, Owner::lpn(lpn), tokens[i], Class::HostWrite, 0);
        }
        Ok(())
    }

    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, _: &mut Plan) -> Result<(), Stall> {
        let ppn = self.alloc(lpn, ctx).ok_or(Stall { done: 0 })?;
        ctx.remap_to(lpn, ppn);
        ctx.ftl.program_done(ppn, token);
        Ok(())
    }

    fn wants_completions(&self) -> bool {
        false
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        ctx.remap_moved(owner.index(), from, to);
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let mut v = self.stats.to_vec();
        v.push(("lost_pages", self.fail.lost as f64));
        v.push(("failed_at_us", self.fail.at_us()));
        v
    }
}
