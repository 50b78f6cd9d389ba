//! Schemes decide, for each host read and write, which flash operations to
//! issue and where; they never touch the event queue.
//!
//! A scheme gets a [`Ctx`] with the live die load, the FTL (allocation, page
//! state, the shared page map) and a way to submit background plans, and
//! fills a [`Plan`]. The simulator runs the plan, and tells the scheme when
//! operations finish and when GC moves a page. To add one, follow
//! docs/extending.md: one file here (its config section, constructor and
//! [`registry::SchemeEntry`]) and one line in the `registry!` block below.
//!
//! ## What is where
//!
//! `prelude.rs` (everything a scheme file imports); the registry
//! (`registry.rs`: `SchemeEntry`, a scheme's name, description, config
//! section, activity counters, idle reason, plot colour and constructor; the
//! `crate::registry!` block below, one line per scheme module); one file (or folder) per scheme:
//! `conventional`, `hotr`, `rails`, `ttflash`, `raid/` (pure, cr1, cr4, cr5,
//! cr5m), `collisions/`, `dedup/` (CA-SSD, RR-SSD, Oracle, PBLRU), each
//! described in `docs/schemes/` and holding its own config section
//! (`[scheme.<key>]`, a serde struct with defaults and range checks; a family
//! shares one). A read of a page no copy holds after an injected failure adds
//! to `Plan::lost` and its request fails, counted in `lost_requests`.
//! `requirements.rs` holds the tick bounds; the host refuses input a scheme
//! cannot use (sim/requirements.rs).

mod common;
mod plan;
pub mod prelude;
pub mod registry;
pub mod requirements;

crate::registry! {
    /// Every registered scheme, one module a line, in the order
    /// `detour schemes` shows them; `scheme.name` names one.
    pub const SCHEMES: &[SchemeEntry] = [
        conventional,
        hotr,
        rails,
        ttflash,
        raid::{PURE, CR1, CR4, CR5, CR5M},
        collisions,
        dedup::{CA_SSD, RR_SSD, ORACLE, PBLRU},
    ];
}

pub use collisions::{Collisions, CollisionsConfig, RateWindow};
pub use common::Ctx;
pub use conventional::Conventional;
pub use dedup::{Dedup, DedupConfig, Mode as DedupMode, Placement, ReplicationIo};
pub use hotr::{HotR, HotrConfig, Staging};
pub use plan::{GroupSpec, Plan, PlannedOp};
pub use raid::{FailUnit, MirrorChannel, MirrorWrite, RaidConfig, Reclaim};
pub use rails::{Rails, RailsConfig};
pub use registry::{SchemeEntry, SchemeSection};
pub use ttflash::{StripeUnit, TtFlash, TtflashConfig};

use crate::device::{Geometry, OpKind};
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
/// Its name is its registry entry's (`SchemeEntry::name`), not the
/// scheme's to tell.
pub trait Scheme {
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

    /// The host discarded (TRIM) `lpns`: drop every reference to their data
    /// (the mapping, and any copy, reference count or parity the scheme
    /// keeps) so GC moves none of it; return the pages that were mapped.
    /// The default refuses, with why, and the run stops saying so
    /// (sim/trim.rs): only a scheme that drops all its per-page state may
    /// accept.
    fn discard(&mut self, _lpns: Range<Lpn>, _ctx: &mut Ctx) -> Result<u64, &'static str> {
        Err("it keeps per-page state (copies, reference counts, staging or parity) and does not drop it on a discard")
    }

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

    /// The length of those periods in s of simulated time, so the request
    /// log can give each its mean latency; None for a scheme without periods.
    fn period_s(&self) -> Option<f64> {
        None
    }

    /// Whether a write must carry content (a deduplicating scheme, unless
    /// told to make it up): a write without is then refused
    /// (requirements.rs), since the run would mean nothing.
    fn needs_content(&self) -> bool {
        false
    }

    /// The config key that sets the scheme's own tick, named when a
    /// request arrives too many ticks after the start.
    fn tick_key(&self) -> &'static str {
        "scheme.tick_us"
    }

    /// The most ticks a run may take (requirements.rs): fewer for a scheme
    /// that keeps a row per tick.
    fn max_ticks(&self) -> f64 {
        requirements::MAX_TICKS
    }

    /// Whether the tick goes on once the last request has arrived, while
    /// the requests still out drain. The arrival bound above does not hold
    /// the drain, which on a saturated run can be many times the trace's
    /// span. A scheme whose periods are windows of the workload's arrivals
    /// says no: a period after the last arrival serves no read.
    fn ticks_while_draining(&self) -> bool {
        true
    }

    /// Whether the host's data is found through the FTL's shared page map
    /// (`ctx.ftl.map`): a layer over the scheme may then remap it.
    fn uses_shared_map(&self) -> bool {
        false
    }
}
