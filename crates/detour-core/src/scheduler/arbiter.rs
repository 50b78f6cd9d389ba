//! `scheduler.arbitration = "nvme_wrr"`: NVMe priority classes (a flow's
//! `priority`) arbitrated per service unit the way MQSim's
//! PRIORITY_OUT_OF_ORDER transaction scheduling unit does.
//!
//! Where MQSim arbitrates: not when it fetches commands. Each submission
//! queue is fetched on its own as soon as its tail moves, up to
//! Queue_Fetch_Size commands in flight per queue
//! (Input_Stream_Manager_NVMe::Submission_queue_tail_pointer_update and
//! Handle_serviced_request, Host_Interface_NVMe.cpp); a command's class
//! only travels with its transactions (Request_Fetch_Unit_NVMe::
//! Process_pcie_read_message sets User_Request::Priority_class from the
//! stream). The TSU keeps one user read queue and one user write queue per
//! chip and class (TSU_Priority_OutOfOrder::Schedule) and, each time it
//! serves a chip, takes the class that `get_next_read_service_queue` /
//! `get_next_write_service_queue` (TSU_Priority_OutOfOrder.cpp) names:
//! - URGENT whenever its queue is non-empty (strict priority);
//! - else a pointer steps HIGH, MEDIUM, LOW, HIGH, ... Each step onto HIGH
//!   lowers a current weight by one (back to HIGH's weight when it reaches
//!   0); a class is served when its weight is at least the current weight
//!   and its queue is non-empty; after HIGH has been stepped onto
//!   weight(HIGH) times the search gives up. With the weights of
//!   IO_Flow_Priority_Class::get_scheduling_weight (4, 2, 1) saturated
//!   queues are served 4:2:1.
//!
//! Transactions without a class (the data cache's write-backs) join HIGH.
//! Mapping transactions (translation reads, and a dirty translation page's
//! write-back) have no class either: MQSim queues them apart
//! (`MappingReadTRQueue`, `MappingWriteTRQueue`) and
//! `TSU_Priority_OutOfOrder::service_read_transaction` serves the mapping
//! read queue before asking the rule for a class at all ("Flash
//! transactions that are related to FTL mapping data have the highest
//! priority"). Here they carry [`MAPPING`] and are served first, oldest
//! first. (That TSU's `service_write_transaction` never looks at its
//! mapping write queue, so there a translation write-back would wait for
//! ever; TSU_OutOfOrder serves it first, as here.)
//!
//! In Detour: each unit keeps its class-free queues; an operation carries
//! its flow's class (`FlashOp::prio`), and when the policy has picked a
//! host queue the arbiter replaces the pick by the first operation of the
//! class this rule names. Which classes are queued is counted per unit and
//! host queue (MQSim's per-class queue sizes), so the rule sees them all
//! however deep the queue; the walk to the chosen class's first operation
//! passes only operations of other classes. One rule state per unit and
//! host queue (reads, writes), as MQSim keeps one per chip for reads and
//! one for writes.
//!
//! Not modelled: when the search gives up with operations queued, MQSim's
//! chip waits for its next Schedule() call (any transaction arrival or
//! chip event); Detour searches once more at once (the state has moved, so
//! the second search finds a class). A multi-plane batch may take
//! operations of other classes (MQSim fills it from the picked class's
//! queue and the GC queue only). Background work keeps its own queue, as
//! before.

use super::ops::{OpSlab, NO_OP};
use super::policy::{Pick, Policy, Queues};

pub use crate::config::arbitration::{validate_weights, Arbitration, PriorityClass};

/// `FlashOp::prio` of a mapping transaction's operation: above every class.
pub(crate) const MAPPING: u8 = 4;

/// The rule's state of one queue of one unit: where the pointer stands and
/// the current weight (MQSim's nextPriorityClassRead / currentWeightRead).
#[derive(Clone, Copy, Debug)]
struct Wrr {
    next: u8,
    current: i64,
}

/// Per unit, the rule states of its host read and host write queues, and
/// how many operations of each class (and of mapping) each holds.
pub(super) struct Arbiter {
    /// Weights by class: URGENT's unused, then HIGH, MEDIUM, LOW.
    weights: [i64; 4],
    states: Vec<[Wrr; 2]>,
    queued: Vec<[[u32; 5]; 2]>,
}

impl Arbiter {
    /// For `units` service units; weights checked by `validate_weights`.
    pub(super) fn new(units: usize, w: [u32; 3]) -> Arbiter {
        let weights = [i64::MAX, w[0] as i64, w[1] as i64, w[2] as i64];
        // MQSim's constructor: pointer at URGENT, current weight HIGH's.
        let start = Wrr { next: 0, current: weights[1] };
        Arbiter { weights, states: vec![[start; 2]; units], queued: vec![[[0; 5]; 2]; units] }
    }

    /// An operation of class `prio` joined queue `queue` of `unit`.
    #[inline]
    pub(super) fn joined(&mut self, unit: usize, queue: usize, prio: u8) {
        if queue < 2 {
            self.queued[unit][queue][prio as usize] += 1;
        }
    }

    /// The operations of `batch` left their queues of `unit` to start.
    #[inline]
    pub(super) fn started(&mut self, unit: usize, batch: &[u32], ops: &OpSlab, policy: &Policy) {
        for &id in batch {
            let op = ops.get(id);
            let queue = policy.queue_of(op.class);
            if queue < 2 {
                self.queued[unit][queue][op.prio as usize] -= 1;
            }
        }
    }

    /// `unit` failed and its queues were emptied.
    pub(super) fn emptied(&mut self, unit: usize) {
        self.queued[unit] = [[0; 5]; 2];
    }

    /// What the unit serves next given which classes are queued: mapping
    /// work if any (the rule is still stepped, as MQSim asks it for the
    /// queue that may share the mapping read's command), else the rule's
    /// class; None when the search gives up (see the module's note).
    fn choose(&mut self, unit: usize, queue: usize, present: [bool; 5]) -> Option<u8> {
        let class = self.wrr(unit, queue, present);
        if present[MAPPING as usize] {
            return Some(MAPPING);
        }
        class
    }

    /// The class the rule serves next, advancing the state (MQSim's
    /// get_next_read_service_queue / get_next_write_service_queue).
    fn wrr(&mut self, unit: usize, queue: usize, present: [bool; 5]) -> Option<u8> {
        if present[0] {
            return Some(0);
        }
        let high = self.weights[1];
        let s = &mut self.states[unit][queue];
        let mut tries = 0;
        while tries < high {
            s.next = (s.next + 1) % 4;
            if s.next == 0 {
                s.next = 1;
            }
            if s.next == 1 {
                tries += 1;
                s.current -= 1;
                if s.current <= 0 {
                    s.current = high;
                }
            }
            if self.weights[s.next as usize] >= s.current && present[s.next as usize] {
                return Some(s.next);
            }
        }
        None
    }

    /// Replace the policy's `pick` from host queue 0 or 1 by the first
    /// operation of the class the rule serves; other picks stand.
    pub(super) fn arbitrate(&mut self, unit: usize, qs: &Queues, ops: &OpSlab, pick: Pick) -> Pick {
        if pick.queue > 1 {
            return pick;
        }
        debug_assert_eq!(qs[pick.queue].front(), Some(pick.id), "arbitration starts from a queue's head");
        let present = self.queued[unit][pick.queue].map(|n| n > 0);
        let class = self.choose(unit, pick.queue, present).or_else(|| self.choose(unit, pick.queue, present));
        let Some(class) = class else { return pick };
        let (mut prev, mut id) = (NO_OP, pick.id);
        while id != NO_OP {
            let op = ops.get(id);
            if op.prio == class {
                return Pick { queue: pick.queue, prev, id };
            }
            (prev, id) = (id, op.qnext);
        }
        debug_assert!(false, "class {class} counted in unit {unit}'s queue {} but not found", pick.queue);
        pick
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classes served from ever-full queues, hand-stepped through
    /// MQSim's loop: state (URGENT, 4); call 1: HIGH, current 3 -> HIGH;
    /// call 2: MEDIUM (2 >= 3? no), LOW (no), HIGH (current 2) -> HIGH;
    /// call 3: MEDIUM (2 >= 2) -> MEDIUM; call 4: LOW (1 >= 2? no), HIGH
    /// (current 1) -> HIGH; call 5: MEDIUM -> MEDIUM; call 6: LOW -> LOW;
    /// call 7: HIGH (current 0 -> 4) -> HIGH; call 8: MEDIUM (no), LOW (no),
    /// HIGH (3) -> HIGH.
    #[test]
    fn saturated_classes_follow_mqsims_loop() {
        let mut a = Arbiter::new(1, [4, 2, 1]);
        let all = [false, true, true, true, false];
        let got: Vec<u8> = (0..8).map(|_| a.choose(0, 0, all).unwrap()).collect();
        assert_eq!(got, vec![1, 1, 2, 1, 2, 3, 1, 1]);
        // Over a whole cycle the shares are the weights.
        let mut n = [0; 4];
        for _ in 0..7000 {
            n[a.choose(0, 0, all).unwrap() as usize] += 1;
        }
        assert_eq!(&n[1..], &[4000, 2000, 1000]);
    }

    #[test]
    fn urgent_first_and_a_lone_class_is_found() {
        let mut a = Arbiter::new(2, [4, 2, 1]);
        assert_eq!(a.choose(0, 0, [true, true, true, true, false]), Some(0));
        // LOW alone: found within the tries, or on the search after.
        for _ in 0..10 {
            let c = a.choose(1, 1, [false, false, false, true, false]).or_else(|| a.choose(1, 1, [false, false, false, true, false]));
            assert_eq!(c, Some(3));
        }
    }

    #[test]
    fn weights_are_checked_naming_the_key() {
        assert!(validate_weights(&[4, 2, 1]).is_ok());
        let e = validate_weights(&[1, 2, 1]).unwrap_err().to_string();
        assert!(e.contains("scheduler.wrr_weights"), "{e}");
        assert!(validate_weights(&[4, 2, 0]).is_err());
    }
}
