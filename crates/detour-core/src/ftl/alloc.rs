//! Write allocation: which plane a page goes to (static order from the LPN,
//! or the least-loaded die) and which page within it (the stream's open block).

use super::{BlockState, Ftl, PageState, GC_RESERVE};
use crate::config::GcTrigger;
use crate::scheduler::LoadView;
use crate::types::{Lpn, Owner, Ppn, Token, NO_PAGE};

/// How many streams there are (`Stream as usize` is below it).
pub const STREAMS: usize = 5;

/// Separate open blocks per stream keep GC copies and scheme copies out of
/// the host's blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Host = 0,
    Gc = 1,
    /// Scheme-made copies: replicas, staging, mirror, parity.
    Aux = 2,
    /// Translation pages written back from the cached mapping table.
    Map = 3,
    /// Translation pages GC moved (may use GC's reserve, as `Gc` does).
    MapGc = 4,
}

impl Stream {
    pub(crate) const ALL: [Stream; STREAMS] = [Stream::Host, Stream::Gc, Stream::Aux, Stream::Map, Stream::MapGc];

    /// GC's own writes may take the last free blocks (the reserve).
    #[inline]
    fn uses_reserve(self) -> bool {
        matches!(self, Stream::Gc | Stream::MapGc)
    }
}

impl Ftl {
    /// The write point (open block slot) `stream` writes through: its own,
    /// but GC's copies the host's under `ftl.gc_write_point = "host"`, as
    /// SSDSim's one active block per plane. The stream keeps its reserve,
    /// trigger check and counters.
    #[inline(always)]
    pub(super) fn point(&self, stream: Stream) -> usize {
        if self.gc_writes_host && stream == Stream::Gc {
            Stream::Host as usize
        } else {
            stream as usize
        }
    }

    /// The plane the configured policy puts `lpn` on now.
    pub fn plane_for_write(&mut self, lpn: Lpn, view: &LoadView) -> u32 {
        if self.dynamic {
            self.least_loaded_plane(view, 0..self.geo.host_dies())
        } else {
            self.static_plane(lpn)
        }
    }

    /// A plane on the least-loaded of `dies`, rotating over that die's
    /// planes. Load is the die's outstanding commands plus the pages planned
    /// on it that are not submitted yet (the pages of one request are all
    /// planned before any is queued, and without them every page of a
    /// request went to the same die). A die with no page for a host write
    /// comes last; ties go round the dies from the one after the last
    /// chosen, so a device that drains between requests (QD1) still spreads
    /// them, rather than to the lowest id. In setup (see
    /// [`Ftl::set_setup`]), the die of `dies` that took the fewest setup
    /// writes, ties in `ftl.order`'s order of the dies: with the default
    /// CWDP, channel first, as SSDSim's `get_ppn_for_pre_process`
    /// (pagemap.c) places the pages its reads find unwritten, by its
    /// channel, chip, die and plane tokens in turn.
    pub fn least_loaded_plane(&mut self, view: &LoadView, dies: impl Iterator<Item = u32>) -> u32 {
        let die = if self.setup {
            let d = view.least_by(dies, |&d| (self.setup_writes[d as usize], self.setup_rank[d as usize])).unwrap_or(0);
            self.setup_writes[d as usize] += 1;
            d
        } else {
            let (n, next) = (self.geo.dies(), self.planning.next_die);
            let key = |&d: &u32| (!self.die_has_room(d), view.occ(d) + self.planning.pages(d), (d + n - next % n) % n);
            let d = view.least_by(dies, key).unwrap_or(0);
            self.planning.next_die = d + 1;
            d
        };
        let ppd = self.geo.planes_per_die;
        let k = &mut self.plane_rr[die as usize];
        let plane = die * ppd + *k % ppd;
        *k = k.wrapping_add(1);
        plane
    }

    /// Some plane of `die` can take a host page now.
    fn die_has_room(&self, die: u32) -> bool {
        let ppd = self.geo.planes_per_die;
        (die * ppd..(die + 1) * ppd).any(|plane| {
            let p = &self.planes[plane as usize];
            let block = p.write_points[Stream::Host as usize];
            (block != NO_PAGE && self.blocks[block as usize].next < self.geo.pages_per_block) || p.free.len() as u32 > GC_RESERVE
        })
    }

    /// The plans made so far are in the scheduler's queues: their pages
    /// now count in its outstanding commands.
    #[inline]
    pub fn plans_submitted(&mut self) {
        self.planning.clear();
    }

    /// Allocate the next page of `stream`'s open block on `plane` for
    /// `owner`. None when the plane has no free page outside GC's reserve
    /// (or, for GC, none at all): the caller must wait for an erase.
    pub fn alloc(&mut self, plane: u32, stream: Stream, owner: Owner) -> Option<Ppn> {
        self.take_page(plane, stream, owner, PageState::Pending)
    }

    /// Waste the next `n` pages of `plane`'s host write point, as SSDSim's
    /// `make_same_level` (flash.c) invalidates the pages a plane skips to
    /// be pulled level for a multi-plane program (`scheduler.plane_pairing
    /// = "level"`). Stops early when the plane has no free page for the
    /// host. Returns the pages wasted.
    pub fn skip_pages(&mut self, plane: u32, n: u32) -> u32 {
        let mut done = 0;
        while done < n {
            let Some(ppn) = self.take_page(plane, Stream::Host, Owner::NONE, PageState::Valid) else { break };
            self.stats.programs_host -= 1;
            self.invalidate(ppn);
            done += 1;
        }
        self.stats.pages_skipped += done as u64;
        done
    }

    /// Allocate as [`alloc`](Self::alloc) does with the program landed at
    /// once: the page holds `token`, as after `alloc` and then
    /// `program_done`, without the pending and pinned steps between. For
    /// writes that take no simulated time (preconditioning, placing a
    /// never-written page, instant GC), which are millions per run.
    pub fn alloc_programmed(&mut self, plane: u32, stream: Stream, owner: Owner, token: Token) -> Option<Ppn> {
        let ppn = self.take_page(plane, stream, owner, PageState::Valid)?;
        if let Some(t) = self.tokens.as_mut() {
            t.set(ppn, token);
        }
        Some(ppn)
    }

    /// The next page of the open block, left in `state` (Pending: pinned
    /// and counted pending until its program ends; Valid: programmed).
    #[inline(always)]
    fn take_page(&mut self, plane: u32, stream: Stream, owner: Owner, state: PageState) -> Option<Ppn> {
        let ppb = self.geo.pages_per_block;
        let point = self.point(stream);
        let p = &mut self.planes[plane as usize];
        let mut block = p.write_points[point];
        if block == NO_PAGE || self.blocks[block as usize].next >= ppb {
            let reserve = if stream.uses_reserve() { 0 } else { GC_RESERVE };
            if p.free.len() as u32 <= reserve {
                self.note_refusal(plane, stream as u8);
                return None;
            }
            block = self.open_block(plane, stream)?;
        }
        let b = &mut self.blocks[block as usize];
        let ppn = block * ppb + b.next;
        b.next += 1;
        b.valid += 1;
        if state == PageState::Pending {
            b.pins += 1;
            b.pending += 1;
            self.planning.add(self.geo.die_of_plane(plane));
        }
        if b.next == ppb {
            b.state = BlockState::Full;
            self.victims.on_full(block);
        }
        if self.gc_trigger == GcTrigger::FreePages && !stream.uses_reserve() {
            self.check_gc_after_write(plane);
        }
        self.set_state(ppn, state);
        self.owner.set(ppn, owner);
        match stream {
            Stream::Host => self.stats.programs_host += 1,
            Stream::Gc | Stream::MapGc => self.stats.programs_gc += 1,
            Stream::Aux => self.stats.programs_aux += 1,
            Stream::Map => self.stats.programs_map += 1,
        }
        self.clear_refusals();
        Some(ppn)
    }

    /// Take `plane`'s next free block as `stream`'s open block (the caller
    /// has checked the reserve). A block taken below the GC trigger lists
    /// the plane for GC.
    #[inline(always)]
    pub(super) fn open_block(&mut self, plane: u32, stream: Stream) -> Option<u32> {
        let (ppb, point) = (self.geo.pages_per_block, self.point(stream));
        let p = &mut self.planes[plane as usize];
        let block = p.free.pop_front()?;
        self.free_total -= 1;
        self.die_free[self.geo.die_of_plane(plane) as usize] -= 1;
        p.write_points[point] = block;
        let next = self.blocks[block as usize].next;
        if next > 0 {
            p.aged -= 1;
            p.aged_free -= ppb - next;
        }
        let counts_blocks = self.gc_trigger == GcTrigger::FreeBlocks;
        // With MQSim's concurrency every block taken below the trigger asks
        // for one more victim (`Check_gc_required` per new write frontier).
        if counts_blocks && p.free_pages(ppb) < self.gc_free_blocks as u64 * ppb as u64 && self.gc_room(plane) {
            self.gc_wanted.push(plane);
        }
        let b = &mut self.blocks[block as usize];
        // Never: a retired block stays off the free lists (checked
        // by the wear tests through the summary).
        self.retired_reopened += (b.state == BlockState::Retired) as u64;
        b.state = BlockState::Open;
        // Translation pages keep to blocks of their own, so GC knows
        // a page it moves is one by its block.
        b.map = matches!(stream, Stream::Map | Stream::MapGc);
        Some(block)
    }

    /// `ftl.gc_trigger = "free_pages"`: SSDSim's `get_ppn` (pagemap.c)
    /// queues a GC request after every host page write that leaves the
    /// plane below its threshold. Setup writes (SSDSim's
    /// `get_ppn_for_pre_process`) do not; the planes they leave below are
    /// listed when setup ends (`relist_gc_wanted`).
    #[cold]
    #[inline(never)]
    fn check_gc_after_write(&mut self, plane: u32) {
        if self.setup {
            return;
        }
        // SSDSim queues a request per such write, even while one is served.
        if self.gc_owed.is_some() && self.below_trigger(plane) {
            if let Some(owed) = self.gc_owed.as_mut() {
                owed[plane as usize] += 1;
            }
        }
        if self.gc_wanted.last() != Some(&plane) && self.needs_gc(plane) {
            self.gc_wanted.push(plane);
        }
    }

    /// Would `alloc` succeed without bringing the plane to its GC trigger:
    /// the stream's open block has room, or opening one still leaves a
    /// free block above the trigger for the host's next block. Optional
    /// copies (replicas) use this so they never put GC on the host's path.
    pub fn can_alloc_above_gc(&self, plane: u32, stream: Stream) -> bool {
        let p = &self.planes[plane as usize];
        let block = p.write_points[self.point(stream)];
        if block != NO_PAGE && self.blocks[block as usize].next < self.geo.pages_per_block {
            return true;
        }
        p.free_pages(self.geo.pages_per_block) > (self.gc_free_blocks as u64 + 1) * self.geo.pages_per_block as u64
    }

    /// Would `alloc` succeed on this plane for this stream?
    pub fn can_alloc(&self, plane: u32, stream: Stream) -> bool {
        let p = &self.planes[plane as usize];
        let block = p.write_points[self.point(stream)];
        if block != NO_PAGE && self.blocks[block as usize].next < self.geo.pages_per_block {
            self.clear_refusals();
            return true;
        }
        let reserve = if stream.uses_reserve() { 0 } else { GC_RESERVE };
        let ok = p.free.len() as u32 > reserve;
        if ok {
            self.clear_refusals();
        } else {
            self.note_refusal(plane, stream as u8);
        }
        ok
    }

    /// `can_alloc` for a stream given by its index (`Stream as u8`).
    pub fn can_alloc_stream(&self, plane: u32, stream: u8) -> bool {
        // Indices come from `Stream as u8` (refusals noted by `alloc`).
        self.can_alloc(plane, Stream::ALL[stream as usize % STREAMS])
    }

    /// Remember that `plane` refused `stream` a page: a stalled request
    /// waits for an erase there (see sim/park.rs). A cell, so that the
    /// checks schemes make through a shared borrow are noted too. A page
    /// found (or a check passed) forgets the refusals before it: a scheme
    /// that went on to another plane was not stopped by them, so what a
    /// stall waits for is the last run of refusals before it.
    #[cold]
    #[inline(never)]
    fn note_refusal(&self, plane: u32, stream: u8) {
        let i = stream as usize * self.refused_words + (plane / 64) as usize;
        if let Some(w) = self.refused.get(i) {
            w.set(w.get() | 1 << (plane % 64));
            self.refused_any.set(true);
        }
    }

    /// Forget the refusals noted so far (before a request is planned).
    #[inline]
    pub fn clear_refusals(&self) {
        if self.refused_any.replace(false) {
            self.refused.iter().for_each(|w| w.set(0));
        }
    }

    /// The (plane, stream) pairs that refused a page since `clear_refusals`,
    /// by stream, then plane.
    pub fn refusals(&self, out: &mut Vec<(u32, u8)>) {
        if !self.refused_any.get() {
            return;
        }
        for (i, w) in self.refused.iter().enumerate() {
            let (stream, base) = ((i / self.refused_words) as u8, (i % self.refused_words) as u32 * 64);
            let mut bits = w.get();
            while bits != 0 {
                out.push((base + bits.trailing_zeros(), stream));
                bits &= bits - 1;
            }
        }
    }

    /// Whether allocation picks planes by load (`ftl.allocation = "dynamic"`).
    pub fn dynamic(&self) -> bool {
        self.dynamic
    }
}

/// Pages allocated for programs since the simulator last handed its plans
/// to the scheduler, per die, and where dynamic allocation's ties start.
#[derive(Default)]
pub(crate) struct Planning {
    per_die: Vec<u32>,
    touched: Vec<u32>,
    next_die: u32,
}

impl Planning {
    pub(crate) fn new(dies: u32) -> Planning {
        Planning { per_die: vec![0; dies as usize], touched: Vec::new(), next_die: 0 }
    }

    #[inline]
    fn add(&mut self, die: u32) {
        let n = &mut self.per_die[die as usize];
        if *n == 0 {
            self.touched.push(die);
        }
        *n += 1;
    }

    #[inline]
    fn pages(&self, die: u32) -> u32 {
        self.per_die[die as usize]
    }

    #[inline]
    fn clear(&mut self) {
        for d in self.touched.drain(..) {
            self.per_die[d as usize] = 0;
        }
    }
}

impl Ftl {
    /// SSDSim's `make_aged` layout (`ftl.precondition.layout =
    /// "trailing_free"`): on every host plane, free blocks in the order the
    /// allocator takes them get their first `n` pages stale, `n` the
    /// integers below `pages_per_block x invalid + 1` (ssd.c's page loop),
    /// until the plane holds `pages x invalid` stale pages, rounded down
    /// (its `threshould`). They go back to the head of the free list with
    /// their trailing pages free, so the allocator fills those pages block
    /// after block before a fresh block (`find_active_block`, flash.c). The
    /// GC trigger counts their free pages, not the blocks, as SSDSim's
    /// plane `free_page` does. A block left no free page is full, a victim
    /// as any other.
    pub fn age_trailing_free(&mut self, invalid: f64) {
        let ppb = self.geo.pages_per_block;
        let bpp = self.geo.blocks_per_plane;
        let stale = ((ppb as f64 * invalid + 1.0).ceil() as u32).min(ppb);
        let target = (bpp as f64 * ppb as f64 * invalid) as u64;
        if stale == 0 || target == 0 {
            return;
        }
        for plane in 0..self.geo.host_planes() {
            let mut aged = Vec::new();
            let mut done = 0u64;
            while done < target {
                let Some(block) = self.planes[plane as usize].free.pop_front() else { break };
                for page in 0..stale {
                    self.set_state(block * ppb + page, PageState::Invalid);
                }
                self.blocks[block as usize].next = stale;
                done += stale as u64;
                aged.push(block);
            }
            if stale == ppb {
                // Wholly stale: full, never back on the free list.
                for &block in &aged {
                    self.blocks[block as usize].state = BlockState::Full;
                    self.free_total -= 1;
                    self.die_free[self.geo.die_of_plane(plane) as usize] -= 1;
                    self.victims.on_full(block);
                }
            } else {
                let p = &mut self.planes[plane as usize];
                for &block in aged.iter().rev() {
                    p.free.push_front(block);
                }
                p.aged += aged.len() as u32;
                p.aged_free += aged.len() as u32 * (ppb - stale);
            }
        }
    }
}
