//! SSDSim's plane pairing for multi-plane programs
//! (`scheduler.plane_pairing = "level"`).
//!
//! Under static allocation SSDSim queues a write with its plane but no
//! page; `get_ppn_for_advanced_commands` (flash.c, static branch, COPY_BACK
//! / INTERLEAVE_TWO_PLANE) gives, die by die, the waiting write on the
//! lowest plane its plane's write point (`get_ppn`: `find_active_block`,
//! then `last_write_page + 1`), and another plane's write joins only if
//! `make_level_page` succeeds: that plane's active block has the same
//! number and its next page is not past the first's (`page1 > page0`
//! fails). A plane behind is pulled level (`make_same_level`, as `greed
//! MPW command = 1`): the pages it skips are invalidated. A refused write
//! stays in the channel's queue for a later command.
//!
//! Detour allocates a page when a write is planned, so each plane's write
//! point as SSDSim would have it is kept here and moved as programs are
//! dispatched: from the plane's first dispatched host program (its own
//! page, nothing skipped before it), then one page per dispatched host
//! program and to the first's page when pulled level. A block number is
//! the block's place in the plane's allocation order (`ftl::free_order`
//! staggers where each plane starts; SSDSim's planes all start at block 0
//! and `find_active_block` walks up). Skipped pages are handed to the
//! simulator (`take_skipped`), which wastes as many of the plane's free
//! pages. Only host programs follow the rule; others join as before.

use super::batch::BatchRule;
use super::ops::{Class, NO_OP};
use super::Scheduler;
use crate::device::{Geometry, OpKind, MAX_PLANES};
use crate::types::Ppn;

/// A plane whose write point is not known yet.
const UNSET: u32 = u32::MAX;

/// Each plane's write point, SSDSim's way, and the pages skipped to pull
/// planes level that the FTL has not wasted yet.
pub(super) struct Levels {
    /// Per plane: (block number in allocation order, next page).
    points: Vec<(u32, u32)>,
    /// (plane, pages) skipped by `make_same_level`.
    skipped: Vec<(u32, u32)>,
}

impl Levels {
    pub(super) fn new(geo: &Geometry) -> Levels {
        Levels { points: vec![(UNSET, 0); geo.planes() as usize], skipped: Vec::new() }
    }

    /// SSDSim's (block, page) of `ppn`.
    fn position(geo: &Geometry, ppn: Ppn) -> (u32, u32) {
        let (plane, bpp) = (geo.plane_of(ppn), geo.blocks_per_plane);
        let block = geo.block_of(ppn) % bpp;
        ((block + bpp - plane % bpp) % bpp, geo.page_in_block(ppn))
    }

    /// The write point of `ppn`'s plane, taken from `ppn` the first time.
    fn point(&mut self, geo: &Geometry, ppn: Ppn) -> (u32, u32) {
        let plane = geo.plane_of(ppn) as usize;
        if self.points[plane].0 == UNSET {
            self.points[plane] = Self::position(geo, ppn);
        }
        self.points[plane]
    }

    /// The plane wrote at `at`: its point moves to the next page, or to
    /// the next block's first (`find_active_block`).
    fn advance(&mut self, geo: &Geometry, ppn: Ppn, at: (u32, u32)) {
        let (mut block, mut page) = (at.0, at.1 + 1);
        if page == geo.pages_per_block {
            (block, page) = ((block + 1) % geo.blocks_per_plane, 0);
        }
        self.points[geo.plane_of(ppn) as usize] = (block, page);
    }

    /// A die's first write takes its plane's point (`get_ppn`).
    pub(super) fn lead(&mut self, geo: &Geometry, ppn: Ppn) -> (u32, u32) {
        let at = self.point(geo, ppn);
        self.advance(geo, ppn, at);
        at
    }

    /// `make_level_page` (static branch): the write of `ppn` joins the
    /// die's first, written at `first`, if its plane's point is in the same
    /// block and not past `first`'s page; behind, the plane is pulled level.
    pub(super) fn join(&mut self, geo: &Geometry, ppn: Ppn, first: (u32, u32)) -> bool {
        let (block, page) = self.point(geo, ppn);
        if block != first.0 || page > first.1 {
            return false;
        }
        if page < first.1 {
            self.skipped.push((geo.plane_of(ppn), first.1 - page));
        }
        self.advance(geo, ppn, first);
        true
    }
}

impl Scheduler {
    /// Pages skipped to pull planes level since the last call, (plane,
    /// pages), for the FTL to waste, swapped into `out` so that both
    /// buffers keep their capacity.
    pub fn take_skipped(&mut self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        if let Some(l) = self.levels.as_mut() {
            std::mem::swap(out, &mut l.skipped);
        }
    }

    /// Whether `take_skipped` has something.
    #[inline]
    pub fn has_skipped(&self) -> bool {
        self.levels.as_ref().is_some_and(|l| !l.skipped.is_empty())
    }

    /// Form a program batch under `plane_pairing = "level"`. `batch[0]`
    /// holds the policy's pick, already taken from queue `qi` after
    /// `prev`. The candidates are what `gather_planes` would take (one per
    /// slot); SSDSim's rule then runs die by die, planes in order, and the
    /// batch is the accepted ones. A refused pick goes back where it was,
    /// and its die's first write leads the batch instead.
    pub(super) fn gather_level(&mut self, die: usize, qi: usize, prev: u32, rule: BatchRule) {
        let head = self.dies.at(die).batch[0];
        let mut cand = [(NO_OP, 0usize); MAX_PLANES];
        let op = self.ops.get(head);
        let hs = self.slot(rule.chip_wide, op.die, self.geo.plane_of(op.ppn));
        cand[hs] = (head, qi);
        if rule.gather {
            self.level_candidates(die, qi, rule, &mut cand);
        }
        let keep = self.level_decide(rule.slots, &cand);
        // The batch's first: the pick, or its die's first kept write.
        let die_of_slot = |s: usize| if rule.chip_wide { s / self.geo.planes_per_die as usize } else { 0 };
        let lead = if keep[hs] { hs } else { (0..rule.slots).find(|&s| keep[s] && die_of_slot(s) == die_of_slot(hs)).unwrap_or(hs) };
        if !keep[hs] {
            self.queues.at_mut(die)[qi].link_after(prev, head, &mut self.ops);
        }
        let order = std::iter::once(lead).chain((0..rule.slots).filter(|&s| s != lead && keep[s]));
        let mut n = 0;
        for s in order {
            let (id, q) = cand[s];
            if id != head {
                self.unlink_id(die, q, id);
            }
            self.dies.at_mut(die).batch[n] = id;
            n += 1;
        }
        self.dies.at_mut(die).n = n as u8;
    }

    /// The operations `gather_from` would add to the batch of `batch[0]`,
    /// by slot, without taking them from their queues.
    fn level_candidates(&self, die: usize, qi: usize, rule: BatchRule, cand: &mut [(u32, usize); MAX_PLANES]) {
        let scan = self.policy.batch_scan(qi);
        let first = self.ops.get(self.dies.at(die).batch[0]);
        let (first_die, first_page) = (first.die, self.geo.page_in_block(first.ppn));
        for &queue in &scan.queues[..scan.n] {
            let (mut id, mut scanned) = (self.queues.at(die)[queue].front().unwrap_or(NO_OP), 0);
            while scanned < scan.depth && id != NO_OP {
                scanned += 1;
                let op = self.ops.get(id);
                let p = self.slot(rule.chip_wide, op.die, self.geo.plane_of(op.ppn));
                let same_page = !self.cfg.multiplane_same_page || self.geo.page_in_block(op.ppn) == first_page;
                if op.kind == OpKind::Program
                    && p < rule.slots
                    && cand[p].0 == NO_OP
                    && (rule.chip_wide || op.die == first_die)
                    && same_page
                {
                    cand[p] = (id, queue);
                }
                id = op.qnext;
            }
        }
    }

    /// SSDSim's decision over the candidates: per die (a run of
    /// `planes_per_die` slots), the first host write leads and the others
    /// join by `make_level_page`. Writes that are not the host's are kept.
    fn level_decide(&mut self, slots: usize, cand: &[(u32, usize); MAX_PLANES]) -> [bool; MAX_PLANES] {
        let mut keep = [false; MAX_PLANES];
        let Some(mut lv) = self.levels.take() else { return keep };
        let ppd = self.geo.planes_per_die as usize;
        let mut first = None;
        for s in 0..slots {
            if s % ppd == 0 {
                first = None;
            }
            let id = cand[s].0;
            if id == NO_OP {
                continue;
            }
            let op = self.ops.get(id);
            keep[s] = match (op.class, first) {
                (c, _) if c != Class::HostWrite => true,
                (_, None) => {
                    first = Some(lv.lead(&self.geo, op.ppn));
                    true
                }
                (_, Some(f)) => lv.join(&self.geo, op.ppn, f),
            };
        }
        self.levels = Some(lv);
        keep
    }

    /// Take `id` out of queue `qi` of `die`, wherever it is.
    fn unlink_id(&mut self, die: usize, qi: usize, id: u32) {
        let (mut prev, mut cur) = (NO_OP, self.queues.at(die)[qi].front().unwrap_or(NO_OP));
        while cur != id && cur != NO_OP {
            (prev, cur) = (cur, self.ops.get(cur).qnext);
        }
        debug_assert_eq!(cur, id, "batch candidate {id} not in its queue");
        self.queues.at_mut(die)[qi].unlink_after(prev, id, &mut self.ops);
    }
}
