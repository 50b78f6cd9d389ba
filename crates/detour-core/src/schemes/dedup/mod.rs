//! # Content-addressed SSDs: CA-SSD, RR-SSD, Oracle, PBLRU
//!
//! **What:** one deduplicating FTL (CA-SSD: fingerprint store, LPN -> VPN,
//! VPN -> physical copies with a reference count; a write whose content is
//! stored costs no flash write, only the hashing delay) in four modes:
//! `ca-ssd` (the baseline), `rr-ssd` (per-value read counters, replication
//! of popular values at each period's end, reads routed to the least-loaded
//! copy; placement policies in `rrssd.rs`), `oracle` (every value on every
//! chip at no cost: a read is served by the least-loaded die) and `pblru`
//! (He et al.'s physical-page replication on top of CA-SSD, `pblru.rs`).
//!
//! **Why:** value popularity lets a few replicas redirect most reads away
//! from busy chips, paid for by the space deduplication saves.
//!
//! **References:** RR-SSD (papers/rr-ssd-content-popularity-replication.txt),
//! Sec. II-III; CAFTL (Chen et al., FAST 2011); docs/schemes/rr-ssd.md.

mod config;
mod idle;
mod periods;
mod pblru;
mod rrssd;
mod tables;

pub use config::{DedupConfig, Placement, ReplicationIo};

use super::registry::{Env, SchemeEntry};
use super::requirements::MAX_PERIODS;
use super::{Ctx, Plan, Scheme, Stall};
use crate::device::Geometry;
use crate::error::Result;
use crate::ftl::Stream;
use crate::scheduler::Class;
use crate::types::{Lpn, Owner, Ppn, Time, Token, NO_PAGE};
use periods::Periods;
use pblru::Pblru;
use rrssd::Replicator;
use std::collections::BTreeMap;
use std::ops::Range;
use tables::{Tables, NO_VPN};

type Build = fn(&Env) -> Result<Box<dyn Scheme>>;

const fn entry(name: &'static str, about: &'static str, activity: &'static [&'static str], build: Build) -> SchemeEntry {
    SchemeEntry::new(name, about, build).section::<DedupConfig>().activity(activity).on_span(config::on_span).tables(4)
}

pub const CA_SSD: SchemeEntry = entry("ca-ssd", "CA-SSD: content-addressed dedup FTL; duplicate content costs no flash write", &["dedup.write_hits"], |env| {
    build(Mode::CaSsd, env)
})
.colour("#a9a9a9")
.why_idle(idle::ca_ssd);
pub const RR_SSD: SchemeEntry = entry(
    "rr-ssd",
    "RR-SSD: CA-SSD plus popular values replicated each period, reads to the least-loaded copy",
    &["dedup.replica_reads"],
    |env| build(Mode::RrSsd, env),
)
.colour("#469990")
.baseline("ca-ssd")
.why_idle(idle::rr_ssd);
pub const ORACLE: SchemeEntry = entry(
    "oracle",
    "Ideal-All-Chip replication on CA-SSD: every read served by the least-loaded die, free",
    &["oracle.shadow_reads"],
    |env| build(Mode::Oracle, env),
)
.colour("#000075")
.baseline("ca-ssd");
pub const PBLRU: SchemeEntry = entry(
    "pblru",
    "PBLRU on CA-SSD: blocked pages replicated on-line in a priority-based LRU space",
    &["pblru.copies_made"],
    |env| build(Mode::Pblru, env),
)
.colour("#800000")
.baseline("ca-ssd")
.why_idle(idle::pblru);

fn build(mode: Mode, env: &Env) -> Result<Box<dyn Scheme>> {
    Ok(Box::new(Dedup::new(mode, &env.section()?, env)))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    CaSsd,
    RrSsd,
    Oracle,
    Pblru,
}

#[derive(Default)]
struct Counts {
    written: u64,
    dedup_hits: u64,
    reads: u64,
    replica_reads: u64,
    oracle_shadow_reads: u64,
}

pub struct Dedup {
    mode: Mode,
    t: Tables,
    hash_ns: Time,
    /// `scheme.dedup.period_s`, resolved (the request log's periods).
    period_s: f64,
    period_ns: Time,
    /// Content is needed (`synthetic_content` off, `deduplicate` on).
    needs_content: bool,
    deduplicate: bool,
    rep: Option<Replicator>,
    pblru: Option<Pblru>,
    periods: Periods,
    n: Counts,
    oracle_cursor: u32,
    read_ns: Time,
}

impl Dedup {
    pub fn new(mode: Mode, r: &DedupConfig, env: &Env) -> Dedup {
        let (geo, timing) = (env.geometry, env.timing);
        Dedup {
            mode,
            t: Tables::new(geo.logical_pages),
            hash_ns: (r.hash_us * 1e3).round() as Time,
            period_s: r.period_s,
            period_ns: (r.period_s * 1e9).round().max(1.0) as Time,
            needs_content: !r.synthetic_content && r.deduplicate,
            deduplicate: r.deduplicate,
            rep: (mode == Mode::RrSsd).then(|| Replicator::new(r, geo, timing)),
            pblru: (mode == Mode::Pblru).then(|| Pblru::new(r)),
            periods: Periods::default(),
            n: Counts::default(),
            oracle_cursor: 0,
            read_ns: timing.read,
        }
    }

    /// Store `token` at `lpn`: map to the stored value, or program a new page.
    fn write_page(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, plan: Option<&mut Plan>, done: u32) -> Result<(), Stall> {
        if let Some(v) = self.deduplicate.then(|| self.t.lookup(token)).flatten() {
            self.t.map(lpn, v, ctx.ftl);
            self.n.dedup_hits += 1;
            self.periods.cur.dedup_hits += 1;
            return Ok(());
        }
        let plane = ctx.ftl.plane_for_write(lpn, &ctx.load);
        let ppn = ctx.ftl.alloc(plane, Stream::Host, Owner::id(self.t.next_id())).ok_or(Stall { done })?;
        let v = self.t.create(token, ppn);
        self.t.map(lpn, v, ctx.ftl);
        self.n.written += 1;
        self.periods.cur.written += 1;
        match plan {
            Some(plan) => {
                let g = plan.group(lpn, false);
                plan.program(g, 0, ppn, Owner::id(v), token, Class::HostWrite, 0);
            }
            None => {
                ctx.ftl.program_done(ppn, token);
            }
        }
        Ok(())
    }

    fn read_page(&mut self, lpn: Lpn, ctx: &mut Ctx, plan: &mut Plan) {
        let v = self.t.vpn_of(lpn);
        debug_assert_ne!(v, NO_VPN, "read of unplaced LPN {lpn}");
        let Some(e) = self.t.vpns.get(v as usize) else { return };
        let (token, replicated) = (e.token, e.copies.len() > 1);
        let Some((i, ppn)) = least_loaded_copy(&e.copies, ctx, self.read_ns) else {
            plan.buffered += 1; // the value's only program is still pending
            return;
        };
        self.n.reads += 1;
        self.n.replica_reads += (i > 0) as u64;
        self.periods.read(token, replicated, i > 0);
        self.count_read(v, ppn, ctx);
        let g = plan.group(lpn, true);
        if self.mode == Mode::Oracle {
            return self.oracle_read(g, ppn, ctx, plan);
        }
        plan.read(g, 0, ppn, Class::HostRead, 0);
    }

    /// Profiling: the value's read counter, on-line replication, PBLRU.
    fn count_read(&mut self, v: u32, ppn: Ppn, ctx: &mut Ctx) {
        if let Some(rep) = self.rep.as_mut() {
            rep.on_read(v, &mut self.t, ctx, &mut self.periods);
        } else if let Some(p) = self.pblru.as_mut() {
            p.on_read(v, ppn, &mut self.t, ctx, &mut self.periods);
        }
    }

    /// Oracle: every value is on every chip, so the read goes to the
    /// least-loaded die. When that is not the real copy's die, the read is
    /// a stand-in page at the same offset there (same timing; not verified,
    /// as the imaginary copy holds no token).
    fn oracle_read(&mut self, g: u32, ppn: Ppn, ctx: &mut Ctx, plan: &mut Plan) {
        let geo = ctx.geo;
        let die = geo.die_of(ppn);
        let best = self.oracle_die(ctx);
        if read_load(best, ctx, self.read_ns) >= read_load(die, ctx, self.read_ns) {
            return plan.read(g, 0, ppn, Class::HostRead, 0);
        }
        let per_die = geo.pages_per_plane() * geo.planes_per_die;
        let shadow = best * per_die + ppn % per_die;
        plan.groups[g as usize].check = false;
        plan.read_only(g, 0, shadow, Class::HostRead, 0);
        self.n.oracle_shadow_reads += 1;
    }

    /// The least-loaded die (`read_load`), ties to the least busy channel,
    /// then round robin: a fixed tie-break would send every read of
    /// an idle device to the first channel and queue them on its bus.
    fn oracle_die(&mut self, ctx: &Ctx) -> u32 {
        let (geo, load) = (ctx.geo, &ctx.load);
        let per_ch = geo.dies_per_channel();
        let ch_occ: Vec<u32> = (0..geo.channels).map(|c| (c * per_ch..(c + 1) * per_ch).map(|d| load.occ(d)).sum()).collect();
        let n = geo.dies();
        let start = self.oracle_cursor % n;
        let best = (0..n)
            .map(|k| (start + k) % n)
            .filter(|&d| !load.failed(d))
            .min_by_key(|&d| (read_load(d, ctx, self.read_ns), ch_occ[geo.channel_of_die(d) as usize]))
            .unwrap_or(0);
        self.oracle_cursor = best + 1;
        best
    }

    fn close_period(&mut self, ctx: &mut Ctx) {
        if let Some(rep) = self.rep.as_mut() {
            rep.end_period(&mut self.t, ctx, &mut self.periods);
        }
        let budget = budget_pages(&self.t, self.rep.as_ref().map_or(self.pblru.as_ref().map_or(0.0, |p| p.alpha), |r| r.alpha));
        self.periods.close(budget, self.t.replicas, self.t.live_vpns);
    }
}

/// Replication budget: the pages deduplication saved plus alpha% of the
/// footprint (LPNs holding data), the paper's Sec. II-B definition.
pub(crate) fn budget_pages(t: &Tables, alpha_pct: f64) -> u64 {
    t.saved() + (alpha_pct / 100.0 * t.mapped_lpns as f64) as u64
}

/// How long a read sent to `die` now would wait, estimated from what the
/// scheme can see: the rest of the running array operation plus one read
/// time per other outstanding command; ties go to the less loaded chip.
/// Counting commands alone sends reads of a write-heavy workload to dies
/// whose one command is a 400 µs program.
fn read_load(die: u32, ctx: &Ctx, read_ns: Time) -> (Time, u32) {
    let busy = ctx.load.busy_for(die, ctx.now);
    let running = (busy > 0 || ctx.load.writing(die)) as u32;
    let queued = ctx.load.occ(die).saturating_sub(running) as Time;
    (busy + queued * read_ns, ctx.load.chip_occ(ctx.geo.chip_of_die(die)))
}

/// The programmed copy on the least-loaded die (`read_load`; ties: the
/// earlier copy); None while no copy is programmed.
fn least_loaded_copy(copies: &[Ppn], ctx: &Ctx, read_ns: Time) -> Option<(usize, Ppn)> {
    let key = |p: Ppn| read_load(ctx.geo.die_of(p), ctx, read_ns);
    copies.iter().copied().enumerate().filter(|&(_, p)| ctx.ftl.is_programmed(p)).min_by_key(|&(i, p)| (key(p), i))
}

/// The plane of `chip` with the most free blocks that can take a copy
/// without reaching its GC trigger. The paper's replicas live in space its
/// 1 TiB device has plenty of (dedup's savings, made while a mirror SSD
/// serves the host); a copy that brought a plane to its trigger would put
/// GC on the host's path, which the scheme never does there. A chip with
/// no such plane is skipped (the copy counts in `copies_skipped`).
pub(crate) fn plane_on_chip(chip: u32, ctx: &Ctx) -> Option<u32> {
    let geo = ctx.geo;
    let (dpc, ppd) = (geo.dies_per_chip, geo.planes_per_die);
    let planes = chip * dpc * ppd..(chip + 1) * dpc * ppd;
    planes.filter(|&p| ctx.ftl.can_alloc_above_gc(p, Stream::Aux)).max_by_key(|&p| (ctx.ftl.free_blocks(p), std::cmp::Reverse(p)))
}

/// Whether one more replica fits: live pages stay within the logical
/// capacity, so GC keeps its over-provisioned head-room.
pub(crate) fn room_for_copy(t: &Tables, geo: &Geometry) -> bool {
    t.live_vpns + t.replicas < geo.logical_pages as u64
}

/// Copy `v` to `chip`: instantly (`mirror`) or as a background read and
/// program from its least-loaded programmed copy. False if it cannot.
pub(crate) fn copy_to_chip(t: &mut Tables, v: u32, chip: u32, mirror: bool, ctx: &mut Ctx) -> bool {
    let Some(plane) = plane_on_chip(chip, ctx) else { return false };
    let e = &t.vpns[v as usize];
    let token = e.token;
    // Source: a programmed copy on a die not writing if there is one (the
    // copy is background work; an exact load estimate matters little).
    let programmed = || e.copies.iter().copied().filter(|&p| ctx.ftl.is_programmed(p));
    let Some(src) = programmed().find(|&p| !ctx.load.writing(ctx.geo.die_of(p))).or_else(|| programmed().next()) else {
        return false;
    };
    let Some(ppn) = ctx.ftl.alloc(plane, Stream::Aux, Owner::id(v)) else { return false };
    if mirror {
        ctx.ftl.program_done(ppn, token);
    } else {
        let mut plan = Plan::default();
        let g = plan.group(0, false);
        // The copy programs what the read returned, so verify mode would
        // catch a replica made from the wrong page.
        plan.read(g, 0, src, Class::Background, 0);
        plan.program_from_prev(g, 1, ppn, Owner::id(v), 0, Class::Background, 0);
        ctx.background.push(plan);
    }
    t.add_copy(v, ppn);
    true
}

/// Chips holding a copy of `v`, as a bit set over chip ids.
pub(crate) fn chips_holding(t: &Tables, v: u32, geo: &Geometry) -> Vec<bool> {
    let mut held = vec![false; geo.chips() as usize];
    for &p in &t.vpns[v as usize].copies {
        if p != NO_PAGE {
            held[geo.chip_of_die(geo.die_of(p)) as usize] = true;
        }
    }
    held
}

impl Scheme for Dedup {
    fn page_of(&self, lpn: Lpn, _: &Ctx) -> Ppn {
        match self.t.vpn_of(lpn) {
            NO_VPN => NO_PAGE,
            v => self.t.vpns[v as usize].copies.first().copied().unwrap_or(NO_PAGE),
        }
    }

    fn holds(&self, lpn: Lpn, ppn: Ppn, _: &Ctx) -> bool {
        let v = self.t.vpn_of(lpn);
        v != NO_VPN && self.t.vpns[v as usize].copies.contains(&ppn)
    }

    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for lpn in lpns {
            self.read_page(lpn, ctx, plan);
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        // Every page is hashed on the request path, one after another.
        plan.delay_ns = self.hash_ns * lpns.len() as u64;
        for (i, lpn) in lpns.enumerate() {
            self.write_page(lpn, tokens[i], ctx, Some(plan), i as u32)?;
        }
        Ok(())
    }

    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, _: &mut Plan) -> Result<(), Stall> {
        let (w, p) = (self.n.written, self.periods.cur.written);
        let r = self.write_page(lpn, token, ctx, None, 0);
        // Setup writes are not host work.
        (self.n.written, self.periods.cur.written) = (w, p);
        r
    }

    fn wants_completions(&self) -> bool {
        false
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, _ctx: &mut Ctx) {
        self.t.moved(owner.index(), from, to);
    }

    fn tick(&mut self, ctx: &mut Ctx) {
        self.close_period(ctx);
    }

    fn tick_interval(&self) -> Option<Time> {
        Some(self.period_ns)
    }

    fn period_s(&self) -> Option<f64> {
        Some(self.period_s)
    }

    fn needs_content(&self) -> bool {
        self.needs_content
    }

    fn tick_key(&self) -> &'static str {
        "scheme.dedup.period_s"
    }

    fn max_ticks(&self) -> f64 {
        MAX_PERIODS
    }

    /// A replication period is a window of the trace's days: once the last
    /// request has arrived there is no day left to replicate for (and a
    /// saturated run's drain, ticked, cost a survey of every value per
    /// period: quadratic in the trace's length).
    fn ticks_while_draining(&self) -> bool {
        false
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let (t, n) = (&self.t, &self.n);
        let lpn_writes = (n.written + n.dedup_hits).max(1) as f64;
        let mut c = vec![
            ("dedup.pages_written_flash", n.written as f64),
            ("dedup.write_hits", n.dedup_hits as f64),
            ("dedup.ratio", lpn_writes / n.written.max(1) as f64),
            ("dedup.mapped_lpns", t.mapped_lpns as f64),
            ("dedup.values", t.live_vpns as f64),
            ("dedup.space_saved_pages", t.saved() as f64),
            ("dedup.space_saved_share", t.saved() as f64 / t.mapped_lpns.max(1) as f64),
            ("dedup.reads", n.reads as f64),
            ("dedup.replica_reads", n.replica_reads as f64),
            ("dedup.replicas", t.replicas as f64),
            // The period in force (an auto period resolves before the run).
            ("dedup.period_s", self.period_ns as f64 / 1e9),
        ];
        if self.mode == Mode::Oracle {
            c.push(("oracle.shadow_reads", n.oracle_shadow_reads as f64));
        }
        if let Some(r) = &self.rep {
            r.counters(n.written, &mut c);
        }
        if let Some(p) = &self.pblru {
            p.counters(n.written, &mut c);
        }
        c
    }

    fn periods(&self) -> Vec<BTreeMap<String, f64>> {
        self.periods.rows()
    }
}
