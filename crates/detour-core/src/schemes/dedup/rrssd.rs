//! RR-SSD's profiling and replication (paper Sec. II-C/D, III-B).
//!
//! Each read bumps its value's saturating counter (log2(chips) bits). At the
//! end of each period the values are visited from the highest counter down
//! (the paper's passes, as one sort); a value with counter c wants c
//! replicas (so a saturated counter means one copy on every chip: "copies
//! proportional to popularity"), granted until the budget is spent. Replicas
//! beyond a value's new grant are dropped first (no longer popular), then
//! the missing ones are placed one by one on the chip the placement policy
//! picks. Counters restart at zero each period.
//!
//! Placement: "popularity" maximises S / (E x Pop) (free pages, mean erase
//! count, read popularity of the values already there); "random" draws a
//! chip; "static" goes round robin from the original's chip; "online" makes
//! each copy as soon as a read raises a value's counter past its copies,
//! placed by S / (E x Pop x QL) with QL the chip's queue now.

use super::periods::Periods;
use super::tables::Tables;
use super::{budget_pages, chips_holding, copy_to_chip, plane_on_chip, room_for_copy};
use super::config::{DedupConfig, Placement, ReplicationIo};
use crate::device::{Geometry, Timing};
use crate::schemes::Ctx;
use rand::Rng;
use std::cmp::Reverse;

/// Per-chip counters the placement metric uses (paper Sec. II-D).
#[derive(Default)]
struct ChipStats {
    /// Free pages (+1).
    s: Vec<f64>,
    /// Mean erase count of the chip's blocks (+1).
    e: Vec<f64>,
    /// Reads of the values stored on the chip, each value's count shared
    /// among its copies (+1).
    pop: Vec<f64>,
}

pub struct Replicator {
    placement: Placement,
    pub alpha: f64,
    max_vpc: u16,
    chips: u32,
    mirror: bool,
    /// Periods between drops of replicas no longer popular (`drop_every`).
    drop_every: u64,
    /// One copy's cost: read, two channel transfers, program (rr-5).
    copy_ns: u64,
    stats: ChipStats,
    made: u64,
    dropped: u64,
    skipped: u64,
    periods: u64,
}

impl Replicator {
    pub fn new(r: &DedupConfig, geo: &Geometry, timing: &Timing) -> Replicator {
        let chips = geo.chips();
        let bits = if r.counter_bits > 0 { r.counter_bits } else { chips.next_power_of_two().trailing_zeros().max(1) };
        let placement = r.placement;
        Replicator {
            placement,
            alpha: r.alpha_pct,
            max_vpc: ((1u32 << bits) - 1).min(u16::MAX as u32) as u16,
            chips,
            mirror: r.replication_io == ReplicationIo::Mirror,
            drop_every: r.drop_every.max(1) as u64,
            copy_ns: timing.read + timing.program + 2 * timing.transfer,
            stats: ChipStats::default(),
            made: 0,
            dropped: 0,
            skipped: 0,
            periods: 0,
        }
    }

    /// Replicas a value with read counter `vpc` wants.
    fn extra_for(&self, vpc: u16) -> u64 {
        (vpc as u64).min(self.chips as u64 - 1)
    }

    /// A read of `v`: bump its counter; on-line placement may copy it now.
    pub fn on_read(&mut self, v: u32, t: &mut Tables, ctx: &mut Ctx, periods: &mut Periods) {
        let e = &mut t.vpns[v as usize];
        e.vpc = (e.vpc + 1).min(self.max_vpc);
        if self.placement != Placement::Online || self.extra_for(e.vpc) < e.copies.len() as u64 {
            return;
        }
        if t.replicas >= budget_pages(t, self.alpha) || !room_for_copy(t, ctx.geo) {
            self.skipped += 1;
            return;
        }
        if self.stats.s.is_empty() {
            self.stats = survey(t, ctx);
        }
        if !self.place_one(v, t, ctx) {
            self.skipped += 1;
            return;
        }
        periods.cur.copies_made += 1;
    }

    /// The period's end: drop replicas no longer popular, make the new ones,
    /// and restart the counters.
    pub fn end_period(&mut self, t: &mut Tables, ctx: &mut Ctx, periods: &mut Periods) {
        self.periods += 1;
        // Sec. III-B: the drop "can be done with less frequency than the
        // replication"; between drops every copy is kept.
        let keep = self.periods % self.drop_every != 0;
        let grants = self.grants(t, keep);
        for &(v, want) in &grants {
            while t.vpns[v as usize].copies.len() as u64 - 1 > want && t.drop_copy(v, ctx.ftl) {
                self.dropped += 1;
                periods.cur.copies_dropped += 1;
            }
        }
        self.stats = survey(t, ctx);
        if self.placement != Placement::Online {
            'values: for &(v, want) in &grants {
                while (t.vpns[v as usize].copies.len() as u64 - 1) < want {
                    if !room_for_copy(t, ctx.geo) || !self.place_one(v, t, ctx) {
                        self.skipped += 1;
                        continue 'values;
                    }
                    periods.cur.copies_made += 1;
                }
            }
        }
        for e in t.vpns.iter_mut() {
            e.vpc = 0;
        }
    }

    /// (value, replicas granted) from the highest counter down until the
    /// budget is spent; values with replicas but no grant get 0 (dropped).
    /// On-line mode keeps what it made within the same budget. With `keep`
    /// (a period without drops) every value keeps its copies, which count
    /// against the budget, and the rest of the budget goes to missing ones.
    fn grants(&self, t: &Tables, keep: bool) -> Vec<(u32, u64)> {
        let mut cand: Vec<(u16, u32)> = t
            .live_ids()
            .map(|v| (t.vpns[v as usize].vpc, v))
            .filter(|&(c, v)| c > 0 || t.vpns[v as usize].copies.len() > 1)
            .collect();
        cand.sort_by_key(|&(c, v)| (Reverse(c), v));
        let mut left = budget_pages(t, self.alpha);
        if keep {
            left = left.saturating_sub(t.replicas);
            return cand
                .into_iter()
                .map(|(c, v)| {
                    let have = t.vpns[v as usize].copies.len() as u64 - 1;
                    let more = if self.placement == Placement::Online { 0 } else { self.extra_for(c).saturating_sub(have).min(left) };
                    left -= more;
                    (v, have + more)
                })
                .collect();
        }
        cand.into_iter()
            .map(|(c, v)| {
                let mut w = self.extra_for(c).min(left);
                if self.placement == Placement::Online {
                    w = w.min(t.vpns[v as usize].copies.len() as u64 - 1);
                }
                left -= w;
                (v, w)
            })
            .collect()
    }

    /// Make one more replica of `v` on the chip the policy picks.
    fn place_one(&mut self, v: u32, t: &mut Tables, ctx: &mut Ctx) -> bool {
        let Some(chip) = self.pick(v, t, ctx) else { return false };
        let mirror = self.mirror && self.placement != Placement::Online;
        if !copy_to_chip(t, v, chip, mirror, ctx) {
            return false;
        }
        let e = &t.vpns[v as usize];
        let share = e.vpc as f64 / e.copies.len() as f64;
        let c = chip as usize;
        self.stats.s[c] = (self.stats.s[c] - 1.0).max(1.0);
        self.stats.pop[c] += share;
        self.made += 1;
        true
    }

    fn pick(&self, v: u32, t: &Tables, ctx: &mut Ctx) -> Option<u32> {
        let held = chips_holding(t, v, ctx.geo);
        let ok: Vec<u32> = (0..self.chips).filter(|&c| !held[c as usize] && plane_on_chip(c, ctx).is_some()).collect();
        if ok.is_empty() {
            return None;
        }
        let st = &self.stats;
        let score = |c: u32| st.s[c as usize] / (st.e[c as usize] * st.pop[c as usize]);
        match self.placement {
            Placement::Random => Some(ok[ctx.rng.random_range(0..ok.len())]),
            Placement::Static => {
                let first = t.vpns[v as usize].copies[0];
                let orig = ctx.geo.chip_of_die(ctx.geo.die_of(first));
                (1..self.chips).map(|k| (orig + k) % self.chips).find(|c| ok.contains(c))
            }
            Placement::Popularity => best(&ok, score),
            Placement::Online => best(&ok, |c| score(c) / (ctx.load.chip_occ(c) as f64 + 1.0)),
        }
    }

    pub fn counters(&self, written: u64, c: &mut Vec<(&'static str, f64)>) {
        let minutes = self.made as f64 * self.copy_ns as f64 / 6e10;
        c.extend([
            ("rrssd.copies_made", self.made as f64),
            ("rrssd.copies_dropped", self.dropped as f64),
            ("rrssd.copies_skipped", self.skipped as f64),
            ("rrssd.periods", self.periods as f64),
            ("rrssd.copy_us", self.copy_ns as f64 / 1e3),
            ("rrssd.replication_minutes", minutes),
            ("rrssd.replication_write_ratio", self.made as f64 / (written + self.made).max(1) as f64),
        ]);
    }
}

/// The chip with the highest score (ties: the lowest id).
fn best(ok: &[u32], score: impl Fn(u32) -> f64) -> Option<u32> {
    let mut top: Option<(u32, f64)> = None;
    for &c in ok {
        let s = score(c);
        if top.is_none_or(|(_, b)| s > b) {
            top = Some((c, s));
        }
    }
    top.map(|(c, _)| c)
}

/// Count S, E and Pop for every chip from the FTL and the tables.
fn survey(t: &Tables, ctx: &Ctx) -> ChipStats {
    let geo = ctx.geo;
    let n = geo.chips() as usize;
    let planes_per_chip = geo.dies_per_chip * geo.planes_per_die;
    let mut st = ChipStats { s: vec![1.0; n], e: vec![0.0; n], pop: vec![1.0; n] };
    for plane in 0..geo.planes() {
        let c = (plane / planes_per_chip) as usize;
        st.s[c] += (ctx.ftl.free_blocks(plane) * geo.pages_per_block) as f64;
        for b in plane * geo.blocks_per_plane..(plane + 1) * geo.blocks_per_plane {
            st.e[c] += ctx.ftl.block(b).erases as f64;
        }
    }
    let blocks_per_chip = (planes_per_chip * geo.blocks_per_plane) as f64;
    for e in st.e.iter_mut() {
        *e = *e / blocks_per_chip + 1.0;
    }
    for v in t.live_ids() {
        let e = &t.vpns[v as usize];
        let share = e.vpc as f64 / e.copies.len() as f64;
        for &p in &e.copies {
            st.pop[geo.chip_of_die(geo.die_of(p)) as usize] += share;
        }
    }
    st
}
