//! Flash operations in flight, in an arena reused across the run.

use crate::device::OpKind;
use crate::types::{Owner, Ppn, Token};

/// Priority class; lower runs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    HostRead = 0,
    HostWrite = 1,
    /// GC, replication, migration, parity upkeep.
    Background = 2,
    /// GC under `scheduler.gc_priority = "urgent"`: its own queue, served
    /// before the host's (with `background`, GC is `Background`).
    Gc = 3,
}

impl Class {
    /// A host read or write (what `DieState::host_occ` counts).
    #[inline]
    pub fn is_host(self) -> bool {
        matches!(self, Class::HostRead | Class::HostWrite)
    }
}

/// Bit flags of an operation.
pub mod flags {
    /// A read whose token is XORed into its group's result.
    pub const RESULT: u8 = 1;
    /// A program whose token is XORed with the group's result so far (GC
    /// copies the data it read; parity updates fold in old data and parity).
    pub const FROM_PREV: u8 = 2;
    /// A program whose data reaches its chip in the transfer of another
    /// program on the same channel (CR5M's interleaved mirroring write): it
    /// costs the channel its command only.
    pub const SHARED_DATA_IN: u8 = 4;
}

#[derive(Clone, Copy, Debug)]
pub struct FlashOp {
    pub kind: OpKind,
    pub class: Class,
    pub flags: u8,
    pub stage: u8,
    /// Read-retry steps this read needs (`[nand]` error model; else 0).
    pub retries: u8,
    /// NVMe priority class of its flow (`arbiter::PriorityClass as u8`, or
    /// `arbiter::MAPPING` for mapping work),
    /// read only under `scheduler.arbitration = "nvme_wrr"`.
    pub prio: u8,
    pub group: u32,
    pub die: u32,
    /// Page read or programmed; first page of the block for an erase.
    pub ppn: Ppn,
    /// Owner recorded with a programmed page (the scheme's meaning).
    pub owner: Owner,
    /// Program: the token written. Read: the token found (set on completion).
    pub token: Token,
    /// The scheme's own label, handed back on completion.
    pub tag: u32,
    pub txn: u32,
    /// The next operation of the same group, in stage order ([`NO_OP`] if
    /// none): a group's later stages wait here until their turn.
    pub next: u32,
    /// The next operation in its die's queue, while it waits there.
    pub qnext: u32,
    pub bus_ns: u32,
    pub array_ns: u32,
    /// A read's data-out or a program's data-in when it is not a whole
    /// page, in bytes (`scheduler.read_transfer = "requested"`,
    /// `write_transfer = "written"`); 0: the whole page.
    pub xfer_bytes: u32,
    /// How long before its completion the host was told this operation was
    /// done (a host program under transfer acknowledgement; else 0).
    pub early_ns: u32,
    /// The die had failed: no data came back.
    pub failed: bool,
}

/// No operation (end of a group's chain).
pub const NO_OP: u32 = u32::MAX;

/// Slab of operations with a free list.
#[derive(Debug, Default)]
pub struct OpSlab {
    ops: Vec<FlashOp>,
    free: Vec<u32>,
}

impl OpSlab {
    #[inline]
    pub fn insert(&mut self, op: FlashOp) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.ops[i as usize] = op;
                i
            }
            None => {
                self.ops.push(op);
                (self.ops.len() - 1) as u32
            }
        }
    }
    #[inline]
    pub fn get(&self, id: u32) -> &FlashOp {
        &self.ops[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut FlashOp {
        &mut self.ops[id as usize]
    }
    #[inline]
    pub fn remove(&mut self, id: u32) -> FlashOp {
        self.free.push(id);
        self.ops[id as usize]
    }
}
