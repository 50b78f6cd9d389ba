//! What schemes get to plan with, and helpers most page-mapped schemes share.

use super::{Plan, Stall};
use crate::device::Geometry;
use crate::ftl::{Ftl, Stream};
use crate::scheduler::{Class, LoadView};
use crate::types::{Lpn, Time, Token, NO_PAGE};
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
    /// while its program is pending, otherwise a flash read at `class`.
    pub fn read_mapped(&mut self, lpn: Lpn, class: Class, plan: &mut Plan) {
        let ppn = self.ftl.map.get(lpn);
        debug_assert_ne!(ppn, NO_PAGE, "read of unplaced LPN {lpn}");
        if !self.ftl.is_programmed(ppn) {
            plan.buffered += 1;
            return;
        }
        let g = plan.group(lpn, true);
        plan.read(g, 0, ppn, class, 0);
    }

    /// Write `lpn` to a newly allocated page chosen by the configured
    /// allocation policy, remap it and invalidate the old copy.
    pub fn write_mapped(&mut self, lpn: Lpn, token: Token, plan: &mut Plan, done: u32) -> Result<(), Stall> {
        let plane = self.ftl.plane_for_write(lpn, &self.load);
        let ppn = self.ftl.alloc(plane, Stream::Host, lpn).ok_or(Stall { done })?;
        let old = self.ftl.map.get(lpn);
        if old != NO_PAGE {
            self.ftl.invalidate(old);
        }
        self.ftl.map.set(lpn, ppn);
        let g = plan.group(lpn, false);
        plan.program(g, 0, ppn, lpn, token, Class::HostWrite, 0);
        Ok(())
    }

    /// Point the shared map from `from` to `to` if it still maps `lpn` there.
    pub fn remap_moved(&mut self, lpn: Lpn, from: u32, to: u32) {
        if lpn < self.geo.logical_pages && self.ftl.map.get(lpn) == from {
            self.ftl.map.set(lpn, to);
        }
    }
}
