//! Translation on a host request's path, with a cached mapping table
//! (`ftl.mapping = "cmt"` or another cache of ftl/mapping/).
//!
//! **Where it hooks in:** when a host request is admitted, before the
//! scheme plans it. Its LPNs' translation pages are looked up; the pages
//! that missed are read from flash (on the die holding each one's latest
//! copy) as the first phase of the request's own transaction, and only
//! when those reads have ended does the scheme plan the data, as it would
//! have at admission. So every scheme pays for the lookup of the host's
//! LPNs without knowing of it, and the copies a scheme keeps on other dies
//! (replicas, mirrors, parity) cost no lookup of their own. Planning after
//! the translation, rather than adding a stage to each group of a plan
//! made at admission, is also what a controller does: it cannot choose a
//! copy, nor invalidate the old page, before it knows where they are.
//!
//! With a DRAM write buffer, a host write's pages go into the buffer with
//! no lookup; its flushes look them up (as writes) before the scheme plans
//! them, as a host write would. A host read looks up all its pages, those
//! the buffer serves too.
//!
//! **Write-backs:** a miss that evicts a dirty translation page writes it
//! back at host-write priority, as a transaction of its own that the
//! request does not wait for; the old copy is invalidated at once.
//!
//! Translation reads are host reads to `metrics.collisions` (they queue
//! on a die as one).
//!
//! **How MQSim differs:** its CMT caches single entries (Detour: whole
//! translation pages) and parks each flash transaction, not the request,
//! until its entry arrives; an entry still being written back is found in
//! flight there as here (no read).

use super::txn::TxnKind;
use super::Simulation;
use crate::error::Result;
use crate::scheduler::Class;
use crate::types::Owner;

impl Simulation {
    /// Look up the translation pages of host or flush transaction `t`. True if some must
    /// be read from flash: their reads are started, and the data is planned
    /// when they end (`translation_done`). False: plan the data now.
    pub(super) fn translate(&mut self, t: u32) -> Result<bool> {
        let txn = self.txns.get(t);
        let (lpn, pages, write) = match txn.kind {
            TxnKind::Flush { lpn, pages } => (lpn, pages, true),
            _ => (txn.io.lpn, txn.io.pages, txn.io.write),
        };
        let mut lookups = std::mem::take(&mut self.scratch.lookups);
        lookups.clear();
        self.ftl.mapping.lookup(lpn, pages, write, &mut lookups);
        let mut plan = std::mem::take(&mut self.scratch.plan);
        plan.clear();
        for &(tvpn, a) in &lookups {
            if let Some(dirty) = a.write_back {
                self.write_back(dirty)?;
            }
            if !a.hit {
                self.plan_translation_read(tvpn, lpn, &mut plan);
            }
        }
        self.scratch.lookups = lookups;
        let reading = !plan.is_empty();
        if reading {
            self.txns.get_mut(t).map_phase = true;
            self.materialize(t, &plan, false)?;
        }
        self.scratch.plan = plan;
        Ok(reading)
    }

    /// Read translation page `tvpn` in the host's read class, unless its
    /// latest copy is still being written back (the controller has it).
    fn plan_translation_read(&mut self, tvpn: u32, lpn: u32, plan: &mut crate::schemes::Plan) {
        if let Some(ppn) = self.ftl.translation_read(tvpn) {
            let g = plan.group(lpn, false);
            plan.read_only(g, 0, ppn, Class::HostRead, 0);
        }
    }

    /// Program evicted dirty translation page `tvpn` to a new page, in a
    /// transaction no request waits for, at host-write priority: at
    /// background priority it would wait behind every host operation, and
    /// the misses meanwhile, finding it in the controller, would read
    /// nothing (MQSim, too, queues mapping writes ahead of user writes).
    /// With no free page anywhere it stays where it was.
    fn write_back(&mut self, tvpn: u32) -> Result<()> {
        let ppn = self.ftl.write_back_translation(tvpn);
        // No request waits for a translation page's room: a refusal must
        // not become a stall's blocker (sim/park.rs keeps 2 bits of stream).
        self.ftl.clear_refusals();
        let Some(ppn) = ppn else { return Ok(()) };
        let mut plan = std::mem::take(&mut self.scratch.scratch_plan);
        plan.clear();
        let g = plan.group(tvpn, false);
        plan.program(g, 0, ppn, Owner::id(tvpn), 0, Class::HostWrite, 0);
        let t = self.txns.alloc(TxnKind::MapWrite);
        self.materialize(t, &plan, true)?;
        self.scratch.scratch_plan = plan;
        Ok(())
    }

    /// The translation reads of transaction `t` have ended: keep their
    /// bus and array time for the breakdown and plan the data.
    pub(super) fn translation_done(&mut self, t: u32) -> Result<()> {
        let txn = self.txns.get_mut(t);
        txn.map_phase = false;
        (txn.map_bus_ns, txn.map_array_ns) = (txn.bus_ns, txn.array_ns);
        (txn.bus_ns, txn.array_ns) = (0, 0);
        match txn.kind {
            TxnKind::Flush { .. } => self.plan_flush(t, 0),
            _ => self.plan_host(t, 0, true),
        }
    }
}
