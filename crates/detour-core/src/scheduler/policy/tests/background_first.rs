//! `scheduler.order = "background-first"`: background work (GC, wear
//! levelling, buffer flushes) whenever any is queued, then `priority`'s
//! order.
//!
//! Why: a foil for `priority`, under which GC waits behind every host
//! operation; SSDSim serves pending GC first.

use super::{priority, Pick, Queues, Variant};
use crate::scheduler::ops::OpSlab;

pub(super) const ENTRY: Variant = Variant {
    name: "background-first",
    about: "background work before host reads and writes, otherwise as priority",
    queue_of: priority::queue_of,
    pick,
    batch_scan: priority::batch_scan,
};

/// The head of the background queue, else of the host queues in order;
/// with a program suspended, as `priority` (only a host read may run).
fn pick(qs: &Queues, ops: &OpSlab, suspended: bool) -> Option<Pick> {
    if suspended {
        return priority::pick(qs, ops, true);
    }
    [2, 0, 1].into_iter().find_map(|queue| Pick::head(qs, queue))
}
