//! `scheduler.order = "out-of-order"`: MQSim's out-of-order transaction
//! scheduling unit (TSU_OutofOrder) in Detour's terms.
//!
//! What: the queues and their priority order are `priority`'s, but a unit
//! is not bound to a queue's head:
//! - with a program or erase suspended, the first *read* of the first queue
//!   that has one runs (MQSim lets user and GC reads in), where `priority`
//!   and `fcfs` resume the program as soon as a non-read heads the read
//!   queue (always under `fcfs`, or with `read_priority` off);
//! - a multi-plane batch is filled from every queue of the unit (same kind,
//!   same die, free planes), each up to [`DEPTH`] deep: a GC program joins a
//!   host program on another plane, and an operation far down a long queue
//!   joins the head's batch, where `priority` looks only into the head's
//!   queue, twice the plane count deep.
//!
//! Why: the die's planes then serve whatever is ready for them instead of
//! idling behind the queue order; this is the scheduler MQSim's example
//! configuration uses.
//!
//! How it differs from MQSim: MQSim keeps per-chip queues per source (user,
//! GC, mapping), serves a chip's dies in turn within one command slot,
//! requires multi-plane members to share a page address, and lets urgent
//! GC go first. Detour's unit is the die (or the chip with
//! `scheduler.unit = "chip"`), keeps its three class queues, places no
//! page-address constraint on a batch (as for `priority`), and bounds the
//! scan so a dispatch costs O(`DEPTH`) on a saturated die.
//!
//! References: Tavakkol et al., "MQSim: A Framework for Enabling Realistic
//! Studies of Modern Multi-Queue SSD Devices", FAST 2018.

use super::{priority, BatchScan, Pick, Queues, Variant};
use crate::device::OpKind;
use crate::scheduler::ops::{OpSlab, NO_OP};

pub(super) const ENTRY: Variant = Variant {
    name: "out-of-order",
    about: "priority's queues, but a read may pass a queued write while a program is suspended and batches fill from every queue (MQSim's out-of-order TSU)",
    queue_of: priority::queue_of,
    pick,
    batch_scan,
};

/// Operations looked at per queue when picking a read past a suspended
/// program or filling a batch: enough for any plane count (at most
/// `MAX_PLANES`) with room to skip others' pages, and a bound on the cost
/// of a dispatch when thousands wait.
pub(super) const DEPTH: usize = 64;

/// The head of the first non-empty queue; with a program or erase
/// suspended, the first read of the first queue holding one within
/// [`DEPTH`].
#[inline]
fn pick(qs: &Queues, ops: &OpSlab, suspended: bool) -> Option<Pick> {
    if !suspended {
        return (0..3).find_map(|i| Pick::head(qs, i));
    }
    (0..3).find_map(|queue| first_read(qs, ops, queue))
}

fn first_read(qs: &Queues, ops: &OpSlab, queue: usize) -> Option<Pick> {
    let (mut prev, mut id) = (NO_OP, qs[queue].front()?);
    for _ in 0..DEPTH {
        let op = ops.get(id);
        if op.kind == OpKind::Read {
            return Some(Pick { queue, prev, id });
        }
        (prev, id) = (id, op.qnext);
        if id == NO_OP {
            break;
        }
    }
    None
}

/// The picked operation's queue first, then the others in priority order.
#[inline]
fn batch_scan(queue: usize, _planes: usize) -> BatchScan {
    let queues = match queue {
        0 => [0, 1, 2],
        1 => [1, 0, 2],
        _ => [2, 0, 1],
    };
    BatchScan { queues, n: 3, depth: DEPTH }
}
