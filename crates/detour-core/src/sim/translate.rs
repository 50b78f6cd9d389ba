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
//! request does not wait for; the old copy is invalidated at once. Under
//! `ftl.cmt_write_back = "hold"` (MQSim's) an entry cache's write-back is
//! its merge read alone and the page stays in the controller for good.
//!
//! A host read of a page never written dirties its entry: placing the page
//! changes the map (MQSim: `online_create_entry_for_reads`).
//!
//! Translation reads are host reads to `metrics.collisions` (they queue
//! on a die as one).
//!
//! **Entries** (`ftl.cmt_granularity = "entry"`, ftl/mapping/entry.rs,
//! MQSim's CMT): one read per translation page of a request's missed
//! entries, and a dirty eviction's write-back reads the old copy before
//! programming the new (a read-modify-write).
//!
//! **How MQSim differs:** it parks each flash transaction, not the
//! request, until its entry arrives; an entry still being written back is
//! found in flight there as here (no read).

use super::txn::TxnKind;
use super::Simulation;
use crate::error::Result;
use crate::scheduler::Class;
use crate::types::{Owner, NO_PAGE};
use std::collections::HashMap;

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
        // A read that finds its page never written places it, which
        // changes its entry as a write would: MQSim's read of an unmapped
        // LPA (`online_create_entry_for_reads`) ends in
        // `Update_mapping_info`, which marks the CMT entry dirty.
        let map = &self.ftl.map;
        self.ftl.mapping.lookup(lpn, pages, |l| write || map.get(l) == NO_PAGE, &mut lookups);
        let mut plan = std::mem::take(&mut self.scratch.plan);
        plan.clear();
        // An entry cache reports each entry with its translation page, a
        // page's entries in a row: one read serves every entry of a page
        // that missed (MQSim's later transactions of the request find the
        // page in `ArrivingMappingEntries` and wait for that read).
        let (mut read, merge) = (u32::MAX, self.ftl.mapping.by_entry());
        let mut waits = 0;
        for &(tvpn, a) in &lookups {
            if let Some(dirty) = a.write_back {
                self.write_back(dirty)?;
            }
            if !a.hit && tvpn != read {
                read = tvpn;
                if merge && self.map_reads.wait(tvpn, t) {
                    waits += 1;
                } else if self.plan_translation_read(tvpn, lpn, &mut plan) && merge {
                    self.map_reads.start(tvpn, t);
                }
            }
        }
        self.scratch.lookups = lookups;
        let reading = !plan.is_empty() || waits > 0;
        if reading {
            let txn = self.txns.get_mut(t);
            (txn.map_phase, txn.map_waits) = (true, waits);
            if plan.is_empty() {
                // Nothing of its own in flight: held as if an event were
                // pending, so `after_plan` does not end it (`release_waiters`).
                txn.scheduled = true;
            } else {
                self.materialize(t, &plan, false)?;
            }
        }
        self.scratch.plan = plan;
        Ok(reading)
    }

    /// Read translation page `tvpn` in the host's read class, unless its
    /// latest copy is still being written back (the controller has it).
    /// True if a read was planned.
    fn plan_translation_read(&mut self, tvpn: u32, lpn: u32, plan: &mut crate::schemes::Plan) -> bool {
        let Some(ppn) = self.ftl.translation_read(tvpn) else { return false };
        let g = plan.group(lpn, false);
        plan.read_only(g, 0, ppn, Class::HostRead, 0);
        true
    }

    /// Program evicted dirty translation page `tvpn` to a new page, in a
    /// transaction no request waits for, at host-write priority: at
    /// background priority it would wait behind every host operation, and
    /// the misses meanwhile, finding it in the controller, would read
    /// nothing (MQSim, too, queues mapping writes ahead of user writes).
    /// With no free page anywhere it stays where it was.
    ///
    /// An entry cache holds only some of the page's entries: the old copy is
    /// read first to merge the rest, then the page is programmed (MQSim's
    /// `generate_flash_writeback_request_for_mapping_data` submits the
    /// read and a write whose `RelatedRead` it is). The old copy is read
    /// only if programmed (not itself still being written back), in the
    /// host's read class as other translation reads (MQSim queues both in
    /// `MappingReadTRQueue`, served first among reads).
    fn write_back(&mut self, tvpn: u32) -> Result<()> {
        let merge = self.ftl.translation_merge_read(tvpn);
        let ppn = self.ftl.write_back_translation(tvpn);
        // No request waits for a translation page's room: a refusal must
        // not become a stall's blocker (sim/park.rs keeps 2 bits of stream).
        self.ftl.clear_refusals();
        // A held write-back (`ftl.cmt_write_back = "hold"`) still reads.
        let held = self.ftl.holds_translation_writes();
        if ppn.is_none() && !(held && merge.is_some()) {
            return Ok(());
        }
        let mut plan = std::mem::take(&mut self.scratch.scratch_plan);
        plan.clear();
        let g = plan.group(tvpn, false);
        if let Some(old) = merge {
            plan.read_only(g, 0, old, Class::HostRead, 0);
        }
        if let Some(ppn) = ppn {
            plan.program(g, merge.is_some() as u8, ppn, Owner::id(tvpn), 0, Class::HostWrite, 0);
        }
        let t = self.txns.alloc(TxnKind::MapWrite);
        self.materialize(t, &plan, true)?;
        self.scratch.scratch_plan = plan;
        Ok(())
    }

    /// The translation reads of transaction `t` have ended: keep their
    /// bus and array time for the breakdown and plan the data.
    pub(super) fn translation_done(&mut self, t: u32) -> Result<()> {
        self.release_waiters(t)?;
        let txn = self.txns.get_mut(t);
        if txn.map_waits > 0 {
            // Its own reads are done; another's is not.
            return Ok(());
        }
        txn.map_phase = false;
        (txn.map_bus_ns, txn.map_array_ns) = (txn.bus_ns, txn.array_ns);
        (txn.bus_ns, txn.array_ns) = (0, 0);
        match txn.kind {
            TxnKind::Flush { .. } => self.plan_flush(t, 0),
            _ => self.plan_host(t, 0, true),
        }
    }

    /// `t`'s translation reads have ended: the transactions that waited for
    /// them go on, each once its own reads (if any) have ended too.
    fn release_waiters(&mut self, t: u32) -> Result<()> {
        let Some(waiters) = self.map_reads.end(t) else { return Ok(()) };
        for w in waiters {
            let txn = self.txns.get_mut(w);
            txn.map_waits -= 1;
            if txn.map_waits == 0 && txn.open_groups == 0 {
                txn.scheduled = false;
                self.translation_done(w)?;
            }
        }
        Ok(())
    }
}

/// Translation reads in flight, for an entry cache: MQSim reads a
/// translation page once for every miss on it that arrives while the read
/// is in flight (`request_mapping_entry` finds the page in
/// `ArrivingMappingEntries`, reserves the entry and parks the transaction;
/// `handle_transaction_serviced_signal_from_PHY` inserts every waiting
/// entry when the read ends). Here the waiting transaction goes on when
/// every translation read of the one that issued the read has ended.
#[derive(Default)]
pub(super) struct MapReads {
    /// Translation page -> the transaction reading it.
    reading: HashMap<u32, u32>,
    /// Reading transaction -> (its pages, the transactions waiting for it).
    owners: HashMap<u32, (Vec<u32>, Vec<u32>)>,
}

impl MapReads {
    /// `t` reads `tvpn`.
    fn start(&mut self, tvpn: u32, t: u32) {
        self.reading.insert(tvpn, t);
        self.owners.entry(t).or_default().0.push(tvpn);
    }

    /// If `tvpn` is being read by another transaction, `t` waits for it.
    fn wait(&mut self, tvpn: u32, t: u32) -> bool {
        match self.reading.get(&tvpn) {
            Some(&o) if o != t => {
                self.owners.entry(o).or_default().1.push(t);
                true
            }
            _ => false,
        }
    }

    /// `t`'s reads have ended: forget them; who waited.
    fn end(&mut self, t: u32) -> Option<Vec<u32>> {
        let (pages, waiters) = self.owners.remove(&t)?;
        for p in pages {
            self.reading.remove(&p);
        }
        Some(waiters)
    }
}
