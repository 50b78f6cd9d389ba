//! Garbage collection: when a plane's free blocks fall below the threshold,
//! a full, unpinned block is chosen by the victim policy (`victim/`;
//! greedy by default: the fewest live pages, ties to the first in the
//! plane's free order, see `free_order`); the simulator moves its live
//! pages (read, then program in the same plane, at background priority)
//! and erases it.

pub mod victim;
mod wear;

use super::{BlockState, Ftl, PageState};
use crate::config::{GcConcurrency, GcTrigger};
use crate::types::{Ppn, NO_PAGE};

/// MQSim's `max_ongoing_gc_reqs_per_plane`: SSD_Device.cpp passes the
/// literal 10 to `GC_and_WL_Unit_Page_Level`'s constructor.
const MQSIM_MAX_ONGOING_GC: u32 = 10;

/// Victims a plane may collect at once under `ftl.gc_concurrency`.
fn max_per_plane(c: GcConcurrency) -> u32 {
    match c {
        GcConcurrency::One => 1,
        GcConcurrency::Mqsim => MQSIM_MAX_ONGOING_GC,
    }
}

impl Ftl {
    /// GC is moving a victim of `plane` (from its start until the erase).
    pub fn gc_active(&self, plane: u32) -> bool {
        self.planes[plane as usize].gc_ongoing > 0
    }

    /// `plane` may start another GC victim: it collects fewer than
    /// `ftl.gc_concurrency` allows (by default one at a time). MQSim counts
    /// a wear-levelling erase among its `Ongoing_erase_operations` too
    /// (`run_static_wearleveling`, GC_and_WL_Unit_Base.cpp).
    pub(super) fn gc_room(&self, plane: u32) -> bool {
        let p = &self.planes[plane as usize];
        let wl = (self.gc_concurrency == GcConcurrency::Mqsim && p.wl_victim != NO_PAGE) as u32;
        p.gc_ongoing + wl < max_per_plane(self.gc_concurrency)
    }

    /// The plane collects fewer victims than `ftl.gc_concurrency` allows
    /// (with the default, none) and is below its GC threshold (as
    /// `ftl.gc_trigger` counts), or under `ftl.gc_start = "host_writes"`
    /// owes a GC run.
    pub fn needs_gc(&self, plane: u32) -> bool {
        match &self.gc_owed {
            Some(owed) => self.gc_room(plane) && owed[plane as usize] > 0,
            None => self.needs_gc_in_setup(plane),
        }
    }

    /// Setup's instant GC (preconditioning): the plane is below its
    /// trigger and may collect, whatever `ftl.gc_start` says. Under
    /// `host_writes` only run-time host writes owe GC runs (setup writes
    /// queue none, as SSDSim's `get_ppn_for_pre_process`), so `needs_gc`
    /// would never let setup reclaim a plane that a scheme's extra writes
    /// (parity, copies) fill before the requested occupancy.
    pub fn needs_gc_in_setup(&self, plane: u32) -> bool {
        self.gc_room(plane) && self.below_trigger(plane)
    }

    /// The plane's free space is below its GC threshold (as `ftl.gc_trigger` counts).
    pub(super) fn below_trigger(&self, plane: u32) -> bool {
        let p = &self.planes[plane as usize];
        let ppb = self.geo.pages_per_block;
        match self.gc_trigger {
            GcTrigger::FreeBlocks => p.free_pages(ppb) < self.gc_free_blocks as u64 * ppb as u64,
            GcTrigger::FreePages => (self.unwritten_pages(plane) as f64) < self.gc_free_pages,
        }
    }

    /// A GC run started on `plane`: under `ftl.gc_start = "host_writes"`
    /// it serves one of the requests the plane's host writes queued.
    fn gc_run_started(&mut self, plane: u32) {
        self.stats.gc_runs += 1;
        if let Some(owed) = self.gc_owed.as_mut() {
            owed[plane as usize] = owed[plane as usize].saturating_sub(1);
        }
    }

    /// Every unwritten page of `plane`: SSDSim's plane `free_page` (free
    /// blocks, aged blocks' trailing free pages, and what the open blocks
    /// have left).
    pub(super) fn unwritten_pages(&self, plane: u32) -> u64 {
        let p = &self.planes[plane as usize];
        let ppb = self.geo.pages_per_block;
        let open: u64 =
            p.write_points.iter().filter(|&&b| b != NO_PAGE).map(|&b| ppb.saturating_sub(self.blocks[b as usize].next) as u64).sum();
        p.free_pages(ppb) + open
    }

    /// Whether a victim's erase ending on `plane` starts GC there (if it
    /// needs it): always by default; with `ftl.gc_concurrency = "mqsim"`
    /// only below MQSim's 10 free blocks (`Stop_servicing_writes` guards
    /// its `Check_gc_required` after an erase), GC otherwise waiting for
    /// the next block a write takes.
    pub fn gc_after_erase(&self, plane: u32) -> bool {
        match self.gc_concurrency {
            GcConcurrency::One => true,
            GcConcurrency::Mqsim => (self.planes[plane as usize].free.len() as u32) < MQSIM_MAX_ONGOING_GC,
        }
    }

    /// List for GC exactly the planes that need it now (after setup writes
    /// that took no simulated time): a plane left off the list would only
    /// be listed again when it takes a block, which at the reserve it
    /// cannot.
    pub fn relist_gc_wanted(&mut self) {
        self.gc_wanted.clear();
        for plane in 0..self.geo.planes() {
            if self.needs_gc(plane) {
                self.gc_wanted.push(plane);
            }
        }
    }

    /// Choose a victim on `plane` and mark the plane as collecting. None if
    /// no full, unpinned block has a stale page to reclaim.
    pub fn start_gc(&mut self, plane: u32) -> Option<u32> {
        let bpp = self.geo.blocks_per_plane;
        let ppb = self.geo.pages_per_block;
        let blocks = &self.blocks;
        // In the plane's free order, so ties go to the block first in it.
        let candidates = super::free_order(plane, bpp).filter_map(|b| {
            let info = &blocks[b as usize];
            (info.state == BlockState::Full && info.pins == 0 && info.valid < ppb).then_some((b, info.valid))
        });
        let victim = self.victims.pick(candidates, ppb)?;
        self.gc_run_started(plane);
        Some(self.mark_victim(plane, victim))
    }

    /// `start_gc` as SSDSim's `gc_for_channel` chooses (`ftl.gc_timing =
    /// "stale_erases_only"`): first a block the run's writes made wholly
    /// stale (`gc_direct_erase`: a block `get_ppn` listed when its last page
    /// went stale; `is_aged` tells those written before
    /// the run, which SSDSim never lists), in the plane's free order; else
    /// the victim policy's choice (`uninterrupt_gc`: the most stale pages).
    pub fn start_gc_stale_first(&mut self, plane: u32, is_aged: impl Fn(u32) -> bool) -> Option<u32> {
        match self.first_run_staled(plane, &is_aged) {
            Some(b) => {
                self.gc_run_started(plane);
                Some(self.mark_victim(plane, b))
            }
            None => self.start_gc(plane),
        }
    }

    /// The blocks SSDSim's INTERLEAVE_TWO_PLANE direct erase takes with
    /// `victim` (`erase_planes`, pagemap.c; `gc_direct_erase` always
    /// chooses it on a chip of two dies and two planes, its two checks
    /// testing the victim's own plane): on every die of the chip, each
    /// plane's first wholly stale block the run made (the head of SSDSim's
    /// list; here in free order, as `start_gc_stale_first`) whose number in
    /// its plane equals the die's reference, the victim's on its die and
    /// on another die the number of the first plane's candidate. Marked as
    /// victims; a plane already collecting is passed over (one victim per
    /// plane at a time). Appended to `out`.
    pub fn direct_erase_companions(&mut self, victim: u32, is_aged: impl Fn(u32) -> bool, out: &mut Vec<u32>) {
        let (bpp, ppd, dpc) = (self.geo.blocks_per_plane, self.geo.planes_per_die, self.geo.dies_per_chip);
        let vplane = self.geo.plane_of_block(victim);
        let vdie = self.geo.die_of_plane(vplane);
        let first_die = self.geo.chip_of_die(vdie) * dpc;
        for die in first_die..first_die + dpc {
            let mut reference = (die == vdie).then_some(victim - vplane * bpp);
            for plane in die * ppd..(die + 1) * ppd {
                if plane == vplane || self.planes[plane as usize].gc_ongoing > 0 {
                    continue;
                }
                let Some(b) = self.first_run_staled(plane, &is_aged) else { continue };
                let number = b - plane * bpp;
                if *reference.get_or_insert(number) == number {
                    out.push(self.mark_victim(plane, b));
                }
            }
        }
    }

    /// The plane's first block, in free order, that the run's writes made
    /// wholly stale (`is_aged` tells those written before the run).
    fn first_run_staled(&self, plane: u32, is_aged: &impl Fn(u32) -> bool) -> Option<u32> {
        super::free_order(plane, self.geo.blocks_per_plane).find(|&b| {
            let info = &self.blocks[b as usize];
            info.state == BlockState::Full && info.pins == 0 && info.valid == 0 && !is_aged(b)
        })
    }

    /// Mark `victim` as being collected and its plane as collecting.
    fn mark_victim(&mut self, plane: u32, victim: u32) -> u32 {
        self.planes[plane as usize].gc_ongoing += 1;
        self.mark_moving(plane, victim)
    }

    /// Mark `victim` as being collected (the caller says by whom).
    fn mark_moving(&mut self, plane: u32, victim: u32) -> u32 {
        self.blocks[victim as usize].state = BlockState::Victim;
        // A full block can still be a stream's write point; once erased it
        // must not be written through that stale reference.
        let p = &mut self.planes[plane as usize];
        for wp in p.write_points.iter_mut().filter(|wp| **wp == victim) {
            *wp = crate::types::NO_PAGE;
        }
        victim
    }

    /// Live pages of a block, in page order, into `out`.
    pub fn live_pages_of(&self, block: u32, out: &mut Vec<Ppn>) {
        out.clear();
        let first = self.geo.first_page(block);
        for ppn in first..first + self.geo.pages_per_block {
            if self.page_state(ppn) == PageState::Valid {
                out.push(ppn);
            }
        }
    }

    /// A GC copy from `from` to `to` finished. True if the data was still
    /// live and moved (the caller tells the scheme); false if the host
    /// overwrote it meanwhile, in which case the copy is dropped.
    pub fn finish_move(&mut self, from: Ppn, to: Ppn) -> bool {
        if self.page_state(from) == PageState::Valid && self.owner(from) == self.owner(to) {
            self.invalidate(from);
            self.stats.gc_moves += 1;
            true
        } else {
            self.invalidate(to);
            self.stats.gc_moves_dropped += 1;
            false
        }
    }

    /// All moves of a victim are done: erase now if unpinned, else when the
    /// last pin goes (`unpin` then returns true).
    pub fn victim_moved(&mut self, block: u32) -> bool {
        let b = &mut self.blocks[block as usize];
        b.erase_ready = true;
        b.pins == 0
    }
}

impl Ftl {
    /// The victim's erase has been issued: later unpins must not issue another.
    pub fn erase_issued(&mut self, block: u32) {
        self.blocks[block as usize].erase_ready = false;
    }
}
