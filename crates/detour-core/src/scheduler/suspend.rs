//! Program/erase suspension (`scheduler.suspend_us`, `resume_us`,
//! `max_suspends`): a host read that finds its die programming or erasing
//! parks the op, runs first, and the op resumes with its remaining time.

use super::Scheduler;
use crate::device::{OpKind, Phase, Suspended};
use crate::engine::{Event, EventQueue};
use crate::types::Time;

impl Scheduler {
    pub(super) fn can_suspend(&self, die: usize, now: Time) -> bool {
        let d = self.dies.at(die);
        self.cfg.suspension
            && d.phase == Phase::Array
            && d.array_start <= now
            && d.kind != OpKind::Read
            && d.suspended.is_none()
            && d.suspends < self.cfg.max_suspends
            && d.array_end.saturating_sub(now) >= self.timing.suspend_min_remaining
    }

    /// Park the unit's program or erase for a read: suspended (it stops
    /// after `suspend` ns and waits), or, for a read on another die of a
    /// chip unit, `beside` it (it goes on; the read starts at once).
    pub(super) fn suspend(&mut self, die: usize, beside: bool, q: &mut EventQueue) {
        let d = self.dies.at(die);
        let s = Suspended {
            kind: d.kind,
            batch: d.batch,
            n: d.n,
            remaining: d.array_end.saturating_sub(q.now()),
            beside,
            end: d.array_end,
            suspends: d.suspends + u32::from(!beside),
            bus_ns: d.bus_ns,
            array_ns: d.array_ns,
        };
        self.park(die, s, q);
    }

    /// Park `s` on the unit (its running operation's ArrayDone goes stale)
    /// and let the reads in: at once beside it, after `suspend` ns otherwise.
    pub(super) fn park(&mut self, die: usize, s: Suspended, q: &mut EventQueue) {
        let after = if s.beside {
            0
        } else {
            self.counts.at_mut(self.ops.get(s.batch[0]).die as usize).suspensions += 1;
            self.timing.suspend
        };
        let d = self.dies.at_mut(die);
        d.suspended = Some(s);
        d.gen = d.gen.wrapping_add(1);
        d.phase = Phase::Suspending;
        let gen = d.gen;
        q.post_after(after, Event::SuspendDone { die: die as u32, gen });
    }

    /// A read picked for the very die whose program runs `beside` the
    /// chip's reads: that program is suspended after all (from now, with
    /// what it has left), and the read waits for the suspension.
    pub(super) fn suspend_beside(&mut self, die: usize, head: u32, q: &mut EventQueue) -> bool {
        let now = q.now();
        let d = self.dies.at(die);
        let Some(s) = d.suspended else { return false };
        let op = self.ops.get(head);
        if !s.beside || s.end <= now || op.kind != OpKind::Read || op.die != self.ops.get(s.batch[0]).die {
            return false;
        }
        self.park(die, Suspended { beside: false, remaining: s.end - now, suspends: s.suspends + 1, ..s }, q);
        true
    }

    pub fn on_suspend_done(&mut self, die: u32, gen: u32, q: &mut EventQueue) {
        let die = self.checked(die);
        let d = self.dies.at_mut(die);
        if d.gen != gen || d.phase != Phase::Suspending {
            return;
        }
        d.phase = Phase::Idle;
        self.dispatch(die, q)
    }

    pub(super) fn resume(&mut self, die: usize, q: &mut EventQueue) {
        let d = self.dies.at_mut(die);
        let Some(s) = d.suspended.take() else { return };
        d.kind = s.kind;
        d.batch = s.batch;
        d.n = s.n;
        d.suspends = s.suspends;
        d.bus_ns = s.bus_ns;
        d.array_ns = s.array_ns;
        d.phase = Phase::Array;
        d.array_end = if s.beside { s.end.max(q.now()) } else { q.now() + self.timing.resume + s.remaining };
        let (gen, end) = (d.gen, d.array_end);
        q.post(end, Event::ArrayDone { die: die as u32, gen });
    }
}
