//! How a dispatch fills a multi-plane batch: the rule, settled per
//! operation kind when the scheduler is built (`rules`), and the gathering
//! of same-kind operations on the die's other planes (`gather_planes`).
//! The rule is settled once because the config and geometry never change, and
//! deciding it at every dispatch cost the default model ~1% of its
//! instructions (docs/benchmarks-log.md, thirty-second session).

use super::ops::NO_OP;
use super::Scheduler;
use crate::config::SchedulerConfig;
use crate::device::{Geometry, OpKind, MAX_PLANES};

/// No page constraint on a multi-plane batch (`multiplane_same_page` off).
const NO_PAGE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct BatchRule {
    /// Dispatch looks for more operations to join the first.
    pub gather: bool,
    /// The batch spans the unit's dies (`chip_program_batches` for
    /// programs, `chip_erase_batches` for erases).
    pub chip_wide: bool,
    /// Slots of a batch: the die's planes, or under `chip_wide` the unit's
    /// (die in chip, plane) pairs.
    pub slots: usize,
}

/// The rule of each kind, indexed by `index`.
pub(super) fn rules(cfg: &SchedulerConfig, geo: &Geometry) -> [BatchRule; 3] {
    [OpKind::Read, OpKind::Program, OpKind::Erase].map(|kind| {
        let chip_wide = match kind {
            OpKind::Program => cfg.chip_program_batches,
            OpKind::Erase => cfg.chip_erase_batches,
            OpKind::Read => false,
        };
        let multiplane = cfg.multiplane && (kind != OpKind::Read || cfg.multiplane_reads);
        let per_die = geo.planes_per_die as usize;
        let slots = if chip_wide { (per_die * geo.dies_per_chip as usize).min(MAX_PLANES) } else { per_die };
        BatchRule { gather: multiplane && (per_die > 1 || chip_wide), chip_wide, slots }
    })
}

#[inline(always)]
pub(super) fn index(kind: OpKind) -> usize {
    match kind {
        OpKind::Read => 0,
        OpKind::Program => 1,
        OpKind::Erase => 2,
    }
}

impl Scheduler {
    /// Operations of a batch a slot each: its plane in the die, or under
    /// `chip_wide` its (die in chip, plane) pair.
    #[inline]
    pub(super) fn slot(&self, chip_wide: bool, op_die: u32, plane: u32) -> usize {
        let p = self.geo.plane_in_die(plane);
        (if chip_wide { (op_die % self.geo.dies_per_chip) * self.geo.planes_per_die + p } else { p }) as usize
    }

    /// Whether two operations of the unit's batch are on one die.
    pub(super) fn pairs_planes(&self, die: usize) -> bool {
        let d = self.dies.at(die);
        let b = &d.batch[..d.n as usize];
        b.iter().enumerate().any(|(i, &x)| b[i + 1..].iter().any(|&y| self.ops.get(x).die == self.ops.get(y).die))
    }

    /// Add same-kind operations on other planes of the die to the batch,
    /// from the queues the policy names, each only so deep.
    pub(super) fn gather_planes(&mut self, die: usize, qi: usize, rule: BatchRule) {
        let (chip_wide, planes) = (rule.chip_wide, rule.slots);
        let scan = self.policy.batch_scan(qi);
        // Most dispatches find nothing else queued: skip the plane lookups.
        let qs = self.queues.at(die);
        if scan.queues[..scan.n].iter().all(|&i| qs[i].front().is_none()) {
            return;
        }
        let mut used = [false; MAX_PLANES];
        let first = self.ops.get(self.dies.at(die).batch[0]);
        // The first op's page in its block, when batches need equal pages
        // (`multiplane_same_page`); NO_PAGE lets any page join.
        let page = if self.cfg.multiplane_same_page { self.geo.page_in_block(first.ppn) } else { NO_PAGE };
        used[self.slot(chip_wide, first.die, self.geo.plane_of(first.ppn))] = true;
        let first = (first.die, page);
        for &queue in &scan.queues[..scan.n] {
            if self.dies.at(die).n as usize >= planes {
                break;
            }
            self.gather_from(die, queue, (scan.depth, rule), first, &mut used);
        }
    }

    /// `gather_planes` over one queue, at most `depth` operations deep;
    /// `first` is the batch's die and, unless NO_PAGE, the page all share.
    fn gather_from(&mut self, die: usize, qi: usize, scan: (usize, BatchRule), first: (u32, u32), used: &mut [bool; MAX_PLANES]) {
        let (first_die, page) = first;
        let kind = self.dies.at(die).kind;
        let (depth, BatchRule { chip_wide, slots: planes, .. }) = scan;
        let (mut prev, mut id) = (NO_OP, self.queues.at(die)[qi].front().unwrap_or(NO_OP));
        let mut scanned = 0;
        while scanned < depth && id != NO_OP && (self.dies.at(die).n as usize) < planes {
            scanned += 1;
            let op = self.ops.get(id);
            let next = op.qnext;
            let p = self.slot(chip_wide, op.die, self.geo.plane_of(op.ppn));
            // A batch is one die's planes (a chip unit's other dies wait),
            // or under `chip_wide` the unit's dies' too.
            let same_page = page == NO_PAGE || self.geo.page_in_block(op.ppn) == page;
            if op.kind == kind && p < planes && !used[p] && (chip_wide || op.die == first_die) && same_page {
                used[p] = true;
                self.queues.at_mut(die)[qi].unlink_after(prev, id, &mut self.ops);
                let d = self.dies.at_mut(die);
                d.batch[d.n as usize] = id;
                d.n += 1;
            } else {
                prev = id;
            }
            id = next;
        }
    }
}
