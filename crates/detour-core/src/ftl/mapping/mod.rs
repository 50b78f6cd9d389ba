//! # Mapping policies
//!
//! **What:** where the page-level LPN -> PPN map lives (`ftl.mapping`).
//! `dram.rs`: all of it in DRAM, every lookup free (the default, and what
//! Detour always did). `cmt.rs`: a cached mapping table (DFTL) of
//! `ftl.cmt_size_kib`, holding whole translation pages (page_size / 4
//! entries each) in LRU order; the full table lives on flash in
//! translation pages, found through the global translation directory.
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
//! **References:** Gupta et al., "DFTL" (ASPLOS 2009); MQSim's
//! `Address_Mapping_Unit_Page_Level` (`CMT_Capacity`, `Ideal_Mapping_Table`).

mod cmt;
mod dram;

pub use cmt::Cmt;
pub use dram::Dram;

use super::{Ftl, Stream};
use crate::config::{Config, MappingKind};
use crate::device::Geometry;
use crate::error::{Error, Result};
use crate::types::{Owner, Ppn, NO_PAGE};

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
    /// Translation pages the cache holds at most.
    pub cmt_pages: u64,
    /// Translation pages of the whole map (page_size / 4 entries each).
    pub translation_pages: u64,
    /// Lookups: one per translation page a host request touches.
    pub lookups: u64,
    pub hits: u64,
    /// hits / lookups (1 with no lookups).
    pub hit_ratio: f64,
    /// Flash reads of translation pages (misses whose page was not still
    /// in the controller's buffer, its write-back pending).
    pub translation_reads: u64,
    /// Flash programs of dirty translation pages evicted.
    pub translation_writes: u64,
    /// Translation pages GC moved.
    pub gc_moves: u64,
}

/// The mapping policy (an enum wrapper: a lookup in the default is one
/// predictable branch).
pub enum Mapping {
    Dram(Dram),
    Cmt(Box<Cmt>),
}

impl Mapping {
    #[inline]
    pub fn is_dram(&self) -> bool {
        matches!(self, Mapping::Dram(_))
    }

    /// The cached mapping table, if that is the policy.
    pub fn cmt(&mut self) -> Option<&mut Cmt> {
        match self {
            Mapping::Dram(_) => None,
            Mapping::Cmt(c) => Some(c),
        }
    }

    /// GC moved translation page `tvpn` from `from` to `to`.
    pub fn moved(&mut self, tvpn: u32, from: Ppn, to: Ppn) {
        if let Mapping::Cmt(c) = self {
            c.moved(tvpn, from, to);
        }
    }

    /// The summary's section (None for DRAM mapping, which has no traffic).
    pub fn stats(&self) -> Option<MappingStats> {
        match self {
            Mapping::Dram(_) => None,
            Mapping::Cmt(c) => Some(c.stats()),
        }
    }
}

impl Mapping {
    /// The policy `ftl.mapping` names, sized for `geo`.
    pub fn new(cfg: &Config, geo: &Geometry) -> Mapping {
        match cfg.ftl.mapping {
            MappingKind::Dram => Mapping::Dram(Dram),
            MappingKind::Cmt => Mapping::Cmt(Box::new(Cmt::new(geo.logical_pages, cfg.device.page_size, cfg.ftl.cmt_size_kib))),
        }
    }
}

impl Ftl {
    /// Write every translation page to flash at once (setup, before
    /// preconditioning): the directory starts complete, as on a drive
    /// that was formatted. Nothing for DRAM mapping or a covering table.
    pub fn place_translation_pages(&mut self) -> Result<()> {
        let pages = match &self.mapping {
            Mapping::Cmt(c) if !c.covers() => c.translation_pages(),
            _ => return Ok(()),
        };
        for tvpn in 0..pages {
            let Some(ppn) = self.alloc_translation(tvpn, true) else {
                return Err(Error::config("ftl.mapping", format!("no room for the {pages} translation pages of the mapping table")));
            };
            if let Mapping::Cmt(c) = &mut self.mapping {
                c.relocate(tvpn, ppn);
            }
        }
        Ok(())
    }

    /// Where to read translation page `tvpn` from after a miss, counted as
    /// a translation read; None if its latest copy is still being written
    /// back (the controller holds it) or was never written.
    pub fn translation_read(&mut self, tvpn: u32) -> Option<Ppn> {
        let ppn = self.mapping.cmt()?.location(tvpn);
        if ppn == NO_PAGE || !self.is_programmed(ppn) {
            return None;
        }
        self.mapping.cmt()?.count_read();
        Some(ppn)
    }

    /// Give translation page `tvpn` a new page for its write-back (pending:
    /// the caller plans its program) and make the old copy stale. None if
    /// no plane has room: the page then stays where it was.
    pub fn write_back_translation(&mut self, tvpn: u32) -> Option<Ppn> {
        let ppn = self.alloc_translation(tvpn, false)?;
        let Mapping::Cmt(c) = &mut self.mapping else { return None };
        c.count_write();
        let old = c.relocate(tvpn, ppn);
        if old != NO_PAGE {
            self.invalidate(old);
        }
        Some(ppn)
    }

    /// A page of the `Map` stream for `tvpn`: on the plane the static
    /// order gives its number (so the pages spread over the dies), or the
    /// next plane with room.
    fn alloc_translation(&mut self, tvpn: u32, programmed: bool) -> Option<Ppn> {
        let (home, planes) = (self.static_plane(tvpn), self.geo.planes());
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
