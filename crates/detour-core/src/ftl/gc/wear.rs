//! Static wear levelling (`ftl.wear_leveling = "static"`).
//!
//! What: after an erase on a plane, if the plane's erase-count spread (its
//! most-erased block's count minus its least-erased full block's) exceeds
//! `ftl.wear_threshold`, that least-erased full block is collected like a
//! GC victim: its live pages move to the plane's GC write point and it is
//! erased, so it rejoins the free pool.
//!
//! Why: greedy GC only erases blocks whose data goes stale. A block full of
//! cold data is never chosen, keeps its low count, and the hot data keeps
//! cycling the same few blocks. Moving the cold data onto a worn block and
//! freeing the young one spreads the wear (a drive's life ends with its
//! most-erased blocks).
//!
//! It starts only on a plane that is not collecting and holds at least its
//! GC trigger of free blocks, so it never competes with GC for the reserve;
//! it costs one pass over the plane's blocks per erase, only when on.
//!
//! `ftl.wear_leveling = "mqsim"` runs MQSim's check as its code does
//! (`start_mqsim_wear_leveling`): the "spread" is the difference of two
//! block numbers, so it starts on a plane's first erase of a block numbered
//! at or past the threshold, and again whenever a lower-numbered block than
//! the first least-erased one has been erased (the unsigned difference
//! wraps), whatever the plane's free space. Its victim is tracked apart
//! from GC's, so GC may start on the plane while it moves and it may start
//! while GC moves, and a free block it picks is erased (taken off the free
//! list until then), as MQSim's `run_static_wearleveling` does.
//!
//! References: MQSim's GC_and_WL_Unit (static wear levelling on an erase-
//! count spread threshold); Chang, Hsieh and Kuo, "Endurance enhancement of
//! flash-memory storage systems: an efficient static wear leveling design",
//! DAC 2007.

use super::super::{BlockState, Ftl};
use crate::types::NO_PAGE;

impl Ftl {
    /// Static wear levelling is on.
    pub fn wear_leveling(&self) -> bool {
        self.wear_threshold.is_some()
    }

    /// The block to migrate on `plane` now, marked as a victim (None: off,
    /// busy, short of free blocks, or the spread is within the threshold).
    pub fn start_wear_leveling(&mut self, plane: u32) -> Option<u32> {
        let threshold = self.wear_threshold?;
        if self.wear_mqsim {
            return self.start_mqsim_wear_leveling(plane, threshold);
        }
        let p = &self.planes[plane as usize];
        if p.gc_ongoing > 0 || (p.free.len() as u32) < self.gc_free_blocks {
            return None;
        }
        let (coldest, most) = self.coldest_full_block(plane)?;
        if most - self.blocks[coldest as usize].erases <= threshold {
            return None;
        }
        self.stats.wl_migrations += 1;
        Some(self.mark_victim(plane, coldest))
    }

    /// MQSim's static wear levelling after an erase (`ftl.wear_leveling =
    /// "mqsim"`). `check_static_wl_required` (GC_and_WL_Unit_Base.cpp)
    /// asks `Get_min_max_erase_difference` (Flash_Block_Manager_Base.cpp),
    /// which finds the first block of the plane with the most erases and
    /// the first with the fewest and returns `max_erased_block -
    /// min_erased_block`: their numbers, unsigned, not their counts; at or
    /// above the threshold `run_static_wearleveling` takes the first
    /// least-erased block (`Get_coldest_block_id`) if `is_safe_gc_wl_
    /// candidate` holds (no write frontier, no program in flight, no GC or
    /// wear levelling on it) and moves its valid pages and erases it, with
    /// no look at the plane's free blocks. A block's number is its place in
    /// the plane's free order, which MQSim's constructor and pool follow
    /// (blocks taken in number order). Neither that function nor
    /// `is_safe_gc_wl_candidate` asks whether GC is running on the plane,
    /// and `Check_gc_required` (GC_and_WL_Unit_Page_Level.cpp) only counts
    /// the plane's erases in flight against 10, so the victim is kept in
    /// the plane's `wl_victim`, apart from GC's. A free block (not a write
    /// frontier, so "safe") is erased with no moves; it leaves the free
    /// list until its erase ends (MQSim leaves it in its pool, and the
    /// erase's end adds it a second time, `Add_erased_block_to_pool`).
    /// Here a picked block must be full and unpinned or free and unwritten:
    /// MQSim would postpone a pinned one (`Can_execute_gc_wl`). One at a
    /// time per plane: the block moving keeps the fewest erases, so MQSim
    /// picks it again and refuses it (`Has_ongoing_gc_wl`).
    fn start_mqsim_wear_leveling(&mut self, plane: u32, threshold: u32) -> Option<u32> {
        if self.planes[plane as usize].wl_victim != NO_PAGE {
            return None;
        }
        let (mut most, mut least) = ((0u32, 0u32), (0u32, u32::MAX));
        for (number, b) in super::super::free_order(plane, self.geo.blocks_per_plane).enumerate() {
            let erases = self.blocks[b as usize].erases;
            if number == 0 || erases > most.1 {
                most = (number as u32, erases);
            }
            if erases < least.1 {
                least = (number as u32, erases);
            }
        }
        if most.0.wrapping_sub(least.0) < threshold {
            return None;
        }
        let coldest = super::super::free_order(plane, self.geo.blocks_per_plane).nth(least.0 as usize)?;
        let info = &self.blocks[coldest as usize];
        match info.state {
            BlockState::Full if info.pins == 0 => {}
            BlockState::Free if info.next == 0 => self.take_free(plane, coldest),
            _ => return None,
        }
        self.stats.wl_migrations += 1;
        self.planes[plane as usize].wl_victim = coldest;
        Some(self.mark_moving(plane, coldest))
    }

    /// Take free `block` off `plane`'s free list (to be erased; the erase's
    /// end puts it back, at the tail).
    fn take_free(&mut self, plane: u32, block: u32) {
        let p = &mut self.planes[plane as usize];
        if let Some(i) = p.free.iter().position(|&b| b == block) {
            p.free.remove(i);
            self.free_total -= 1;
            self.die_free[self.geo.die_of_plane(plane) as usize] -= 1;
        }
    }

    /// `ftl.wear_leveling = "mqsim"`: an erase's end tries wear levelling
    /// before GC, as MQSim's handler does.
    pub fn wear_leveling_first(&self) -> bool {
        self.wear_mqsim
    }

    /// A block to refresh now (`nand.refresh_steps`), marked as a victim,
    /// with its plane: the first listed that is full with no program in
    /// flight, on a plane not collecting and not short of free blocks.
    /// Unlike GC it takes a block reads still pin: those reads find their
    /// data, as the erase waits for the last of them (`erase_ready`), and a
    /// block read often enough to need refreshing is rarely unpinned. Blocks GC took (or that
    /// were retired) leave the list; the others wait for their turn.
    pub fn start_refresh(&mut self) -> Option<(u32, u32)> {
        let mut wanted = std::mem::take(&mut self.nand.as_mut()?.refresh_wanted);
        let mut found = None;
        wanted.retain(|&b| {
            let info = &self.blocks[b as usize];
            if found.is_some() || info.state == BlockState::Open {
                return true;
            }
            if info.state != BlockState::Full {
                return false;
            }
            let plane = self.geo.plane_of_block(b);
            let p = &self.planes[plane as usize];
            if info.pending > 0 || p.gc_ongoing > 0 || (p.free.len() as u32) < self.gc_free_blocks.min(super::super::GC_RESERVE + 1) {
                return true;
            }
            found = Some((plane, b));
            false
        });
        let nand = self.nand.as_mut()?;
        nand.refresh_wanted = wanted;
        let (plane, block) = found?;
        nand.stats.refreshes += 1;
        Some((plane, self.mark_victim(plane, block)))
    }

    /// Blocks wait for a refresh.
    #[inline]
    pub fn refresh_pending(&self) -> bool {
        self.nand.as_ref().is_some_and(|n| !n.refresh_wanted.is_empty())
    }

    /// The plane's least-erased full, unpinned block (ties to the first in
    /// the free order) and the plane's largest erase count.
    fn coldest_full_block(&self, plane: u32) -> Option<(u32, u32)> {
        let (mut best, mut most): (Option<u32>, u32) = (None, 0);
        for b in super::super::free_order(plane, self.geo.blocks_per_plane) {
            let info = &self.blocks[b as usize];
            most = most.max(info.erases);
            let cold = info.state == BlockState::Full && info.pins == 0;
            if cold && best.is_none_or(|x| info.erases < self.blocks[x as usize].erases) {
                best = Some(b);
            }
        }
        best.map(|b| (b, most))
    }
}
