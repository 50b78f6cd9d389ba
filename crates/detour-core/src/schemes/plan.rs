//! A plan: the flash operations one request (or one piece of background
//! work) needs, in groups of stages.
//!
//! A group is an independent chain (one page's read; one stripe's
//! read-modify-write); its stage k+1 starts when all of its stage-k
//! operations have finished. Groups run in parallel. Each group may carry an
//! expected token: the XOR of the tokens its RESULT reads return must equal
//! it (a plain read returns the page; a reconstruction XORs the survivors
//! and the parity), which verify mode checks.

use crate::device::OpKind;
use crate::scheduler::{flags, Class};
use crate::types::{Lpn, Owner, Ppn, Token};

#[derive(Clone, Copy, Debug)]
pub struct PlannedOp {
    pub group: u32,
    pub stage: u8,
    pub kind: OpKind,
    pub class: Class,
    pub flags: u8,
    pub ppn: Ppn,
    pub owner: Owner,
    pub token: Token,
    pub tag: u32,
}

impl PlannedOp {
    /// Its place in execution order: by group, then stage (one integer, so
    /// checking a plan's order costs one compare per operation).
    #[inline]
    pub fn order(&self) -> u64 {
        (self.group as u64) << 8 | self.stage as u64
    }
}

#[derive(Clone, Copy, Debug)]
pub struct GroupSpec {
    pub lpn: Lpn,
    /// Verify the group's result against the LPN's latest token.
    pub check: bool,
    /// The token to verify against, when fixed before the group starts:
    /// the simulator sets it for background plans submitted while a host
    /// write was planned, which read the data as it was before that write.
    pub expect: Option<Token>,
}

#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub ops: Vec<PlannedOp>,
    pub groups: Vec<GroupSpec>,
    /// Time on the request path before any flash operation (e.g. hashing).
    pub delay_ns: u64,
    /// Pages served from the controller's write buffer (no flash read).
    pub buffered: u32,
    /// Pages of a read that no copy or stripe holds any more (a failed
    /// unit): the request completes with an error, out of the latency
    /// figures, and is counted in the summary's `lost_requests`.
    pub lost: u32,
}

impl Plan {
    pub fn clear(&mut self) {
        self.ops.clear();
        self.groups.clear();
        self.delay_ns = 0;
        self.buffered = 0;
        self.lost = 0;
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Open a group; `check` asks verify mode to compare its result with the
    /// latest token of `lpn`.
    pub fn group(&mut self, lpn: Lpn, check: bool) -> u32 {
        self.groups.push(GroupSpec { lpn, check, expect: None });
        (self.groups.len() - 1) as u32
    }

    #[allow(clippy::too_many_arguments)] // one field each; callers use the named helpers below
    fn push(&mut self, group: u32, stage: u8, kind: OpKind, class: Class, flags: u8, ppn: Ppn, owner: Owner, token: Token, tag: u32) {
        self.ops.push(PlannedOp { group, stage, kind, class, flags, ppn, owner, token, tag });
    }

    /// A read whose data is (part of) the group's result.
    pub fn read(&mut self, group: u32, stage: u8, ppn: Ppn, class: Class, tag: u32) {
        self.push(group, stage, OpKind::Read, class, flags::RESULT, ppn, Owner::NONE, 0, tag);
    }

    /// A read whose data is not part of any result (e.g. a probe).
    pub fn read_only(&mut self, group: u32, stage: u8, ppn: Ppn, class: Class, tag: u32) {
        self.push(group, stage, OpKind::Read, class, 0, ppn, Owner::NONE, 0, tag);
    }

    /// Program `token` into `ppn` (already allocated) for `owner`.
    #[allow(clippy::too_many_arguments)]
    pub fn program(&mut self, group: u32, stage: u8, ppn: Ppn, owner: Owner, token: Token, class: Class, tag: u32) {
        self.push(group, stage, OpKind::Program, class, 0, ppn, owner, token, tag);
    }

    /// Program the XOR of the group's results so far with `token` (a copy of
    /// data read earlier in the group when `token` is 0; a parity update
    /// otherwise).
    #[allow(clippy::too_many_arguments)]
    pub fn program_from_prev(&mut self, group: u32, stage: u8, ppn: Ppn, owner: Owner, token: Token, class: Class, tag: u32) {
        self.push(group, stage, OpKind::Program, class, flags::FROM_PREV, ppn, owner, token, tag);
    }

    /// `program`, for a copy whose data comes with another program's
    /// transfer on the same channel (see [`flags::SHARED_DATA_IN`]).
    #[allow(clippy::too_many_arguments)]
    pub fn program_shared(&mut self, group: u32, stage: u8, ppn: Ppn, owner: Owner, token: Token, class: Class, tag: u32) {
        self.push(group, stage, OpKind::Program, class, flags::SHARED_DATA_IN, ppn, owner, token, tag);
    }

    /// Erase the block whose first page is `first_ppn`.
    pub fn erase(&mut self, group: u32, stage: u8, first_ppn: Ppn, class: Class, tag: u32) {
        self.push(group, stage, OpKind::Erase, class, 0, first_ppn, Owner::NONE, 0, tag);
    }
}
