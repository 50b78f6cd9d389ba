//! Writes that take no simulated time: preconditioning before measurement,
//! and placing a never-written page the first time the trace reads it (as if
//! preconditioning had written it). Both go through the scheme's own
//! `plan_write`, so the layout is the scheme's, and the plan is applied at
//! once instead of being timed.

use super::txn::HostIo;
use super::{is_placed, mark_written, Simulation};
use crate::config::{PlaceReads, PreconditionLayout, PreconditionSpan};
use crate::error::{Error, Result};
use crate::ftl::{Chunked, Ftl};
use crate::schemes::Ctx;
use crate::types::{mix64, page_token, IoKind, Lpn, Token};
use rand::Rng;
use std::ops::Range;

/// Pages a replay hands to the scheme at once.
const REPLAY_CHUNK: usize = 4096;
/// Passes over the workload a replay may take (`steady_writes`).
const MAX_REPLAY_PASSES: u64 = 1000;
/// Mixed into a replayed write's token: replayed and host writes draw
/// their contents from different sequences.
const REPLAY_SALT: u64 = 0x3C6E_F372_FE94_F82B;

/// The content of a page nobody wrote during the run: fixed per LPN.
pub fn initial_token(lpn: Lpn) -> Token {
    page_token(mix64(lpn as u64 ^ 0xD1B5_4A32_D192_ED03), 0)
}

impl Simulation {
    /// Closed-loop flows' footprint: up to the end of the furthest region
    /// a flow issues in (None without closed-loop flows; an open-loop
    /// flow's trace or profile has its own extent, not known here).
    fn flows_footprint(&self) -> Result<Option<u64>> {
        let flows = &self.cfg.flows;
        if flows.is_empty() || flows.iter().any(|f| f.is_open()) {
            return Ok(None);
        }
        let logical = self.geo.logical_bytes();
        let mut end = 0;
        for (i, f) in flows.iter().enumerate() {
            let (offset, blocks) = f.region(i, logical)?;
            end = end.max(offset + blocks * f.bs as u64);
        }
        Ok(Some(end))
    }

    /// Fill the device as `ftl.precondition` asks, then reset the counters.
    pub(super) fn precondition(&mut self, progress: &mut dyn super::Progress) -> Result<()> {
        let p = self.cfg.ftl.precondition.clone();
        let logical = self.geo.logical_pages;
        let span = match p.span {
            PreconditionSpan::Device => logical,
            _ if p.valid == 0.0 => 0,
            PreconditionSpan::Footprint => {
                let bytes = match self.host.footprint().or(self.flows_footprint()?) {
                    Some(b) => b,
                    None => {
                        return Err(Error::config(
                            "ftl.precondition.span",
                            "\"footprint\" needs the workload's footprint before the run: `detour run` and the Python API \
                         find it (reading a trace once more), closed-loop flows have it (their regions); a caller of \
                         the library gives it with Simulation::set_footprint. Or use \"device\"",
                        ))
                    }
                };
                bytes.div_ceil(self.cfg.device.page_size as u64).min(logical as u64) as u32
            }
        };
        let valid = ((p.valid * span as f64) as u32).min(logical);
        self.ftl.place_translation_pages()?;
        let mut report = |done: u64, total: u64| {
            if done & 0xFFFF == 0 && !progress.precondition(done, total) {
                return Err(Error::Interrupted { done: 0 });
            }
            Ok(())
        };
        if p.layout == PreconditionLayout::MqsimSteady {
            if p.invalid > 0.0 || p.to_gc_threshold {
                return Err(Error::config(
                    "ftl.precondition.layout",
                    "\"mqsim_steady\" makes the stale pages itself: leave `invalid` and `to_gc_threshold` unset",
                ));
            }
            self.fill_mqsim_steady(valid, span)?;
        } else {
            self.fill(valid, &mut report)?;
        }
        // Wear first: GC runs as needed, so its overwrites may exceed the
        // free space; the steps below then start from a used device.
        // Shares of the physical space are of the device's own chips: the
        // host never writes a spare chip (device.spare_chips).
        let wear = (p.wear * self.geo.host_pages() as f64) as u64;
        if wear > 0 {
            self.overwrite("ftl.precondition.wear", valid, wear, None, &mut report)?;
        }
        let steady = (p.steady_writes * logical as f64) as u64;
        if steady > 0 {
            self.replay_writes(steady, &mut report)?;
        }
        // A spare chip's blocks stay free: they are above the floor, not below.
        let spare_free: u64 = (self.geo.host_planes()..self.geo.planes()).map(|p| self.ftl.free_blocks(p) as u64).sum();
        let floor = self.geo.host_planes() as u64 * (self.gc_free_blocks() as u64 + 1) + spare_free;
        let ppb = self.geo.pages_per_block as u64;
        if p.layout == PreconditionLayout::TrailingFree {
            if p.to_gc_threshold {
                return Err(Error::config(
                    "ftl.precondition.layout",
                    "\"trailing_free\" places `invalid`'s stale pages; it does not fill to the GC threshold",
                ));
            }
            // Stale pages written in place (make_aged): no valid page needed.
            self.ftl.age_trailing_free(p.invalid);
        }
        let overwrites = if p.layout == PreconditionLayout::TrailingFree {
            0
        } else if p.to_gc_threshold {
            self.ftl.free_blocks_total().saturating_sub(floor) * ppb
        } else {
            (p.invalid * self.geo.host_pages() as f64) as u64
        };
        if overwrites > 0 && valid == 0 {
            let key = if p.to_gc_threshold { "ftl.precondition.to_gc_threshold" } else { "ftl.precondition.invalid" };
            return Err(Error::config(key, "needs ftl.precondition.valid > 0 (stale pages come from overwrites)"));
        }
        // Filling to the GC threshold ends at the floor of free blocks.
        let floor = p.to_gc_threshold.then_some(floor);
        let key = if p.to_gc_threshold { "ftl.precondition.to_gc_threshold" } else { "ftl.precondition.invalid" };
        self.overwrite(key, valid, overwrites, floor, &mut report)?;
        if p.headroom_blocks > 0 {
            self.instant_gc_to(self.gc_free_blocks() + p.headroom_blocks);
        }
        if self.cfg.ftl.gc_timing == crate::config::GcTiming::StaleErasesOnly {
            self.mark_aged_blocks();
        }
        // After the blocks staled before the run are marked: SSDSim's
        // pre_process_page runs after make_aged, and a block its pages
        // fill is listed for a (timed) direct erase when the run stales it.
        if p.place_reads == PlaceReads::BeforeRun {
            self.place_reads_before_run()?;
        }
        // A plane a scheme writes more than others (or the reads' pages
        // placed above) can end below its GC threshold. MQSim's
        // preconditioning checks GC nowhere: a plane below its trigger
        // starts GC when its next data frontier fills (ftl/steady.rs).
        if p.layout == PreconditionLayout::MqsimSteady {
            self.ftl.gc_wanted.clear();
        } else {
            self.ftl.relist_gc_wanted();
        }
        self.ftl.stats = Default::default();
        Ok(())
    }

    /// SSDSim's `pre_process_page` (pagemap.c; `PlaceReads::BeforeRun`):
    /// read the workload once and place every page a read covers that
    /// nothing placed yet, in its order, with no GC (a full plane is an
    /// error, as SSDSim's "the read operation is expand the capacity of
    /// SSD"). Setup, not the run's: `pages.placed_on_read` and the folded
    /// count are left as they were.
    fn place_reads_before_run(&mut self) -> Result<()> {
        const KEY: &str = "ftl.precondition.place_reads";
        let given = self.read_workload_again(|sim, kind, io| match kind {
            IoKind::Read => match sim.place_read_before_run(io) {
                Some(lpn) => Err(Error::config(KEY, format!("a plane filled up placing the pages the workload reads (at LPN {lpn})"))),
                None => Ok(()),
            },
            _ => Ok(()),
        })?;
        if !given {
            return Err(Error::config(
                KEY,
                "\"before_run\" needs the workload a second time (Simulation::set_again; the Python API and `detour run` give it)",
            ));
        }
        Ok(())
    }

    /// Setup's own reading of the workload (given by
    /// `Simulation::set_again`): `each` gets every request's kind and
    /// pages (with its size in bytes), in order; false if the workload was
    /// not given. The run's `folded` and `placed_on_read` counts stay as
    /// they were, and the workload is kept for a later step to read again.
    pub(super) fn read_workload_again(&mut self, mut each: impl FnMut(&mut Self, IoKind, &HostIo) -> Result<()>) -> Result<bool> {
        let Some(mut again) = self.host.take_again() else { return Ok(false) };
        let counts = (self.n.folded, self.n.placed_on_read);
        for r in again(0)? {
            let r = r?;
            let io = self.split_pages(&r)?;
            each(self, r.kind, &io)?;
        }
        (self.n.folded, self.n.placed_on_read) = counts;
        self.host.set_again(again);
        Ok(true)
    }

    /// Write LPNs 0..valid in order, collecting planes that fill up.
    fn fill(&mut self, valid: u32, report: &mut impl FnMut(u64, u64) -> Result<()>) -> Result<()> {
        let (mut lpn, mut interrupted) = (0, None);
        while lpn < valid {
            let refused = self.write_while(|_, _| {
                if lpn == valid || interrupted.is_some() {
                    return None;
                }
                interrupted = report(lpn as u64, valid as u64).err();
                let l = lpn;
                lpn += 1;
                Some((l, initial_token(l)))
            });
            if let Some(e) = interrupted {
                return Err(e);
            }
            if let Some((l, t)) = refused {
                self.instant_write("ftl.precondition.valid", l, t, true)?;
            }
        }
        Ok(())
    }

    /// Overwrite `overwrites` uniformly random LPNs of 0..valid, visited
    /// in order (Knuth's selection sampling) so the tables are walked
    /// sequentially. More overwrites than valid pages take several passes
    /// of equal size: one pass of every LPN would leave each block written
    /// before it wholly stale, and GC would then only erase, never move a
    /// page. With `floor`, stop once the free blocks are down to it.
    fn overwrite(
        &mut self,
        key: &'static str,
        valid: u32,
        mut overwrites: u64,
        floor: Option<u64>,
        report: &mut impl FnMut(u64, u64) -> Result<()>,
    ) -> Result<()> {
        let passes = overwrites.div_ceil(valid.max(1) as u64).max(1);
        let per_pass = overwrites.div_ceil(passes);
        let stop = |f: &Ftl| floor.is_some_and(|floor| f.free_blocks_total() <= floor);
        let (mut k, mut interrupted) = (0u64, None);
        while overwrites > 0 && !stop(&self.ftl) {
            let mut need = overwrites.min(per_pass);
            overwrites -= need;
            let mut lpn = 0;
            loop {
                let refused = self.write_while(|ctx, _| {
                    while lpn < valid && need > 0 && interrupted.is_none() && !stop(ctx.ftl) {
                        let l = lpn;
                        lpn += 1;
                        if ctx.rng.random_range(0..(valid - l) as u64) < need {
                            let t = mix64(k ^ 0xA076_1D64_78BD_642F) | 1;
                            (need, k) = (need - 1, k + 1);
                            interrupted = report(valid as u64 + k, valid as u64 + k + need).err();
                            return Some((l, t));
                        }
                    }
                    None
                });
                if let Some(e) = interrupted {
                    return Err(e);
                }
                let Some((l, t)) = refused else { break };
                // Filling to the GC threshold ends when a plane the scheme writes
                // is there, even if planes it never writes (hidden mirror chips)
                // still hold free blocks: the total alone would overfill the others.
                match self.instant_write(key, l, t, floor.is_none()) {
                    Err(_) if floor.is_some() => return Ok(()),
                    r => r?,
                }
            }
        }
        Ok(())
    }

    /// Write `target` pages of the workload's own writes at once, in its
    /// order, pass after pass of the replay, GC collecting as planes fill.
    fn replay_writes(&mut self, target: u64, report: &mut impl FnMut(u64, u64) -> Result<()>) -> Result<()> {
        const KEY: &str = "ftl.precondition.steady_writes";
        let mut replay = self.host.take_replay().ok_or_else(|| {
            Error::config(KEY, "needs the workload a second time (Simulation::set_replay; the Python API and `detour run` give it)")
        })?;
        let (folded, mut written, mut chunk, mut k) = (self.n.folded, 0u64, Vec::with_capacity(REPLAY_CHUNK), 0u64);
        let mut pass = 0;
        loop {
            let (start, mut requests) = (written, replay(pass)?);
            pass += 1;
            loop {
                chunk.clear();
                self.replay_chunk(&mut requests, &mut chunk, target - written, &mut k)?;
                if chunk.is_empty() {
                    break;
                }
                written += chunk.len() as u64;
                self.write_all(KEY, &chunk)?;
                report(written, target)?;
                if written >= target {
                    self.n.folded = folded;
                    return Ok(());
                }
            }
            if written == start {
                return Err(Error::config(KEY, "the workload has no writes to replay"));
            }
            // Each pass reads the whole workload again: one that writes
            // little would take hours of reading to reach the target.
            let passes = target.div_ceil(written);
            if pass == 1 && passes > MAX_REPLAY_PASSES {
                let most = (MAX_REPLAY_PASSES * written) as f64 / self.geo.logical_pages as f64;
                return Err(Error::config(
                    KEY,
                    format!("a pass over the workload writes {written} page(s); this needs {passes} passes (at most {MAX_REPLAY_PASSES}): set at most {most:.4}"),
                ));
            }
        }
    }

    /// The next write pages of `requests`, at most `room` and about a
    /// chunk's worth, with tokens no host write of the run will repeat.
    fn replay_chunk(&mut self, requests: &mut super::Requests, chunk: &mut Vec<(Lpn, Token)>, room: u64, k: &mut u64) -> Result<()> {
        while chunk.len() < REPLAY_CHUNK && (chunk.len() as u64) < room {
            let Some(r) = requests.next() else { break };
            let r = r?;
            if r.kind != IoKind::Write {
                continue;
            }
            let io = self.split_pages(&r)?;
            let pages = (io.pages as u64).min(room - chunk.len() as u64) as u32;
            chunk.extend((0..pages).map(|i| {
                let t = if r.content != 0 { page_token(r.content, i) } else { mix64(*k ^ REPLAY_SALT) | 1 };
                *k += 1;
                (io.lpn + i, t)
            }));
        }
        Ok(())
    }

    /// Write `pages` at once; a plane that fills up is collected and the
    /// page written again.
    fn write_all(&mut self, key: &'static str, pages: &[(Lpn, Token)]) -> Result<()> {
        let mut i = 0;
        while i < pages.len() {
            let refused = self.write_while(|_, _| {
                let p = pages.get(i).copied();
                i += 1;
                p
            });
            let Some((l, t)) = refused else { break };
            self.instant_write(key, l, t, true)?;
        }
        Ok(())
    }

    fn gc_free_blocks(&self) -> u32 {
        ((self.cfg.ftl.gc_threshold * self.geo.blocks_per_plane as f64).ceil() as u32).max(crate::ftl::GC_RESERVE + 1)
    }

    /// With `gc`, a plane that fills up is collected at once and the write
    /// retried: schemes that write more than the host (parity, copies) would
    /// otherwise fill some planes long before the requested occupancy.
    /// Filling to the GC threshold stops at the first full plane instead.
    /// The error names `key`, the step that was writing.
    fn instant_write(&mut self, key: &'static str, lpn: Lpn, token: Token, gc: bool) -> Result<()> {
        let mut written = self.write_one(lpn, token);
        while !written && gc && self.instant_gc() {
            written = self.write_one(lpn, token);
        }
        if !written {
            return Err(Error::config(
                key,
                format!("the device filled up while preconditioning (at LPN {lpn}): GC found no block to reclaim; lower {key}"),
            ));
        }
        Ok(())
    }

    /// Greedy GC with no simulated time on every plane below its threshold,
    /// until each is above it or has no block to reclaim; the scheme hears
    /// every move. True if any block was reclaimed.
    fn instant_gc(&mut self) -> bool {
        self.instant_gc_to(0)
    }

    /// `instant_gc`, but with `free > 0` every plane is collected until it
    /// holds `free` free blocks (idle-time GC catching up), threshold or not.
    fn instant_gc_to(&mut self, free: u32) -> bool {
        let mut any = false;
        // Densely live victims gain little each; a bound on rounds keeps
        // a plane that cannot reach `free` from churning its blocks.
        let max_rounds = 4 * self.geo.blocks_per_plane;
        for plane in 0..self.geo.planes() {
            let mut rounds = 0;
            while self.ftl.needs_gc_in_setup(plane)
                || (free > 0 && rounds < max_rounds && self.ftl.free_blocks(plane) < free && !self.ftl.gc_active(plane))
            {
                rounds += 1;
                let Some(victim) = self.ftl.start_gc(plane) else { break };
                let mut pages = std::mem::take(&mut self.scratch.ids);
                self.ftl.live_pages_of(victim, &mut pages);
                let stream = self.ftl.gc_stream(victim);
                for &from in &pages {
                    let owner = self.ftl.owner(from);
                    let token = self.ftl.token(from);
                    let Some(to) = self.ftl.alloc_programmed(plane, stream, owner, token) else { break };
                    self.finish_move(from, to, owner);
                }
                self.scratch.ids = pages;
                if self.ftl.block(victim).valid > 0 {
                    break; // the reserve ran out mid-victim: leave it collecting
                }
                self.ftl.victim_moved(victim);
                self.ftl.erase_issued(victim);
                self.ftl.erase_done(victim);
                any = true;
            }
        }
        any
    }

    /// Write pages at once through the scheme's `write_instantly` while
    /// `next` names one (it gets the context, so a choice it draws from the
    /// run's generator falls between the scheme's draws as page-by-page
    /// writes would, and the placed-page bitmap), with one planning context
    /// for the lot: built and called through for each page, preconditioning
    /// ran 30% more instructions. The page a full plane refused comes back
    /// unwritten; a written page is marked placed (and its token kept, in
    /// verify mode).
    pub(super) fn write_while(&mut self, mut next: impl FnMut(&mut Ctx, &Chunked<u64>) -> Option<(Lpn, Token)>) -> Option<(Lpn, Token)> {
        self.ftl.set_setup(true);
        // Not `with_ctx`: the scratch plan is borrowed beside the context
        // instead of moved out and back.
        let mut ctx = super::exec::planning_ctx!(self);
        let mut refused = None;
        while let Some((lpn, token)) = next(&mut ctx, &self.placed) {
            let r = self.scheme.write_instantly(lpn, token, &mut ctx, &mut self.scratch.scratch_plan);
            // Background work a scheme asks for during setup is not simulated.
            ctx.background.clear();
            if r.is_err() {
                refused = Some((lpn, token));
                break;
            }
            mark_written(&mut self.placed, &mut self.oracle, lpn, token);
            self.lot.placed(lpn);
        }
        self.ftl.set_setup(false);
        refused
    }

    /// Write one page at once (see `write_while`); false if a full plane
    /// refused it.
    fn write_one(&mut self, lpn: Lpn, token: Token) -> bool {
        let mut page = Some((lpn, token));
        self.write_while(|_, _| page.take()).is_none()
    }

    /// Place every never-written page of `lpns`. Some(lpn) if a plane had no
    /// free page for it (the read waits for an erase). Placement is setup, not
    /// host work: it is left out of the program counts.
    pub(super) fn place_unwritten(&mut self, mut lpns: Range<Lpn>) -> Option<Lpn> {
        let (host, aux) = (self.ftl.stats.programs_host, self.ftl.stats.programs_aux);
        let mut named = 0;
        // A discarded page is read as "unwritten" (trim.rs), not placed.
        let trim = self.trim.take();
        let trimmed = trim.as_deref();
        let refused = self.write_while(|_, placed| {
            let lpn = lpns.find(|&l| !is_placed(placed, l) && !trimmed.is_some_and(|t| t.has(l)))?;
            named += 1;
            Some((lpn, initial_token(lpn)))
        });
        self.trim = trim;
        self.n.placed_on_read += named - refused.is_some() as u64;
        (self.ftl.stats.programs_host, self.ftl.stats.programs_aux) = (host, aux);
        refused.map(|(lpn, _)| lpn)
    }
}
