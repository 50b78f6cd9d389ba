//! Work no host request waits for directly: garbage collection, erases,
//! the scheme's periodic tick and the background plans it submits.

use super::txn::TxnKind;
use super::Simulation;
use crate::config::{GcConcurrency, GcPriority, GcTiming};
use crate::engine::Event;
use crate::error::{Error, Result};
use crate::ftl::BlockState;
use crate::scheduler::Class;
use crate::types::{Owner, Ppn, NS_PER_US};

impl Simulation {
    /// Start every background plan the scheme submitted.
    pub(super) fn start_background(&mut self) -> Result<()> {
        while let Some(plan) = self.scratch.bg.pop() {
            let t = self.txns.alloc(TxnKind::Background);
            self.materialize(t, &plan, true)?;
            let txn = self.txns.get_mut(t);
            if txn.open_groups == 0 && !txn.scheduled {
                txn.scheduled = true;
                self.q.after(0, Event::TxnFinish(t))?;
            }
        }
        Ok(())
    }

    /// Start GC on planes that fell below their threshold, and retry planes
    /// where every candidate victim was pinned.
    pub(super) fn start_wanted_gc(&mut self) -> Result<()> {
        if self.ftl.gc_wanted.is_empty() && self.gc_blocked.is_empty() {
            return Ok(());
        }
        let mut wanted = std::mem::take(&mut self.ftl.gc_wanted);
        wanted.append(&mut self.gc_blocked);
        loop {
            for &plane in &wanted {
                self.start_gc(plane)?;
            }
            wanted.clear();
            // A victim's copies take their pages as it starts; one that took
            // a block below the trigger asked for another victim. Under
            // `ftl.gc_concurrency = "mqsim"` that ask is served now: MQSim's
            // Allocate_block_and_page_in_plane_for_gc_write (Flash_Block_
            // Manager.cpp) calls Check_gc_required when a GC write takes a new
            // frontier block, beside the victim still moving. Otherwise (and
            // before issue 46's h42tail25) the ask was dropped here.
            if self.cfg.ftl.gc_concurrency != GcConcurrency::Mqsim || self.ftl.gc_wanted.is_empty() {
                break;
            }
            std::mem::swap(&mut wanted, &mut self.ftl.gc_wanted);
        }
        self.ftl.gc_wanted = wanted;
        Ok(())
    }

    fn start_gc(&mut self, plane: u32) -> Result<()> {
        if !self.ftl.needs_gc(plane) {
            return Ok(());
        }
        let allowed = self.with_ctx(|s, ctx| s.may_start_gc(plane, ctx));
        let victim = match allowed {
            false => None,
            true if self.cfg.ftl.gc_timing == GcTiming::StaleErasesOnly => {
                let aged = &self.aged_blocks;
                self.ftl.start_gc_stale_first(plane, |b| is_set(aged, b))
            }
            true => self.ftl.start_gc(plane),
        };
        let Some(victim) = victim else {
            if !self.gc_blocked.contains(&plane) {
                self.gc_blocked.push(plane);
            }
            return Ok(());
        };
        if self.cfg.ftl.gc_timing == GcTiming::StaleErasesOnly {
            if self.reclaims_untimed(victim) {
                return self.reclaim_untimed(plane, victim);
            }
            if self.cfg.scheduler.chip_erase_batches {
                return self.erase_chip_wide(victim);
            }
        }
        self.collect(plane, victim)
    }

    /// SSDSim's timed direct erase under INTERLEAVE_TWO_PLANE
    /// (`gc_direct_erase` / `erase_planes`, pagemap.c): `victim` and the
    /// wholly stale blocks the chip's other dies and planes hold are
    /// erased by one command; queued together, before the unit picks,
    /// they form one chip-wide erase batch (`scheduler.chip_erase_batches`).
    #[cold]
    #[inline(never)]
    fn erase_chip_wide(&mut self, victim: u32) -> Result<()> {
        let mut blocks = std::mem::take(&mut self.scratch.ids);
        blocks.clear();
        blocks.push(victim);
        let aged = &self.aged_blocks;
        self.ftl.direct_erase_companions(victim, |b| is_set(aged, b), &mut blocks);
        for &b in &blocks {
            // No live page and no pin (chosen so): erased at once.
            self.ftl.victim_moved(b);
            self.issue_erase(b)?;
        }
        self.scratch.ids = blocks;
        Ok(())
    }

    /// Under `ftl.gc_timing = "stale_erases_only"`: every block written
    /// before the run is SSDSim's `make_aged` block, never listed for a
    /// timed direct erase.
    pub(super) fn mark_aged_blocks(&mut self) {
        let n = self.geo.blocks();
        self.aged_blocks = vec![0; (n as usize).div_ceil(64)];
        for b in 0..n {
            if self.ftl.block(b).state != BlockState::Free {
                self.aged_blocks[b as usize / 64] |= 1 << (b % 64);
            }
        }
    }

    /// Whether victim `block` is reclaimed in no simulated time: it holds
    /// live pages (SSDSim's `uninterrupt_gc`) or was staled before the run;
    /// a block the run's writes made wholly stale is erased in tBERS
    /// (`gc_direct_erase`, pagemap.c).
    fn reclaims_untimed(&self, block: u32) -> bool {
        is_set(&self.aged_blocks, block) || self.ftl.block(block).valid > 0
    }

    /// SSDSim's `uninterrupt_gc` with copyback and `greed CB command = 0`:
    /// the victim's live pages move and it is erased now, taking no time on
    /// any die or channel (see `GcTiming::StaleErasesOnly`).
    #[cold]
    #[inline(never)]
    fn reclaim_untimed(&mut self, plane: u32, victim: u32) -> Result<()> {
        if let Some(w) = self.aged_blocks.get_mut(victim as usize / 64) {
            *w &= !(1 << (victim % 64));
        }
        let mut pages = std::mem::take(&mut self.scratch.ids);
        self.ftl.live_pages_of(victim, &mut pages);
        let stream = self.ftl.gc_stream(victim);
        for &from in &pages {
            let (owner, token) = (self.ftl.owner(from), self.ftl.token(from));
            let Some(to) = self.ftl.alloc_programmed(plane, stream, owner, token) else {
                return Err(self.out_of_space(plane));
            };
            self.finish_move(from, to, owner);
        }
        self.scratch.ids = pages;
        self.ftl.victim_moved(victim);
        self.ftl.erase_issued(victim);
        self.erase_done(victim)
    }

    /// Static wear levelling after an erase on `plane` (ftl/gc/wear.rs):
    /// its coldest block is collected as GC collects a victim.
    fn level_wear(&mut self, plane: u32) -> Result<()> {
        if !self.ftl.wear_leveling() || !self.with_ctx(|s, ctx| s.may_start_gc(plane, ctx)) {
            return Ok(());
        }
        match self.ftl.start_wear_leveling(plane) {
            Some(block) => self.collect(plane, block),
            None => Ok(()),
        }
    }

    /// Refresh the blocks whose reads passed `nand.refresh_steps`, as GC
    /// collects a victim (their data is rewritten, so it is young again).
    /// Cold: only the `[nand]` error model asks for refreshes.
    #[cold]
    #[inline(never)]
    pub(super) fn refresh(&mut self) -> Result<()> {
        while let Some((plane, block)) = self.ftl.start_refresh() {
            self.collect(plane, block)?;
        }
        Ok(())
    }

    /// Move a victim's live pages within its plane, then (when the moves
    /// are done, `TxnKind::GcMoves`) erase it.
    fn collect(&mut self, plane: u32, victim: u32) -> Result<()> {
        let mut pages = std::mem::take(&mut self.scratch.ids);
        self.ftl.live_pages_of(victim, &mut pages);
        let stream = self.ftl.gc_stream(victim);
        let t = self.txns.alloc(TxnKind::GcMoves { block: victim });
        let mut plan = std::mem::take(&mut self.scratch.plan);
        plan.clear();
        for &from in &pages {
            let owner = self.ftl.owner(from);
            let Some(to) = self.ftl.alloc(plane, stream, owner) else {
                return Err(self.out_of_space(plane));
            };
            // The owner's bits only label the group: a GC group is neither
            // checked nor reported to the scheme.
            let g = plan.group(owner.index(), false);
            plan.read(g, 0, from, self.gc_class(), 0);
            plan.program_from_prev(g, 1, to, owner, 0, self.gc_class(), from);
        }
        self.scratch.ids = pages;
        self.materialize(t, &plan, true)?;
        self.scratch.plan = plan;
        let txn = self.txns.get_mut(t);
        if txn.open_groups == 0 {
            txn.scheduled = true;
            self.q.after(0, Event::TxnFinish(t))?;
        }
        Ok(())
    }

    /// The class of GC's moves and erases: `scheduler.gc_priority` puts
    /// them behind host work (with other background work) or before it.
    #[inline]
    fn gc_class(&self) -> Class {
        match self.cfg.scheduler.gc_priority {
            GcPriority::Background => Class::Background,
            GcPriority::Urgent => Class::Gc,
        }
    }

    /// A GC copy landed: if the data was still live, tell the scheme.
    /// Out of line: inlined into the completion path it grew every
    /// completion's frame (docs/benchmarks-log.md, thirty-second session).
    #[inline(never)]
    pub(super) fn finish_move(&mut self, from: Ppn, to: Ppn, owner: Owner) {
        if self.ftl.finish_move(from, to) {
            // A translation page's owner is its number: the directory
            // follows it, the LPN map and the scheme never see it.
            if !self.ftl.mapping.is_dram() && self.ftl.is_translation_page(to) {
                return self.ftl.mapping.moved(owner.index(), from, to);
            }
            self.with_ctx(|s, ctx| s.on_gc_move(from, to, owner, ctx));
        }
    }

    /// GC on `plane` has no page left for its copies: say why, naming the
    /// retired blocks when wear-out took the spare space.
    fn out_of_space(&self, plane: u32) -> Error {
        if self.ftl.retired == 0 {
            return Error::Sim(format!("GC on plane {plane} found no free page for its copies (reserve exhausted)"));
        }
        Error::Sim(format!(
            "the device ran out of spare space after {} of its {} blocks were retired ([nand]: worn out at \
             pe_limit, failed erases, factory bad blocks): GC on plane {plane} found no free page for its copies",
            self.ftl.retired,
            self.geo.blocks()
        ))
    }

    /// Erase a moved-out victim. Out of line, as `finish_move`.
    #[inline(never)]
    pub(super) fn issue_erase(&mut self, block: u32) -> Result<()> {
        self.ftl.erase_issued(block);
        let t = self.txns.alloc(TxnKind::Erase { block });
        let mut plan = std::mem::take(&mut self.scratch.plan);
        plan.clear();
        let g = plan.group(0, false);
        plan.erase(g, 0, self.geo.first_page(block), self.gc_class(), 0);
        self.materialize(t, &plan, true)?;
        self.scratch.plan = plan;
        Ok(())
    }

    /// A block is free again: requests waiting for it retry, GC continues if needed.
    /// Out of line, as `finish_move`.
    #[inline(never)]
    pub(super) fn erase_done(&mut self, block: u32) -> Result<()> {
        self.ftl.erase_done(block);
        let plane = self.geo.plane_of_block(block);
        // MQSim checks wear levelling, then wakes the writes that wait for
        // space, then GC (GC_and_WL_Unit_Base::handle_transaction_serviced_
        // signal_from_PHY, the ERASE case); Detour's own order collects first.
        let wear_first = self.ftl.wear_leveling_first();
        if wear_first {
            self.level_wear(plane)?;
        }
        self.wake_parked(plane)?;
        if self.ftl.gc_after_erase(plane) {
            self.start_gc(plane)?;
        }
        if !wear_first {
            self.level_wear(plane)?;
        }
        if self.ftl.refresh_pending() {
            self.refresh()?;
        }
        self.start_wanted_gc()
    }

    pub(super) fn tick_interval(&self) -> Option<u64> {
        let us = self.cfg.scheme.tick_us;
        if us > 0.0 {
            Some((us * NS_PER_US as f64).round().max(1.0) as u64)
        } else {
            self.scheme.tick_interval()
        }
    }

    pub(super) fn schedule_first_tick(&mut self) -> Result<()> {
        match self.tick_interval() {
            Some(iv) if self.more_to_arrive() => self.arm_tick(iv),
            _ => Ok(()),
        }
    }

    fn arm_tick(&mut self, iv: u64) -> Result<()> {
        self.ticks.armed = true;
        self.q.after(iv, Event::Tick)
    }

    /// The scheme's periodic work; ticks stop once the workload is done.
    ///
    /// Every tick needs something else that can move the run on: another
    /// event pending (an arrival, an issue, a completion) or work handed to
    /// the dies. A tick with none of that is idle; a tick may itself be what
    /// lets work resume (Rails' swap hands GC the other half), so
    /// `IDLE_TICKS` idle ones in a row are allowed before the ticks stop.
    /// Without that rule a run whose requests all wait for a page GC cannot
    /// free ticked on for ever (a closed-loop flow always has more to
    /// issue) or until the clock overflowed (a day at a time for RR-SSD).
    /// Once the ticks stop the event queue runs dry, the parked requests
    /// are planned once more (`revive`, which re-arms the ticks if that
    /// gave the dies work) and otherwise the run ends saying which requests
    /// could not complete.
    pub(super) fn on_tick(&mut self) -> Result<()> {
        self.ticks.armed = false;
        self.with_ctx(|s, ctx| s.tick(ctx));
        self.start_background()?;
        self.start_wanted_gc()?;
        let busy = !self.q.is_empty() || self.sched.has_work();
        self.ticks.idle = if busy { 0 } else { self.ticks.idle + 1 };
        let draining = self.host.outstanding() > 0 && self.scheme.ticks_while_draining();
        let wanted = self.more_to_arrive() || draining;
        match self.tick_interval() {
            Some(iv) if wanted && self.ticks.idle <= IDLE_TICKS => self.arm_tick(iv),
            _ => Ok(()),
        }
    }

    /// Parked work was planned again and gave the event queue something to
    /// do: the scheme's ticks, stopped while nothing moved, resume.
    pub(super) fn resume_ticks(&mut self) -> Result<()> {
        match self.tick_interval() {
            Some(iv) if !self.ticks.armed && !self.q.is_empty() => {
                self.ticks.idle = 0;
                self.arm_tick(iv)
            }
            _ => Ok(()),
        }
    }
}

/// Idle ticks in a row allowed before the ticks stop (see `on_tick`).
const IDLE_TICKS: u32 = 2;

/// Whether a tick is pending, and how many ticks in a row found nothing
/// else that could move the run on.
#[derive(Default)]
pub(super) struct Ticks {
    pub armed: bool,
    pub idle: u32,
}

/// Bit `b` of a bit set kept as 64-bit words (`Simulation::aged_blocks`).
fn is_set(words: &[u64], b: u32) -> bool {
    words.get(b as usize / 64).is_some_and(|w| w & (1 << (b % 64)) != 0)
}
