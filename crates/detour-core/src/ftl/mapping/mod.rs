//! # Mapping policies
//!
//! **What:** where the page-level LPN -> PPN map lives (`ftl.mapping`).
//! `dram.rs`: all of it in DRAM, every lookup free (the default, and what
//! Detour always did). `cmt.rs`: a cached mapping table (DFTL) of
//! `ftl.cmt_size_kib`, holding whole translation pages (page_size / 4
//! entries each) in LRU order, or single entries as MQSim's CMT
//! (`ftl.cmt_granularity = "entry"`, `entry.rs`); the full table lives on
//! flash in translation pages, found through the global translation
//! directory.
//!
//! **Why:** a controller's DRAM rarely holds the whole map of a large
//! drive; the reads a miss adds before the data, and the writes of dirty
//! translation pages, change latency and write amplification.
//!
//! **How it plugs in:** the map itself (`Ftl::map`) stays the one schemes
//! read and write; the policy only decides what that costs. The simulator
//! (`sim/translate.rs`) asks the policy about a host request's LPNs when it
//! is admitted and, on a miss, runs the translation reads as a phase of the
//! request's transaction before the scheme plans its data; dirty
//! evictions become background programs. Translation pages are FTL pages
//! of their own streams (`Stream::Map`, `Stream::MapGc`) in blocks marked
//! `map`, so GC moves them like data and points the directory, not the
//! LPN map, at the copy.
//!
//! **The family:** a variant is a [`Cache`] of translation pages, or none
//! (the whole map in DRAM, and the simulator skips translation, one branch
//! per request). What every cache shares is here: the directory of where
//! each translation page is on flash, and the counts of the summary's
//! `mapping` section. A lookup is one indirect call, made only with a
//! cache. docs/extending.md says how to add a variant.
//!
//! **References:** Gupta et al., "DFTL" (ASPLOS 2009); MQSim's
//! `Address_Mapping_Unit_Page_Level` (`CMT_Capacity`, `Ideal_Mapping_Table`).

mod entry;

use super::{Ftl, Stream};
use crate::config::{CmtWriteBack, FtlConfig};
use crate::device::Geometry;
use crate::error::{Error, Result};
use crate::policy::Choice;
use crate::types::{Owner, Ppn, NO_PAGE};

crate::registry! {
    /// Every mapping, one a line; `ftl.mapping` names one.
    pub const REGISTRY: &[Variant] = [
        dram,
        cmt,
    ];
}

/// The mapping family: `ftl.mapping`.
pub enum Mappings {}

impl crate::policy::Family for Mappings {
    type Variant = Variant;
    const KEY: &'static str = "ftl.mapping";
    const ALL: &'static [Variant] = REGISTRY;
}

/// (name, description) of every mapping, in registry order.
pub fn list() -> Vec<(&'static str, &'static str)> {
    crate::policy::list::<Mappings>()
}

/// A mapping: its name (the value of `ftl.mapping`), a line for listings,
/// a check of its own settings, and how to build its cache.
pub struct Variant {
    pub name: &'static str,
    pub about: &'static str,
    /// Refuse settings the variant cannot run with (such as a table too
    /// small for one translation page of the geometry's page size), naming
    /// the key. Run by the config builder and again when
    /// the FTL is built.
    pub(crate) check: fn(&FtlConfig, &Geometry) -> Result<()>,
    /// The cache, for the device's geometry, of a map of so many
    /// translation pages (the third argument; page_size / 4 entries each), or
    /// None: the whole map is in DRAM and nothing is looked up.
    pub(crate) build: fn(&FtlConfig, &Geometry, u32) -> Option<Box<dyn Cache>>,
}

impl crate::policy::Entry for Variant {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        self.about
    }
}

/// A cache of translation pages: which lookups find their page in the
/// controller, and which dirty page a miss evicts.
pub trait Cache: Send {
    /// Look translation page `tvpn` up for a host read or write (a write
    /// dirties it). A miss loads it (the simulator reads it from flash
    /// first) and may evict a dirty page, which is then written back.
    fn access(&mut self, tvpn: u32, write: bool) -> Access;

    /// Translation pages it holds at most (the summary's `cmt_pages`).
    fn capacity(&self) -> u64;

    /// Whether every translation page is cached from the start and none
    /// is ever evicted: then none is written to flash at setup, and a
    /// lookup never reads one.
    fn covers(&self) -> bool {
        false
    }

    /// Some(n): the cache holds single entries, keyed by LPN (`access`
    /// takes an LPN; a write-back still names a translation page), and a
    /// translation page holds n of them (entry.rs). None: it holds
    /// translation pages of page_size / 4 entries.
    fn entries_per_page(&self) -> Option<u32> {
        None
    }
}

/// What a lookup of one translation page found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Access {
    /// The translation page was cached.
    pub hit: bool,
    /// A miss evicted this dirty translation page: it must be written back.
    pub write_back: Option<u32>,
}

/// Counters of the cached mapping table (summary's `mapping` section).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MappingStats {
    /// Translation pages the cache holds at most (entries with
    /// `ftl.cmt_granularity = "entry"`).
    pub cmt_pages: u64,
    /// Translation pages of the whole map (page_size / 4 entries each, or
    /// as entry.rs groups them).
    pub translation_pages: u64,
    /// Lookups: one per translation page a host request touches (per
    /// entry with `ftl.cmt_granularity = "entry"`).
    pub lookups: u64,
    pub hits: u64,
    /// hits / lookups (1 with no lookups).
    pub hit_ratio: f64,
    /// Flash reads of translation pages (misses whose page was not still
    /// in the controller's buffer, its write-back pending; and, with an
    /// entry cache, the read of the old copy before each write-back).
    pub translation_reads: u64,
    /// Flash programs of dirty translation pages evicted.
    pub translation_writes: u64,
    /// Write-backs of dirty translation pages never programmed, the page
    /// kept in the controller (`ftl.cmt_write_back = "hold"`, MQSim's).
    pub translation_writes_held: u64,
    /// Translation pages GC moved.
    pub gc_moves: u64,
    /// The cache holds the whole map (`Cache::covers`): the run is the
    /// DRAM map's (a warning says so). Not in the summary.
    #[serde(skip)]
    pub covers: bool,
}

/// The FTL's mapping: its cache (None: the map is in DRAM), the global
/// translation directory, and the counts.
pub struct Mapping {
    cache: Option<Box<dyn Cache>>,
    entries_per_page: u32,
    /// The cache holds single entries (`Cache::entries_per_page`).
    by_entry: bool,
    /// Where each translation page is on flash (NO_PAGE: not written);
    /// empty without a cache.
    gtd: Vec<Ppn>,
    /// `ftl.cmt_write_back = "hold"`: the translation pages whose
    /// write-back was held, so the controller has them (empty otherwise).
    held: Vec<bool>,
    s: MappingStats,
}

impl Mapping {
    /// The mapping `ftl.mapping` names, sized for `geo`.
    pub fn new(cfg: &FtlConfig, geo: &Geometry) -> Result<Mapping> {
        let v = Choice::<Mappings>::named(&cfg.mapping)?.variant();
        (v.check)(cfg, geo)?;
        let mut entries_per_page = (geo.page_size / 4).max(1);
        let mut pages = geo.logical_pages.div_ceil(entries_per_page);
        let cache = (v.build)(cfg, geo, pages);
        // An entry cache groups entries into translation pages its own way.
        if let Some(n) = cache.as_ref().and_then(|c| c.entries_per_page()) {
            entries_per_page = n;
            pages = geo.logical_pages.div_ceil(n);
        }
        let by_entry = cache.as_ref().is_some_and(|c| c.entries_per_page().is_some());
        let gtd = if cache.is_some() { vec![NO_PAGE; pages as usize] } else { Vec::new() };
        let s = MappingStats {
            cmt_pages: cache.as_ref().map_or(0, |c| c.capacity()),
            translation_pages: pages as u64,
            covers: cache.as_ref().is_some_and(|c| c.covers()),
            ..Default::default()
        };
        let hold = cache.is_some() && cfg.cmt_write_back == CmtWriteBack::Hold;
        let held = if hold { vec![false; pages as usize] } else { Vec::new() };
        Ok(Mapping { cache, entries_per_page, by_entry, gtd, held, s })
    }

    /// The whole map is in DRAM: nothing to look up or write.
    #[inline]
    pub fn is_dram(&self) -> bool {
        self.cache.is_none()
    }

    /// Look up the translation pages of `pages` LPNs from `lpn`, each for
    /// a write if `write(lpn)` (it dirties its entry), appending
    /// (translation page, what its lookup found) to `out`. Nothing in DRAM.
    pub fn lookup(&mut self, lpn: u32, pages: u32, write: impl Fn(u32) -> bool, out: &mut Vec<(u32, Access)>) {
        let Some(c) = &mut self.cache else { return };
        if self.by_entry {
            // One lookup per entry, reported with its translation page (in
            // ascending order, several entries of a page in a row).
            for l in lpn..lpn + pages {
                let a = c.access(l, write(l));
                self.s.lookups += 1;
                self.s.hits += a.hit as u64;
                out.push((l / self.entries_per_page, a));
            }
            return;
        }
        let (first, last) = (lpn / self.entries_per_page, (lpn + pages - 1) / self.entries_per_page);
        for tvpn in first..=last {
            let (from, to) = ((tvpn * self.entries_per_page).max(lpn), ((tvpn + 1) * self.entries_per_page).min(lpn + pages));
            let a = c.access(tvpn, (from..to).any(&write));
            self.s.lookups += 1;
            self.s.hits += a.hit as u64;
            out.push((tvpn, a));
        }
    }

    /// The cache holds single entries: a dirty eviction merges them into
    /// the translation page on flash, so its write-back reads the page
    /// first (entry.rs).
    #[inline]
    pub fn by_entry(&self) -> bool {
        self.by_entry
    }

    /// Translation pages to write to flash at setup: none in DRAM or with
    /// a cache that covers the map.
    fn pages_on_flash(&self) -> u32 {
        match &self.cache {
            Some(c) if !c.covers() => self.gtd.len() as u32,
            _ => 0,
        }
    }

    /// Where translation page `tvpn` is on flash (NO_PAGE: nowhere yet).
    #[inline]
    pub fn location(&self, tvpn: u32) -> Ppn {
        self.gtd.get(tvpn as usize).copied().unwrap_or(NO_PAGE)
    }

    /// Point the directory at a new copy; the old one (returned) is stale.
    fn relocate(&mut self, tvpn: u32, ppn: Ppn) -> Ppn {
        std::mem::replace(&mut self.gtd[tvpn as usize], ppn)
    }

    /// GC moved translation page `tvpn` from `from` to `to`: follow it if
    /// the directory still points at the copy moved (a write-back may have
    /// replaced it).
    pub fn moved(&mut self, tvpn: u32, from: Ppn, to: Ppn) {
        if let Some(g) = self.gtd.get_mut(tvpn as usize).filter(|g| **g == from) {
            *g = to;
            self.s.gc_moves += 1;
        }
    }

    /// The summary's section (None in DRAM, which has no traffic).
    pub fn stats(&self) -> Option<MappingStats> {
        self.cache.as_ref()?;
        let s = &self.s;
        let hit_ratio = if s.lookups > 0 { s.hits as f64 / s.lookups as f64 } else { 1.0 };
        Some(MappingStats { hit_ratio, ..s.clone() })
    }
}

impl Ftl {
    /// Write every translation page to flash at once (setup, before
    /// preconditioning): the directory starts complete, as on a drive
    /// that was formatted. Nothing in DRAM or with a covering cache.
    pub fn place_translation_pages(&mut self) -> Result<()> {
        let pages = self.mapping.pages_on_flash();
        for tvpn in 0..pages {
            let Some(ppn) = self.alloc_translation(tvpn, true) else {
                return Err(Error::config("ftl.mapping", format!("no room for the {pages} translation pages of the mapping table")));
            };
            self.mapping.relocate(tvpn, ppn);
        }
        Ok(())
    }

    /// Where to read translation page `tvpn` from after a miss, counted as
    /// a translation read; None if its latest copy is still being written
    /// back or its write-back was held (the controller holds it), or it
    /// was never written.
    pub fn translation_read(&mut self, tvpn: u32) -> Option<Ppn> {
        if self.mapping.held.get(tvpn as usize) == Some(&true) {
            return None;
        }
        self.read_translation_copy(tvpn)
    }

    /// Translation page `tvpn`'s copy on flash, if programmed, counted as
    /// a translation read.
    fn read_translation_copy(&mut self, tvpn: u32) -> Option<Ppn> {
        let ppn = self.mapping.location(tvpn);
        if ppn == NO_PAGE || !self.is_programmed(ppn) {
            return None;
        }
        self.mapping.s.translation_reads += 1;
        Some(ppn)
    }

    /// Where to read the old copy of translation page `tvpn` from before
    /// its write-back merges cached entries into it (an entry cache),
    /// counted as a translation read; None without a programmed copy. A
    /// held page is read too: MQSim reads the copy its directory names
    /// before every write-back, held or not (here the last one programmed,
    /// not the page MQSim allocated and never programmed: the same time
    /// on another die).
    pub fn translation_merge_read(&mut self, tvpn: u32) -> Option<Ppn> {
        if !self.mapping.by_entry() {
            return None;
        }
        self.read_translation_copy(tvpn)
    }

    /// Whether a write-back is held rather than programmed
    /// (`ftl.cmt_write_back = "hold"`).
    pub fn holds_translation_writes(&self) -> bool {
        !self.mapping.held.is_empty()
    }

    /// Give translation page `tvpn` a new page for its write-back (pending:
    /// the caller plans its program) and make the old copy stale. None if
    /// no plane has room (the page then stays where it was), in DRAM, or if
    /// write-backs are held: then the page stays in the controller for the
    /// rest of the run and its old copy where it is.
    pub fn write_back_translation(&mut self, tvpn: u32) -> Option<Ppn> {
        if self.mapping.is_dram() {
            return None;
        }
        if let Some(h) = self.mapping.held.get_mut(tvpn as usize) {
            *h = true;
            self.mapping.s.translation_writes_held += 1;
            return None;
        }
        let ppn = self.alloc_translation(tvpn, false)?;
        self.mapping.s.translation_writes += 1;
        let old = self.mapping.relocate(tvpn, ppn);
        if old != NO_PAGE {
            self.invalidate(old);
        }
        Some(ppn)
    }

    /// A page of the `Map` stream for `tvpn`: on the plane the static
    /// order gives its number (so the pages spread over the dies), or the
    /// next plane with room.
    fn alloc_translation(&mut self, tvpn: u32, programmed: bool) -> Option<Ppn> {
        let (home, planes) = (self.static_plane(tvpn), self.geo.host_planes());
        let plane = (0..planes).map(|k| (home + k) % planes).find(|&p| self.can_alloc(p, Stream::Map))?;
        if programmed {
            self.alloc_programmed(plane, Stream::Map, Owner::id(tvpn), 0)
        } else {
            self.alloc(plane, Stream::Map, Owner::id(tvpn))
        }
    }

    /// The stream GC copies a victim's pages to: translation pages stay
    /// in blocks of their own.
    #[inline]
    pub fn gc_stream(&self, victim: u32) -> Stream {
        if self.blocks[victim as usize].map {
            Stream::MapGc
        } else {
            Stream::Gc
        }
    }

    /// Whether `ppn` holds a translation page.
    #[inline]
    pub fn is_translation_page(&self, ppn: Ppn) -> bool {
        self.blocks[self.geo.block_of(ppn) as usize].map
    }
}

#[cfg(test)]
mod tests;
