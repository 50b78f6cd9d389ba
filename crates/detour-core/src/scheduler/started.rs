//! Programs' LPNs handed to the simulator as they are dispatched, for
//! SSDSim's read merge (`ftl.read_merge = "queued"`): SSDSim maps a
//! statically allocated write's LPN to its new page only when the write is
//! issued (`get_ppn` from `get_ppn_for_advanced_commands`, flash.c;
//! pagemap.c sets `map_entry[lpn].pn`), so a read that arrives after that
//! reads another page than the reads queued before it and cannot merge
//! with them (ftl/read_merge.rs).

use super::Scheduler;
use crate::types::{Lpn, Owner};

impl Scheduler {
    /// Keep the LPNs of programs (host writes, flushes, GC moves: any
    /// with an owner) as they are dispatched, for `take_started`.
    pub fn track_started_programs(&mut self) {
        self.started = Some(Vec::new());
    }

    /// The batch just formed on unit `die` is dispatched: note its
    /// programs' owners (SSDSim moves the map entry of a GC move too).
    pub(super) fn note_started(&mut self, die: usize) {
        let Some(out) = self.started.as_mut() else { return };
        let d = self.dies.at(die);
        for &id in &d.batch[..d.n as usize] {
            let op = self.ops.get(id);
            if op.owner != Owner::NONE {
                out.push(op.owner.index());
            }
        }
    }

    /// LPNs of programs dispatched since the last call, swapped into
    /// `out` so that both buffers keep their capacity.
    pub fn take_started(&mut self, out: &mut Vec<Lpn>) {
        out.clear();
        if let Some(s) = self.started.as_mut() {
            std::mem::swap(out, s);
        }
    }

    /// Whether `take_started` has something.
    #[inline]
    pub fn has_started(&self) -> bool {
        self.started.as_ref().is_some_and(|s| !s.is_empty())
    }
}
