//! # Rails (in-drive)
//!
//! **What:** the chips split into two mirrored halves (chips 0..C/2 and
//! C/2..C); every logical page has a copy in each. At any time one half
//! serves reads and the other absorbs writes; the roles swap every
//! `swap_us`. A write programs the write half only and leaves the read
//! half's copy stale: that copy is invalidated at once and the page's new
//! token goes into the controller's write buffer (Rails' NVRAM). Right after
//! a swap the buffer is flushed into the new write half (the former read
//! half) as background programs, so both copies converge. A read goes to
//! the read half unless its copy there is stale; then it goes to the fresh
//! copy in the write half (the newest data, never the stale one).
//!
//! **Why:** with reads and writes on disjoint chips a read never waits for
//! a program, at the price of half the capacity and every write twice.
//!
//! **References:** Skourtis et al., "Flash on Rails", USENIX ATC 2014; the
//! 4+4 in-drive setting of papers/hotr-hot-read-replication.txt.

use super::registry::{Env, SchemeEntry, SchemeSection};
use super::{Ctx, Plan, Scheme, Stall};
use crate::config::{in_range_f, DeviceConfig};
use crate::device::Geometry;
use crate::error::Error;
use crate::ftl::Stream;
use crate::scheduler::Class;
use crate::types::{Lpn, Owner, Ppn, Time, Token, NO_PAGE, NS_PER_US};
use std::collections::BTreeMap;
use serde::{Deserialize, Serialize};
use std::ops::Range;

pub const ENTRY: SchemeEntry = SchemeEntry::new(
    "rails",
    "Rails in-drive: mirrored halves, one serves reads while the other absorbs writes",
    build,
)
.colour("#f58231")
    .section::<RailsConfig>()
    .activity(&["rails.swaps"]);

fn build(env: &Env) -> crate::error::Result<Box<dyn Scheme>> {
    Ok(Box::new(Rails::new(&env.section()?, env.geometry, env.dynamic_allocation())?))
}

/// `[scheme.rails]`: in-drive Rails (docs/schemes/rails.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RailsConfig {
    /// Time between role swaps of the two halves, µs. Default 50,000; at least 1.
    pub swap_us: f64,
}

impl Default for RailsConfig {
    fn default() -> Self {
        RailsConfig { swap_us: 50_000.0 }
    }
}

impl SchemeSection for RailsConfig {
    const KEY: &'static str = "rails";

    fn validate(&self, _: &DeviceConfig) -> crate::error::Result<()> {
        in_range_f("scheme.rails.swap_us", self.swap_us, 1.0, 1e12)
    }
}

#[derive(Default)]
struct Counts {
    reads: u64,
    read_half: u64,
    write_half: u64,
    blocked: u64,
    swaps: u64,
    flushed: u64,
}

pub struct Rails {
    interval: Time,
    /// Dies per half (half h owns dies h*half_dies..(h+1)*half_dies).
    half_dies: u32,
    /// Dynamic allocation: the least-loaded die of the half.
    dynamic: bool,
    /// copy[h][lpn]: the page of half h, NO_PAGE when stale or absent.
    copy: [Vec<Ppn>; 2],
    read_half: usize,
    /// Pages whose copy in one half is stale: lpn -> (that half, newest token).
    /// Buffered tokens by the half whose copy is stale (the half they will
    /// be programmed into), so a flush walks only the pages it can program.
    buffer: [BTreeMap<Lpn, Token>; 2],
    n: Counts,
}

impl Rails {
    pub fn new(cfg: &RailsConfig, geo: &Geometry, dynamic: bool) -> crate::error::Result<Rails> {
        if geo.chips() < 2 || geo.chips() % 2 != 0 {
            return Err(Error::config("scheme.name", format!("rails needs an even number of chips (2 or more); the device has {}", geo.chips())));
        }
        let n = geo.logical_pages as usize / 2;
        Ok(Rails {
            interval: ((cfg.swap_us * NS_PER_US as f64) as Time).max(1),
            half_dies: geo.dies() / 2,
            dynamic,
            copy: [vec![NO_PAGE; n], vec![NO_PAGE; n]],
            read_half: 0,
            buffer: [BTreeMap::new(), BTreeMap::new()],
            n: Counts::default(),
        })
    }

    /// Half 1's copy is Rails' auxiliary page, so a GC move finds the half.
    fn owner(lpn: Lpn, half: usize) -> Owner {
        if half == 1 { Owner::aux(lpn) } else { Owner::lpn(lpn) }
    }

    /// A plane of half `h` for `lpn`: the least-loaded die of the half
    /// under dynamic allocation, else the static order's plane folded into
    /// the half (its mirror position when it is in the other half).
    fn plane(&self, lpn: Lpn, h: usize, ctx: &mut Ctx) -> u32 {
        let first = h as u32 * self.half_dies;
        if self.dynamic {
            return ctx.ftl.least_loaded_plane(&ctx.load, first..first + self.half_dies);
        }
        let per_half = self.half_dies * ctx.geo.planes_per_die;
        h as u32 * per_half + ctx.ftl.static_plane(lpn) % per_half
    }

    /// Put `lpn`'s newest data (`token`) in half `h`; the old copy there is
    /// dropped only once the new page is allocated.
    fn place(&mut self, lpn: Lpn, h: usize, done: u32, ctx: &mut Ctx) -> Result<Ppn, Stall> {
        let plane = self.plane(lpn, h, ctx);
        self.place_on(plane, lpn, h, done, ctx)
    }

    /// `place` on a plane of half `h` already chosen.
    fn place_on(&mut self, plane: u32, lpn: Lpn, h: usize, done: u32, ctx: &mut Ctx) -> Result<Ppn, Stall> {
        let ppn = ctx.ftl.alloc(plane, Stream::Host, Self::owner(lpn, h)).ok_or(Stall { done })?;
        let old = std::mem::replace(&mut self.copy[h][lpn as usize], ppn);
        if old != NO_PAGE {
            ctx.ftl.invalidate(old);
        }
        Ok(ppn)
    }

    /// The other half's copy is now stale: drop it, remember the token.
    fn mark_stale(&mut self, lpn: Lpn, h: usize, token: Token, ctx: &mut Ctx) {
        let old = std::mem::replace(&mut self.copy[h][lpn as usize], NO_PAGE);
        if old != NO_PAGE {
            ctx.ftl.invalidate(old);
        }
        self.buffer[1 - h].remove(&lpn);
        self.buffer[h].insert(lpn, token);
    }

    fn unbuffer(&mut self, lpn: Lpn) {
        self.buffer[0].remove(&lpn);
        self.buffer[1].remove(&lpn);
    }

    /// After a swap: program every buffered page into the half that is
    /// stale for it (the new write half), as background work.
    fn flush(&mut self, ctx: &mut Ctx) {
        let mut plan = Plan::default();
        // Only the write half takes programs; in page order, until a plane
        // is full (the rest waits for the next swap). Walking only what is
        // programmed keeps a swap's cost to its work when the buffer is long.
        let h = 1 - self.read_half;
        while let Some((&lpn, &token)) = self.buffer[h].first_key_value() {
            let Ok(ppn) = self.place(lpn, h, 0, ctx) else { break };
            self.buffer[h].pop_first();
            let g = plan.group(lpn, false);
            plan.program(g, 0, ppn, Self::owner(lpn, h), token, Class::Background, 0);
            self.n.flushed += 1;
        }
        if !plan.is_empty() {
            ctx.background.push(plan);
        }
    }
}

impl Scheme for Rails {
    fn logical_pages(&self, geo: &Geometry) -> Option<u32> {
        Some(geo.logical_pages / 2)
    }

    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for lpn in lpns {
            let r = self.read_half;
            let fresh_read = self.copy[r][lpn as usize] != NO_PAGE;
            let h = if fresh_read { r } else { 1 - r };
            let ppn = self.copy[h][lpn as usize];
            debug_assert_ne!(ppn, NO_PAGE, "rails: no fresh copy of {lpn}");
            if !ctx.ftl.is_programmed(ppn) {
                plan.buffered += 1;
                continue;
            }
            self.n.reads += 1;
            if fresh_read { self.n.read_half += 1 } else { self.n.write_half += 1 }
            self.n.blocked += ctx.load.writing(ctx.geo.die_of(ppn)) as u64;
            let g = plan.group(lpn, true);
            plan.read(g, 0, ppn, Class::HostRead, 0);
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        let w = 1 - self.read_half;
        for (i, lpn) in lpns.enumerate() {
            let ppn = self.place(lpn, w, i as u32, ctx)?;
            self.mark_stale(lpn, 1 - w, tokens[i], ctx);
            let g = plan.group(lpn, false);
            plan.program(g, 0, ppn, Self::owner(lpn, w), tokens[i], Class::HostWrite, 0);
        }
        Ok(())
    }

    /// Preconditioning writes both copies, so the run starts converged.
    /// Both copies or neither: a stall must leave the page as it was, or
    /// every retry would put a new copy in the half with room, and the
    /// erases of the old ones would feed the retries forever.
    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, _: &mut Plan) -> Result<(), Stall> {
        let planes = [self.plane(lpn, 0, ctx), self.plane(lpn, 1, ctx)];
        if !planes.iter().all(|&p| ctx.ftl.can_alloc(p, Stream::Host)) {
            return Err(Stall { done: 0 });
        }
        for (h, plane) in planes.into_iter().enumerate() {
            let ppn = self.place_on(plane, lpn, h, 0, ctx)?;
            ctx.ftl.program_done(ppn, token);
        }
        self.unbuffer(lpn);
        Ok(())
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, _ctx: &mut Ctx) {
        let (h, lpn) = match owner.as_aux() {
            Some(lpn) => (1, lpn),
            None => (0, owner.index()),
        };
        let slot = &mut self.copy[h][lpn as usize];
        if *slot == from {
            *slot = to;
        }
    }

    fn tick(&mut self, ctx: &mut Ctx) {
        self.read_half = 1 - self.read_half;
        self.n.swaps += 1;
        self.flush(ctx);
    }

    fn tick_interval(&self) -> Option<Time> {
        Some(self.interval)
    }

    fn tick_key(&self) -> &'static str {
        "scheme.rails.swap_us"
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let n = &self.n;
        vec![
            ("rails.reads", n.reads as f64),
            ("rails.reads_read_half", n.read_half as f64),
            ("rails.reads_write_half", n.write_half as f64),
            ("rails.reads_blocked", n.blocked as f64),
            ("rails.swaps", n.swaps as f64),
            ("rails.pages_flushed", n.flushed as f64),
            ("rails.buffered_pages", (self.buffer[0].len() + self.buffer[1].len()) as f64),
        ]
    }
}
