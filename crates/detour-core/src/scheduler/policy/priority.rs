//! `scheduler.order = "priority"` (the default): host reads, then host
//! writes (in one queue with the reads when `read_priority` is off), then
//! background work; each queue first come, first served.
//!
//! Why: reads are short and the host waits on them, while a program or an
//! erase holds the die 10-50 times longer; serving reads first is what
//! SSDSim and MQSim's priority TSU do. As one server this is a
//! non-preemptive priority queue (Cobham's formula, tests/queueing.rs).

use super::{BatchScan, Pick, Queues, Variant};
use crate::device::OpKind;
use crate::scheduler::ops::{Class, OpSlab};

pub(super) const ENTRY: Variant = Variant {
    name: "priority",
    about: "host reads, then host writes, then background work, each queue first come first served (default)",
    queue_of,
    pick,
    batch_scan,
};

#[inline]
pub(super) fn queue_of(class: Class, read_priority: bool) -> usize {
    match class {
        Class::HostRead => 0,
        Class::HostWrite if read_priority => 1,
        Class::HostWrite => 0,
        // Gc is not asked: `Policy` files it in GC_QUEUE.
        Class::Background | Class::Gc => 2,
    }
}

/// The head of the first non-empty queue; with a suspended program only a
/// host read at the head of the read queue may run.
#[inline]
pub(super) fn pick(qs: &Queues, ops: &OpSlab, suspended: bool) -> Option<Pick> {
    if suspended {
        let head = Pick::head(qs, 0)?;
        return (ops.get(head.id).kind == OpKind::Read).then_some(head);
    }
    (0..3).find_map(|i| Pick::head(qs, i))
}

/// The head's own queue, twice the plane count deep: enough to find one
/// operation per plane when pages are striped over the planes, without
/// walking a long queue at every dispatch.
#[inline]
pub(super) fn batch_scan(queue: usize, planes: usize) -> BatchScan {
    BatchScan { queues: [queue, 0, 0], n: 1, depth: planes * 2 }
}
