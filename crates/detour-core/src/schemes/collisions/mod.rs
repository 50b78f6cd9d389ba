//! # Collisions: replication of pages in patterned read collisions
//!
//! **What:** a layer over another scheme (`base`, default the conventional
//! FTL) that watches the host reads it plans
//! for imbalanced collisions (a read queued behind another read on a die
//! whose outstanding commands exceed the minimum over dies by two or more).
//! Each die keeps a list of at most l_R collision pairs in LRU order, with
//! the pair's occurrences and per-die slack counters (a die's slack grows
//! when the pair collides while that die's OCC is at least two lower). When
//! a pair's benefit t_READ x d (d = the largest slack) exceeds the cost
//! r x t_PROG^2 x 0.5 (r = the destination die's read rate), the page of the
//! pair that appears in more of the die's pairs is replicated to that die:
//! once its queued read returns, its data is programmed there at background
//! priority (no extra flash read), and the die's list is cleared. A read of a
//! replicated LPN goes to the copy on the die with fewer outstanding
//! commands, counting which copy served it; at most l_M pages are
//! replicated, and the least recently read is dropped, keeping the copy its
//! counter favours. A write to a replicated LPN drops the replica.
//!
//! **Why:** pages read together but written apart end up on one die under a
//! static mapping; their reads collide again and again. Moving one page of
//! the few pairs that repeat most removes most imbalanced collisions.
//!
//! **References:** Jun et al., "Analysis and Mitigation of Patterned Read
//! Collisions in Flash SSDs" (papers/patterned-read-collisions.txt),
//! Sec. III, equations (1)-(4). docs/schemes/collisions.md.

mod pairs;
mod rate;
mod replicas;

pub use rate::RateWindow;

use super::registry::{self, Env, SchemeEntry, SchemeSection};
use super::{Ctx, OpDone, Plan, Scheme, Stall};
use crate::config::{in_range_f, in_range_u, Config, DeviceConfig, SchemeConfig};
use crate::ensure_config;
use crate::device::{Geometry, OpKind};
use crate::error::{Error, Result};
use crate::ftl::Stream;
use crate::scheduler::Class;
use crate::scheduler::flags;
use crate::types::{Lpn, Owner, Ppn, Time, Token, NO_PAGE};
use pairs::PairList;
use rate::RateMeter;
use replicas::ReplicaMap;
use serde::{Deserialize, Serialize};
use std::ops::Range;

pub const ENTRY: SchemeEntry = SchemeEntry::new(
    "collisions",
    "A layer (over conventional by default) replicating pages of repeating imbalanced read-collision pairs",
    build,
)
.colour("#f032e6")
    .section::<CollisionsConfig>()
    .activity(&["collisions.replications"])
    .on_span(base_on_span)
    .requires(base_requires);

fn build(env: &Env) -> Result<Box<dyn Scheme>> {
    Ok(Box::new(Collisions::new(&env.section()?, env)?))
}

/// The base's parameters that follow the workload's span are the layer's.
fn base_on_span(scheme: &mut SchemeConfig, span_s: registry::SpanOf, time_scale: f64) -> Result<()> {
    let c: CollisionsConfig = registry::section(scheme)?;
    registry::span_of(&c.base, scheme, span_s, time_scale)
}

/// The base needs of the device what it needs alone.
fn base_requires(cfg: &Config) -> Result<()> {
    let c: CollisionsConfig = registry::section(&cfg.scheme)?;
    registry::requires(cfg, &c.base, &[])
}

/// `[scheme.collisions]`: replication of pages in patterned read collisions
/// (docs/schemes/collisions.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CollisionsConfig {
    /// The scheme the collision layer wraps (any but `collisions`). Default
    /// "conventional".
    pub base: String,
    /// l_R: collision pairs tracked per die. Default 5; 0 tracks nothing.
    pub l_r: u32,
    /// l_M: replicated pages at most, as a share of the physical pages.
    /// Default 0.002 (the paper's 0.2% of capacity).
    pub l_m: f64,
    /// Over what time the cost term's read rate r is measured: "lifetime"
    /// (reads since the start / elapsed time; default) or "recent" (the
    /// last `rate_window_ms`). docs/schemes/collisions.md.
    pub rate: RateWindow,
    /// Length of the `recent` window in ms. Default 10; 0.001..=1e9.
    pub rate_window_ms: f64,
}

impl Default for CollisionsConfig {
    fn default() -> Self {
        CollisionsConfig { base: "conventional".into(), l_r: 5, l_m: 0.002, rate: Default::default(), rate_window_ms: 10.0 }
    }
}

impl SchemeSection for CollisionsConfig {
    const KEY: &'static str = "collisions";

    fn validate(&self, _: &DeviceConfig) -> Result<()> {
        let known = registry::find(&self.base).map_err(|e| Error::config("scheme.collisions.base", e.to_string()));
        ensure_config!(known?.name != ENTRY.name, "scheme.collisions.base", "the collision layer cannot wrap itself");
        in_range_u("scheme.collisions.l_r", self.l_r as u64, 0, 1 << 16)?;
        in_range_f("scheme.collisions.l_m", self.l_m, 0.0, 0.5)?;
        in_range_f("scheme.collisions.rate_window_ms", self.rate_window_ms, 1e-3, 1e9)
    }
}

#[derive(Default)]
struct Counts {
    reads: u64,
    imbalanced: u64,
    decided: u64,
    replications: u64,
    skipped: u64,
    replica_reads: u64,
    kept_replica: u64,
    kept_original: u64,
    dropped_by_write: u64,
}

/// A replication decided while the victim's read is queued on `die`.
#[derive(Clone, Copy)]
struct Pending {
    lpn: Lpn,
    die: u32,
    dest: u32,
}

pub struct Collisions {
    /// The scheme this layer wraps: it plans every write, and every read the
    /// layer does not send to a replica.
    inner: Box<dyn Scheme>,
    /// The inner scheme reads an LPN from `ftl.map` alone, so an evicted
    /// replica may take the original's place (conventional, hotr).
    map_based: bool,
    dies: usize,
    lists: Vec<PairList>,
    /// Host reads this scheme planned that have not finished, per die.
    queued: Vec<Vec<Lpn>>,
    /// Host flash reads planned per die (the lifetime read rate r, and
    /// the tie-break between equally slack destinations).
    die_reads: Vec<u64>,
    rate: RateMeter,
    pending: Vec<Pending>,
    map: ReplicaMap,
    /// l_M in pages.
    max_replicas: usize,
    t_read_s: f64,
    t_prog_s: f64,
    n: Counts,
}

impl Collisions {
    pub fn new(c: &CollisionsConfig, env: &Env) -> Result<Collisions> {
        c.validate(env.device)?;
        let geo = env.geometry;
        let inner = env.build_named(&c.base)?;
        let dies = geo.dies() as usize;
        Ok(Collisions {
            map_based: inner.uses_shared_map(),
            inner,
            dies,
            lists: (0..dies).map(|_| PairList::new(c.l_r)).collect(),
            queued: (0..dies).map(|_| Vec::with_capacity(8)).collect(),
            die_reads: vec![0; dies],
            rate: RateMeter::new(c.rate, c.rate_window_ms, dies),
            pending: Vec::new(),
            map: ReplicaMap::default(),
            max_replicas: (c.l_m * geo.total_pages() as f64) as usize,
            t_read_s: env.device.flash.read_us * 1e-6,
            t_prog_s: env.device.flash.program_us * 1e-6,
            n: Counts::default(),
        })
    }

    /// The replica to read `lpn` from, if it has a programmed one on a
    /// working die with fewer outstanding commands than the original's (or
    /// the original's die failed); counts the choice either way.
    fn replica_for(&mut self, lpn: Lpn, ctx: &Ctx) -> Option<Ppn> {
        let r = self.map.get(lpn).copied()?;
        let rdie = ctx.geo.die_of(r.ppn);
        if !ctx.ftl.is_programmed(r.ppn) || ctx.load.failed(rdie) {
            return None;
        }
        let orig = self.inner.page_of(lpn, ctx);
        let to_replica = orig == NO_PAGE || {
            let odie = ctx.geo.die_of(orig);
            ctx.load.failed(odie) || ctx.load.occ(rdie) < ctx.load.occ(odie)
        };
        self.map.read(lpn, to_replica);
        self.n.replica_reads += to_replica as u64;
        to_replica.then_some(r.ppn)
    }

    /// Record the flash reads the inner scheme planned for `lpn` (ops from
    /// `first` on): a group with a single result read is a plain read.
    fn note_inner_reads(&mut self, lpn: Lpn, first: usize, plan: &Plan, ctx: &Ctx) {
        let reads = || plan.ops[first..].iter().filter(|op| op.kind == OpKind::Read && op.class == Class::HostRead && op.flags & flags::RESULT != 0);
        if reads().count() == 1 {
            if let Some(op) = reads().next() {
                self.note_read(lpn, ctx.geo.die_of(op.ppn), ctx);
            }
        }
    }

    /// A host read of `lpn` joins `die`'s queue.
    fn note_read(&mut self, lpn: Lpn, die: u32, ctx: &Ctx) {
        self.n.reads += 1;
        self.observe(lpn, die, ctx);
        self.queued[die as usize].push(lpn);
        self.die_reads[die as usize] += 1;
        self.rate.record(die as usize, ctx.now);
    }

    /// A read of `lpn` is about to join `die`'s queue: record its imbalanced
    /// collisions with the reads queued there, and decide a replication.
    fn observe(&mut self, lpn: Lpn, die: u32, ctx: &Ctx) {
        let d = die as usize;
        if self.queued[d].is_empty() {
            return;
        }
        let occ = ctx.load.occ(die) + 1; // the read itself included
        if occ < ctx.load.min_occ() + 2 {
            return; // balanced
        }
        self.n.imbalanced += 1;
        for k in 0..self.queued[d].len() {
            let other = self.queued[d][k];
            if other == lpn {
                continue;
            }
            if let Some(p) = self.update_pair(other, lpn, die, occ, ctx) {
                self.pending.push(p);
                self.n.decided += 1;
                self.lists[d].clear(); // its pairs' counts no longer hold
                return;
            }
        }
    }

    /// Count one collision of {a, b} on `die` and weigh replicating it.
    fn update_pair(&mut self, a: Lpn, b: Lpn, die: u32, occ: u32, ctx: &Ctx) -> Option<Pending> {
        let dies = self.dies;
        let e = self.lists[die as usize].touch(a, b, dies)?;
        e.occurrences += 1;
        for (x, s) in e.slack.iter_mut().enumerate() {
            if x as u32 != die && ctx.load.occ(x as u32) + 2 <= occ {
                *s += 1;
            }
        }
        let (dest, slack) = e.best_slack(die, &self.die_reads)?;
        let (a, b) = (e.a, e.b);
        // Equations (2)-(4): benefit t_READ d against r t_PROG^2 / 2.
        let benefit = self.t_read_s * slack as f64;
        let rate = self.rate.rate(dest as usize, ctx.now, self.die_reads[dest as usize]);
        let cost = rate * self.t_prog_s * self.t_prog_s * 0.5;
        if benefit <= cost || ctx.load.failed(dest) {
            return None;
        }
        let list = &self.lists[die as usize];
        // The victim appears in more of the die's pairs (ties: the lower LPN).
        let victim = if list.appearances(b) > list.appearances(a) { b } else { a };
        let busy = self.map.get(victim).is_some() || self.pending.iter().any(|p| p.lpn == victim);
        (!busy).then_some(Pending { lpn: victim, die, dest })
    }

    /// The victim's queued read returned with its data: program it on the
    /// destination die at background priority.
    fn replicate(&mut self, p: Pending, op: &OpDone, ctx: &mut Ctx) {
        // A write or GC since the read was planned moved the page: skip.
        let live = self.inner.holds(p.lpn, op.ppn, ctx) && ctx.ftl.is_programmed(op.ppn);
        if !live || self.max_replicas == 0 || self.map.get(p.lpn).is_some() {
            self.n.skipped += 1;
            return;
        }
        let ppd = ctx.geo.planes_per_die;
        let planes = (0..ppd).map(|i| p.dest * ppd + (p.lpn + i) % ppd);
        let Some(plane) = planes.into_iter().find(|&pl| ctx.ftl.can_alloc(pl, Stream::Aux)) else {
            self.n.skipped += 1;
            return;
        };
        let Some(ppn) = ctx.ftl.alloc(plane, Stream::Aux, Owner::lpn(p.lpn)) else {
            self.n.skipped += 1;
            return;
        };
        while self.map.len() >= self.max_replicas {
            self.evict(ctx);
        }
        self.map.insert(p.lpn, ppn);
        self.n.replications += 1;
        let mut plan = Plan::default();
        let g = plan.group(p.lpn, false);
        plan.program(g, 0, ppn, Owner::lpn(p.lpn), op.token, Class::Background, 0);
        ctx.background.push(plan);
    }

    /// Drop the least recently read replication, keeping the copy that
    /// served more reads (the replica when the counter is zero or positive).
    fn evict(&mut self, ctx: &mut Ctx) {
        let Some((lpn, r)) = self.map.pop_lru() else { return };
        let orig = ctx.ftl.map.get(lpn);
        if self.map_based && r.counter >= 0 && ctx.ftl.is_programmed(r.ppn) && orig != NO_PAGE {
            self.n.kept_replica += 1;
            ctx.ftl.invalidate(orig);
            ctx.ftl.map.set(lpn, r.ppn);
        } else {
            self.n.kept_original += 1;
            ctx.ftl.invalidate(r.ppn);
        }
    }

    /// A new page now holds `lpn`: its replica is stale.
    fn drop_replica(&mut self, lpn: Lpn, ctx: &mut Ctx) {
        if let Some(r) = self.map.remove(lpn) {
            self.n.dropped_by_write += 1;
            ctx.ftl.invalidate(r.ppn);
        }
    }
}

impl Scheme for Collisions {
    fn logical_pages(&self, geo: &Geometry) -> Option<u32> {
        self.inner.logical_pages(geo)
    }

    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> std::result::Result<(), Stall> {
        for (i, lpn) in lpns.enumerate() {
            if let Some(r) = self.replica_for(lpn, ctx) {
                self.note_read(lpn, ctx.geo.die_of(r), ctx);
                let g = plan.group(lpn, true);
                plan.read(g, 0, r, Class::HostRead, 0);
                continue;
            }
            let first = plan.ops.len();
            self.inner.plan_read(lpn..lpn + 1, ctx, plan).map_err(|s| Stall { done: i as u32 + s.done })?;
            self.note_inner_reads(lpn, first, plan, ctx);
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> std::result::Result<(), Stall> {
        let r = self.inner.plan_write(lpns.clone(), tokens, ctx, plan);
        let done = r.err().map_or(lpns.len() as u32, |s| s.done);
        for lpn in lpns.start..lpns.start + done {
            self.drop_replica(lpn, ctx);
        }
        r
    }

    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, scratch: &mut Plan) -> std::result::Result<(), Stall> {
        self.inner.write_instantly(lpn, token, ctx, scratch)?;
        self.drop_replica(lpn, ctx);
        Ok(())
    }

    fn on_complete(&mut self, op: &OpDone, ctx: &mut Ctx) {
        if self.inner.wants_completions() {
            self.inner.on_complete(op, ctx);
        }
        if op.kind != OpKind::Read || op.class != Class::HostRead || !op.host {
            return;
        }
        let die = ctx.geo.die_of(op.ppn);
        let q = &mut self.queued[die as usize];
        if let Some(i) = q.iter().position(|&l| l == op.lpn) {
            q.swap_remove(i);
        }
        if let Some(i) = self.pending.iter().position(|p| p.lpn == op.lpn && p.die == die) {
            let p = self.pending.swap_remove(i);
            if !op.failed {
                self.replicate(p, op, ctx);
            }
        }
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        // A replica kept in place of its original is the inner scheme's page.
        if !self.map.moved(from, to) {
            self.inner.on_gc_move(from, to, owner, ctx);
        }
    }

    fn tick(&mut self, ctx: &mut Ctx) {
        self.inner.tick(ctx);
    }

    fn needs_content(&self) -> bool {
        self.inner.needs_content()
    }

    fn tick_key(&self) -> &'static str {
        self.inner.tick_key()
    }

    fn max_ticks(&self) -> f64 {
        self.inner.max_ticks()
    }

    fn ticks_while_draining(&self) -> bool {
        self.inner.ticks_while_draining()
    }

    fn period_s(&self) -> Option<f64> {
        self.inner.period_s()
    }

    fn tick_interval(&self) -> Option<Time> {
        self.inner.tick_interval()
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let n = &self.n;
        let mut v = vec![
            ("collisions.reads", n.reads as f64),
            ("collisions.imbalanced_seen", n.imbalanced as f64),
            ("collisions.replications_decided", n.decided as f64),
            ("collisions.replications", n.replications as f64),
            ("collisions.replications_skipped", n.skipped as f64),
            ("collisions.replica_reads", n.replica_reads as f64),
            ("collisions.evicted_kept_replica", n.kept_replica as f64),
            ("collisions.evicted_kept_original", n.kept_original as f64),
            ("collisions.replicas_dropped_by_write", n.dropped_by_write as f64),
            ("collisions.replicated_pages", self.map.len() as f64),
        ];
        v.extend(self.inner.counters());
        v
    }
}
