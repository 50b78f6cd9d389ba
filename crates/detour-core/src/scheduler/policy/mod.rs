//! Scheduling policies (`scheduler.order`): the family of rules by which an
//! idle die (or chip) picks its next operation and which queued operations
//! may join it in a multi-plane batch.
//!
//! Every policy works on the same three queues per service unit (host
//! reads, host writes, background; `queue_of` says which an operation
//! joins) and the same batching rule (same kind, same die, different
//! planes); they differ in where they look:
//!
//! - `priority.rs` (default): classes in priority order, the head of each
//!   queue in turn; a batch is filled from the head's own queue only, at
//!   most twice the plane count deep.
//! - `fcfs.rs`: one queue for every class, otherwise as `priority`.
//! - `ooo.rs`: out of order (MQSim's TSU): the oldest operation that can
//!   start now, not only a queue's head, and batches filled from every
//!   queue of the unit.
//!
//! A policy is a [`Variant`] of plain functions, not a trait object: what
//! depends on a class or a queue alone (`queue_of`, `batch_scan`) is
//! tabulated when the scheduler is built, so the hot path pays one indirect
//! call per dispatch (`pick`) and a table load per operation queued.
//! docs/extending.md says how to add one.

use super::ops::{Class, OpSlab, NO_OP};
use super::queue::OpQueue;
use crate::config::{MultiplaneScan, SchedulerConfig};
use crate::error::Result;
use crate::policy::Choice;

crate::registry! {
    /// Every scheduling policy, one a line; `scheduler.order` names one.
    pub const REGISTRY: &[Variant] = [
        priority,
        fcfs,
        ooo,
    ];
}

/// The scheduling family: `scheduler.order`.
pub enum Orders {}

impl crate::policy::Family for Orders {
    type Variant = Variant;
    const KEY: &'static str = "scheduler.order";
    const ALL: &'static [Variant] = REGISTRY;
}

/// (name, description) of every scheduling policy, in registry order.
pub fn list() -> Vec<(&'static str, &'static str)> {
    crate::policy::list::<Orders>()
}

/// A scheduling policy: its name (the value of `scheduler.order`), a line
/// for listings, and three functions.
pub struct Variant {
    pub name: &'static str,
    pub about: &'static str,
    /// The queue (0, 1 or 2; [`Queues`]) an operation of a class joins,
    /// given `scheduler.read_priority`. Called for each class when the
    /// scheduler is built, so it must depend on its arguments alone.
    pub(super) queue_of: fn(Class, bool) -> usize,
    /// The operation an idle unit starts next. With a program or erase
    /// suspended (the flag) only a read may start, and None resumes it;
    /// otherwise None leaves the unit idle. Called at every dispatch.
    pub(super) pick: fn(&Queues, &OpSlab, bool) -> Option<Pick>,
    /// Where the batch of an operation picked from a queue (the first
    /// argument) is filled from, on dies of so many planes (the second).
    /// Called for each queue when the scheduler is built.
    pub(super) batch_scan: fn(usize, usize) -> BatchScan,
}

impl crate::policy::Entry for Variant {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        self.about
    }
}

/// The queues of a service unit: the policy's three in its priority
/// order, then [`GC_QUEUE`], which goes before them all.
pub(super) type Queues = [OpQueue; 4];

/// The queue of `Class::Gc` (`scheduler.gc_priority = "urgent"`): every
/// policy serves it first; empty otherwise.
pub(super) const GC_QUEUE: usize = 3;

/// The operation a policy chose to start: in queue `queue`, after `prev`
/// ([`NO_OP`] when it is the head), so it can be unlinked where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pick {
    pub queue: usize,
    pub prev: u32,
    pub id: u32,
}

impl Pick {
    /// The head of queue `queue`, if any.
    #[inline]
    fn head(qs: &Queues, queue: usize) -> Option<Pick> {
        qs[queue].front().map(|id| Pick { queue, prev: NO_OP, id })
    }
}

/// Where a batch may be filled from: these queues, in order, each at most
/// `depth` operations deep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct BatchScan {
    pub queues: [usize; 3],
    pub n: usize,
    pub depth: usize,
}

/// A scheduler's policy, tabulated for its `read_priority` and plane count.
#[derive(Clone, Copy, Debug)]
pub(super) struct Policy {
    /// The queue of each class, by `Class as usize`.
    queue_of: [u8; 4],
    pick: fn(&Queues, &OpSlab, bool) -> Option<Pick>,
    /// The batch scan of each queue an operation is picked from.
    scans: [BatchScan; 4],
}

impl Policy {
    /// The policy `scheduler.order` names (an unknown name is refused
    /// naming the key).
    pub fn new(cfg: &SchedulerConfig, planes: usize) -> Result<Policy> {
        let mut p = Policy::of(Choice::<Orders>::named(&cfg.order)?.variant(), cfg.read_priority, planes);
        if cfg.multiplane_scan == MultiplaneScan::Queue {
            p.scan_whole_queues();
        }
        Ok(p)
    }

    /// `multiplane_scan = "queue"` (MQSim's issue_command_to_chip): a batch
    /// is filled from the whole queue its first operation came from, then
    /// from the whole background queue.
    fn scan_whole_queues(&mut self) {
        let bg = self.queue_of(Class::Background);
        self.scans = [0, 1, 2, GC_QUEUE].map(|q| {
            let (queues, n) = if q == bg { ([q, 0, 0], 1) } else { ([q, bg, 0], 2) };
            BatchScan { queues, n, depth: usize::MAX }
        });
        self.scans[GC_QUEUE] = Self::gc_scan(usize::MAX);
    }

    /// An urgent GC operation's batch: the GC queue, then the host's
    /// (MQSim's sourceQueue2 is the user queue of the kind being served;
    /// the batch takes only its first's kind).
    fn gc_scan(depth: usize) -> BatchScan {
        BatchScan { queues: [GC_QUEUE, 0, 1], n: 3, depth }
    }

    fn of(v: &Variant, read_priority: bool, planes: usize) -> Policy {
        let [r, w, b] = [Class::HostRead, Class::HostWrite, Class::Background].map(|c| {
            let q = (v.queue_of)(c, read_priority);
            assert!(q < 3, "{}: class {c:?} joins queue {q}; a policy has 3", v.name);
            q as u8
        });
        let mut scans = [0, 1, 2, GC_QUEUE].map(|q| (v.batch_scan)(q.min(2), planes));
        scans[GC_QUEUE] = Self::gc_scan(scans[2].depth);
        Policy { queue_of: [r, w, b, GC_QUEUE as u8], pick: v.pick, scans }
    }

    /// The queue an operation of `class` joins.
    #[inline]
    pub fn queue_of(&self, class: Class) -> usize {
        self.queue_of[class as usize] as usize
    }

    /// The operation an idle unit starts next (None: nothing may start;
    /// with `suspended` only a read may run, else the unit resumes).
    #[inline]
    pub fn pick(&self, qs: &Queues, ops: &OpSlab, suspended: bool) -> Option<Pick> {
        // Urgent GC first (MQSim's non-preemptible GC); never past a
        // suspension, which only a read may use.
        if !suspended {
            if let Some(p) = Pick::head(qs, GC_QUEUE) {
                return Some(p);
            }
        }
        // The default's pick (priority's, fcfs's too) is called directly so
        // it is inlined: through the pointer the dispatch no longer sees
        // that it takes a head, and a run costs 2% more instructions. An
        // address that fails to compare equal only misses this fast path.
        if std::ptr::fn_addr_eq(self.pick, priority::ENTRY.pick) {
            priority::pick(qs, ops, suspended)
        } else {
            (self.pick)(qs, ops, suspended)
        }
    }

    /// Where the batch of an operation picked from `queue` is filled from.
    #[inline]
    pub fn batch_scan(&self, queue: usize) -> BatchScan {
        self.scans[queue]
    }
}

#[cfg(test)]
mod tests;
