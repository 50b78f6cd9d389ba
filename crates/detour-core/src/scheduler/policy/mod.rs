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
//! The policy is a `Copy` value matched on at each dispatch (no trait
//! object per operation): the hot path pays one well-predicted branch.

mod fcfs;
mod ooo;
mod priority;

use super::ops::{Class, OpSlab, NO_OP};
use super::queue::OpQueue;
use crate::config::{QueueOrder, SchedulerConfig};

/// The three queues of a service unit, in priority order.
pub(super) type Queues = [OpQueue; 3];

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
pub(super) struct BatchScan {
    pub queues: [usize; 3],
    pub n: usize,
    pub depth: usize,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Policy {
    order: QueueOrder,
    read_priority: bool,
}

impl Policy {
    pub fn new(cfg: &SchedulerConfig) -> Policy {
        Policy { order: cfg.order, read_priority: cfg.read_priority }
    }

    /// The queue an operation of `class` joins.
    #[inline]
    pub fn queue_of(self, class: Class) -> usize {
        match self.order {
            QueueOrder::Fcfs => fcfs::queue_of(class),
            QueueOrder::Priority | QueueOrder::OutOfOrder => priority::queue_of(class, self.read_priority),
        }
    }

    /// The operation an idle unit starts next (None: nothing may start;
    /// with `suspended` only a read may run, else the unit resumes).
    #[inline]
    pub fn pick(self, qs: &Queues, ops: &OpSlab, suspended: bool) -> Option<Pick> {
        match self.order {
            QueueOrder::Priority | QueueOrder::Fcfs => priority::pick(qs, ops, suspended),
            QueueOrder::OutOfOrder => ooo::pick(qs, ops, suspended),
        }
    }

    /// Where the batch of an operation picked from `queue` is filled from.
    #[inline]
    pub fn batch_scan(self, queue: usize, planes: usize) -> BatchScan {
        match self.order {
            QueueOrder::Priority | QueueOrder::Fcfs => priority::batch_scan(queue, planes),
            QueueOrder::OutOfOrder => ooo::batch_scan(queue),
        }
    }
}
