//! SSDSim's update reads (`write_buffer.partial_write_back = "read_first"`,
//! `PartialWriteBack::ReadFirst`; issue 46, h43dyn).
//!
//! `allocate_location` (flash.c) looks at the map entry of every write
//! sub-request it places: when the entry's sectors (`state`, the OR of
//! every sector ever written to the page, or read of a page
//! `pre_process_page` placed) are not all in the sub-request's, it makes a
//! read sub-request of the old page, `size(map.state ^ sub->state)` sectors,
//! and queues it on the old page's channel read list (`subs_r`, with the
//! host's reads); the write is not dispatched until that read is complete
//! (`find_write_sub_request`, `dynamic_advanced_process`). Under static
//! allocation the write then also carries the sectors read
//! (`sub_req->state |= update->state`); under dynamic allocation only its own.
//!
//! Here the rule covers the sector buffer's write-backs (`plan_flush`):
//! before the scheme plans them, `decide` finds each page's update read
//! from SSDSim's entry sectors (`state`), and after the plan the read joins
//! the page's group as stage 0 (a host read, as SSDSim's shares `subs_r`),
//! the program moving to stage 1. The entry takes a write-back's sectors
//! when its program is dispatched (`get_ppn`, called at issue in both
//! allocation modes) if the scheduler reports dispatches (`ftl.read_merge
//! = "queued"`, which the ssdsim bundle sets), else when it is planned.
//! The old page read is the one Detour's map names when the write-back is
//! planned (Detour allocates then). The sizes are handed to `insert_op`
//! through `read_bytes` / `write_bytes`.

use super::buffer_run::sector_mask;
use super::txn::{HostIo, TxnKind};
use super::{is_placed, Simulation};
use crate::config::{Allocation, Config, ReadMerge, ReadTransfer, WriteTransfer};
use crate::device::OpKind;
use crate::error::{Error, Result};
use crate::scheduler::Class;
use crate::schemes::Plan;
use crate::types::{Lpn, Ppn, NO_PAGE};
use std::collections::{HashMap, VecDeque};

const SECTOR: u32 = 512;

/// One page's update read, decided before its write-back is planned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Update {
    pub lpn: Lpn,
    /// The old page, read before the write-back.
    pub old: Ppn,
    /// The sectors read: SSDSim's `map.state ^ sub->state`.
    pub read: u32,
    /// The sectors the write-back moves.
    pub write: u32,
}

/// SSDSim's map entry sectors of each page, and the sizes of the update
/// reads and write-backs being planned.
pub(super) struct UpdateReads {
    /// All of a page's sectors as a mask.
    full: u32,
    /// Static allocation: the write-back also carries the sectors read.
    merge: bool,
    /// Per page the rule has seen, SSDSim's `map_entry[lpn].state`; a page
    /// not here holds every sector if Detour maps it (placed whole before
    /// the run), none otherwise.
    state: HashMap<Lpn, u32>,
    /// Per page, the sectors of its write-backs planned and not yet
    /// dispatched, oldest first: `get_ppn` ORs them into the entry when the
    /// write is issued, so a write-back planned before then finds the entry
    /// without them. Used when the scheduler reports dispatches
    /// (`ftl.read_merge = "queued"`, the ssdsim bundle's); else the entry
    /// moves when the write-back is planned.
    pending: Option<HashMap<Lpn, VecDeque<u32>>>,
    /// Per page being planned, its update read's bytes and its
    /// write-back's (0: a whole page), taken by `insert_op`.
    read_bytes: HashMap<Lpn, u32>,
    write_bytes: HashMap<Lpn, u32>,
    /// Update reads made (SSDSim's "update read count").
    pub count: u64,
}

impl UpdateReads {
    /// The rule's state when `write_buffer.partial_write_back =
    /// "read_first"` applies (a sector buffer under `evict`); it reads the
    /// shared map, so a scheme with its own is refused.
    pub(super) fn of(cfg: &Config, buffered: bool, shared_map: bool) -> Result<Option<Box<UpdateReads>>> {
        if !buffered || !cfg.write_buffer.update_reads() {
            return Ok(None);
        }
        if !shared_map {
            let why = format!("\"read_first\" reads the page a write-back's LPN maps to, and scheme {} keeps its own map", cfg.scheme.name);
            return Err(Error::config("write_buffer.partial_write_back", why));
        }
        let static_allocation = cfg.ftl.allocation == Allocation::Static;
        let at_dispatch = cfg.ftl.read_merge == ReadMerge::Queued;
        Ok(Some(Box::new(UpdateReads::new(cfg.device.page_size, static_allocation, at_dispatch))))
    }

    pub(super) fn new(page_size: u32, static_allocation: bool, at_dispatch: bool) -> UpdateReads {
        let n = (page_size / SECTOR).clamp(1, 32);
        let full = if n == 32 { u32::MAX } else { (1 << n) - 1 };
        UpdateReads {
            full,
            merge: static_allocation,
            state: HashMap::new(),
            pending: at_dispatch.then(HashMap::new),
            read_bytes: HashMap::new(),
            write_bytes: HashMap::new(),
            count: 0,
        }
    }

    /// SSDSim's entry sectors of `lpn`, which Detour maps or not (`mapped`).
    fn state_of(&self, lpn: Lpn, mapped: bool) -> u32 {
        self.state.get(&lpn).copied().unwrap_or(if mapped { self.full } else { 0 })
    }

    /// The update read a write-back of sectors `s` of `lpn` needs, if any;
    /// `old` is the page Detour's map names (NO_PAGE: unmapped).
    pub(super) fn decide(&self, lpn: Lpn, old: Ppn, s: u32) -> Option<Update> {
        let entry = self.state_of(lpn, old != NO_PAGE);
        if entry == 0 || s & entry == entry {
            return None;
        }
        let read = (entry ^ s) & self.full;
        let write = if self.merge { s | read } else { s };
        Some(Update { lpn, old, read, write })
    }

    /// A write-back of sectors `s` of `lpn` (which Detour mapped before it:
    /// `mapped`) is planned: its sectors join the entry now, or when it is
    /// dispatched (`dispatched`).
    pub(super) fn planned(&mut self, lpn: Lpn, mapped: bool, s: u32) {
        let entry = self.state_of(lpn, mapped);
        self.state.insert(lpn, entry);
        match self.pending.as_mut() {
            Some(p) => p.entry(lpn).or_default().push_back(s),
            None => self.written(lpn, s),
        }
    }

    /// A program of `lpn` was dispatched: its oldest pending write-back's
    /// sectors join the entry (`get_ppn`: `map.state |= sub->state`).
    pub(super) fn dispatched(&mut self, lpn: Lpn) {
        let Some(q) = self.pending.as_mut().and_then(|p| p.get_mut(&lpn)) else { return };
        let s = q.pop_front();
        if q.is_empty() {
            self.pending.as_mut().map(|p| p.remove(&lpn));
        }
        if let Some(s) = s {
            self.written(lpn, s);
        }
    }

    fn written(&mut self, lpn: Lpn, s: u32) {
        *self.state.entry(lpn).or_default() |= s;
    }

    /// A read of sectors `s` placed `lpn` (`placed`) or found it placed,
    /// before the run (`pre_process_page`: `state = set_entry_state(..)`
    /// for an empty entry, else `state |= ..`; a page placed whole keeps
    /// every sector).
    pub(super) fn read_placed(&mut self, lpn: Lpn, placed: bool, s: u32) {
        if placed {
            self.state.insert(lpn, s);
        } else if let Some(e) = self.state.get_mut(&lpn) {
            *e |= s;
        }
    }

    /// Record the transfer sizes of `u`'s read and write-back for `insert_op`.
    fn note_sizes(&mut self, u: &Update) {
        let bytes = |m: u32| if m == self.full { 0 } else { m.count_ones() * SECTOR };
        self.read_bytes.insert(u.lpn, bytes(u.read));
        self.write_bytes.insert(u.lpn, bytes(u.write));
        self.count += 1;
    }

    /// The bytes the update read of `lpn` moves, once (None: no update read).
    pub(super) fn take_read_bytes(&mut self, lpn: Lpn) -> Option<u32> {
        self.read_bytes.remove(&lpn)
    }

    /// The bytes the write-back of `lpn` after its update read moves, once.
    pub(super) fn take_write_bytes(&mut self, lpn: Lpn) -> Option<u32> {
        self.write_bytes.remove(&lpn)
    }
}

impl Simulation {
    /// The bytes operation `kind` of flush `t` on `lpn` moves when it is an
    /// update read or the write-back after one (else `bytes`, as sized).
    #[cold]
    pub(super) fn update_sized(&mut self, t: u32, lpn: Lpn, kind: OpKind, bytes: u32) -> u32 {
        let flush = matches!(self.txns.get(t).kind, TxnKind::Flush { .. });
        let (Some(u), true) = (self.updates.as_mut(), flush) else { return bytes };
        let s = &self.cfg.scheduler;
        match kind {
            OpKind::Read => u.take_read_bytes(lpn).filter(|_| s.read_transfer == ReadTransfer::Requested).unwrap_or(bytes),
            OpKind::Program => u.take_write_bytes(lpn).filter(|_| s.write_transfer == WriteTransfer::Written).unwrap_or(bytes),
            OpKind::Erase => bytes,
        }
    }

    /// Each page of the write-back of `lpns`, decided before it is planned
    /// (the plan remaps the pages): whether it was mapped, the sectors
    /// written back, and its update read if it needs one. Empty unless the
    /// rule is on.
    pub(super) fn decide_update_reads(&self, lpns: std::ops::Range<Lpn>) -> Vec<Pending> {
        let (Some(u), Some(b)) = (self.updates.as_ref(), self.wbuf.as_ref()) else { return Vec::new() };
        lpns.map(|lpn| {
            let (old, s) = (self.ftl.map.get(lpn), b.evicted_sectors(lpn).unwrap_or(u.full));
            Pending { lpn, mapped: old != NO_PAGE, sectors: s, update: u.decide(lpn, old, s) }
        })
        .collect()
    }

    /// `place_unwritten` for a read before the run, noting under the rule
    /// the sectors it reads of each page (`pre_process_page`, pagemap.c).
    pub(super) fn place_read_before_run(&mut self, io: &HostIo) -> Option<Lpn> {
        let lpns = io.lpn..io.lpn + io.pages;
        if self.updates.is_none() {
            return self.place_unwritten(lpns);
        }
        let was: Vec<bool> = lpns.clone().map(|l| is_placed(&self.placed, l)).collect();
        let refused = self.place_unwritten(lpns.clone());
        let ps = self.cfg.device.page_size;
        for (i, lpn) in lpns.enumerate() {
            let now = is_placed(&self.placed, lpn);
            if let Some(u) = self.updates.as_mut().filter(|_| now) {
                u.read_placed(lpn, !was[i], sector_mask(io, i as u32, ps));
            }
        }
        refused
    }

    /// Put each planned page's update read in its group as stage 0, its
    /// program after it, and record what the flash now holds of the pages
    /// the plan writes back (a page a stall left unplanned is decided again
    /// when it is planned).
    pub(super) fn add_update_reads(&mut self, plan: &mut Plan, pending: &[Pending]) {
        let Some(u) = self.updates.as_mut() else { return };
        for p in pending {
            let Some(group) = plan.ops.iter().map(|op| op.group).find(|&g| plan.groups[g as usize].lpn == p.lpn) else { continue };
            u.planned(p.lpn, p.mapped, p.sectors);
            let Some(x) = p.update else { continue };
            for op in plan.ops.iter_mut().filter(|op| op.group == group) {
                op.stage += 1;
            }
            // SSDSim queues it on the channel's read list with the host's reads
            plan.read_only(group, 0, x.old, Class::HostRead, 0);
            u.note_sizes(&x);
        }
    }
}

/// A page of a write-back being planned (`decide_update_reads`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    lpn: Lpn,
    mapped: bool,
    sectors: u32,
    update: Option<Update>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_read_takes_the_sectors_the_entry_and_the_write_back_do_not_share() {
        // 2 KiB pages of 4 sectors (SSDSim's example): a page Detour placed
        // whole, written back with sectors 0-1, reads 2-3 first
        let mut u = UpdateReads::new(2048, false, false);
        assert_eq!(u.decide(7, 100, 0b0011), Some(Update { lpn: 7, old: 100, read: 0b1100, write: 0b0011 }));
        // a whole write-back, or a page never mapped, reads nothing
        assert_eq!(u.decide(7, 100, 0b1111), None);
        assert_eq!(u.decide(7, NO_PAGE, 0b0011), None);
        // a page pre_process_page placed for a read of sectors 0-1: the
        // write-back of 2-3 reads map.state ^ sub->state, all four sectors
        u.read_placed(7, true, 0b0011);
        assert_eq!(u.decide(7, 100, 0b1100).map(|x| x.read), Some(0b1111));
        // ... and one of sector 0 alone covers none of 1: it reads sector 1
        assert_eq!(u.decide(7, 100, 0b0001).map(|x| x.read), Some(0b0010));
        // a write-back of sectors 0-1 covers the entry: nothing to read
        assert_eq!(u.decide(7, 100, 0b0011), None);
        // once 2-3 are written the page is whole again
        u.planned(7, true, 0b1100);
        assert_eq!(u.decide(7, 100, 0b0011).map(|x| x.read), Some(0b1100));
        // a page first written with sector 3 holds only that one
        u.planned(9, false, 0b1000);
        assert_eq!(u.decide(9, 200, 0b0001).map(|x| x.read), Some(0b1001));
        // static allocation: the write-back carries the sectors read too
        let s = UpdateReads::new(2048, true, false);
        assert_eq!(s.decide(7, 100, 0b0011).map(|x| x.write), Some(0b1111));
    }

    #[test]
    fn the_entry_takes_a_write_backs_sectors_when_it_is_dispatched() {
        // get_ppn ORs a write's sectors into the entry when it is issued: a
        // page's first write-back (sector 0), planned and not dispatched,
        // leaves the entry empty, so a second (sector 1) reads nothing
        let mut u = UpdateReads::new(2048, false, true);
        u.planned(3, false, 0b0001);
        assert_eq!(u.decide(3, 100, 0b0010), None);
        u.planned(3, true, 0b0010);
        // the first is issued: the entry holds sector 0, a third write-back
        // of sector 1 reads sector 0 ^ 1
        u.dispatched(3);
        assert_eq!(u.decide(3, 100, 0b0010).map(|x| x.read), Some(0b0011));
        u.dispatched(3);
        assert_eq!(u.decide(3, 100, 0b0011), None);
    }
}
