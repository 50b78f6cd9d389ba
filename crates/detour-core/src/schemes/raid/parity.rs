//! CR4, CR5 and CR5M: the scheme object, its tables, reads (direct, from
//! the mirror chip, or rebuilt from the stripe) and GC bookkeeping. Writes
//! are in write.rs, mirroring in mirror.rs.

use super::failure::Failure;
use super::mirror::{MirrorTable, TAG_RECLAIM};
use super::rebuild::{Rebuild, TAG_REBUILD};
use super::stats::Stats;
use super::stripe::Layout;
use super::Org;
use super::config::{MirrorChannel, MirrorWrite, RaidConfig, Reclaim};
use crate::schemes::registry::Env;
use crate::device::Geometry;
use crate::error::{Error, Result};
use crate::ftl::Chunked;
use crate::scheduler::Class;
use crate::schemes::{Ctx, OpDone, Plan, Scheme, Stall};
use crate::types::{Lpn, Owner, Ppn, Token, NO_PAGE};
use std::ops::Range;

pub struct ParityRaid {
    pub(super) org: Org,
    pub(super) layout: Layout,
    /// Token of each LPN's current data, and of each stripe's parity.
    pub(super) page_tokens: Chunked<Token>,
    pub(super) parity: Chunked<Ppn>,
    pub(super) parity_tokens: Chunked<Token>,
    pub(super) mirror_table: MirrorTable,
    pub(super) fail: Failure,
    pub(super) stats: Stats,
    /// Planning a write with no simulated time (preconditioning, placement).
    pub(super) instant: bool,
    /// CR5M mirror copies on the next channel's mirror chip (`mirror_channel = "next"`).
    mirror_next: bool,
    /// CR5M mirroring writes share one data transfer (`mirror_write = "interleaved"`).
    pub(super) mirror_shared: bool,
    /// CR5M at the mirror threshold (`scheme.raid.reclaim`).
    pub(super) reclaim: Reclaim,
    pub(super) rebuild_state: Rebuild,
    /// Reused by every stripe write (a page each): the pages allocated for
    /// its members and parity, and its pre-reads.
    pub(super) alloc_buf: Vec<Option<Ppn>>,
    pub(super) read_buf: Vec<Ppn>,
}

impl ParityRaid {
    /// The scheme on `env`'s device, its tables sized for the logical space
    /// it leaves the host (`logical_pages`, which the simulator adopts).
    pub fn new(org: Org, raid: &RaidConfig, env: &Env) -> Result<ParityRaid> {
        let mut geo = env.geometry.clone();
        let layout = Layout::new(org, &geo);
        // Checked again by validation, which may not have run yet: without
        // it the stripe arithmetic below divides by zero.
        if layout.width() == 0 {
            return Err(Error::config("device.channels", format!("{} needs at least 2 channels (N-1 data + 1 parity)", name_of(org))));
        }
        geo.logical_pages = layout.logical_pages(&geo);
        let stripes = geo.logical_pages / layout.width();
        let mirror_table = if org == Org::Cr5m {
            MirrorTable::new(geo.logical_pages, geo.channels, mirror_limit(&geo, raid.mirror_threshold, env))
        } else {
            MirrorTable::new(0, geo.channels, 0)
        };
        Ok(ParityRaid {
            org,
            layout,
            page_tokens: Chunked::new(geo.logical_pages as u64, 0),
            parity: Chunked::new(stripes as u64, NO_PAGE),
            parity_tokens: Chunked::new(stripes as u64, 0),
            mirror_table,
            fail: Failure::new(raid, env.device),
            stats: Stats::new(geo.channels),
            instant: false,
            mirror_next: raid.mirror_channel == MirrorChannel::Next,
            mirror_shared: raid.mirror_write == MirrorWrite::Interleaved && raid.mirror_channel != MirrorChannel::Next,
            reclaim: raid.reclaim,
            rebuild_state: Rebuild::default(),
            alloc_buf: Vec::new(),
            read_buf: Vec::new(),
        })
    }

    /// The dies of the mirror chip that holds channel `ch`'s mirror copies.
    pub(super) fn mirror_dies_of(&self, ch: u32) -> std::ops::Range<u32> {
        self.layout.mirror_dies(if self.mirror_next { (ch + 1) % self.layout.n } else { ch })
    }

    pub(super) fn org_mirrors(&self) -> bool {
        self.org == Org::Cr5m
    }

    pub(super) fn mt_get(&self, lpn: Lpn) -> Option<super::mirror::Entry> {
        if self.org_mirrors() {
            self.mirror_table.get(lpn)
        } else {
            None
        }
    }

    pub(super) fn count_writes(&mut self, ch: u32, n: u64) {
        if !self.instant {
            self.stats.chan_writes[ch as usize] += n;
        }
    }

    /// Apply the configured failure if its time has come, and count the
    /// logical pages it lost.
    fn apply_failure(&mut self, ctx: &mut Ctx) {
        if !self.fail.due(ctx.now) {
            return;
        }
        self.fail.active = true;
        self.fail.lost = (0..ctx.geo.logical_pages).filter(|&l| self.is_lost(l, ctx)).count() as u64;
        if self.fail.rebuild {
            self.start_rebuild(ctx);
        }
    }

    pub(super) fn rebuild_set_pub(&self, lpn: Lpn, ctx: &Ctx) -> Vec<Ppn> {
        self.rebuild_set(lpn, ctx).0
    }

    fn live(&self, p: Ppn, ctx: &Ctx) -> bool {
        p != NO_PAGE && !self.fail.dead(ctx.geo.die_of(p))
    }

    /// No surviving copy and no way to rebuild the current data.
    fn is_lost(&self, lpn: Lpn, ctx: &Ctx) -> bool {
        let cur = ctx.ftl.map.get(lpn);
        if cur == NO_PAGE || self.live(cur, ctx) {
            return false; // never written (or written to a dead channel after the failure)
        }
        match self.mt_get(lpn) {
            Some(e) => !self.live(e.mppn, ctx), // the parity covers only the expired version
            None => self.rebuild_set(lpn, ctx).1 > 0,
        }
    }

    /// The pages whose XOR is `lpn`'s data: the parity and the version of
    /// every other member it covers; and how many of them are on failed dies.
    fn rebuild_set(&self, lpn: Lpn, ctx: &Ctx) -> (Vec<Ppn>, u32) {
        let j = self.layout.stripe(lpn);
        let mut pages = vec![self.parity.get(j)];
        let mut dead = (pages[0] == NO_PAGE) as u32;
        for m in self.layout.members(j).filter(|&m| m != lpn) {
            let p = self.mt_get(m).map_or(ctx.ftl.map.get(m), |e| e.eppn);
            if p != NO_PAGE {
                pages.push(p);
            }
        }
        pages.retain(|&p| p != NO_PAGE);
        dead += pages.iter().filter(|&&p| self.fail.dead(ctx.geo.die_of(p))).count() as u32;
        (pages, dead)
    }

    fn read_one(&mut self, lpn: Lpn, ctx: &mut Ctx, plan: &mut Plan) {
        let cur = ctx.ftl.map.get(lpn);
        let copy = self.mt_get(lpn).map(|e| e.mppn).filter(|&m| self.live(m, ctx));
        let source = if self.live(cur, ctx) {
            Some((self.mirror_for_read(lpn, cur, ctx).unwrap_or(cur), cur))
        } else {
            copy.map(|m| (m, m))
        };
        let Some((ppn, primary)) = source else {
            return self.read_rebuilt(lpn, ctx, plan);
        };
        if !ctx.ftl.is_programmed(primary) || !ctx.ftl.is_programmed(ppn) {
            plan.buffered += 1;
            return;
        }
        self.stats.flash_reads += 1;
        self.stats.mirror_reads += (ppn != cur) as u64;
        self.stats.mirror_only_reads += !self.live(cur, ctx) as u64;
        let g = plan.group(lpn, true);
        plan.read(g, 0, ppn, Class::HostRead, 0);
    }

    /// Degraded read: XOR the parity and the other members. A page that was
    /// mirrored and lost its mirror too cannot be rebuilt (the parity covers
    /// its expired version), nor one whose stripe lost a second member: it
    /// is lost, and the request fails (`Plan::lost`) instead of returning
    /// whatever the XOR gives.
    fn read_rebuilt(&mut self, lpn: Lpn, ctx: &mut Ctx, plan: &mut Plan) {
        let (pages, dead) = self.rebuild_set(lpn, ctx);
        if dead > 0 || self.mt_get(lpn).is_some() {
            self.stats.lost_reads += 1;
            plan.lost += 1;
            return;
        }
        if pages.iter().any(|&p| self.live(p, ctx) && !ctx.ftl.is_programmed(p)) {
            // A member or the parity is still being written: the controller
            // holds it in its write buffer (an assumption, see raid.md).
            plan.buffered += 1;
            return;
        }
        self.stats.flash_reads += 1;
        self.stats.degraded_reads += 1;
        let g = plan.group(lpn, true);
        for p in pages.into_iter().filter(|&p| self.live(p, ctx)) {
            plan.read(g, 0, p, Class::HostRead, 0);
        }
    }
}

fn name_of(org: Org) -> &'static str {
    match org {
        Org::Cr4 => "cr4",
        Org::Cr5 => "cr5",
        _ => "cr5m",
    }
}

/// Mirror entries a channel may hold: the mirror chip down to its free
/// threshold (less GC's share and reserve), and at most a quarter of the
/// data chips' over-provisioning, because every entry also keeps an
/// expired page alive on a data chip (an assumption: the paper is silent).
fn mirror_limit(geo: &Geometry, thr: f64, env: &Env) -> u32 {
    let (gc, op) = (env.ftl.gc_threshold, env.device.overprovisioning);
    let chip = (geo.dies_per_chip * geo.planes_per_die * geo.blocks_per_plane * geo.pages_per_block) as f64;
    let reserve = (3 * geo.dies_per_chip * geo.planes_per_die * geo.pages_per_block) as f64;
    let on_mirror = chip * (1.0 - thr - gc) - reserve;
    let on_data = chip * (geo.chips_per_channel - 1) as f64 * op / 4.0;
    on_mirror.min(on_data).max(0.0) as u32
}

impl Scheme for ParityRaid {
    fn logical_pages(&self, geo: &Geometry) -> Option<u32> {
        Some(Layout::new(self.org, geo).logical_pages(geo))
    }

    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        self.apply_failure(ctx);
        self.retry_rebuild(ctx);
        for lpn in lpns {
            self.read_one(lpn, ctx, plan);
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        self.apply_failure(ctx);
        self.retry_rebuild(ctx);
        self.stats.write_requests += !self.instant as u64;
        // Split the request into one group of pages per stripe (paper III.A).
        let mut i = 0;
        while i < tokens.len() {
            let j = self.layout.stripe(lpns.start + i as u32);
            let end = tokens.len().min((self.layout.members(j).end - lpns.start) as usize);
            let upd: Vec<(Lpn, Token)> = (i..end).map(|k| (lpns.start + k as u32, tokens[k])).collect();
            self.write_stripe(j, &upd, ctx, plan, i as u32)?;
            i = end;
        }
        if self.org_mirrors() && !self.instant {
            self.reclaim_full_mirrors(ctx);
        }
        Ok(())
    }

    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, scratch: &mut Plan) -> Result<(), Stall> {
        super::write_instantly(self, |s, on| s.instant = on, lpn, token, ctx, scratch)
    }

    fn on_complete(&mut self, op: &OpDone, ctx: &mut Ctx) {
        if op.tag == TAG_REBUILD {
            self.rebuild_done(op, ctx);
        } else if op.tag == TAG_RECLAIM {
            self.drain_done();
        }
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        if let Some(j) = owner.as_aux() {
            if self.parity.get(j) == from {
                self.parity.set(j, to);
            }
        } else if let Some(lpn) = owner.as_mirror() {
            self.move_entry(lpn, from, to, true);
        } else if ctx.ftl.map.get(owner.index()) == from {
            ctx.remap_moved(owner.index(), from, to);
        } else {
            // A data page the map has left is CR5M's expired version.
            self.move_entry(owner.index(), from, to, false);
        }
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let mut v = self.stats.to_vec();
        let entries: u32 = self.mirror_table.count.iter().sum();
        v.push(("mirror_entries", entries as f64));
        if self.reclaim == Reclaim::Drain {
            // Only where asked for: the other runs' counters stay as they were.
            v.push(("mirror_drains", self.stats.drains as f64));
        }
        v.push(("lost_pages", self.fail.lost as f64));
        v.push(("failed_at_us", self.fail.at_us()));
        let rb = &self.rebuild_state;
        let time = rb.done_ns.map_or(-1.0, |t| (t - rb.started_ns) as f64 / 1e3);
        v.extend([("rebuild_stripes", rb.stripes as f64), ("rebuild_pages", rb.pages as f64), ("rebuild_waiting", rb.retry.len() as f64), ("rebuild_no_space", rb.no_space as f64), ("rebuild_time_us", time)]);
        v
    }
}

impl ParityRaid {
    /// GC moved a mirror copy or an expired page: follow it in the entry.
    fn move_entry(&mut self, lpn: Lpn, from: Ppn, to: Ppn, mirror: bool) {
        let Some(mut e) = self.mt_get(lpn) else { return };
        let slot = if mirror { &mut e.mppn } else { &mut e.eppn };
        if *slot == from {
            *slot = to;
            self.mirror_table.set(lpn, self.layout.data_channel(lpn), e);
        }
    }
}
