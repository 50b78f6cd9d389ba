//! What schemes get to plan with, and helpers most page-mapped schemes share.

use super::{Plan, PlannedOp, Stall};
use crate::device::Geometry;
use crate::device::OpKind;
use crate::ftl::{Ftl, Stream};
use crate::scheduler::flags;
use crate::scheduler::{Class, LoadView};
use crate::schemes::OpDone;
use crate::types::{Lpn, Owner, Ppn, Time, Token, NO_PAGE};
use rand_chacha::ChaCha8Rng;

/// A scheme's window on the simulator while it plans.
pub struct Ctx<'a> {
    pub now: Time,
    pub geo: &'a Geometry,
    pub load: LoadView<'a>,
    pub ftl: &'a mut Ftl,
    /// Seeded per run: schemes that randomise stay deterministic.
    pub rng: &'a mut ChaCha8Rng,
    /// Background plans to start (replication, migration, reclaim).
    pub background: &'a mut Vec<Plan>,
}

impl Ctx<'_> {
    /// Plan a read of `lpn` from the shared page map: from the write buffer
    /// while its program is pending (unless `ftl.pending_reads_from_flash`),
    /// otherwise a flash read at `class`, unless under `ftl.read_merge =
    /// "queued"` a host read of the same page (SSDSim's) is in flight.
    // Inlined into each scheme's per-page loop: the call's register saves
    // cost more than the body (1% of the benchmark's instructions, with `remap_new`).
    #[inline(always)]
    pub fn read_mapped(&mut self, lpn: Lpn, class: Class, plan: &mut Plan) {
        let ppn = self.ftl.map.get(lpn);
        debug_assert_ne!(ppn, NO_PAGE, "read of unplaced LPN {lpn}");
        if !self.ftl.pending_reads_from_flash && !self.ftl.is_programmed_live(ppn) {
            plan.buffered += 1;
            return;
        }
        // SSDSim's read merge: a host read already reading this page
        // serves this one too (ftl/read_merge.rs).
        if self.ftl.queued_reads.as_ref().is_some_and(|q| q.joins(lpn)) {
            plan.buffered += 1;
            return;
        }
        let g = plan.group(lpn, true);
        plan.read(g, 0, ppn, class, 0);
    }

    /// Give `lpn` a newly allocated page on the plane the configured
    /// allocation policy picks, remap it and invalidate the old copy.
    #[inline(always)]
    pub fn remap_new(&mut self, lpn: Lpn, done: u32) -> Result<Ppn, Stall> {
        let plane = self.ftl.plane_for_write(lpn, &self.load);
        let ppn = self.ftl.alloc(plane, Stream::Host, Owner::lpn(lpn)).ok_or(Stall { done })?;
        self.remap_to(lpn, ppn);
        Ok(ppn)
    }

    /// `remap_new` for a write that takes no simulated time: the page
    /// holds `token` at once (see [`Ftl::alloc_programmed`]).
    #[inline(always)]
    pub fn remap_new_programmed(&mut self, lpn: Lpn, token: Token) -> Result<Ppn, Stall> {
        let plane = self.ftl.plane_for_write(lpn, &self.load);
        let ppn = self.ftl.alloc_programmed(plane, Stream::Host, Owner::lpn(lpn), token).ok_or(Stall { done: 0 })?;
        self.remap_to(lpn, ppn);
        Ok(ppn)
    }

    /// Map `lpn` to the page `ppn` just allocated for it, invalidating the old copy.
    pub fn remap_to(&mut self, lpn: Lpn, ppn: Ppn) {
        let old = self.ftl.map.get(lpn);
        if old != NO_PAGE {
            self.ftl.invalidate(old);
        }
        self.ftl.map.set(lpn, ppn);
    }

    /// Write `lpn` to a new page (see `remap_new`).
    pub fn write_mapped(&mut self, lpn: Lpn, token: Token, plan: &mut Plan, done: u32) -> Result<(), Stall> {
        let ppn = self.remap_new(lpn, done)?;
        let g = plan.group(lpn, false);
        plan.program(g, 0, ppn, Owner::lpn(lpn), token, Class::HostWrite, 0);
        Ok(())
    }

    /// Drop `lpn`'s mapping (a discard): its page goes stale, so GC leaves
    /// it. True if it was mapped.
    pub fn unmap(&mut self, lpn: Lpn) -> bool {
        let old = self.ftl.map.get(lpn);
        if old == NO_PAGE {
            return false;
        }
        self.ftl.invalidate(old);
        self.ftl.map.set(lpn, NO_PAGE);
        true
    }

    /// Point the shared map from `from` to `to` if it still maps `lpn` there.
    pub fn remap_moved(&mut self, lpn: Lpn, from: u32, to: u32) {
        if lpn < self.geo.logical_pages && self.ftl.map.get(lpn) == from {
            self.ftl.map.set(lpn, to);
        }
    }
}

/// Apply a plan's effects at once, stage by stage within each group (reads
/// return what the pages hold now, programs land now), handing each
/// completion to `on_complete` in order.
pub fn apply_instantly(plan: &mut Plan, ctx: &mut Ctx, on_complete: &mut dyn FnMut(&OpDone, &mut Ctx)) {
    if !plan.ops.is_sorted_by_key(PlannedOp::order) {
        plan.ops.sort_by_key(PlannedOp::order);
    }
    let (mut acc, mut group): (Token, u32) = (0, u32::MAX);
    for op in &plan.ops {
        if op.group != group {
            group = op.group;
            acc = 0;
        }
        let token = match op.kind {
            OpKind::Read => {
                let t = ctx.ftl.token(op.ppn);
                if op.flags & flags::RESULT != 0 {
                    acc ^= t;
                }
                t
            }
            OpKind::Program => {
                let t = if op.flags & flags::FROM_PREV != 0 { acc ^ op.token } else { op.token };
                ctx.ftl.program_done(op.ppn, t);
                t
            }
            OpKind::Erase => {
                ctx.ftl.erase_done(ctx.geo.block_of(op.ppn));
                0
            }
        };
        let lpn = plan.groups.get(op.group as usize).map_or(0, |g| g.lpn);
        let done =
            OpDone { kind: op.kind, class: op.class, ppn: op.ppn, owner: op.owner, token, tag: op.tag, lpn, host: false, failed: false };
        on_complete(&done, ctx);
    }
}
