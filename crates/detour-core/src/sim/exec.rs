//! Running plans: turning a plan into a transaction, launching each group's
//! stages on the dies, and handling finished operations.

use super::txn::{GroupState, TxnKind};
use super::{Simulation, VerifyFailure};
use crate::config::{GcPriority, ReadTransfer, WriteTransfer};
use crate::device::OpKind;
use crate::engine::Event;
use crate::error::Result;
use crate::scheduler::{flags, Class, FlashOp, NO_OP};
use crate::schemes::{Ctx, OpDone, Plan, PlannedOp, Scheme};
use crate::types::Lpn;

/// The group index of an operation that is its group's only one (see
/// `launch_solo`).
const SOLO: u32 = u32::MAX;

/// A planning context borrowing only the simulation's fields it needs, so
/// the scheme and other fields (a scratch plan) can be borrowed beside it.
macro_rules! planning_ctx {
    ($sim:expr) => {
        $crate::schemes::Ctx {
            now: $sim.q.now(),
            geo: &$sim.geo,
            load: $sim.sched.view(),
            ftl: &mut $sim.ftl,
            rng: &mut $sim.rng,
            background: &mut $sim.scratch.bg,
        }
    };
}
pub(super) use planning_ctx;

impl Simulation {
    /// Run `f` with the scheme and a planning context.
    pub(super) fn with_ctx<R>(&mut self, f: impl FnOnce(&mut dyn Scheme, &mut Ctx) -> R) -> R {
        let mut ctx = planning_ctx!(self);
        f(self.scheme.as_mut(), &mut ctx)
    }

    /// Append `plan` to transaction `t` and start it (after its delay, the
    /// first time a host request is planned). Every operation goes into the
    /// scheduler's arena now, chained behind the one before it in its group
    /// (in stage order), and stays that one record until it completes; a
    /// group's first stage is submitted as it is chained.
    pub(super) fn materialize(&mut self, t: u32, plan: &Plan, first: bool) -> Result<()> {
        // Its pages are queued below and count in the load from now on.
        self.ftl.plans_submitted();
        if self.solo && self.launch_solo(t, plan, first) {
            return Ok(());
        }
        let txn = self.txns.get_mut(t);
        let base_group = txn.groups.len() as u32;
        txn.buffered += plan.buffered;
        txn.lost += plan.lost;
        // A host read must see the host's latest write; anything else
        // copies what the flash holds.
        let host = matches!(txn.kind, TxnKind::Host { .. });
        for g in &plan.groups {
            let expect = match (&self.oracle, g.check) {
                (Some(o), true) => g.expect.unwrap_or_else(|| if host { o.host(g.lpn) } else { o.flash(g.lpn) }),
                _ => 0,
            };
            txn.groups.push(GroupState { lpn: g.lpn, check: g.check, expect, ..GroupState::default() });
        }
        // Groups the scheme opened without operations are done at once.
        let delayed = first && plan.delay_ns > 0;
        if delayed {
            txn.delay_ns = plan.delay_ns;
            txn.scheduled = true;
        }
        // While a transaction is in its delay, TxnStart launches everything.
        let launch = !txn.scheduled;
        if plan.ops.is_sorted_by_key(PlannedOp::order) {
            for p in &plan.ops {
                self.chain(t, base_group, p, launch);
            }
        } else {
            let mut order = std::mem::take(&mut self.scratch.ids);
            order.clear();
            order.extend(0..plan.ops.len() as u32);
            order.sort_by_key(|&i| plan.ops[i as usize].order());
            for &i in &order {
                self.chain(t, base_group, &plan.ops[i as usize], launch);
            }
            self.scratch.ids = order;
        }
        if delayed {
            return self.q.after(plan.delay_ns, Event::TxnStart(t));
        }
        Ok(())
    }

    /// Launch a plan whose every group is one operation of stage 0 without
    /// keeping group records: with no verify mode, collision count or
    /// completion callback, nothing reads them, and a lone operation's
    /// group is done when it is (its op carries [`SOLO`] instead of a group
    /// index). False, having done nothing, when the plan does not qualify.
    fn launch_solo(&mut self, t: u32, plan: &Plan, first: bool) -> bool {
        let txn = self.txns.get_mut(t);
        let n = plan.ops.len();
        if txn.scheduled || (first && plan.delay_ns > 0) || n != plan.groups.len() {
            return false;
        }
        if !plan.ops.iter().enumerate().all(|(i, p)| p.order() == (i as u64) << 8) {
            return false;
        }
        txn.buffered += plan.buffered;
        txn.lost += plan.lost;
        txn.open_groups += n as u32;
        for p in &plan.ops {
            let id = self.insert_op(t, SOLO, plan.groups[p.group as usize].lpn, p);
            self.sched.submit(id, &mut self.q);
        }
        true
    }

    /// Put planned operation `p` into the scheduler's arena as an operation
    /// of group `group` of `t`, pinning the block it reads.
    #[inline(always)]
    fn insert_op(&mut self, t: u32, group: u32, lpn: Lpn, p: &PlannedOp) -> u32 {
        let mut retries = 0;
        let mut xfer_bytes = 0;
        if p.kind == OpKind::Program && self.cfg.scheduler.write_transfer == WriteTransfer::Written {
            xfer_bytes = self.written_bytes(t, lpn);
        }
        if p.kind == OpKind::Read {
            if self.cfg.scheduler.read_transfer == ReadTransfer::Requested {
                xfer_bytes = self.read_bytes(t, lpn);
            }
            self.ftl.pin(p.ppn);
            if self.ftl.nand.is_some() {
                retries = self.ftl.read_retries(p.ppn, self.q.now());
            }
        }
        if self.updates.is_some() {
            xfer_bytes = self.update_sized(t, lpn, p.kind, xfer_bytes);
        }
        let prio = if self.sched.arbitrates() { self.priority_of(t) } else { 0 };
        let op = FlashOp {
            kind: p.kind,
            class: p.class,
            flags: p.flags,
            stage: p.stage,
            retries,
            prio,
            group,
            die: self.geo.die_of(p.ppn),
            ppn: p.ppn,
            owner: p.owner,
            token: p.token,
            tag: p.tag,
            txn: t,
            next: NO_OP,
            qnext: NO_OP,
            bus_ns: 0,
            array_ns: 0,
            xfer_bytes,
            early_ns: 0,
            failed: false,
        };
        let id = self.sched.ops.insert(op);
        if let (Some(q), OpKind::Read, Class::HostRead) = (self.ftl.queued_reads.as_mut(), p.kind, p.class) {
            q.queued(id, lpn);
        }
        id
    }

    /// The bytes a read of page `lpn` for transaction `t` moves under
    /// `scheduler.read_transfer = "requested"` (MQSim's sizing, see
    /// [`ReadTransfer`]): one sector for a translation-page read; for a
    /// host read, the part of the page its request covers, rounded out to
    /// whole sectors; 0 (the whole page) for anything else.
    #[cold]
    fn read_bytes(&self, t: u32, lpn: Lpn) -> u32 {
        const SECTOR: u64 = 512;
        let txn = self.txns.get(t);
        if txn.map_phase {
            return SECTOR as u32;
        }
        if !matches!(txn.kind, TxnKind::Host { .. }) || txn.io.write {
            return 0;
        }
        self.covered_bytes(t, lpn)
    }

    /// The part of page `lpn` that transaction `t`'s host request covers,
    /// rounded out to whole sectors; 0 when it covers the whole page or
    /// the page is not one of the request's.
    fn covered_bytes(&self, t: u32, lpn: Lpn) -> u32 {
        let io = &self.txns.get(t).io;
        let ps = self.cfg.device.page_size;
        // The request's pages are io.lpn.. in order (folding wraps them
        // together); this page's place among them.
        let i = lpn.wrapping_sub(io.lpn);
        let (lo, hi) = io.page_sectors(i, ps);
        let bytes = hi.saturating_sub(lo) * 512;
        if bytes == 0 || bytes >= ps as u64 {
            return 0;
        }
        bytes as u32
    }

    /// The bytes a program of page `lpn` for transaction `t` moves under
    /// `scheduler.write_transfer = "written"` (MQSim's sizing, see
    /// [`WriteTransfer`]): for a host write the part of the page its
    /// request covers, for a buffer's write-back the sectors the buffer
    /// holds of it, in whole sectors; 0 (the whole page) for anything else.
    #[cold]
    fn written_bytes(&self, t: u32, lpn: Lpn) -> u32 {
        let txn = self.txns.get(t);
        if txn.map_phase {
            return 0;
        }
        match txn.kind {
            TxnKind::Flush { .. } => self.wbuf.as_ref().map_or(0, |b| b.written_bytes(lpn)),
            TxnKind::Host { .. } if txn.io.write => self.covered_bytes(t, lpn),
            _ => 0,
        }
    }

    /// The NVMe priority class of transaction `t`'s operations: its
    /// request's flow's (arbiter.rs); HIGH for the run's own workload and
    /// for work of no request; mapping work (translation reads, which
    /// `translate` plans while `map_phase` holds, and translation
    /// write-backs) above every class.
    #[cold]
    fn priority_of(&self, t: u32) -> u8 {
        let txn = self.txns.get(t);
        if txn.map_phase || matches!(txn.kind, TxnKind::MapWrite) {
            return crate::scheduler::arbiter::MAPPING;
        }
        let stream = if matches!(txn.kind, TxnKind::Host { .. }) { txn.io.stream } else { 0 };
        self.closed.as_ref().map_or(crate::scheduler::arbiter::PriorityClass::High as u8, |c| c.priority(stream))
    }

    /// Put planned operation `p` into the arena behind the group's last one,
    /// and submit it at once if `launch` and it belongs to the group's first
    /// stage.
    #[inline(always)]
    fn chain(&mut self, t: u32, base_group: u32, p: &PlannedOp, launch: bool) {
        let group = base_group + p.group;
        let lpn = self.txns.get(t).groups[group as usize].lpn;
        let id = self.insert_op(t, group, lpn, p);
        let txn = self.txns.get_mut(t);
        let grp = &mut txn.groups[group as usize];
        let mut submit = false;
        if grp.tail == NO_OP {
            txn.open_groups += 1;
            // A first stage needs no FROM_PREV fold: nothing has run yet.
            if launch {
                (grp.stage, grp.pending, submit) = (p.stage, 1, true);
            } else {
                grp.head = id;
            }
        } else {
            self.sched.ops.get_mut(grp.tail).next = id;
            // head is NO_OP while every operation so far has been submitted.
            if grp.head == NO_OP {
                if launch && p.stage == grp.stage {
                    grp.pending += 1;
                    submit = true;
                } else {
                    grp.head = id;
                }
            }
        }
        grp.tail = id;
        if submit {
            let lpn = grp.lpn;
            self.submit_op(id, lpn);
        }
    }

    /// A transaction's delay is over: launch every group's first stage.
    pub(super) fn launch_all(&mut self, t: u32) -> Result<()> {
        let txn = self.txns.get_mut(t);
        txn.scheduled = false;
        // A buffered write's data has crossed the host link.
        if matches!(txn.kind, TxnKind::Host { .. }) && txn.io.write && self.wbuf.is_some() {
            return self.plan_buffered_write(t, 0);
        }
        for g in 0..self.txns.get(t).groups.len() {
            self.launch_stage(t, g);
        }
        self.after_plan(t)
    }

    /// Submit the next stage of group `g` of transaction `t`.
    fn launch_stage(&mut self, t: u32, g: usize) {
        let grp = &self.txns.get(t).groups[g];
        let (mut id, acc, lpn) = (grp.head, grp.acc, grp.lpn);
        if id == NO_OP {
            return;
        }
        let stage = self.sched.ops.get(id).stage;
        let mut n = 0;
        while id != NO_OP {
            let op = self.sched.ops.get_mut(id);
            if op.stage != stage {
                break;
            }
            if op.flags & flags::FROM_PREV != 0 {
                op.token ^= acc;
            }
            let next = op.next;
            self.submit_op(id, lpn);
            id = next;
            n += 1;
        }
        let grp = &mut self.txns.get_mut(t).groups[g];
        grp.head = id;
        grp.stage = stage;
        grp.pending = n;
    }

    /// Queue operation `id` (of a group reading `lpn`) on its die.
    #[inline]
    fn submit_op(&mut self, id: u32, lpn: Lpn) {
        let op = self.sched.ops.get(id);
        if op.kind == OpKind::Program {
            self.ftl.program_issued(op.ppn, op.token);
        }
        self.sched.submit(id, &mut self.q);
        if let Some(c) = self.coll.as_mut() {
            let op = self.sched.ops.get(id);
            if op.kind == OpKind::Read && op.class == Class::HostRead && !op.failed {
                c.on_read_enqueued(self.q.now(), op.die, id, lpn, self.sched.dies());
            }
        }
    }

    /// Handle every operation the scheduler finished.
    ///
    /// Under `scheduler.gc_priority = "urgent"` what the finished operations
    /// start (a GC move's program after its read, the victim's erase after
    /// its last move) is queued before an idle unit picks again, as in
    /// MQSim, whose PHY broadcasts the transaction serviced (the GC unit
    /// submits the GC write or erase and calls `Schedule`) before the chip
    /// idle signal (NVM_PHY_ONFI_NVDDR2::handle_ready_signal_from_chip);
    /// otherwise a host operation would slip in between GC's steps.
    pub(super) fn drain_done(&mut self) -> Result<()> {
        let successors_first = self.cfg.scheduler.gc_priority == GcPriority::Urgent;
        loop {
            if !successors_first || self.sched.done.is_empty() {
                self.sched.kick(&mut self.q);
            }
            // Pages skipped to pull planes level (plane_pairing = "level")
            // are wasted before anything is planned again.
            if self.sched.has_skipped() {
                self.sched.take_skipped(&mut self.scratch.skipped);
                for &(plane, n) in &self.scratch.skipped {
                    self.ftl.skip_pages(plane, n);
                }
            }
            // Programs issued: SSDSim's reads of their LPNs read the new
            // pages from now on (read_merge = "queued").
            if self.sched.has_started() {
                self.sched.take_started(&mut self.scratch.started);
                if let Some(q) = self.ftl.queued_reads.as_mut() {
                    self.scratch.started.iter().for_each(|&lpn| q.dispatched(lpn));
                }
                if let Some(u) = self.updates.as_mut() {
                    self.scratch.started.iter().for_each(|&lpn| u.dispatched(lpn));
                }
            }
            if self.sched.done.is_empty() {
                return Ok(());
            }
            std::mem::swap(&mut self.scratch.done, &mut self.sched.done);
            // Every read of a finished batch leaves the collision count
            // before any completion can admit a new read (as the dies' OCC).
            if let Some(c) = self.coll.as_mut() {
                for &id in &self.scratch.done {
                    let op = self.sched.ops.get(id);
                    if op.kind == OpKind::Read && op.class == Class::HostRead {
                        c.on_read_done(self.q.now(), op.die, id);
                    }
                }
            }
            for k in 0..self.scratch.done.len() {
                let id = self.scratch.done[k];
                self.complete_op(id)?;
            }
            self.scratch.done.clear();
        }
    }

    fn complete_op(&mut self, id: u32) -> Result<()> {
        let mut op = self.sched.ops.remove(id);
        let t = op.txn;
        // An operation acknowledged early (a host program under transfer
        // acknowledgement) moves its request's end; the others of such a
        // request (its pre-reads) finished before its programs started.
        if op.early_ns > 0 {
            let txn = self.txns.get_mut(t);
            txn.ack_at = txn.ack_at.max(self.q.now() - op.early_ns as u64);
            txn.early = true;
        }
        let kind = self.txns.get(t).kind;
        match op.kind {
            OpKind::Read => {
                op.token = if op.failed { 0 } else { self.ftl.token(op.ppn) };
                if let Some(q) = self.ftl.queued_reads.as_mut() {
                    q.done(id);
                }
                if self.ftl.unpin(op.ppn) {
                    self.issue_erase(self.geo.block_of(op.ppn))?;
                }
                if op.retries > 0 {
                    self.read_retried(t, op.retries)?;
                }
            }
            OpKind::Program => {
                let token = if op.failed { 0 } else { op.token };
                if self.ftl.nand.is_some() {
                    self.ftl.programmed_at(op.ppn, self.q.now());
                }
                if self.ftl.program_done(op.ppn, token) {
                    self.issue_erase(self.geo.block_of(op.ppn))?;
                }
                if let TxnKind::GcMoves { .. } = kind {
                    self.finish_move(op.tag, op.ppn, op.owner);
                }
            }
            OpKind::Erase => self.erase_done(self.geo.block_of(op.ppn))?,
        }
        if op.group == SOLO {
            self.group_done(t, op.bus_ns as u64, op.array_ns as u64)?;
        } else {
            self.grouped_op_done(t, kind, &op)?;
        }
        // A plane whose victims were all pinned gets another try once
        // operations (and their pins) go away.
        if !self.gc_blocked.is_empty() {
            self.start_wanted_gc()?;
        }
        Ok(())
    }

    /// A read of transaction `t` took `retries` read-retry steps: count
    /// them, and refresh the blocks that crossed `nand.refresh_steps`.
    /// Cold and out of line: the error model is off by default, and
    /// inlined here it made every completion's frame bigger
    /// (docs/benchmarks-log.md, thirty-second session).
    #[cold]
    #[inline(never)]
    fn read_retried(&mut self, t: u32, retries: u8) -> Result<()> {
        self.txns.get_mut(t).retry_steps += retries as u32;
        if self.ftl.refresh_pending() {
            self.refresh()?;
        }
        Ok(())
    }

    /// Fold a finished operation into its group: its result, its stage's
    /// pending count and critical path, and the scheme's completion callback.
    fn grouped_op_done(&mut self, t: u32, kind: TxnKind, op: &FlashOp) -> Result<()> {
        let g = op.group as usize;
        let grp = &mut self.txns.get_mut(t).groups[g];
        let lpn = grp.lpn;
        if op.flags & flags::RESULT != 0 {
            grp.acc ^= op.token;
        }
        grp.pending -= 1;
        let stage_done = grp.pending == 0;
        if stage_done {
            grp.bus_ns += op.bus_ns as u64;
            grp.array_ns += op.array_ns as u64;
        }
        // Translation reads are the simulator's, not the scheme's.
        let scheme_op = matches!(kind, TxnKind::Host { .. } | TxnKind::Background | TxnKind::Flush { .. });
        if self.completions && scheme_op && !self.txns.get(t).map_phase {
            let done = OpDone {
                kind: op.kind,
                class: op.class,
                ppn: op.ppn,
                owner: op.owner,
                token: op.token,
                tag: op.tag,
                lpn,
                host: matches!(kind, TxnKind::Host { .. } | TxnKind::Flush { .. }),
                failed: op.failed,
            };
            self.with_ctx(|s, ctx| s.on_complete(&done, ctx));
            self.start_background()?;
        }
        if stage_done {
            self.stage_done(t, g)?;
        }
        Ok(())
    }

    fn stage_done(&mut self, t: u32, g: usize) -> Result<()> {
        let grp = self.txns.get(t).groups[g];
        if grp.head != NO_OP {
            self.launch_stage(t, g);
            return Ok(());
        }
        if grp.check && self.oracle.is_some() && grp.acc != grp.expect {
            self.n.verify_errors += 1;
            if self.failures.len() < 16 {
                let f = VerifyFailure { time_ns: self.q.now(), lpn: grp.lpn, expected: grp.expect, got: grp.acc };
                self.failures.push(f);
            }
        }
        self.group_done(t, grp.bus_ns, grp.array_ns)
    }

    /// A group of `t` is done (for a [`SOLO`] operation, when it is), with
    /// this bus and array time on its critical path; the transaction ends
    /// with its last group.
    fn group_done(&mut self, t: u32, bus_ns: u64, array_ns: u64) -> Result<()> {
        let txn = self.txns.get_mut(t);
        txn.open_groups -= 1;
        txn.bus_ns = bus_ns;
        txn.array_ns = array_ns;
        if txn.open_groups == 0 && !txn.stalled && !txn.scheduled {
            return self.finish_txn(t);
        }
        Ok(())
    }

    /// If `t` has nothing in flight and nothing left to plan, end it (after
    /// the write-buffer read time when it was served from the buffer).
    pub(super) fn after_plan(&mut self, t: u32) -> Result<()> {
        let txn = self.txns.get_mut(t);
        if txn.open_groups == 0 && !txn.stalled && !txn.scheduled {
            txn.scheduled = true;
            let buffered = txn.buffered;
            let wait = if buffered > 0 { self.buffer_access_ns(t, buffered) } else { 0 };
            self.q.after(wait, Event::TxnFinish(t))?;
        }
        self.start_background()?;
        self.start_wanted_gc()
    }

    pub(super) fn finish_txn(&mut self, t: u32) -> Result<()> {
        match self.txns.get(t).kind {
            TxnKind::Host { .. } => {
                if self.txns.get(t).map_phase {
                    return self.translation_done(t);
                }
                if self.send_to_host(t)? {
                    return Ok(());
                }
                self.finish_host(t)?
            }
            TxnKind::GcMoves { block } => {
                if self.ftl.victim_moved(block) {
                    self.issue_erase(block)?;
                }
            }
            TxnKind::Flush { .. } if self.txns.get(t).map_phase => return self.translation_done(t),
            TxnKind::Flush { lpn, pages } => {
                let txn = self.txns.get(t);
                let in_at = if txn.early { txn.ack_at } else { self.q.now() };
                self.txns.release(t);
                return self.flush_done(lpn..lpn + pages, t, in_at);
            }
            TxnKind::Erase { .. } | TxnKind::Background | TxnKind::MapWrite => {}
        }
        self.txns.release(t);
        Ok(())
    }
}
