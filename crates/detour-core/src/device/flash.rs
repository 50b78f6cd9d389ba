//! Per-die and per-channel state. A die runs one array operation at a time
//! (a multi-plane batch counts as one); a channel carries one transfer at a
//! time. The scheduler moves these through their phases.

use super::{OpKind, MAX_PLANES};
use crate::types::Time;

/// Where a die is in executing its current batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Nothing running (a suspended program may be parked).
    Idle,
    /// Moving commands and data in, then running the array operation (tR,
    /// tPROG, tBERS) from `array_start` to `array_end`.
    Array,
    /// Moving a read's data out (or waiting for the channel to do so).
    Transfer,
    /// A program/erase is being suspended for a read.
    Suspending,
}

/// A program or erase parked while reads run.
#[derive(Clone, Copy, Debug)]
pub struct Suspended {
    pub kind: OpKind,
    pub batch: [u32; MAX_PLANES],
    pub n: u8,
    /// Array time left when it was parked.
    pub remaining: Time,
    /// With a chip as the unit: the reads run on another die of the chip
    /// while this operation goes on (MQSim's die-interleaved read), so it
    /// ends at `end` unless they outlast it; nothing is suspended.
    pub beside: bool,
    /// When the operation ends if it goes on (read only `beside`).
    pub end: Time,
    pub suspends: u32,
    pub bus_ns: Time,
    pub array_ns: Time,
}

#[derive(Clone, Debug)]
pub struct DieState {
    pub phase: Phase,
    pub kind: OpKind,
    /// The pending bus phase is a read's data-out (after the array phase).
    pub data_out: bool,
    pub batch: [u32; MAX_PLANES],
    pub n: u8,
    pub array_end: Time,
    /// When the array operation starts (after its command/data-in transfer).
    pub array_start: Time,
    /// Bumped on suspension so the cancelled ArrayDone is ignored.
    pub gen: u32,
    /// Suspensions the running program/erase has had.
    pub suspends: u32,
    pub suspended: Option<Suspended>,
    /// Outstanding commands: queued plus running operations.
    pub occ: u32,
    /// Of `occ`, the host's reads and programs: a chip's request queue as
    /// RR-SSD's Fig. 2 counts it, without GC's or a scheme's background work.
    pub host_occ: u32,
    pub failed: bool,
    /// Time spent running batches (bus and array), for utilisation.
    pub busy_ns: Time,
    pub batch_start: Time,
    /// Bus and array time of the current batch, handed to its operations
    /// when it finishes.
    pub bus_ns: Time,
    pub array_ns: Time,
}

impl Default for DieState {
    fn default() -> Self {
        DieState {
            phase: Phase::Idle,
            kind: OpKind::Read,
            data_out: false,
            batch: [0; MAX_PLANES],
            n: 0,
            array_end: 0,
            array_start: 0,
            gen: 0,
            suspends: 0,
            suspended: None,
            occ: 0,
            host_occ: 0,
            failed: false,
            busy_ns: 0,
            batch_start: 0,
            bus_ns: 0,
            array_ns: 0,
        }
    }
}

impl DieState {
    /// Busy with (or holding a suspended) program or erase: a read arriving
    /// now is blocked by a write unless it can suspend it.
    #[inline]
    pub fn writing(&self) -> bool {
        self.suspended.is_some() || (self.phase != Phase::Idle && self.kind != OpKind::Read)
    }
    #[inline]
    pub fn idle(&self) -> bool {
        self.phase == Phase::Idle && self.suspended.is_none()
    }
}

#[derive(Clone, Debug, Default)]
pub struct ChannelState {
    /// The channel carries transfers until this time; a die asking for it
    /// gets it then (first come, first served).
    pub busy_until: Time,
    pub busy_ns: Time,
}
