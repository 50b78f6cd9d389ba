//! Transactions: one host request's plan, or one piece of background work,
//! while its operations are in flight. Groups advance stage by stage; a
//! transaction ends when all its groups have.

use super::park::ParkState;
use crate::scheduler::NO_OP;
use crate::types::{Lpn, Token};

/// A host request as the host interface split it into pages.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostIo {
    pub req: u64,
    pub arrival: u64,
    /// Where its latency starts: its arrival, or with `host.latency_from =
    /// "submission_queue"` its entry into the submission queue (`host.rs`).
    pub start: u64,
    pub offset: u64,
    pub size: u32,
    pub lpn: Lpn,
    pub pages: u32,
    pub write: bool,
    /// A discard (TRIM): applied when admitted, never planned (`trim.rs`).
    pub discard: bool,
    pub content: u64,
    /// First unique-token sequence number (writes without content).
    pub seq: u64,
    /// Where it came from: 0 the run's workload, `s + 1` closed-loop
    /// stream `s` (`closed.rs`).
    pub stream: u16,
}

impl HostIo {
    /// The 512-byte sectors of its page `i` that the request covers, as a
    /// half-open range of the page's sector indices: all of them but in a
    /// first or last page the request covers in part. Empty when `i` is
    /// not one of its pages. (MQSim's `write_sectors_bitmap` of the page's
    /// transaction, SSDSim's sub-request `state`.)
    pub fn page_sectors(&self, i: u32, page_size: u32) -> (u64, u64) {
        const SECTOR: u64 = 512;
        if i >= self.pages {
            return (0, 0);
        }
        let ps = page_size as u64;
        // The request's bytes within page i, counted from the page's start.
        let start = self.offset % ps;
        let lo = if i == 0 { start } else { 0 };
        let hi = (start + self.size as u64).saturating_sub(i as u64 * ps).min(ps);
        (lo / SECTOR, hi.div_ceil(SECTOR))
    }
}

/// What a transaction is for; decides what happens when it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnKind {
    /// A host request (its arrival index, see `RequestLog`).
    Host { req: u64 },
    /// Moving the live pages out of a GC victim block.
    GcMoves { block: u32 },
    /// Erasing a block after GC.
    Erase { block: u32 },
    /// Work a scheme submitted (replication, migration, reclaim).
    Background,
    /// Dirty translation pages the cached mapping table evicted, written back.
    MapWrite,
    /// The write buffer flushing pages `lpn..lpn + pages` (planned as the
    /// scheme plans a host write of them, with the data the buffer holds).
    Flush { lpn: Lpn, pages: u32 },
}

#[derive(Clone, Copy, Debug)]
pub struct GroupState {
    pub lpn: Lpn,
    pub check: bool,
    pub expect: Token,
    /// XOR of the tokens of the group's finished RESULT reads.
    pub acc: Token,
    pub stage: u8,
    pub pending: u32,
    /// First operation of the next stage to launch, and the group's last
    /// operation (its chain in the scheduler's arena; NO_OP when empty).
    pub head: u32,
    pub tail: u32,
    /// Bus and array time along the group's critical path.
    pub bus_ns: u64,
    pub array_ns: u64,
}

impl Default for GroupState {
    fn default() -> Self {
        GroupState { lpn: 0, check: false, expect: 0, acc: 0, stage: 0, pending: 0, head: NO_OP, tail: NO_OP, bus_ns: 0, array_ns: 0 }
    }
}

#[derive(Debug)]
pub struct Txn {
    pub kind: TxnKind,
    pub groups: Vec<GroupState>,
    pub open_groups: u32,
    /// Part of the request still waits for a free page (see `Stall`).
    pub stalled: bool,
    /// A TxnStart or TxnFinish event is pending.
    pub scheduled: bool,
    /// Pages served from the write buffer.
    pub buffered: u32,
    /// Pages the scheme found lost (`Plan::lost`).
    pub lost: u32,
    /// Breakdown of the group that finished last.
    pub bus_ns: u64,
    pub array_ns: u64,
    pub delay_ns: u64,
    /// When the host was (or will be) told the last finished operation was
    /// done; before its completion for programs acknowledged at transfer.
    pub ack_at: u64,
    /// Some operation was acknowledged before it completed: the request
    /// ends at `ack_at`, not when its last operation does.
    pub early: bool,
    /// A read's data has been sent over the host link (`host.link_gbps`).
    pub sent: bool,
    /// Its translation reads are in flight: when they end, the scheme
    /// plans the data (sim/translate.rs).
    pub map_phase: bool,
    /// Bus and array time of the translation reads, on the critical path
    /// before the data's.
    pub map_bus_ns: u64,
    pub map_array_ns: u64,
    /// Translation reads of other transactions it waits for
    /// (sim/translate.rs, `MapReads`).
    pub map_waits: u32,
    /// Read-retry steps of its flash reads (`[nand]`).
    pub retry_steps: u32,
    /// Its place among the transactions waiting for a free page.
    pub park: ParkState,
    pub io: HostIo,
}

impl Txn {
    fn empty() -> Txn {
        Txn {
            kind: TxnKind::Background,
            groups: Vec::new(),
            open_groups: 0,
            stalled: false,
            scheduled: false,
            buffered: 0,
            lost: 0,
            bus_ns: 0,
            array_ns: 0,
            delay_ns: 0,
            ack_at: 0,
            early: false,
            sent: false,
            map_phase: false,
            map_bus_ns: 0,
            map_array_ns: 0,
            map_waits: 0,
            retry_steps: 0,
            park: ParkState::default(),
            io: HostIo::default(),
        }
    }
}

/// Arena of transactions; slots and their vectors are reused, so a warm
/// simulation does not allocate per request.
#[derive(Default)]
pub struct Txns {
    slots: Vec<Txn>,
    free: Vec<u32>,
}

impl Txns {
    pub fn alloc(&mut self, kind: TxnKind) -> u32 {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.slots.push(Txn::empty());
                (self.slots.len() - 1) as u32
            }
        };
        let t = &mut self.slots[id as usize];
        t.kind = kind;
        t.groups.clear();
        t.open_groups = 0;
        t.stalled = false;
        t.scheduled = false;
        t.buffered = 0;
        t.lost = 0;
        t.bus_ns = 0;
        t.array_ns = 0;
        t.delay_ns = 0;
        t.ack_at = 0;
        t.early = false;
        t.sent = false;
        t.map_phase = false;
        t.map_bus_ns = 0;
        t.map_array_ns = 0;
        t.map_waits = 0;
        t.retry_steps = 0;
        t.park.order = 0;
        t.park.id = 0;
        t.park.blockers.clear();
        t.park.lpn = None;
        id
    }

    pub fn release(&mut self, id: u32) {
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: u32) -> &Txn {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Txn {
        &mut self.slots[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::HostIo;

    #[test]
    fn page_sectors_cover_the_request_within_each_page() {
        // 6 KiB from byte 1 KiB on 4 KiB pages: sectors 2..8 of the first
        // page, 0..6 of the second (the request ends 3 KiB into it).
        let io = HostIo { offset: 1024, size: 6144, pages: 2, ..HostIo::default() };
        assert_eq!(io.page_sectors(0, 4096), (2, 8));
        assert_eq!(io.page_sectors(1, 4096), (0, 6));
        assert_eq!(io.page_sectors(2, 4096), (0, 0), "not one of its pages");
        // an end inside a sector rounds out to the whole sector
        let io = HostIo { offset: 100, size: 500, pages: 1, ..HostIo::default() };
        assert_eq!(io.page_sectors(0, 4096), (0, 2));
    }
}
