//! # HotR: hot read data replication
//!
//! **What:** an R-LRU list per chip of recently read pages (D-offset = the
//! page's flash location through the map, R-offset = its staging copy or
//! none, count = reads while listed). A read whose die is programming or
//! erasing (conflict detection: `LoadView::writing`) is served from the
//! staging copy when the page has one (request distributor). A listed page
//! read again from flash is copied to staging once the read finished, off
//! the critical path (on-demand migration: the data is in the controller,
//! so the copy is one background program). Writes drop the entry and
//! invalidate the staging copy. Staging is a slice of over-provisioned
//! space on any other die (`staging = "op"`), one of the device's own chips
//! taken from the host (`staging = "chip"`), or the paper's dedicated spare
//! chip beside the device's chips (`staging = "spare-chip"` with
//! `device.spare_chips`): the host keeps its logical space and every chip.
//!
//! **Why:** read-intensive pages are rarely written, so a second copy of the
//! hot ones stays valid for long and lets reads sidestep long programs.
//!
//! **References:** HotR (papers/hotr-hot-read-replication.txt), Sec. III.

use super::registry::{self, Env, SchemeEntry, SchemeSection};
use super::{Ctx, OpDone, Plan, Scheme, Stall};
use crate::config::{in_range_f, in_range_u, Config, DeviceConfig};
use crate::device::{Geometry, OpKind};
use crate::error::Error;
use crate::ftl::Stream;
use crate::scheduler::Class;
use crate::types::{Lpn, Owner, Ppn, Token, NO_PAGE};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

pub const ENTRY: SchemeEntry = SchemeEntry::new(
    "hotr",
    "HotR: hot read pages copied to staging; reads blocked by a write served there",
    build,
)
.colour("#4363d8")
    .section::<HotrConfig>()
    .requires(requires)
    .spare_chips()
    .activity(&["hotr.migrations", "hotr.staging_hits"]);

/// `staging = "spare-chip"` and `device.spare_chips` go together: the
/// spare chips are the staging space, and nothing else uses them.
fn requires(cfg: &Config) -> crate::error::Result<()> {
    let spare = registry::section::<HotrConfig>(&cfg.scheme)?.staging == Staging::SpareChip;
    match (spare, cfg.device.spare_chips) {
        (true, 0) => Err(Error::config("scheme.hotr.staging", "\"spare-chip\" needs device.spare_chips = 1 (or more)")),
        (false, n) if n > 0 => Err(Error::config(
            "device.spare_chips",
            format!("{n} spare chips, but only scheme.hotr.staging = \"spare-chip\" uses them"),
        )),
        _ => Ok(()),
    }
}

fn build(env: &Env) -> crate::error::Result<Box<dyn Scheme>> {
    Ok(Box::new(HotR::new(&env.section()?, env.geometry)?))
}

/// `[scheme.hotr]`: hot read replication (docs/schemes/hotr.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HotrConfig {
    /// Where staging copies live. Default "op".
    pub staging: Staging,
    /// Staging capacity as a share of the physical pages (op mode only; in
    /// the chip modes it is the chip). Default 0.02; 0..=0.5.
    pub staging_share: f64,
    /// Share of the pages read so far that may be held in staging (the paper's
    /// "10% hot read pages migrated"). Default 0.10; 0 disables migration.
    pub migrate_share: f64,
    /// R-LRU entries per chip. Default 4096.
    pub rlru_per_chip: u32,
    /// R-LRU hits (reads while listed) before a page is migrated. Default 1:
    /// the second read of a listed page migrates it, as in the paper's Fig. 4.
    pub min_hits: u32,
    /// When the staged set is full, a page read more often than the
    /// coldest staged page (fewest reads while listed, then least recently)
    /// takes its place. Default false: a full staged set takes no new page
    /// until one of its pages is written or falls out of the R-LRU.
    pub replace: bool,
    /// Which reads of a listed, unstaged page migrate it. Default
    /// "blocked": Sec. III-C copies a page to staging in the branch for a
    /// read found blocked ("If a read request is blocked, ... If it hits
    /// and the corresponding R-offset is NULL, the read request is serviced
    /// by the flash chips. After the read data pages are fetched ... HotR
    /// writes them to the staging space"). "any": every such read, blocked
    /// or not (this scheme's behaviour before 2026-11-28).
    pub migrate_on: MigrateOn,
}

/// `scheme.hotr.migrate_on`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MigrateOn {
    /// Only a read whose die was writing when it was planned (Sec. III-C).
    #[default]
    Blocked,
    /// Any read of a listed page without a copy.
    Any,
}

/// `scheme.hotr.staging`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Staging {
    /// In over-provisioned space on any die other than the original's.
    #[default]
    Op,
    /// On the last of the device's chips, taken from the host (which
    /// loses its pages from the logical space and its die time).
    Chip,
    /// On the spare chips beside the device's (`device.spare_chips`, on a
    /// channel of their own): "a dedicated spare flash chip" (abstract,
    /// Sec. I), counted by the paper as extra space (Sec. IV-B, Fig. 7's
    /// cost "on the extra storage space that each scheme consumes").
    SpareChip,
}

impl Default for HotrConfig {
    fn default() -> Self {
        HotrConfig { staging: Staging::Op, staging_share: 0.02, migrate_share: 0.10, rlru_per_chip: 4096, min_hits: 1, replace: false, migrate_on: MigrateOn::Blocked }
    }
}

impl SchemeSection for HotrConfig {
    const KEY: &'static str = "hotr";

    fn validate(&self, _: &DeviceConfig) -> crate::error::Result<()> {
        in_range_f("scheme.hotr.staging_share", self.staging_share, 0.0, 0.5)?;
        in_range_f("scheme.hotr.migrate_share", self.migrate_share, 0.0, 1.0)?;
        in_range_u("scheme.hotr.rlru_per_chip", self.rlru_per_chip as u64, 1, 1 << 24)?;
        in_range_u("scheme.hotr.min_hits", self.min_hits as u64, 1, 1 << 20)
    }
}

/// Tag on a host read whose data should be migrated once it is back.
const MIGRATE: u32 = 1;

struct Entry {
    /// Staging copy (R-offset), NO_PAGE while not migrated.
    r_ppn: Ppn,
    count: u32,
    stamp: u64,
    chip: u32,
}

#[derive(Default)]
struct Counts {
    reads: u64,
    blocked: u64,
    staging_hits: u64,
    redirected: u64,
    migrations: u64,
    migrations_skipped: u64,
    invalidated: u64,
    evicted: u64,
}

pub struct HotR {
    cfg: HotrConfig,
    /// Staging on dedicated dies (`host_dies..`): the chip modes.
    chip_mode: bool,
    /// Dies the host may write (all but the staging chip in chip mode, the
    /// device's own in spare-chip mode).
    host_dies: u32,
    entries: HashMap<Lpn, Entry>,
    /// R-LRU order per chip: stamp -> LPN, oldest first.
    lru: Vec<BTreeMap<u64, Lpn>>,
    /// Entries with a staging copy (programmed or pending).
    staged: u64,
    /// Pages read at least once (for the migrate share).
    seen: Vec<u64>,
    seen_count: u64,
    capacity: u64,
    stamp: u64,
    /// Round-robin position of the next staging plane.
    cursor: u32,
    /// With `replace`: the staged entries, coldest first (reads, stamp, LPN).
    heat: BTreeSet<(u32, u64, Lpn)>,
    replaced: u64,
    n: Counts,
}

impl HotR {
    pub fn new(cfg: &HotrConfig, geo: &Geometry) -> crate::error::Result<HotR> {
        if cfg.staging == Staging::Chip && geo.chips() < 2 {
            return Err(Error::config("scheme.hotr.staging", "\"chip\" needs at least 2 chips (one is the staging chip)"));
        }
        if (cfg.staging == Staging::SpareChip) != (geo.spare_chips > 0) {
            return Err(Error::config("scheme.hotr.staging", "\"spare-chip\" staging and device.spare_chips >= 1 go together"));
        }
        let host_dies = match cfg.staging {
            Staging::Op => geo.dies(),
            Staging::Chip => geo.dies() - geo.dies_per_chip,
            Staging::SpareChip => geo.host_dies(),
        };
        let chip_mode = host_dies < geo.dies();
        let capacity = if chip_mode {
            // Leave the chips' GC head-room free, as the FTL does for the host.
            (geo.pages_per_plane() as u64 * ((geo.dies() - host_dies) * geo.planes_per_die) as u64) * 8 / 10
        } else {
            (cfg.staging_share * geo.total_pages() as f64) as u64
        };
        Ok(HotR {
            cfg: cfg.clone(),
            chip_mode,
            host_dies,
            entries: HashMap::new(),
            lru: (0..geo.chips()).map(|_| BTreeMap::new()).collect(),
            staged: 0,
            seen: vec![0; (geo.logical_pages as usize).div_ceil(64)],
            seen_count: 0,
            capacity,
            stamp: 0,
            cursor: 0,
            heat: BTreeSet::new(),
            replaced: 0,
            n: Counts::default(),
        })
    }

    /// Staged pages allowed now: the migrate share of the pages read so far,
    /// within the staging space.
    fn budget(&self) -> u64 {
        ((self.cfg.migrate_share * self.seen_count as f64) as u64).min(self.capacity)
    }

    fn mark_seen(&mut self, lpn: Lpn) {
        let (w, b) = ((lpn / 64) as usize, lpn % 64);
        if let Some(word) = self.seen.get_mut(w) {
            if *word & (1 << b) == 0 {
                *word |= 1 << b;
                self.seen_count += 1;
            }
        }
    }

    /// Drop `lpn`'s entry and its staging copy (a write, or LRU eviction).
    fn remove(&mut self, lpn: Lpn, ctx: &mut Ctx) {
        if let Some(e) = self.entries.remove(&lpn) {
            self.lru[e.chip as usize].remove(&e.stamp);
            if e.r_ppn != NO_PAGE {
                self.staged -= 1;
                self.heat.remove(&(e.count, e.stamp, lpn));
                ctx.ftl.invalidate(e.r_ppn);
            }
        }
    }

    /// Make room in a full staged set for a page read `count` times: drop
    /// the coldest staged copy if it was read less (its entry stays listed).
    fn replace_colder(&mut self, count: u32, ctx: &mut Ctx) -> bool {
        let Some(&(c, stamp, lpn)) = self.heat.first() else { return false };
        if c >= count {
            return false;
        }
        self.heat.remove(&(c, stamp, lpn));
        let e = self.entries.get_mut(&lpn).expect("a staged page is listed");
        ctx.ftl.invalidate(e.r_ppn);
        e.r_ppn = NO_PAGE;
        self.staged -= 1;
        self.replaced += 1;
        true
    }

    /// Record a read of `lpn` stored on `chip`; returns (staging copy, hits before).
    fn touch(&mut self, lpn: Lpn, chip: u32, ctx: &mut Ctx) -> (Ppn, u32) {
        self.stamp += 1;
        let stamp = self.stamp;
        if let Some(e) = self.entries.get_mut(&lpn) {
            let hits = e.count;
            self.lru[e.chip as usize].remove(&e.stamp);
            self.lru[e.chip as usize].insert(stamp, lpn);
            if self.cfg.replace && e.r_ppn != NO_PAGE {
                self.heat.remove(&(e.count, e.stamp, lpn));
                self.heat.insert((e.count + 1, stamp, lpn));
            }
            e.stamp = stamp;
            e.count += 1;
            return (e.r_ppn, hits);
        }
        if self.lru[chip as usize].len() >= self.cfg.rlru_per_chip as usize {
            if let Some((_, old)) = self.lru[chip as usize].pop_first() {
                self.n.evicted += self.entries.get(&old).is_some_and(|e| e.r_ppn != NO_PAGE) as u64;
                self.remove(old, ctx);
            }
        }
        self.lru[chip as usize].insert(stamp, lpn);
        self.entries.insert(lpn, Entry { r_ppn: NO_PAGE, count: 1, stamp, chip });
        (NO_PAGE, 0)
    }

    fn plan_one_read(&mut self, lpn: Lpn, ctx: &mut Ctx, plan: &mut Plan) {
        let ppn = ctx.ftl.map.get(lpn);
        if !ctx.ftl.is_programmed(ppn) {
            plan.buffered += 1;
            return;
        }
        self.n.reads += 1;
        self.mark_seen(lpn);
        let die = ctx.geo.die_of(ppn);
        let blocked = ctx.load.writing(die);
        self.n.blocked += blocked as u64;
        let (r_ppn, hits) = self.touch(lpn, ctx.geo.chip_of_die(die), ctx);
        let staged = r_ppn != NO_PAGE && ctx.ftl.is_programmed(r_ppn);
        self.n.staging_hits += staged as u64;
        let g = plan.group(lpn, true);
        // Redirect only to a staging die that is not itself writing.
        if blocked && staged && !ctx.load.writing(ctx.geo.die_of(r_ppn)) {
            self.n.redirected += 1;
            plan.read(g, 0, r_ppn, Class::HostRead, 0);
            return;
        }
        // A first read only lists the page (hits = 0); a later one migrates
        // it, by default only when it found its die writing (Sec. III-C).
        let when = blocked || self.cfg.migrate_on == MigrateOn::Any;
        let migrate = when && r_ppn == NO_PAGE && hits >= self.cfg.min_hits && self.cfg.migrate_share > 0.0;
        plan.read(g, 0, ppn, Class::HostRead, if migrate { MIGRATE } else { 0 });
    }

    /// The staging plane for a copy of a page on `src_die`: the next plane
    /// in round-robin order (on the staging chip, or on any other die) that
    /// has room, preferring a die that is not writing now. Round robin
    /// spreads copies, and so the redirected reads, over all dies.
    fn staging_plane(&mut self, src_die: u32, ctx: &Ctx) -> Option<u32> {
        let (geo, ppd) = (ctx.geo, ctx.geo.planes_per_die);
        let first = if self.chip_mode { self.host_dies * ppd } else { 0 };
        let n = geo.planes() - first;
        let ok = |p: u32| (self.chip_mode || geo.die_of_plane(p) != src_die) && ctx.ftl.can_alloc(p, Stream::Aux);
        let order = (0..n).map(|i| first + (self.cursor + i) % n);
        let pick = order.clone().find(|&p| ok(p) && !ctx.load.writing(geo.die_of_plane(p))).or_else(|| order.clone().find(|&p| ok(p)))?;
        self.cursor = (pick - first + 1) % n;
        Some(pick)
    }

    /// A host read tagged for migration is back: program its data to staging.
    fn migrate(&mut self, op: &OpDone, ctx: &mut Ctx) {
        let lpn = op.lpn;
        // A write since the read was planned dropped the entry or moved the page.
        let live = ctx.ftl.map.get(lpn) == op.ppn && ctx.ftl.is_programmed(op.ppn);
        if !live || self.entries.get(&lpn).is_none_or(|e| e.r_ppn != NO_PAGE) {
            return;
        }
        // A full staging space takes no new pages: copies leave only when
        // their entry falls out of the R-LRU or is written (no churn).
        let count = self.entries.get(&lpn).map_or(0, |e| e.count);
        if self.staged >= self.budget() && !(self.cfg.replace && self.replace_colder(count, ctx)) {
            self.n.migrations_skipped += 1;
            return;
        }
        let plane = self.staging_plane(ctx.geo.die_of(op.ppn), ctx);
        let Some(r_ppn) = plane.and_then(|p| ctx.ftl.alloc(p, Stream::Aux, Owner::aux(lpn))) else {
            self.n.migrations_skipped += 1;
            return;
        };
        let e = self.entries.get_mut(&lpn).expect("checked above");
        e.r_ppn = r_ppn;
        if self.cfg.replace {
            self.heat.insert((e.count, e.stamp, lpn));
        }
        self.staged += 1;
        self.n.migrations += 1;
        let mut plan = Plan::default();
        let g = plan.group(lpn, false);
        plan.program(g, 0, r_ppn, Owner::aux(lpn), op.token, Class::Background, 0);
        ctx.background.push(plan);
    }

    fn host_plane(&self, lpn: Lpn, ctx: &mut Ctx) -> u32 {
        let plane = ctx.ftl.plane_for_write(lpn, &ctx.load);
        let host_planes = self.host_dies * ctx.geo.planes_per_die;
        if plane < host_planes {
            plane
        } else {
            // The policy chose the staging chip: spread these pages evenly over
            // the host planes (a least-loaded pick would pile them on one die).
            (lpn / ctx.geo.planes()) % host_planes
        }
    }

    /// New page for `lpn` off the staging chip; the old copy and any staging
    /// copy are dropped only once the page is allocated (a stall changes nothing).
    fn remap(&mut self, lpn: Lpn, done: u32, ctx: &mut Ctx) -> Result<Ppn, Stall> {
        let plane = self.host_plane(lpn, ctx);
        let ppn = ctx.ftl.alloc(plane, Stream::Host, Owner::lpn(lpn)).ok_or(Stall { done })?;
        if self.entries.get(&lpn).is_some_and(|e| e.r_ppn != NO_PAGE) {
            self.n.invalidated += 1;
        }
        self.remove(lpn, ctx);
        let old = ctx.ftl.map.get(lpn);
        if old != NO_PAGE {
            ctx.ftl.invalidate(old);
        }
        ctx.ftl.map.set(lpn, ppn);
        Ok(ppn)
    }
}

impl Scheme for HotR {
    fn uses_shared_map(&self) -> bool {
        true
    }

    fn logical_pages(&self, geo: &Geometry) -> Option<u32> {
        // A spare chip comes on top: the host keeps the device's space.
        let chips = geo.chips() as u64;
        (self.cfg.staging == Staging::Chip).then(|| (geo.logical_pages as u64 * (chips - 1) / chips) as u32)
    }

    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for lpn in lpns {
            self.plan_one_read(lpn, ctx, plan);
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for (i, lpn) in lpns.enumerate() {
            let ppn = self.remap(lpn, i as u32, ctx)?;
            let g = plan.group(lpn, false);
            plan.program(g, 0, ppn, Owner::lpn(lpn), tokens[i], Class::HostWrite, 0);
        }
        Ok(())
    }

    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, _: &mut Plan) -> Result<(), Stall> {
        let ppn = self.remap(lpn, 0, ctx)?;
        ctx.ftl.program_done(ppn, token);
        Ok(())
    }

    fn on_complete(&mut self, op: &OpDone, ctx: &mut Ctx) {
        if op.kind == OpKind::Read && op.tag == MIGRATE && !op.failed {
            self.migrate(op, ctx);
        }
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        // A staging copy is HotR's auxiliary page (its index is the LPN):
        // the host map must not follow it.
        let Some(lpn) = owner.as_aux() else {
            return ctx.remap_moved(owner.index(), from, to);
        };
        if let Some(e) = self.entries.get_mut(&lpn) {
            if e.r_ppn == from {
                e.r_ppn = to;
            }
        }
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let n = &self.n;
        let mut c = vec![
            ("hotr.reads", n.reads as f64),
            ("hotr.reads_blocked", n.blocked as f64),
            ("hotr.reads_redirected_staging", n.redirected as f64),
            ("hotr.staging_hits", n.staging_hits as f64),
            ("hotr.migrations", n.migrations as f64),
            ("hotr.migrations_skipped", n.migrations_skipped as f64),
            ("hotr.staging_invalidated", n.invalidated as f64),
            ("hotr.staging_evicted", n.evicted as f64),
            ("hotr.staged_pages", self.staged as f64),
        ];
        if self.cfg.replace {
            c.push(("hotr.staging_replaced", self.replaced as f64));
        }
        c
    }
}
