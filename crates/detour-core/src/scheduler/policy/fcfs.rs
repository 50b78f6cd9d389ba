//! `scheduler.order = "fcfs"`: one first-come-first-served queue for every
//! class (DiskSim's package queue): a read waits behind every write and GC
//! operation queued before it. Picking and batching are `priority`'s on
//! that one queue.
//!
//! Why: the peers that serve in arrival order, and the M/G/1 reference
//! (Pollaczek-Khinchine, tests/queueing.rs).

use super::{priority, Variant};
use crate::scheduler::ops::Class;

pub(super) const ENTRY: Variant = Variant {
    name: "fcfs",
    about: "one first-come-first-served queue for every class (DiskSim's package queue)",
    queue_of,
    pick: priority::pick,
    batch_scan: priority::batch_scan,
};

fn queue_of(_class: Class, _read_priority: bool) -> usize {
    0
}
