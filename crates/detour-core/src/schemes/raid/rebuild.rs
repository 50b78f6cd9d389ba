//! Rebuild onto spare space after a die or chip failure (CR4, CR5, CR5M).
//!
//! Right after the failure every touched stripe gets background work: each
//! member whose current data sat on a failed die is rebuilt (from its CR5M
//! mirror copy when that survives, otherwise by XOR of the parity and the
//! other members) onto a surviving die of the same channel (semi-dynamic
//! allocation keeps the channel); a stripe whose parity, expired or mirror
//! page was lost also gets a new parity, which releases its mirror entries.
//! The map moves to a rebuilt page only when its program finishes, so reads
//! meanwhile are still served by reconstruction. A whole-channel failure has
//! no spare space in the channel and is not rebuilt.

use super::parity::ParityRaid;
use super::{alloc_in, blocked};
use crate::ftl::Stream;
use crate::scheduler::Class;
use crate::schemes::{Ctx, OpDone, Plan};
use crate::types::{Lpn, Owner, Ppn, Time, NO_PAGE};

/// Tag of every rebuild operation: their completions time the rebuild.
pub const TAG_REBUILD: u32 = 0x5EB1_D000;

#[derive(Default)]
pub struct Rebuild {
    /// Rebuild operations still to finish.
    pub left: u64,
    pub started_ns: Time,
    pub done_ns: Option<Time>,
    pub stripes: u64,
    pub pages: u64,
    /// Pages that cannot be rebuilt: their channel has no live data die.
    pub no_space: u64,
    /// Stripes to try again (a source page was still being programmed).
    pub retry: Vec<u32>,
    /// (rebuilt page, the failed page it replaces), until its program ends.
    pending: Vec<(Ppn, Ppn)>,
}

impl ParityRaid {
    /// Plan the rebuild of every stripe the failure touched.
    pub(super) fn start_rebuild(&mut self, ctx: &mut Ctx) {
        self.rebuild_state.started_ns = ctx.now;
        let all: Vec<u32> = (0..ctx.geo.logical_pages / self.layout.width()).filter(|&j| self.touched(j, ctx)).collect();
        self.rebuild_state.stripes = all.len() as u64;
        self.rebuild_pass(all, ctx);
    }

    /// Stripes whose sources were still being written at the last pass are
    /// tried again when the scheme next plans.
    pub(super) fn retry_rebuild(&mut self, ctx: &mut Ctx) {
        if !self.rebuild_state.retry.is_empty() && !self.instant {
            let again = std::mem::take(&mut self.rebuild_state.retry);
            self.rebuild_pass(again, ctx);
        }
    }

    fn rebuild_pass(&mut self, stripes: Vec<u32>, ctx: &mut Ctx) {
        let mut plan = Plan::default();
        for j in stripes {
            if self.touched(j, ctx) && !self.rebuild_stripe(j, ctx, &mut plan) {
                self.rebuild_state.retry.push(j);
            }
        }
        for op in plan.ops.iter_mut() {
            op.tag = TAG_REBUILD;
        }
        self.rebuild_state.left += plan.ops.len() as u64;
        if self.rebuild_state.left == 0 && self.rebuild_state.retry.is_empty() {
            self.rebuild_state.done_ns.get_or_insert(ctx.now);
        } else if !plan.ops.is_empty() {
            ctx.background.push(plan);
        }
    }

    fn dead_page(&self, p: Ppn, ctx: &Ctx) -> bool {
        p != NO_PAGE && self.fail.dead(ctx.geo.die_of(p))
    }

    fn touched(&self, j: u32, ctx: &Ctx) -> bool {
        self.dead_page(self.parity.get(j), ctx)
            || self.layout.members(j).any(|m| {
                self.dead_page(ctx.ftl.map.get(m), ctx) || self.mt_get(m).is_some_and(|e| self.dead_page(e.eppn, ctx) || self.dead_page(e.mppn, ctx))
            })
    }

    /// Plan stripe `j`'s rebuild; false if some of it must wait for a retry.
    fn rebuild_stripe(&mut self, j: u32, ctx: &mut Ctx, plan: &mut Plan) -> bool {
        let in_flight = |s: &Self, p: Ppn| s.rebuild_state.pending.iter().any(|&(_, old)| old == p);
        let lost: Vec<Lpn> = self.layout.members(j).filter(|&m| self.dead_page(ctx.ftl.map.get(m), ctx) && !in_flight(self, ctx.ftl.map.get(m))).collect();
        let mut ok = true;
        for x in lost {
            ok &= self.rebuild_page(x, ctx, plan);
        }
        let stale = self.dead_page(self.parity.get(j), ctx) || self.layout.members(j).any(|m| self.mt_get(m).is_some());
        if stale {
            ok &= self.parity_update(j, &[], Class::Background, ctx, plan).is_ok();
        }
        ok
    }

    /// Copy or reconstruct `x` onto a live die of its channel; false if it cannot be.
    fn rebuild_page(&mut self, x: Lpn, ctx: &mut Ctx, plan: &mut Plan) -> bool {
        let old = ctx.ftl.map.get(x);
        let live = |p: Ppn| p != NO_PAGE && !self.fail.dead(ctx.geo.die_of(p));
        let src: Vec<Ppn> = match self.mt_get(x) {
            Some(e) if live(e.mppn) => vec![e.mppn],
            Some(_) => return false, // mirror lost too: the parity covers only the expired version
            None => self.rebuild_set_pub(x, ctx).into_iter().filter(|&p| live(p)).collect(),
        };
        let dies = self.layout.data_dies(self.layout.data_channel(x));
        if dies.clone().all(|d| self.fail.dead(d)) {
            // No data die left in the channel: no spare space; reads stay degraded.
            self.rebuild_state.no_space += 1;
            return true;
        }
        if src.iter().any(|&p| !ctx.ftl.is_programmed(p)) || blocked(ctx, dies.clone(), &self.fail, Stream::Aux) {
            return false;
        }
        let Some(new) = alloc_in(ctx, dies, &self.fail, Stream::Aux, Owner::lpn(x)) else { return false };
        let g = plan.group(x, true);
        for p in src {
            plan.read(g, 0, p, Class::Background, 0);
        }
        plan.program_from_prev(g, 1, new, Owner::lpn(x), 0, Class::Background, 0);
        self.rebuild_state.pending.push((new, old));
        self.rebuild_state.pages += 1;
        true
    }

    /// A rebuild operation finished: switch the map to a rebuilt page (unless
    /// the host rewrote the LPN meanwhile) and time the end of the rebuild.
    pub(super) fn rebuild_done(&mut self, op: &OpDone, ctx: &mut Ctx) {
        if let Some(k) = self.rebuild_state.pending.iter().position(|&(new, _)| new == op.ppn && op.kind == crate::device::OpKind::Program) {
            let (new, old) = self.rebuild_state.pending.swap_remove(k);
            let x = op.owner.index();
            if ctx.ftl.map.get(x) == old {
                ctx.ftl.invalidate(old);
                ctx.ftl.map.set(x, new);
            } else {
                ctx.ftl.invalidate(new);
            }
        }
        self.rebuild_state.left = self.rebuild_state.left.saturating_sub(1);
        if self.rebuild_state.left == 0 && self.rebuild_state.retry.is_empty() && self.rebuild_state.done_ns.is_none() {
            self.rebuild_state.done_ns = Some(ctx.now);
        }
    }
}
