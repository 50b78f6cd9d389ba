//! The flash scheduler: a queue per die (or per chip) with priority classes
//! (host read > host write > background) or one first-come-first-served
//! queue, the policy that picks from them (`policy/`: priority, fcfs, out
//! of order), multi-plane batching, program/erase suspension for reads, and
//! first-come-first-served arbitration of each channel.
//!
//! The unit that serves one operation at a time is the die, or the chip
//! when `scheduler.unit = "chip"` (SSDSim's and DiskSim's rule): the state,
//! queue and events are then the chip's, and a die's load is its chip's.
//!
//! It owns the operations in flight and drives the die and channel state
//! machines of `device`. Finished operations are collected in `done` for the
//! simulator to hand to their transactions.
//!
//! ## What is where
//!
//! - Per-unit queues for host reads, host writes and background work (read
//!   priority is a switch; each queue a list threaded through its
//!   operations).
//! - The scheduling policy family in `policy/` (`scheduler.order`, one file
//!   each, a registry entry of plain functions: the queue of each class and
//!   the batch scan of each queue tabulated when the scheduler is built, one
//!   indirect call to pick at each dispatch, no trait object per operation):
//!   `priority.rs`, classes in order, the default; `fcfs.rs`, every class in
//!   one queue; `ooo.rs`, out of order as MQSim's TSU (a read may pass a
//!   queued write while a program is suspended, and a multi-plane batch is
//!   filled from every queue, 64 deep, rather than from the head's queue 2 x
//!   planes deep).
//! - Multi-plane batches (reads optional), program/erase suspension for host
//!   reads, first-come-first-served channel arbitration (or a peer's order
//!   under `channel_order`: SSDSim's reads first, MQSim's data-outs first
//!   then chips round robin; `channel.rs`), the arena of
//!   operations in flight, and `LoadView` (what schemes may see: outstanding
//!   commands per die, whether a die is writing).
//! - The per-die and per-channel tables are private and never resized; a die
//!   index is range-checked once where it enters (`submit` for an operation,
//!   the `on_*` handler for an event) and read unchecked after that. A die
//!   whose batch ends with nothing queued or suspended skips the dispatch
//!   search.

pub mod arbiter;
mod batch;
mod channel;
mod level;
pub mod ops;
mod policy;
mod queue;
mod started;
mod suspend;
mod transfer;
mod view;

pub use ops::{flags, Class, FlashOp, OpSlab, NO_OP};
pub use policy::{list as orders, Orders};
pub use view::LoadView;

use crate::config::{ChannelOrder, GcPriority, PlanePairing, SchedulerConfig, ServiceUnit, WriteAck};
use crate::device::{ChannelState, DieState, Geometry, OpKind, Phase, Timing};
use crate::engine::{Event, EventQueue};
use crate::types::Time;
use arbiter::{Arbiter, Arbitration};
use policy::{Pick, Policy, Queues};

/// Operation counts of one die.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct DieCounts {
    pub reads: u64,
    pub programs: u64,
    pub erases: u64,
    pub suspensions: u64,
}

/// The scheduler's per-die (and per-channel) tables.
///
/// They are indexed on every event, so without a bounds check: every die
/// index the scheduler uses was checked against the die count where it came
/// in (an operation's in `submit`, an event's in its `on_*` handler), a
/// channel index is the channel of such a die, and the tables, like the
/// geometry, are private and never resized.
struct Table<T>(Box<[T]>);

impl<T: Clone> Table<T> {
    fn new(n: usize, v: T) -> Self {
        Table(vec![v; n].into_boxed_slice())
    }
}

impl<T> Table<T> {
    #[inline(always)]
    fn at(&self, i: usize) -> &T {
        debug_assert!(i < self.0.len());
        // SAFETY: `i` is a checked die index or a channel of one (see above).
        unsafe { self.0.get_unchecked(i) }
    }

    #[inline(always)]
    fn at_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.0.len());
        // SAFETY: as for `at`.
        unsafe { self.0.get_unchecked_mut(i) }
    }
}

pub struct Scheduler {
    geo: Geometry,
    timing: Timing,
    cfg: SchedulerConfig,
    /// Which queued operation a unit starts next (`scheduler.order`).
    policy: Policy,
    /// Dies per service unit: 1, or the dies of a chip.
    unit_dies: u32,
    /// Host programs are acknowledged when their data is in (`WriteAck::Transfer`).
    ack_transfer: bool,
    /// Under SSDSim's buffer eviction, background programs (the buffer's
    /// flushes) are marked too: a write waits for its evictions' transfers.
    ack_flushes: bool,
    /// Each kind's multi-plane batch rule (`batch::index`).
    batch: [batch::BatchRule; 3],
    /// One state per service unit (die or chip); `dies` for the common case.
    dies: Table<DieState>,
    channels: Table<ChannelState>,
    queues: Table<Queues>,
    pub ops: OpSlab,
    /// Operations finished since the simulator last drained this.
    pub done: Vec<u32>,
    /// Per die, whatever the unit.
    counts: Table<DieCounts>,
    /// Idle dies that got work this instant; dispatched together by
    /// `kick`, so operations submitted at the same time can share a
    /// multi-plane batch.
    pending: Vec<u32>,
    flagged: Table<bool>,
    /// Priority classes arbitrated per unit (`scheduler.arbitration =
    /// "nvme_wrr"`, arbiter.rs); None leaves the policy's pick alone.
    arbiter: Option<Box<Arbiter>>,
    /// Units waiting for their channel under `scheduler.channel_order =
    /// "reads_first"` or `"data_outs_first"` (channel.rs); None: first
    /// come, first served.
    chan: Option<Box<channel::ChannelWait>>,
    /// Planes' write points under `plane_pairing = "level"` (level.rs).
    levels: Option<Box<level::Levels>>,
    /// LPNs of programs dispatched, for SSDSim's read merge (started.rs).
    started: Option<Vec<u32>>,
}

impl Scheduler {
    /// Mark every program with the time its data was in (`early_ns`), the
    /// write buffer's flushes included: SSDSim's eviction
    /// (`write_buffer.admission = "evict"`) ends a host write when the data
    /// of the pages it evicted has reached their chips.
    pub fn ack_programs_at_transfer(&mut self) {
        (self.ack_transfer, self.ack_flushes) = (true, true);
    }

    /// Errors: `scheduler.order` names no registered policy.
    pub fn new(geo: &Geometry, timing: &Timing, cfg: &SchedulerConfig, ack: WriteAck) -> crate::error::Result<Self> {
        let unit_dies = if cfg.unit == ServiceUnit::Chip { geo.dies_per_chip.max(1) } else { 1 };
        let units = (geo.dies() / unit_dies) as usize;
        // The channel table is indexed unchecked by the channel of a die (see
        // `Table`): a geometry whose counts were changed after its
        // conversions were made could break that, so it is refused here.
        assert!(
            units == 0 || geo.channel_of_die(units as u32 * unit_dies - 1) < geo.buses(),
            "inconsistent geometry: die {} maps past {} channels",
            (units as u32 * unit_dies).saturating_sub(1),
            geo.buses()
        );
        Ok(Scheduler {
            geo: geo.clone(),
            timing: timing.clone(),
            cfg: cfg.clone(),
            policy: Policy::new(cfg, geo.planes_per_die as usize)?,
            unit_dies,
            ack_transfer: ack == WriteAck::Transfer,
            ack_flushes: false,
            batch: batch::rules(cfg, geo),
            dies: Table::new(units, DieState::default()),
            channels: Table::new(geo.buses() as usize, ChannelState::default()),
            queues: Table::new(units, Default::default()),
            ops: OpSlab::default(),
            done: Vec::with_capacity(64),
            counts: Table::new(geo.dies() as usize, DieCounts::default()),
            pending: Vec::new(),
            flagged: Table::new(units, false),
            arbiter: (cfg.arbitration == Arbitration::NvmeWrr).then(|| Box::new(Arbiter::new(units, cfg.wrr_weights))),
            chan: (cfg.channel_order != ChannelOrder::Fcfs).then(|| Box::new(channel::ChannelWait::new(units, geo.buses() as usize))),
            levels: (cfg.plane_pairing == PlanePairing::Level).then(|| Box::new(level::Levels::new(geo))),
            started: None,
        })
    }

    /// Whether operations' priority classes are read (`FlashOp::prio`).
    #[inline]
    pub fn arbitrates(&self) -> bool {
        self.arbiter.is_some()
    }

    /// A read-only view of the live per-die load, for schemes.
    pub fn view(&self) -> LoadView<'_> {
        LoadView::new(&self.geo, &self.dies.0, self.unit_dies)
    }

    /// Dies per service unit (1, or the dies of a chip with `unit = "chip"`).
    pub fn unit_dies(&self) -> u32 {
        self.unit_dies
    }

    /// Every service unit's state (die, or chip with `unit = "chip"`), in order.
    pub fn dies(&self) -> &[DieState] {
        &self.dies.0
    }

    /// Busy time of each die: its unit's.
    pub fn busy_per_die(&self) -> Vec<u64> {
        (0..self.geo.dies()).map(|d| self.dies.0[(d / self.unit_dies) as usize].busy_ns).collect()
    }

    /// Every channel's state, in channel order.
    pub fn channels(&self) -> &[crate::device::ChannelState] {
        &self.channels.0
    }

    /// Every die's operation counts, in die order.
    pub fn counts(&self) -> &[DieCounts] {
        &self.counts.0
    }

    /// The service unit (an index into the per-unit tables) of an event's
    /// unit or an operation's die; one out of range is a scheme's (or the
    /// simulator's) bug, not bad input.
    #[inline(always)]
    fn checked(&self, unit: u32) -> usize {
        let n = self.dies.0.len();
        let what = if self.unit_dies == 1 { "die" } else { "chip" };
        assert!((unit as usize) < n, "operation or event on {what} {unit} of a device with {n} {what}s");
        unit as usize
    }

    /// The service unit of a die (no division when it is the die itself).
    #[inline(always)]
    fn unit_of(&self, die: u32) -> u32 {
        if self.unit_dies == 1 {
            die
        } else {
            die / self.unit_dies
        }
    }

    /// Queue an operation on its die. An idle die starts at the next
    /// `kick` (same simulated instant); a busy one may be suspended for a read.
    pub fn submit(&mut self, id: u32, q: &mut EventQueue) {
        let op = self.ops.get(id);
        let (die, class, kind) = (self.checked(self.unit_of(op.die)), op.class, op.kind);
        if self.dies.at(die).failed {
            self.ops.get_mut(id).failed = true;
            self.done.push(id);
            return;
        }
        let qi = self.policy.queue_of(class);
        self.queues.at_mut(die)[qi].push_back(id, &mut self.ops);
        if let Some(a) = self.arbiter.as_mut() {
            a.joined(die, qi, self.ops.get(id).prio);
        }
        if let Some(w) = self.chan.as_mut() {
            w.stamp(id);
        }
        let d = self.dies.at_mut(die);
        d.occ += 1;
        d.host_occ += class.is_host() as u32;
        let d = self.dies.at(die);
        if d.phase == Phase::Idle {
            if !*self.flagged.at(die) {
                *self.flagged.at_mut(die) = true;
                self.pending.push(die as u32);
            }
        } else if class == Class::HostRead && kind == OpKind::Read && self.can_suspend(die, q.now()) {
            let beside = self.unit_dies > 1 && self.ops.get(id).die != self.ops.get(self.dies.at(die).batch[0]).die;
            self.suspend(die, beside, q);
        }
    }

    /// Dies wait to start or operations wait to be handed on: `kick` and
    /// `done` have something to do.
    #[inline]
    pub fn has_work(&self) -> bool {
        !self.pending.is_empty()
            || !self.done.is_empty()
            || self.chan.as_ref().is_some_and(|w| w.has_due())
            || self.has_skipped()
            || self.has_started()
    }

    /// Start every idle die that got work since the last kick, in the order
    /// the work arrived; under a peer's `channel_order`, then grant
    /// the channels that are free to the units waiting for them.
    pub fn kick(&mut self, q: &mut EventQueue) {
        self.kick_units(q);
        if self.chan.as_ref().is_some_and(|w| w.has_due()) {
            self.decide_channels(q);
        }
    }

    fn kick_units(&mut self, q: &mut EventQueue) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        for &die in &pending {
            *self.flagged.at_mut(die as usize) = false;
            if self.dies.at(die as usize).phase == Phase::Idle {
                self.dispatch(die as usize, q);
            }
        }
        self.pending = pending;
        self.pending.clear();
    }

    /// Start the next batch on an idle die, or resume its suspended op;
    /// under a peer's `channel_order` once its channel grants it.
    #[inline]
    fn dispatch(&mut self, die: usize, q: &mut EventQueue) {
        if self.chan.is_some() {
            return self.wait_channel(die, q);
        }
        self.start(die, q)
    }

    /// `dispatch` now: pick the batch and ask for the channel.
    fn start(&mut self, die: usize, q: &mut EventQueue) {
        let suspended = self.dies.at(die).suspended.is_some();
        let Some(mut pick) = self.policy.pick(self.queues.at(die), &self.ops, suspended) else {
            return self.resume(die, q);
        };
        if let (Some(a), false) = (self.arbiter.as_mut(), suspended) {
            pick = a.arbitrate(die, self.queues.at(die), &self.ops, pick);
        }
        let Pick { queue: qi, prev, id: head } = pick;
        if suspended && self.unit_dies > 1 && self.suspend_beside(die, head, q) {
            return;
        }
        self.queues.at_mut(die)[qi].unlink_after(prev, head, &mut self.ops);
        let kind = self.ops.get(head).kind;
        let d = self.dies.at_mut(die);
        d.batch[0] = head;
        d.n = 1;
        d.kind = kind;
        d.data_out = false;
        d.bus_ns = 0;
        d.array_ns = 0;
        let rule = self.batch[batch::index(kind)];
        if kind == OpKind::Program && self.levels.is_some() {
            self.gather_level(die, qi, prev, rule);
        } else if rule.gather {
            self.gather_planes(die, qi, rule);
        }
        if kind == OpKind::Program && self.started.is_some() {
            self.note_started(die);
        }
        if let Some(a) = self.arbiter.as_mut() {
            let d = self.dies.at(die);
            a.started(die, &d.batch[..d.n as usize], &self.ops, &self.policy);
        }
        let d = self.dies.at_mut(die);
        if d.suspended.is_none() {
            d.suspends = 0;
        }
        d.batch_start = q.now();
        let n = d.n as u64;
        let t = &self.timing;
        let bus = match kind {
            OpKind::Read | OpKind::Erase => n * t.command,
            // SSDSim starts every page's transfer of an INTERLEAVE_TWO_PLANE
            // batch at once (compute_serve_time): the channel is held one page time
            OpKind::Program if rule.chip_wide && self.pairs_planes(die) => t.command + t.transfer,
            OpKind::Program => n * t.command + self.data_in_ns(die),
        };
        self.request_bus(die, bus, q)
    }

    /// Ask for the die's channel for `dur` ns. Arbitration is first come,
    /// first served: the die gets the bus when the transfers asked for
    /// before it are done, so its grant time is known at once and waiting
    /// needs no event of its own. The wait counts as queueing time.
    // Inlined (with `bus_granted`) into its three callers: it runs 10 times
    // per request on the benchmark, and the call's register saves were 2%
    // of the instructions.
    #[inline(always)]
    fn request_bus(&mut self, die: usize, dur: Time, q: &mut EventQueue) {
        self.dies.at_mut(die).bus_ns += dur;
        let ch = self.geo.channel_of_die(die as u32 * self.unit_dies) as usize;
        let c = self.channels.at_mut(ch);
        let start = c.busy_until.max(q.now());
        c.busy_until = start + dur;
        c.busy_ns += dur;
        self.bus_granted(die, start + dur, q)
    }

    /// The die holds the bus until `end`: schedule what follows. A read's
    /// data-out ends the batch; otherwise the array operation starts at `end`.
    #[inline(always)]
    fn bus_granted(&mut self, die: usize, end: Time, q: &mut EventQueue) {
        let d = self.dies.at_mut(die);
        if d.data_out {
            d.phase = Phase::Transfer;
            return q.post(end, Event::TransferDone(die as u32));
        }
        let t = match d.kind {
            // A batch's planes sense together, so it retries as long as its
            // worst page does.
            OpKind::Read if self.timing.retry > 0 => retried_read_time(d, &self.ops, &self.timing),
            OpKind::Read => self.timing.read,
            OpKind::Program => self.timing.program,
            OpKind::Erase => self.timing.erase,
        };
        d.phase = Phase::Array;
        d.array_start = end;
        d.array_end = end + t;
        d.array_ns = t;
        let (gen, at) = (d.gen, d.array_end);
        q.post(at, Event::ArrayDone { die: die as u32, gen });
    }

    /// A read's data-out finished.
    pub fn on_transfer_done(&mut self, die: u32, q: &mut EventQueue) {
        let die = self.checked(die);
        self.finish_batch(die, q)
    }

    pub fn on_array_done(&mut self, die: u32, gen: u32, q: &mut EventQueue) {
        let die = self.checked(die);
        let d = self.dies.at_mut(die);
        if d.gen != gen || d.phase != Phase::Array {
            return;
        }
        if d.kind == OpKind::Read {
            d.data_out = true;
            if self.chan.is_some() {
                // waits for the channel in the peer's order (channel.rs)
                d.phase = Phase::Transfer;
                return self.wait_channel(die, q);
            }
            let dur = self.data_out_ns(die);
            return self.request_bus(die, dur, q);
        }
        self.finish_batch(die, q)
    }

    fn finish_batch(&mut self, die: usize, q: &mut EventQueue) {
        let now = q.now();
        let d = self.dies.at_mut(die);
        let n = d.n as usize;
        d.occ -= n as u32;
        d.busy_ns += now - d.batch_start;
        d.phase = Phase::Idle;
        d.n = 0;
        let (bus, array) = (d.bus_ns.min(u32::MAX as u64) as u32, d.array_ns.min(u32::MAX as u64) as u32);
        // Under transfer acknowledgement the host heard of its programs
        // when their data was in, before the array time.
        let early = (now - d.array_start).min(u32::MAX as u64) as u32;
        let acks = self.ack_transfer && d.kind == OpKind::Program;
        let kind = d.kind;
        let mut host = 0;
        for &id in &d.batch[..n] {
            let op = self.ops.get_mut(id);
            host += op.class.is_host() as u32;
            op.bus_ns = bus;
            op.array_ns = array;
            if acks && (op.class == Class::HostWrite || self.ack_flushes) {
                (op.early_ns, op.array_ns) = (early, 0);
            }
            // A batch is one die's (see `gather_planes`).
            self.done.push(id);
        }
        d.host_occ -= host;
        let first_die = if self.unit_dies == 1 { die } else { self.ops.get(self.dies.at(die).batch[0]).die as usize };
        let c = self.counts.at_mut(first_die);
        match kind {
            OpKind::Read => c.reads += n as u64,
            OpKind::Program => c.programs += n as u64,
            OpKind::Erase => c.erases += n as u64,
        }
        // occ counts queued and suspended operations: at 0 the die stays idle.
        if self.dies.at(die).occ == 0 {
            return;
        }
        if self.cfg.gc_priority == GcPriority::Urgent {
            // MQSim signals the transaction serviced before the chip idle:
            // the unit picks at the next kick, after the simulation queued
            // what these operations start (`Simulation::drain_done`).
            if !*self.flagged.at(die) {
                *self.flagged.at_mut(die) = true;
                self.pending.push(die as u32);
            }
            return;
        }
        self.dispatch(die, q)
    }

    /// Mark a die (with `unit = "chip"`, its chip) failed: queued
    /// operations fail at once, later ones too.
    pub fn fail_die(&mut self, die: u32) {
        let d = self.checked(self.unit_of(die));
        self.dies.at_mut(d).failed = true;
        if let Some(a) = self.arbiter.as_mut() {
            a.emptied(d);
        }
        for qi in 0..4 {
            while let Some(id) = self.queues.at_mut(d)[qi].pop_front(&self.ops) {
                let op = self.ops.get_mut(id);
                op.failed = true;
                let host = op.class.is_host() as u32;
                let s = self.dies.at_mut(d);
                s.occ -= 1;
                s.host_occ -= host;
                self.done.push(id);
            }
        }
    }
}

/// A read batch's sense time with its read retries (a batch's planes
/// sense together, so it retries as long as its worst page does). Out of
/// line and cold, as the error model is off by default.
#[cold]
#[inline(never)]
fn retried_read_time(d: &DieState, ops: &OpSlab, t: &Timing) -> Time {
    let k = d.batch[..d.n as usize].iter().map(|&id| ops.get(id).retries).max().unwrap_or(0);
    t.read + k as Time * t.retry
}

#[cfg(test)]
mod tests;
