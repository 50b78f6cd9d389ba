//! # Channel RAID (CR1, CR4, CR5, CR5M)
//!
//! **What:** RAID across the channels of one SSD (Liu et al., "CR5M",
//! 2014). CR1 mirrors every page on a partner channel; CR4 and CR5 stripe
//! N-1 data pages and one parity page over N channels (CR4: parity always
//! on the last channel; CR5: rotating), with semi-dynamic allocation: the
//! channel comes from the stripe formula, the chip and page from the live
//! load. CR5M adds one hidden mirror chip per channel: a small update is
//! written to its data chip and to the mirror chip at once without touching
//! the parity (mirroring write); the parity is brought up to date later,
//! releasing the mirror and expired pages (expired-data reclaim).
//!
//! **Why:** channel-level redundancy survives the loss of a die, a chip or
//! (for CR1, CR4, CR5) a whole channel; CR5M cuts the pre-reads of small
//! parity updates. See docs/schemes/raid.md for every assumption.
//!
//! **References:** papers/cr5m-channel-raid5-mirroring.txt (Section III).

mod config;
mod cr1;
mod failure;
mod mirror;
mod parity;
mod pure;
mod rebuild;
mod stats;
mod stripe;
mod write;

pub use config::{FailUnit, MirrorChannel, MirrorWrite, RaidConfig, Reclaim};
pub use cr1::Cr1;
pub use parity::ParityRaid;
pub use pure::Pure;

use super::registry::{Env, SchemeEntry};
use super::{Ctx, Plan, Scheme};
use crate::config::{Config, DeviceConfig};
use crate::ensure_config;
use crate::error::Result;
use crate::ftl::Stream;
use crate::scheduler::Class;
use crate::types::{Owner, Ppn};
use failure::Failure;
use std::ops::Range;

/// Which channel-RAID organisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Org {
    /// No redundancy (the paper's pure SSD), with the same failure injection.
    Pure,
    Cr1,
    Cr4,
    Cr5,
    Cr5m,
}

// A page's owner says what it holds: `Owner::lpn` the data of an LPN,
// `Owner::mirror` its CR1 or CR5M mirror copy, `Owner::aux` a stripe's
// parity. Both flags leave 30 bits, so the logical space stops at
// `Owner::MAX_INDEX`.

/// The RAID schemes' instant write: plan it in "instant" mode (no mirroring
/// or reclaim side work during setup), then apply it at once. Even a stalled
/// plan is applied: it programs the pages it already allocated, so their
/// pins go.
pub fn write_instantly<S: super::Scheme>(
    s: &mut S,
    set_instant: impl Fn(&mut S, bool),
    lpn: crate::types::Lpn,
    token: crate::types::Token,
    ctx: &mut Ctx,
    scratch: &mut Plan,
) -> Result<(), super::Stall> {
    scratch.clear();
    set_instant(s, true);
    let r = s.plan_write(lpn..lpn + 1, &[token], ctx, scratch);
    set_instant(s, false);
    super::common::apply_instantly(scratch, ctx, &mut |_, _| {});
    r
}

type Build = fn(&Env) -> Result<Box<dyn Scheme>>;
type Requires = fn(&Config) -> Result<()>;

const fn entry(name: &'static str, about: &'static str, build: Build, requires: Requires) -> SchemeEntry {
    // CR5M's page tokens (8 B) and mirror entries (4 B), the parity's per
    // stripe, CR1's mirror map: 16 B per page covers every organisation.
    SchemeEntry::new(name, about, build).section::<RaidConfig>().requires(requires).tables(16)
}

pub const PURE: SchemeEntry = entry(
    "pure",
    "The CR5M paper's pure SSD: conventional placement, no redundancy; takes scheme.raid.fail_* and counts lost pages",
    |env| build(Org::Pure, env),
    |_| Ok(()),
)
.colour("#9a6324");
pub const CR1: SchemeEntry = entry(
    "cr1",
    "Channel RAID-1: every page mirrored on a partner channel (half the capacity)",
    |env| build(Org::Cr1, env),
    |cfg| device_fits(Org::Cr1, &cfg.device),
)
.colour("#42d4f4")
.baseline("pure");
pub const CR4: SchemeEntry = entry(
    "cr4",
    "Channel RAID-4: stripes of N-1 data pages, parity on a dedicated channel",
    |env| build(Org::Cr4, env),
    |cfg| device_fits(Org::Cr4, &cfg.device),
)
.colour("#808000")
.baseline("pure");
pub const CR5: SchemeEntry = entry(
    "cr5",
    "Channel RAID-5: stripes of N-1 data pages, rotating parity, semi-dynamic allocation",
    |env| build(Org::Cr5, env),
    |cfg| device_fits(Org::Cr5, &cfg.device),
)
.colour("#911eb4")
.baseline("pure");
pub const CR5M: SchemeEntry = entry(
    "cr5m",
    "CR5 with a hidden mirror chip per channel: small updates mirrored, parity deferred",
    |env| build(Org::Cr5m, env),
    |cfg| device_fits(Org::Cr5m, &cfg.device),
)
.colour("#e6194b")
.baseline("cr5");

/// What organisation `org` needs of the device.
fn device_fits(org: Org, d: &DeviceConfig) -> Result<()> {
    let name = format!("{org:?}").to_lowercase();
    if org == Org::Cr1 {
        ensure_config!(d.channels % 2 == 0, "device.channels", "cr1 pairs channels: {} is not even", d.channels);
    }
    if matches!(org, Org::Cr4 | Org::Cr5 | Org::Cr5m) {
        ensure_config!(d.channels >= 2, "device.channels", "{name} needs at least 2 channels (N-1 data + 1 parity)");
    }
    if org == Org::Cr5m {
        ensure_config!(d.chips_per_channel >= 2, "device.chips_per_channel", "cr5m needs a data chip and a mirror chip per channel");
    }
    Ok(())
}

/// Build the scheme for `org`, once the device has what it needs.
fn build(org: Org, env: &Env) -> Result<Box<dyn Scheme>> {
    let d = env.device;
    device_fits(org, d)?;
    let raid: RaidConfig = env.section()?;
    let fail = Failure::new(&raid, d);
    Ok(match org {
        Org::Pure => Box::new(Pure::new(fail, d.channels)),
        Org::Cr1 => Box::new(Cr1::new(fail)),
        _ => Box::new(ParityRaid::new(org, &raid, env)?),
    })
}

/// Allocate a page for `owner` on the least-loaded live die of `dies`
/// (the dynamic half of semi-dynamic allocation; ties go to the die with
/// more free blocks, so an idle device fills evenly); when that die is
/// full, any other live plane of `dies`. None if all are full or dead.
pub fn alloc_in(ctx: &mut Ctx, dies: Range<u32>, fail: &Failure, stream: Stream, owner: Owner) -> Option<Ppn> {
    let ppd = ctx.geo.planes_per_die;
    // The first live die with the fewest outstanding commands, then the most
    // free blocks, as one packed key: every placed page ranks a whole
    // channel's dies. The pages of one plan land on the same die (its planes
    // in turn), as multi-plane programs; counting the plan's own pages in
    // the load (as dynamic allocation does) spread them and raised the
    // organisations' mean latency by 6-11% on the golden runs.
    let key = |d: u32| ((ctx.load.occ(d) as u64) << 32) | (u32::MAX - ctx.ftl.die_free_blocks(d)) as u64;
    let die = dies.clone().filter(|&d| !fail.dead(d)).min_by_key(|&d| key(d))?;
    let load = ctx.load;
    let plane = ctx.ftl.least_loaded_plane(&load, die..die + 1);
    if let Some(p) = ctx.ftl.alloc(plane, stream, owner) {
        return Some(p);
    }
    let plane = dies.filter(|&d| !fail.dead(d)).flat_map(|d| d * ppd..(d + 1) * ppd).find(|&p| ctx.ftl.can_alloc(p, stream))?;
    ctx.ftl.alloc(plane, stream, owner)
}

/// Would `alloc_in` find a page? Checked for every target before a plan
/// allocates anything, so a stall wastes no page.
/// When none would, ask for GC on the planes that need it: a plane left
/// below its threshold by preconditioning is otherwise never collected.
pub fn can_alloc_in(ctx: &mut Ctx, dies: Range<u32>, fail: &Failure, stream: Stream) -> bool {
    let ppd = ctx.geo.planes_per_die;
    let mut planes = dies.filter(|&d| !fail.dead(d)).flat_map(|d| d * ppd..(d + 1) * ppd);
    if planes.clone().any(|p| ctx.ftl.can_alloc(p, stream)) {
        return true;
    }
    for p in planes.by_ref() {
        if ctx.ftl.needs_gc(p) && !ctx.ftl.gc_wanted.contains(&p) {
            ctx.ftl.gc_wanted.push(p);
        }
    }
    false
}

/// `dies` has a live die but no page to give: the plan must stall.
pub fn blocked(ctx: &mut Ctx, dies: Range<u32>, fail: &Failure, stream: Stream) -> bool {
    dies.clone().any(|d| !fail.dead(d)) && !can_alloc_in(ctx, dies, fail, stream)
}

/// Give back pages allocated for a plan that then stalled: they are
/// invalidated and programmed as garbage, which releases their pins.
pub fn abandon(pages: &[Ppn], ctx: &mut Ctx, plan: &mut Plan) {
    if pages.is_empty() {
        return;
    }
    let g = plan.group(0, false);
    for &p in pages {
        ctx.ftl.invalidate(p);
        plan.program(g, 0, p, Owner::NONE, 0, Class::Background, 0);
    }
}
