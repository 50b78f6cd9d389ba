//! SSDSim's read merge (`ftl.read_merge = "queued"`): `creat_sub_request`
//! (flash.c) looks through the channel's read list (`subs_r`) for a
//! sub-request of the same physical page, and if there is one the new read
//! is done after 1000 ns without the flash. A read stays in that list until
//! it has completed (`services_2_r_cmd_trans_and_complete`).
//!
//! Which page a read is of is SSDSim's map entry, which a statically
//! allocated write moves to its new page only when the write is issued
//! (`get_ppn`, pagemap.c, called by `get_ppn_for_advanced_commands`); Detour
//! maps a write when it is planned. So the reads in flight are kept per
//! LPN with the number of the LPN's programs (host writes, flushes, GC
//! moves) dispatched when each was queued (its epoch): a new read merges
//! with one of the current epoch, as it would have read the same page in
//! SSDSim, where a page holds one LPN and only an issued program moves it.

use crate::types::Lpn;
use std::collections::HashMap;

#[derive(Clone, Copy, Default)]
struct PerLpn {
    /// Programs of the LPN dispatched while reads were in flight.
    epoch: u32,
    /// Reads in flight queued in the current epoch (those a read can join).
    current: u32,
    /// Reads in flight in all.
    total: u32,
}

/// Host flash reads queued or under way (maps, not per-page tables: at
/// most a queue's worth of reads is ever in flight).
#[derive(Default)]
pub struct QueuedReads {
    lpns: HashMap<Lpn, PerLpn>,
    /// Each read in flight (its operation id): its LPN and epoch.
    ops: HashMap<u32, (Lpn, u32)>,
}

impl QueuedReads {
    /// Does a new host read of `lpn` join one in flight?
    #[inline]
    pub fn joins(&self, lpn: Lpn) -> bool {
        self.lpns.get(&lpn).is_some_and(|e| e.current > 0)
    }

    /// Operation `op`, a host flash read of `lpn`, was queued.
    pub fn queued(&mut self, op: u32, lpn: Lpn) {
        let e = self.lpns.entry(lpn).or_default();
        e.current += 1;
        e.total += 1;
        self.ops.insert(op, (lpn, e.epoch));
    }

    /// Operation `op` completed (nothing if it is no read counted here).
    pub fn done(&mut self, op: u32) {
        let Some((lpn, epoch)) = self.ops.remove(&op) else { return };
        let Some(e) = self.lpns.get_mut(&lpn) else { return };
        e.total -= 1;
        e.current -= (epoch == e.epoch) as u32;
        if e.total == 0 {
            self.lpns.remove(&lpn);
        }
    }

    /// A program of `lpn` was dispatched: SSDSim's later reads of it
    /// are of its new page, so none joins the reads in flight.
    pub fn dispatched(&mut self, lpn: Lpn) {
        if let Some(e) = self.lpns.get_mut(&lpn) {
            e.epoch += 1;
            e.current = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_joins_reads_of_its_lpn_queued_since_the_last_dispatched_program() {
        let mut q = QueuedReads::default();
        assert!(!q.joins(7));
        q.queued(1, 7);
        q.queued(2, 7);
        q.done(1);
        assert!(q.joins(7), "read 2 of LPN 7 is still in flight");
        q.dispatched(7);
        assert!(!q.joins(7), "a program of LPN 7 was issued: its new page is another");
        q.queued(3, 7);
        assert!(q.joins(7));
        q.done(3);
        assert!(!q.joins(7), "read 2 is of the old page");
        q.done(2);
        q.dispatched(7); // no read in flight: nothing to do
        assert!(!q.joins(7) && q.lpns.is_empty() && q.ops.is_empty());
        q.done(9); // not a counted read
    }
}
