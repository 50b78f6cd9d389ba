//! # TTFlash (read reconstruction over in-drive RAID-5)
//!
//! **What:** the chips (or channels) form groups of `width` = k+1 units;
//! logical page `lpn` is data member `lpn % k` of stripe `lpn / k`, and each
//! stripe has one parity page, its unit rotating with the stripe (RAID-5).
//! A write programs the new data and a new parity page (out of place), in
//! parallel. The new parity is computed in the controller from its record
//! of the stripe's contents (TTFlash keeps stripes in its capacitor-backed
//! RAM), so no old data or parity is read; but unlike TTFlash's full-stripe
//! writes every page write costs its own parity program (see the doc). A read whose die
//! is programming or erasing (host write, GC copy or erase) is rebuilt from
//! the stripe's other members and its parity when they are all on flash: a
//! checked group reading k pages.
//!
//! **Why:** parity gives a second way to any page without a full copy, so a
//! read need not wait for a long program or erase on its die.
//!
//! **Not here:** TTFlash's rotating GC (at most one member of a stripe
//! collecting at a time). The core's GC runs per plane on its own threshold
//! and cannot be steered by a scheme; see docs/schemes/ttflash.md.
//!
//! **References:** Yan et al., "Tiny-Tail Flash", FAST 2017; the 4+1
//! setting of papers/hotr-hot-read-replication.txt.

use super::registry::{Env, SchemeEntry, SchemeSection};
use super::{Ctx, Plan, Scheme, Stall};
use crate::config::DeviceConfig;
use crate::device::Geometry;
use crate::ensure_config;
use crate::error::Error;
use crate::ftl::{Stream, GC_RESERVE};
use crate::scheduler::Class;
use crate::types::{Lpn, Owner, Ppn, Token, NO_PAGE};
use serde::{Deserialize, Serialize};
use std::ops::Range;

pub const ENTRY: SchemeEntry = SchemeEntry::new(
    "ttflash",
    "TTFlash: k+1 RAID-5 over chips or channels; blocked reads rebuilt from parity",
    build,
)
.colour("#3cb44b")
    .section::<TtflashConfig>()
    .activity(&["ttflash.reads_reconstructed"]);

fn build(env: &Env) -> crate::error::Result<Box<dyn Scheme>> {
    Ok(Box::new(TtFlash::new(&env.section()?, env.geometry, env.dynamic_allocation())?))
}

/// `[scheme.ttflash]`: RAID-5 with read reconstruction (docs/schemes/ttflash.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TtflashConfig {
    /// Stripe width k+1 (data plus parity); it must divide the number of
    /// units. Default 0 = the largest of 5, 4, 3, 2 that divides it (the
    /// paper's 4+1 when the device allows).
    pub width: u32,
    /// What a stripe member is. Default "chip".
    pub unit: StripeUnit,
    /// Rotating GC: a plane starts collecting only while no other member of
    /// its stripe group collects, so a rebuild meets at most one busy
    /// member. Default true (TTFlash's GC-rotation).
    pub rotating_gc: bool,
}

/// `scheme.ttflash.unit`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StripeUnit {
    #[default]
    Chip,
    Channel,
}

impl Default for TtflashConfig {
    fn default() -> Self {
        TtflashConfig { width: 0, unit: StripeUnit::Chip, rotating_gc: true }
    }
}

impl SchemeSection for TtflashConfig {
    const KEY: &'static str = "ttflash";

    fn validate(&self, _: &DeviceConfig) -> crate::error::Result<()> {
        let w = self.width;
        ensure_config!(w == 0 || (2..=1024).contains(&w), "scheme.ttflash.width", "{w} is out of range; valid: 0 (auto) or 2..=1024");
        Ok(())
    }
}

#[derive(Default)]
struct Counts {
    reads: u64,
    blocked: u64,
    rebuilt: u64,
    rebuild_reads: u64,
    not_rebuildable: u64,
    gc_deferred: u64,
    gc_forced: u64,
    gc_concurrent_moves: u64,
}

pub struct TtFlash {
    width: u32,
    /// Dies per unit; unit u owns dies u*unit_dies..(u+1)*unit_dies.
    unit_dies: u32,
    /// Dynamic allocation: the least-loaded die of the unit.
    dynamic: bool,
    rotating_gc: bool,
    groups: u32,
    logical: u32,
    parity: Vec<Ppn>,
    /// Controller's record of each page's and stripe parity's token: the
    /// parity to program is computed from it (see the module doc).
    tokens: Vec<Token>,
    parity_tokens: Vec<Token>,
    n: Counts,
}

impl TtFlash {
    pub fn new(cfg: &TtflashConfig, geo: &Geometry, dynamic: bool) -> crate::error::Result<TtFlash> {
        let (units, unit_dies, unit) = match cfg.unit {
            StripeUnit::Channel => (geo.channels, geo.dies_per_channel(), "channel"),
            StripeUnit::Chip => (geo.chips(), geo.dies_per_chip, "chip"),
        };
        let width = match cfg.width {
            0 => (2..=5).rev().find(|w| units % w == 0).unwrap_or(units.max(2)),
            w => w,
        };
        if width > units || units % width != 0 {
            return Err(Error::config(
                "scheme.ttflash.width",
                format!("{width} must divide the {units} {unit}s of the device"),
            ));
        }
        let k = width - 1;
        let logical = (geo.logical_pages as u64 * k as u64 / width as u64) as u32;
        let stripes = logical.div_ceil(k) as usize;
        Ok(TtFlash {
            width,
            unit_dies,
            dynamic,
            rotating_gc: cfg.rotating_gc,
            groups: units / width,
            logical,
            parity: vec![NO_PAGE; stripes],
            tokens: vec![0; logical as usize],
            parity_tokens: vec![0; stripes],
            n: Counts::default(),
        })
    }

    /// Another unit of `plane`'s stripe group is collecting.
    fn group_collecting(&self, plane: u32, ctx: &Ctx) -> bool {
        let unit = ctx.geo.die_of_plane(plane) / self.unit_dies;
        let first = unit / self.width * self.width;
        let planes = self.unit_dies * ctx.geo.planes_per_die;
        (first..first + self.width)
            .filter(|&u| u != unit)
            .any(|u| (u * planes..(u + 1) * planes).any(|p| ctx.ftl.gc_active(p)))
    }

    fn k(&self) -> u32 {
        self.width - 1
    }

    /// The unit of position `pos` of `stripe` (0 = parity, 1.. = data).
    fn unit(&self, stripe: u32, pos: u32) -> u32 {
        let group = stripe % self.groups;
        let rot = (stripe / self.groups) % self.width;
        group * self.width + (rot + pos) % self.width
    }

    /// A plane on `unit`: its least-loaded die under dynamic allocation,
    /// else the static order's plane for `key` folded into the unit.
    fn plane(&self, unit: u32, key: u32, ctx: &mut Ctx) -> u32 {
        let first = unit * self.unit_dies;
        if self.dynamic {
            return ctx.ftl.least_loaded_plane(&ctx.load, first..first + self.unit_dies);
        }
        let per_unit = self.unit_dies * ctx.geo.planes_per_die;
        unit * per_unit + ctx.ftl.static_plane(key) % per_unit
    }

    /// Allocate data and parity pages for a write of `lpn`, both or neither.
    fn alloc_pair(&mut self, lpn: Lpn, done: u32, ctx: &mut Ctx) -> Result<(Ppn, Ppn), Stall> {
        let s = lpn / self.k();
        let dplane = self.plane(self.unit(s, 1 + lpn % self.k()), lpn, ctx);
        let pplane = self.plane(self.unit(s, 0), s, ctx);
        if !ctx.ftl.can_alloc(dplane, Stream::Host) || !ctx.ftl.can_alloc(pplane, Stream::Aux) {
            return Err(Stall { done });
        }
        let d = ctx.ftl.alloc(dplane, Stream::Host, Owner::lpn(lpn)).ok_or(Stall { done })?;
        let p = ctx.ftl.alloc(pplane, Stream::Aux, Owner::aux(s)).ok_or(Stall { done })?;
        Ok((d, p))
    }

    /// Point `lpn` and its stripe's parity at the new pages, dropping the
    /// old ones; returns the new parity token.
    fn commit(&mut self, lpn: Lpn, token: Token, d: Ppn, p: Ppn, ctx: &mut Ctx) -> Token {
        let s = (lpn / self.k()) as usize;
        for old in [ctx.ftl.map.get(lpn), self.parity[s]] {
            if old != NO_PAGE {
                ctx.ftl.invalidate(old);
            }
        }
        ctx.ftl.map.set(lpn, d);
        self.parity[s] = p;
        self.parity_tokens[s] ^= self.tokens[lpn as usize] ^ token;
        self.tokens[lpn as usize] = token;
        self.parity_tokens[s]
    }

    /// The pages a rebuild of `lpn` reads (other members and parity), or
    /// None if one of them is not yet on flash.
    fn rebuild_set(&self, lpn: Lpn, ctx: &Ctx, out: &mut Vec<Ppn>) -> bool {
        out.clear();
        let s = lpn / self.k();
        let members = s * self.k()..((s + 1) * self.k()).min(self.logical);
        for m in members.filter(|&m| m != lpn) {
            let ppn = ctx.ftl.map.get(m);
            if ppn == NO_PAGE {
                continue; // never written: token 0, not in the parity either
            }
            if !ctx.ftl.is_programmed(ppn) || ctx.load.failed(ctx.geo.die_of(ppn)) {
                return false;
            }
            out.push(ppn);
        }
        let p = self.parity[s as usize];
        out.push(p);
        p != NO_PAGE && ctx.ftl.is_programmed(p)
    }
}

impl Scheme for TtFlash {
    fn logical_pages(&self, _: &Geometry) -> Option<u32> {
        Some(self.logical)
    }

    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        let mut set = Vec::new();
        for lpn in lpns {
            let ppn = ctx.ftl.map.get(lpn);
            if !ctx.ftl.is_programmed(ppn) {
                plan.buffered += 1;
                continue;
            }
            self.n.reads += 1;
            let g = plan.group(lpn, true);
            if !ctx.load.writing(ctx.geo.die_of(ppn)) {
                plan.read(g, 0, ppn, Class::HostRead, 0);
                continue;
            }
            self.n.blocked += 1;
            if !self.rebuild_set(lpn, ctx, &mut set) {
                self.n.not_rebuildable += 1;
                plan.read(g, 0, ppn, Class::HostRead, 0);
                continue;
            }
            self.n.rebuilt += 1;
            self.n.rebuild_reads += set.len() as u64;
            for &p in &set {
                plan.read(g, 0, p, Class::HostRead, 0);
            }
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for (i, lpn) in lpns.enumerate() {
            let (d, p) = self.alloc_pair(lpn, i as u32, ctx)?;
            let g = plan.group(lpn, false);
            let s = lpn / self.k();
            let ptoken = self.commit(lpn, tokens[i], d, p, ctx);
            plan.program(g, 0, d, Owner::lpn(lpn), tokens[i], Class::HostWrite, 0);
            plan.program(g, 0, p, Owner::aux(s), ptoken, Class::HostWrite, 0);
        }
        Ok(())
    }

    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, _: &mut Plan) -> Result<(), Stall> {
        let (d, p) = self.alloc_pair(lpn, 0, ctx)?;
        let ptoken = self.commit(lpn, token, d, p, ctx);
        ctx.ftl.program_done(d, token);
        ctx.ftl.program_done(p, ptoken);
        Ok(())
    }

    fn may_start_gc(&mut self, plane: u32, ctx: &mut Ctx) -> bool {
        if !self.rotating_gc || !self.group_collecting(plane, ctx) {
            return true;
        }
        // Down to the GC reserve, host writes to this plane stall: collect
        // now rather than wait for another member's turn to end (TTFlash
        // too falls back to plain GC when free space runs out).
        if ctx.ftl.free_blocks(plane) <= GC_RESERVE {
            self.n.gc_forced += 1;
            return true;
        }
        self.n.gc_deferred += 1;
        false
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        // Checks the rotation from outside the hook: a copy landing while
        // another member of the group collects means two collected at once.
        if self.group_collecting(ctx.geo.plane_of(to), ctx) {
            self.n.gc_concurrent_moves += 1;
        }
        // A parity page is TTFlash's auxiliary page, indexed by its stripe.
        let Some(stripe) = owner.as_aux() else {
            return ctx.remap_moved(owner.index(), from, to);
        };
        let slot = &mut self.parity[stripe as usize];
        if *slot == from {
            *slot = to;
        }
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let n = &self.n;
        vec![
            ("ttflash.reads", n.reads as f64),
            ("ttflash.reads_blocked", n.blocked as f64),
            ("ttflash.reads_reconstructed", n.rebuilt as f64),
            ("ttflash.reconstruction_reads", n.rebuild_reads as f64),
            ("ttflash.blocked_not_rebuildable", n.not_rebuildable as f64),
            ("ttflash.gc_deferred", n.gc_deferred as f64),
            ("ttflash.gc_forced", n.gc_forced as f64),
            ("ttflash.gc_concurrent_moves", n.gc_concurrent_moves as f64),
        ]
    }
}
