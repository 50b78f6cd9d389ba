//! How a dispatch fills a multi-plane batch, settled per operation kind
//! when the scheduler is built: the config and geometry never change, and
//! deciding it at every dispatch cost the default model ~1% of its
//! instructions (docs/benchmarks-log.md, thirty-second session).

use crate::config::SchedulerConfig;
use crate::device::{Geometry, OpKind, MAX_PLANES};

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
