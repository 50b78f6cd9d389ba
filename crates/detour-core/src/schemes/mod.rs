//! Schemes decide, for each host read and write, which flash operations to
//! issue and where; they never touch the event queue.
//!
//! A scheme gets a [`Ctx`] with the live die load, the FTL (allocation, page
//! state, the shared page map) and a way to submit background plans, and
//! fills a [`Plan`]. The simulator runs the plan, and tells the scheme when
//! operations finish and when GC moves a page. To add one, follow
//! docs/adding-a-scheme.md: one file here, one [`SchemeKind`] variant, one
//! config section, one row in tests/schemes.rs.

mod collisions;
mod common;
mod conventional;
mod dedup;
mod hotr;
mod rails;
mod ttflash;
mod plan;
mod raid;
pub mod requirements;

pub use collisions::{Collisions, RateWindow};
pub use common::Ctx;
pub use conventional::Conventional;
pub use dedup::{Dedup, Mode as DedupMode};
pub use hotr::HotR;
pub use rails::Rails;
pub use ttflash::TtFlash;
pub use plan::{GroupSpec, Plan, PlannedOp};

use crate::config::Config;
use crate::device::{Geometry, OpKind};
use crate::error::{Error, Result};
use crate::scheduler::Class;
use crate::types::{Lpn, Owner, Ppn, Time, Token};
use std::collections::BTreeMap;
use std::ops::Range;

/// A plan could not be finished because a plane had no free page; the
/// simulator retries from page `done` of the request after the next erase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stall {
    /// Pages of the request fully planned before the stall.
    pub done: u32,
}

/// What the simulator tells a scheme about a finished flash operation.
#[derive(Clone, Copy, Debug)]
pub struct OpDone {
    pub kind: OpKind,
    pub class: Class,
    pub ppn: Ppn,
    pub owner: Owner,
    pub token: Token,
    pub tag: u32,
    /// The LPN of the operation's group.
    pub lpn: Lpn,
    /// The operation belonged to a host request (not background work).
    pub host: bool,
    pub failed: bool,
}

/// The contract every scheme implements.
pub trait Scheme {
    fn name(&self) -> &'static str;

    /// Pages the host may address when the scheme keeps part of the device
    /// for itself (hidden mirror or staging chips, parity): at most the
    /// configured logical space. None keeps the configured one.
    fn logical_pages(&self, _geo: &Geometry) -> Option<u32> {
        None
    }

    /// Plan reads of `lpns` (every one of them has data: the simulator
    /// places never-written pages first). Add one checked group per page.
    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall>;

    /// Plan writes of `lpns` with `tokens[i]` for `lpns.start + i`. On a
    /// stall, nothing of the unplanned pages may have been changed.
    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall>;

    /// Write one page at once, with no simulated time: preconditioning, and
    /// placing a never-written page on its first read. The default plans the
    /// write and applies the plan's effects immediately (completions included),
    /// so the layout is exactly the scheme's; override it only to go faster.
    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, scratch: &mut Plan) -> Result<(), Stall> {
        scratch.clear();
        self.plan_write(lpn..lpn + 1, &[token], ctx, scratch)?;
        common::apply_instantly(scratch, ctx, &mut |op, ctx| self.on_complete(op, ctx));
        Ok(())
    }

    /// A flash operation of one of this scheme's plans finished.
    fn on_complete(&mut self, _op: &OpDone, _ctx: &mut Ctx) {}

    /// Whether `on_complete` does anything; false spares the simulator a
    /// call per flash operation. Asked once, when the simulation is built.
    fn wants_completions(&self) -> bool {
        true
    }

    /// The page a plain read of `lpn` reads now (NO_PAGE if none), and
    /// whether `ppn` holds `lpn`'s current data: what a layer over this
    /// scheme (the collision layer) needs to find and check the data. The
    /// default is the shared page map; schemes with their own tables say.
    fn page_of(&self, lpn: Lpn, ctx: &Ctx) -> Ppn {
        ctx.ftl.map.get(lpn)
    }

    fn holds(&self, lpn: Lpn, ppn: Ppn, ctx: &Ctx) -> bool {
        self.page_of(lpn, ctx) == ppn
    }

    /// Whether `plane`, below its free-block threshold, may start collecting
    /// now. A scheme that must keep some planes' GC apart (TTFlash: one
    /// member of a stripe at a time) says no; the core asks again after each
    /// erase and tick. Saying no for ever is a hang the core reports as
    /// requests that could not complete.
    fn may_start_gc(&mut self, _plane: u32, _ctx: &mut Ctx) -> bool {
        true
    }

    /// GC moved a live page; update any table that pointed at `from`.
    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx);

    /// Periodic background work (the interval is `tick_interval`).
    fn tick(&mut self, _ctx: &mut Ctx) {}

    /// Interval between ticks in ns; None for no ticks.
    fn tick_interval(&self) -> Option<Time> {
        None
    }

    /// Scheme-specific counters for the results (name, value).
    fn counters(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    /// One row of named numbers per period, for schemes that work in
    /// periods (RR-SSD's days); reported as `summary.periods`.
    fn periods(&self) -> Vec<BTreeMap<String, f64>> {
        Vec::new()
    }
}

/// Every scheme Detour knows, by its config name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemeKind {
    Conventional,
    HotR,
    Rails,
    TtFlash,
    Pure,
    Cr1,
    Cr4,
    Cr5,
    Cr5m,
    Collisions,
    CaSsd,
    RrSsd,
    Oracle,
    Pblru,
}

impl SchemeKind {
    pub const ALL: &'static [(&'static str, &'static str)] = &[
        ("conventional", "Page-mapped FTL with the configured allocation; one copy of every page"),
        ("hotr", "HotR: hot read pages copied to staging; reads blocked by a write served there"),
        ("rails", "Rails in-drive: mirrored halves, one serves reads while the other absorbs writes"),
        ("ttflash", "TTFlash: k+1 RAID-5 over chips or channels; blocked reads rebuilt from parity"),
        ("pure", "The CR5M paper's pure SSD: conventional placement, no redundancy; takes scheme.raid.fail_* and counts lost pages"),
        ("cr1", "Channel RAID-1: every page mirrored on a partner channel (half the capacity)"),
        ("cr4", "Channel RAID-4: stripes of N-1 data pages, parity on a dedicated channel"),
        ("cr5", "Channel RAID-5: stripes of N-1 data pages, rotating parity, semi-dynamic allocation"),
        ("cr5m", "CR5 with a hidden mirror chip per channel: small updates mirrored, parity deferred"),
        ("collisions", "A layer (over conventional by default) replicating pages of repeating imbalanced read-collision pairs"),
        ("ca-ssd", "CA-SSD: content-addressed dedup FTL; duplicate content costs no flash write"),
        ("rr-ssd", "RR-SSD: CA-SSD plus popular values replicated each period, reads to the least-loaded copy"),
        ("oracle", "Ideal-All-Chip replication on CA-SSD: every read served by the least-loaded die, free"),
        ("pblru", "PBLRU on CA-SSD: blocked pages replicated on-line in a priority-based LRU space"),
    ];

    pub fn parse(name: &str) -> Result<SchemeKind> {
        match name {
            "conventional" => Ok(SchemeKind::Conventional),
            "hotr" => Ok(SchemeKind::HotR),
            "rails" => Ok(SchemeKind::Rails),
            "ttflash" => Ok(SchemeKind::TtFlash),
            "pure" => Ok(SchemeKind::Pure),
            "cr1" => Ok(SchemeKind::Cr1),
            "cr4" => Ok(SchemeKind::Cr4),
            "cr5" => Ok(SchemeKind::Cr5),
            "cr5m" => Ok(SchemeKind::Cr5m),
            "collisions" => Ok(SchemeKind::Collisions),
            "ca-ssd" => Ok(SchemeKind::CaSsd),
            "rr-ssd" => Ok(SchemeKind::RrSsd),
            "oracle" => Ok(SchemeKind::Oracle),
            "pblru" => Ok(SchemeKind::Pblru),
            _ => {
                let known: Vec<&str> = Self::ALL.iter().map(|(n, _)| *n).collect();
                Err(Error::config("scheme.name", format!("unknown scheme `{name}`; known: {}", known.join(", "))))
            }
        }
    }

    /// The deduplicating schemes work in periods (`scheme.rrssd.period_s`).
    pub fn works_in_periods(self) -> bool {
        matches!(self, SchemeKind::CaSsd | SchemeKind::RrSsd | SchemeKind::Oracle | SchemeKind::Pblru)
    }

    pub fn build(self, cfg: &Config) -> Result<Box<dyn Scheme>> {
        let geo = || Geometry::from_config(&cfg.device);
        let dynamic = cfg.ftl.allocation == "dynamic";
        Ok(match self {
            SchemeKind::Conventional => Box::new(Conventional),
            SchemeKind::HotR => Box::new(HotR::new(&cfg.scheme.hotr, &geo()?)?),
            SchemeKind::Rails => Box::new(Rails::new(&cfg.scheme.rails, &geo()?, dynamic)?),
            SchemeKind::TtFlash => Box::new(TtFlash::new(&cfg.scheme.ttflash, &geo()?, dynamic)?),
            SchemeKind::Pure => raid::build(raid::Org::Pure, cfg)?,
            SchemeKind::Cr1 => raid::build(raid::Org::Cr1, cfg)?,
            SchemeKind::Cr4 => raid::build(raid::Org::Cr4, cfg)?,
            SchemeKind::Cr5 => raid::build(raid::Org::Cr5, cfg)?,
            SchemeKind::Cr5m => raid::build(raid::Org::Cr5m, cfg)?,
            SchemeKind::Collisions => Box::new(Collisions::new(cfg, &geo()?)?),
            SchemeKind::CaSsd => Box::new(Dedup::new(DedupMode::CaSsd, cfg)?),
            SchemeKind::RrSsd => Box::new(Dedup::new(DedupMode::RrSsd, cfg)?),
            SchemeKind::Oracle => Box::new(Dedup::new(DedupMode::Oracle, cfg)?),
            SchemeKind::Pblru => Box::new(Dedup::new(DedupMode::Pblru, cfg)?),
        })
    }
}
