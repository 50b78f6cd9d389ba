//! The flash translation layer's physical side: page and block state,
//! write points and allocation, garbage collection (its victim policy one of
//! `gc/victim/`'s, greedy by default), erase counts, and
//! the page-level LPN -> PPN map that page-mapped schemes share.
//!
//! Page life: Free -> Pending (allocated, program queued) -> Valid
//! (programmed) -> Invalid (overwritten or moved) -> Free (block erased).
//! A block with pending reads or programs is pinned and never chosen as a GC
//! victim or erased, so a queued read always finds the data it was planned for.
//!
//! ## What is where
//!
//! - Page state, blocks (live count, erase count, pins), write points per
//!   plane and stream (host, GC, scheme copies, translation pages and their
//!   GC copies), static and dynamic allocation.
//! - GC with a victim policy (`gc/victim/`, a file each: greedy, cost-
//!   benefit, random d choices, FIFO; `ftl.gc_policy`) and optional static
//!   wear levelling (`gc/wear.rs`, `ftl.wear_leveling = "static"`: after an
//!   erase, a plane whose erase-count spread exceeds `ftl.wear_threshold` has
//!   its least-erased full block collected as a GC victim; off by default,
//!   then nothing is computed).
//! - The shared LPN -> PPN map and what a lookup in it costs (`mapping/`,
//!   `ftl.mapping`: `dram.rs`, the whole map in DRAM, the default; `cmt.rs`,
//!   a cached mapping table of `ftl.cmt_size_kib` holding whole translation
//!   pages in LRU order; `mod.rs`, the global translation directory;
//!   translation pages live in blocks of their own, which GC collects like
//!   any other).
//! - `lru.rs`: the intrusive list by index that the cached mapping tables
//!   keep their recency order in (and sim/'s page lists their order).
//! - Each plane's free blocks start at a different block (plane p at its
//!   block p), so the open blocks of all planes do not share cache sets in
//!   the page-indexed tables.
//! - Tables are zeroed regions mapped from the OS directly (`chunked.rs`,
//!   `Zeroed`), so memory follows the pages touched; `prefetch.rs` holds the
//!   cache hints the host gives for requests read ahead.

mod alloc;
mod chunked;
mod gc;
pub mod lru;
pub mod mapping;
mod prefetch;
pub mod read_merge;
pub mod steady;

pub use alloc::{Stream, STREAMS};
pub use chunked::{Chunked, TableEntry, ZeroFresh};
pub use gc::victim;

use crate::config::{FtlConfig, NandConfig};
use crate::device::{Divisor, Geometry};
use crate::error::Result;
use crate::types::{Lpn, Owner, Ppn, Token, NO_PAGE};
use std::cell::Cell;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PageState {
    Free = 0,
    Pending = 1,
    Valid = 2,
    Invalid = 3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    Free = 0,
    Open,
    Full,
    /// Chosen as a GC victim; its valid pages are being moved.
    Victim,
    /// Worn out, failed, or bad from the factory (`[nand]`): never
    /// allocated, chosen by GC or erased again.
    Retired,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockInfo {
    /// Pending plus valid pages.
    pub valid: u32,
    pub erases: u32,
    /// Next page to allocate.
    pub next: u32,
    /// Pending reads and programs.
    pub pins: u32,
    /// Pages allocated whose program has not finished (and still live).
    pub pending: u32,
    pub state: BlockState,
    /// The victim's moves are done; erase as soon as it is unpinned.
    pub erase_ready: bool,
    /// Holds translation pages (opened for `Stream::Map` or `MapGc`).
    pub map: bool,
}

// SAFETY: integers, a bool and a `#[repr(u8)]` enum whose 0 is `Free`: all
// zero is a fresh block (tested in ftl/tests.rs).
unsafe impl chunked::ZeroFresh for BlockInfo {}

#[derive(Clone, Debug)]
struct PlaneInfo {
    free: VecDeque<u32>,
    write_points: [u32; alloc::STREAMS],
    /// Victims GC is collecting; more than one only with
    /// `ftl.gc_concurrency = "mqsim"`.
    gc_ongoing: u32,
    /// The block wear levelling is moving under `ftl.wear_leveling =
    /// "mqsim"`, which runs beside GC (NO_PAGE: none; ftl/gc/wear.rs).
    wl_victim: u32,
    /// Blocks on `free` with stale pages before their free ones, and those
    /// free pages (`layout = "trailing_free"`; 0 otherwise).
    aged: u32,
    aged_free: u32,
}

impl PlaneInfo {
    /// `block`'s erase ended: a wear-levelling victim frees its own slot,
    /// any other block one of the plane's GC victims.
    #[inline]
    fn victim_erased(&mut self, block: u32) {
        if block == self.wl_victim {
            self.wl_victim = NO_PAGE;
        } else {
            self.gc_ongoing = self.gc_ongoing.saturating_sub(1);
        }
    }

    /// Free pages as the GC trigger counts them, SSDSim's plane
    /// `free_page`: whole free blocks plus aged blocks' free pages.
    #[inline]
    fn free_pages(&self, ppb: u32) -> u64 {
        (self.free.len() as u64 - self.aged as u64) * ppb as u64 + self.aged_free as u64
    }
}

/// Counters the FTL keeps for the results.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FtlStats {
    pub gc_runs: u64,
    pub gc_moves: u64,
    pub gc_moves_dropped: u64,
    pub erases: u64,
    pub programs_host: u64,
    pub programs_gc: u64,
    pub programs_aux: u64,
    /// Blocks static wear levelling migrated (`ftl.wear_leveling`).
    pub wl_migrations: u64,
    /// Translation pages written back (`ftl.mapping = "cmt"`).
    pub programs_map: u64,
    /// Pages wasted to pull planes level (`scheduler.plane_pairing = "level"`).
    pub pages_skipped: u64,
}

pub struct Ftl {
    pub geo: Geometry,
    /// The static order's plane for every `lpn % planes` (the order's
    /// mixed-radix digits only see the LPN modulo the plane count).
    plane_of_lpn: Vec<u32>,
    planes_div: Divisor,
    dynamic: bool,
    gc_free_blocks: u32,
    /// How many victims a plane collects at once, and when an erase's end
    /// starts another (`ftl.gc_concurrency`; ftl/gc/mod.rs `gc_room`).
    gc_concurrency: crate::config::GcConcurrency,
    /// `ftl.gc_trigger`, and its threshold in pages (`free_pages`).
    gc_trigger: crate::config::GcTrigger,
    gc_free_pages: f64,
    /// The erase-count spread that starts static wear levelling (None: off).
    wear_threshold: Option<u32>,
    /// `ftl.wear_leveling = "mqsim"`: the spread is MQSim's (gc/wear.rs).
    wear_mqsim: bool,
    /// `ftl.gc_write_point = "host"`: GC's copies take the host's open
    /// block (see [`Ftl::point`]).
    gc_writes_host: bool,
    /// `ftl.gc_start = "host_writes"`: GC runs each plane owes, one per
    /// host page write that left it below its trigger (None: Detour's
    /// default, GC while below).
    gc_owed: Option<Vec<u32>>,
    /// The page-level map used by page-mapped schemes.
    pub map: Chunked<Ppn>,
    owner: Chunked<Owner>,
    state: Chunked<u8>,
    tokens: Option<Chunked<Token>>,
    blocks: chunked::Zeroed<BlockInfo>,
    planes: Vec<PlaneInfo>,
    plane_rr: Vec<u32>,
    /// Pages planned but not yet queued, per die (dynamic allocation's load).
    planning: alloc::Planning,
    /// Writes that take no simulated time (see [`Ftl::set_setup`]) per die.
    setup_writes: Vec<u32>,
    /// Per die, the first LPN `ftl.order` puts on it: dynamic allocation's
    /// setup writes break ties by it (see `least_loaded_plane`).
    setup_rank: Vec<u32>,
    setup: bool,
    /// Planes that fell below the GC threshold since the simulator last looked.
    pub gc_wanted: Vec<u32>,
    free_total: u64,
    /// Free blocks per die (the sum over its planes): the RAID schemes rank
    /// every die of a channel by it for each page they place.
    die_free: Vec<u32>,
    /// How GC chooses its victims (`ftl.gc_policy`).
    victims: gc::victim::VictimPolicy,
    /// `ftl.pending_reads_from_flash`: read_mapped sends a read of a page
    /// still being programmed to the flash instead of the buffer.
    pub pending_reads_from_flash: bool,
    /// `ftl.read_merge = "queued"`: host flash reads in flight per LPN,
    /// which a later host read of the same SSDSim page rides on (read_mapped).
    pub queued_reads: Option<read_merge::QueuedReads>,
    pub stats: FtlStats,
    /// (plane, stream) pairs that refused a page since the simulator last
    /// cleared them: one bit per plane, `refused_words` words per stream.
    refused: Box<[Cell<u64>]>,
    refused_words: usize,
    refused_any: Cell<bool>,
    /// Where the map lives and what a lookup costs (`ftl.mapping`).
    pub mapping: mapping::Mapping,
    /// Wear, aging and read retry (`[nand]`); None for the ideal flash.
    pub nand: Option<Box<crate::device::nand::Nand>>,
    /// Blocks retired so far (factory bad ones included).
    pub retired: u64,
    /// Retired blocks opened for writing again: a bug if ever above 0.
    retired_reopened: u64,
}

/// Free blocks a plane keeps back for GC's own writes.
pub const GC_RESERVE: u32 = 2;

/// Plane `plane`'s blocks in their first free order: from its block
/// `plane % blocks_per_plane` on, round to the one before. The page tables
/// (owner, state, token) are indexed by page, so a plane's pages sit at a
/// stride of its size, a power of two on most devices: had every plane
/// started at block 0, the open blocks of all planes, written in turn by
/// striping, would fall on the same few cache sets and evict one another
/// (preconditioning the benchmark device runs 11-18% faster staggered).
/// Only which block is which changes: GC scans in this order too, so every
/// choice falls on the block in the same place in it.
pub(crate) fn free_order(plane: u32, blocks_per_plane: u32) -> impl Iterator<Item = u32> {
    let (first, start) = (plane * blocks_per_plane, plane % blocks_per_plane);
    (first + start..first + blocks_per_plane).chain(first..first + start)
}

/// Per die, the first LPN `cfg.order` maps to it (u32::MAX for a die no
/// host page maps to): the order in which consecutive LPNs visit the dies.
fn setup_rank(cfg: &FtlConfig, geo: &Geometry) -> Vec<u32> {
    let mut rank = vec![u32::MAX; geo.dies() as usize];
    if cfg.allocation == crate::config::Allocation::Dynamic {
        for l in 0..geo.host_planes() {
            let d = &mut rank[(cfg.order.plane_for(geo, l) / geo.planes_per_die) as usize];
            *d = (*d).min(l);
        }
    }
    rank
}

impl Ftl {
    /// The FTL of `geo` set up from `[ftl]`, with `[nand]`'s flash model
    /// and `run.seed` (its random victim choice and wear streams);
    /// `track_tokens`: keep each page's token (verify mode).
    pub fn new(cfg: &FtlConfig, nand: &NandConfig, seed: u64, geo: &Geometry, track_tokens: bool) -> Result<Ftl> {
        let total = geo.total_pages() as u64;
        let bpp = geo.blocks_per_plane;
        let planes = (0..geo.planes())
            .map(|p| PlaneInfo {
                free: free_order(p, bpp).collect(),
                write_points: [NO_PAGE; alloc::STREAMS],
                gc_ongoing: 0,
                wl_victim: NO_PAGE,
                aged: 0,
                aged_free: 0,
            })
            .collect();
        let gc_free_blocks = ((cfg.gc_threshold * bpp as f64).ceil() as u32).max(GC_RESERVE + 1);
        let mut ftl = Ftl {
            geo: geo.clone(),
            // Host pages are placed over the device's own planes only: a
            // spare chip (device.spare_chips) is never the host's.
            plane_of_lpn: (0..geo.host_planes()).map(|l| cfg.order.plane_for(geo, l)).collect(),
            planes_div: Divisor::new(geo.host_planes()),
            dynamic: cfg.allocation == crate::config::Allocation::Dynamic,
            gc_free_blocks,
            gc_concurrency: cfg.gc_concurrency,
            gc_trigger: cfg.gc_trigger,
            // Floored as `gc_free_blocks` is: SSDSim has no GC reserve, but
            // host writes here stop at GC_RESERVE free blocks, so a trigger
            // under the reserve's pages would never fire before the host is
            // refused (RR-SSD's 16-block planes at 5%: 204.8 pages, under
            // one 256-page block), and no GC could ever start (h42sbun).
            gc_free_pages: (cfg.gc_threshold * bpp as f64 * geo.pages_per_block as f64)
                .max(((GC_RESERVE + 1) * geo.pages_per_block) as f64),
            pending_reads_from_flash: cfg.pending_reads_from_flash,
            queued_reads: (cfg.read_merge == crate::config::ReadMerge::Queued).then(read_merge::QueuedReads::default),
            wear_threshold: (cfg.wear_leveling != crate::config::WearLeveling::Off).then_some(cfg.wear_threshold),
            wear_mqsim: cfg.wear_leveling == crate::config::WearLeveling::Mqsim,
            gc_writes_host: cfg.gc_write_point == crate::config::GcWritePoint::Host,
            gc_owed: (cfg.gc_start == crate::config::GcStart::HostWrites).then(|| vec![0; geo.planes() as usize]),
            map: Chunked::new_random(geo.logical_pages as u64, NO_PAGE),
            owner: Chunked::new(total, Owner::NONE),
            state: Chunked::new(total, PageState::Free as u8),
            tokens: track_tokens.then(|| Chunked::new(total, 0)),
            // Zeroed, so a block's entry costs memory once it is written.
            blocks: chunked::Zeroed::new(geo.blocks() as usize),
            planes,
            plane_rr: vec![0; geo.dies() as usize],
            planning: alloc::Planning::new(geo.dies()),
            setup_writes: vec![0; geo.dies() as usize],
            setup_rank: setup_rank(cfg, geo),
            setup: false,
            gc_wanted: Vec::new(),
            free_total: geo.blocks() as u64,
            die_free: vec![bpp * geo.planes_per_die; geo.dies() as usize],
            victims: gc::victim::VictimPolicy::new(cfg, seed, geo.blocks())?,
            stats: FtlStats::default(),
            refused: (0..alloc::STREAMS * geo.planes().div_ceil(64) as usize).map(|_| Cell::new(0)).collect(),
            refused_words: geo.planes().div_ceil(64) as usize,
            refused_any: Cell::new(false),
            mapping: mapping::Mapping::new(cfg, geo)?,
            nand: crate::device::nand::Nand::new(nand, seed, geo.blocks(), geo.pages_per_block),
            retired: 0,
            retired_reopened: 0,
        };
        ftl.retire_factory_bad();
        Ok(ftl)
    }

    /// Take the factory's bad blocks out of the free lists for good.
    fn retire_factory_bad(&mut self) {
        let Some(nand) = self.nand.as_mut() else { return };
        for block in nand.factory_bad(self.geo.blocks()) {
            let plane = self.geo.plane_of_block(block) as usize;
            self.planes[plane].free.retain(|&b| b != block);
            self.blocks[block as usize].state = BlockState::Retired;
            self.free_total -= 1;
            self.die_free[self.geo.die_of_plane(plane as u32) as usize] -= 1;
            self.retired += 1;
        }
    }

    /// Between `set_setup(true)` and `set_setup(false)` writes take no
    /// simulated time (preconditioning, placing a never-written page): no
    /// load builds up, so dynamic allocation spreads them evenly over the
    /// dies it may choose from instead of putting them all on the first.
    pub fn set_setup(&mut self, on: bool) {
        self.setup = on;
    }

    #[inline]
    pub fn page_state(&self, ppn: Ppn) -> PageState {
        match self.state.get(ppn) {
            0 => PageState::Free,
            1 => PageState::Pending,
            2 => PageState::Valid,
            _ => PageState::Invalid,
        }
    }

    #[inline]
    fn set_state(&mut self, ppn: Ppn, s: PageState) {
        self.state.set(ppn, s as u8);
    }

    /// The page holds live data (pending or programmed).
    #[inline]
    pub fn is_live(&self, ppn: Ppn) -> bool {
        matches!(self.page_state(ppn), PageState::Pending | PageState::Valid)
    }

    /// Its program has finished, so a flash read returns its data.
    #[inline]
    pub fn is_programmed(&self, ppn: Ppn) -> bool {
        self.page_state(ppn) == PageState::Valid
    }

    /// `is_programmed` for a page that should be live (mapped). Most blocks
    /// have no program in flight, and the block's entry is touched anyway
    /// to pin it for the read, so this usually skips the page-state table.
    /// A stale page (a broken map) reads as programmed: the flash read then
    /// returns what the page holds, and verify mode counts the error.
    #[inline]
    pub fn is_programmed_live(&self, ppn: Ppn) -> bool {
        self.blocks[self.geo.block_of(ppn) as usize].pending == 0 || self.is_programmed(ppn)
    }

    #[inline]
    pub fn owner(&self, ppn: Ppn) -> Owner {
        self.owner.get(ppn)
    }

    /// The token the page holds (0 when tokens are not tracked or erased).
    #[inline]
    pub fn token(&self, ppn: Ppn) -> Token {
        self.tokens.as_ref().map_or(0, |t| t.get(ppn))
    }

    pub fn tracks_tokens(&self) -> bool {
        self.tokens.is_some()
    }

    pub fn block(&self, block: u32) -> &BlockInfo {
        &self.blocks[block as usize]
    }

    /// Mark a live page stale (overwritten, or its copy dropped).
    pub fn invalidate(&mut self, ppn: Ppn) {
        let state = self.page_state(ppn);
        if matches!(state, PageState::Pending | PageState::Valid) {
            self.set_state(ppn, PageState::Invalid);
            let b = &mut self.blocks[self.geo.block_of(ppn) as usize];
            b.valid -= 1;
            b.pending -= (state == PageState::Pending) as u32;
        }
    }

    /// A program of `token` into `ppn` is issued. A read that reaches the
    /// page before the program ends (`ftl.pending_reads_from_flash`, a
    /// timing rule) returns the page's new data, as that setting promises,
    /// not what an unwritten page holds: verify mode would count it wrong.
    #[inline]
    pub fn program_issued(&mut self, ppn: Ppn, token: Token) {
        if let Some(t) = self.tokens.as_mut() {
            t.set(ppn, token);
        }
    }

    /// A program finished: the page now holds `token` (unless it was
    /// invalidated while pending, in which case it stays invalid).
    /// Returns true if the block became ready to erase.
    pub fn program_done(&mut self, ppn: Ppn, token: Token) -> bool {
        if self.page_state(ppn) == PageState::Pending {
            self.set_state(ppn, PageState::Valid);
            self.blocks[self.geo.block_of(ppn) as usize].pending -= 1;
        }
        if let Some(t) = self.tokens.as_mut() {
            t.set(ppn, token);
        }
        self.unpin(ppn)
    }

    /// Hold a block against erase while an operation on `ppn` is queued.
    #[inline]
    pub fn pin(&mut self, ppn: Ppn) {
        self.blocks[self.geo.block_of(ppn) as usize].pins += 1;
    }

    /// Release a pin; true if this makes a moved-out victim ready to erase.
    #[inline]
    pub fn unpin(&mut self, ppn: Ppn) -> bool {
        let b = &mut self.blocks[self.geo.block_of(ppn) as usize];
        b.pins -= 1;
        b.pins == 0 && b.erase_ready
    }

    /// Record an erase: every page of the block is free again.
    pub fn erase_done(&mut self, block: u32) {
        let ppb = self.geo.pages_per_block;
        let first = self.geo.first_page(block);
        self.state.reset(first, ppb);
        self.owner.reset(first, ppb);
        if let Some(t) = self.tokens.as_mut() {
            t.reset(first, ppb);
        }
        let b = &mut self.blocks[block as usize];
        debug_assert_eq!(b.valid, 0, "erasing block {block} with live pages");
        // Pins survive: a read a (buggy) scheme planned onto the block after
        // the erase was issued still holds one, and finds no data.
        *b = BlockInfo {
            valid: 0,
            erases: b.erases + 1,
            next: 0,
            pins: b.pins,
            pending: 0,
            state: BlockState::Free,
            erase_ready: false,
            map: false,
        };
        self.stats.erases += 1;
        let plane = self.geo.plane_of_block(block) as usize;
        let erases = self.blocks[block as usize].erases;
        if self.nand.as_mut().is_some_and(|n| n.erased(block, erases)) {
            // Worn out or failed: it never comes back to the free list.
            self.blocks[block as usize].state = BlockState::Retired;
            self.retired += 1;
            self.planes[plane].victim_erased(block);
            return;
        }
        self.planes[plane].free.push_back(block);
        self.free_total += 1;
        self.die_free[self.geo.die_of_plane(plane as u32) as usize] += 1;
        self.planes[plane].victim_erased(block);
    }

    /// Read-retry steps a read of `ppn` issued at `now` needs (`[nand]`);
    /// counts the read against its block's read disturb. Kept out of line:
    /// its callers are the hot planning path, which must not grow for a
    /// model that is off by default.
    #[cold]
    #[inline(never)]
    pub fn read_retries(&mut self, ppn: Ppn, now: crate::types::Time) -> u8 {
        let block = self.geo.block_of(ppn);
        self.nand.as_mut().map_or(0, |n| n.read(block, now))
    }

    /// A program of `ppn` finished at `now`: a block's first page starts
    /// its data's retention age (`[nand]`). Out of line, as `read_retries`.
    #[cold]
    #[inline(never)]
    pub fn programmed_at(&mut self, ppn: Ppn, now: crate::types::Time) {
        if self.geo.page_in_block(ppn) == 0 {
            if let Some(n) = self.nand.as_mut() {
                n.programmed(self.geo.block_of(ppn), now);
            }
        }
    }

    /// The summary's `nand` section (None for the ideal flash).
    pub fn nand_summary(&self) -> Option<crate::device::nand::NandSummary> {
        let n = self.nand.as_ref()?;
        let ppb = self.geo.pages_per_block as u64;
        let logical_blocks = (self.geo.logical_pages as u64).div_ceil(ppb);
        let pe = (0..self.geo.blocks())
            .filter(|&b| self.blocks[b as usize].state != BlockState::Retired)
            .map(|b| n.pe(b, self.blocks[b as usize].erases));
        let mut s = n.summary(self.geo.blocks() as u64, self.retired, logical_blocks, pe);
        s.retired_reopened = self.retired_reopened;
        Some(s)
    }

    /// Free blocks over all planes.
    pub fn free_blocks_total(&self) -> u64 {
        self.free_total
    }

    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.planes[plane as usize].free.len() as u32
    }

    /// Free blocks over the planes of `die`.
    #[inline]
    pub fn die_free_blocks(&self, die: u32) -> u32 {
        self.die_free[die as usize]
    }

    /// (min, mean, max) erase count over all blocks.
    pub fn erase_spread(&self) -> (u32, f64, u32) {
        let (mut lo, mut hi, mut sum) = (u32::MAX, 0, 0u64);
        for b in self.blocks.iter() {
            lo = lo.min(b.erases);
            hi = hi.max(b.erases);
            sum += b.erases as u64;
        }
        (lo, sum as f64 / self.blocks.len().max(1) as f64, hi)
    }

    /// Live pages in the whole device.
    pub fn live_pages(&self) -> u64 {
        self.blocks.iter().map(|b| b.valid as u64).sum()
    }

    /// Bytes held by the page tables (they grow with the pages touched).
    pub fn table_bytes(&self) -> usize {
        self.map.bytes() + self.owner.bytes() + self.state.bytes() + self.tokens.as_ref().map_or(0, |t| t.bytes())
    }

    /// The plane a logical page is statically assigned to.
    #[inline]
    pub fn static_plane(&self, lpn: Lpn) -> u32 {
        self.plane_of_lpn[self.planes_div.rem(lpn) as usize]
    }
}

#[cfg(test)]
mod tests;
