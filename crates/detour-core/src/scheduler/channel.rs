//! The peers' channel orders (`scheduler.channel_order`).
//!
//! SSDSim (`"reads_first"`) decides who uses a channel only when the
//! channel is idle: `process()` (flash.c) visits each idle channel and
//! first tries `services_2_r_wait` (send the command of the channel's
//! oldest waiting read whose chip is idle), then, if that issued nothing,
//! `services_2_r_data_trans` (move out the data of a chip whose read is
//! done, lowest chip first), and only if neither used the channel
//! `services_2_write` (with static allocation, the lowest idle chip with
//! waiting writes, its batch formed then by `dynamic_advanced_process`).
//! One of them per idle channel per step; a chip waits for the channel
//! idle, not in a first-come-first-served line.
//!
//! MQSim (`"data_outs_first"`) also waits for the channel idle: when a
//! transfer ends, `NVM_PHY_ONFI_NVDDR2::Execute_simulator_event` moves out
//! the data of a finished read if any waits (mapping reads' queue, then
//! user reads', then GC reads', each first come first served), and only
//! with none left signals the TSU, whose `handle_channel_idle_signal`
//! tries the channel's chips round robin from `Round_robin_turn_of_channel`
//! until one issues a command; the turn moves past every chip tried.
//!
//! Here a unit that would start a batch, or move a read's data out, joins
//! its channel's waiting list; when the channel is free (at once, or at a
//! `ChannelFree` event at `busy_until`) the next `kick`, after every event
//! of that instant has run, grants it in the peer's order. A unit granted
//! to start forms its batch then, from everything queued by that instant.
//! Off (the default), none of this exists and the channel is first come,
//! first served (`request_bus`).

use super::arbiter::MAPPING;
use super::ops::Class;
use super::Scheduler;
use crate::config::ChannelOrder;
use crate::device::{OpKind, Phase};
use crate::engine::{Event, EventQueue};

/// The units waiting for each channel, and the channels to decide.
pub(super) struct ChannelWait {
    /// Per channel, the units waiting for it, in the order they asked.
    waiting: Vec<Vec<u32>>,
    /// Per unit: it is in its channel's `waiting`.
    queued: Vec<bool>,
    /// Per channel: a `ChannelFree` event is posted and has not run.
    armed: Vec<bool>,
    /// Channels free now with units waiting, decided by the next `kick`.
    due: Vec<u32>,
    is_due: Vec<bool>,
    /// Submission order of each queued operation, by slab id: the oldest
    /// waiting read is served first (SSDSim's `subs_r` list order).
    seq: Vec<u64>,
    next_seq: u64,
    /// Per channel, MQSim's `Round_robin_turn_of_channel`: the place among
    /// the channel's chips where the next search for a command starts.
    turn: Vec<u32>,
}

impl ChannelWait {
    pub(super) fn new(units: usize, channels: usize) -> Self {
        ChannelWait {
            waiting: vec![Vec::new(); channels],
            queued: vec![false; units],
            armed: vec![false; channels],
            due: Vec::new(),
            is_due: vec![false; channels],
            seq: Vec::new(),
            next_seq: 0,
            turn: vec![0; channels],
        }
    }

    /// Record when operation `id` was queued.
    // Off the default path (`channel_order = "fcfs"`): kept out of line so
    // the callers' hot code does not carry it.
    #[cold]
    #[inline(never)]
    pub(super) fn stamp(&mut self, id: u32) {
        let i = id as usize;
        if i >= self.seq.len() {
            self.seq.resize(i + 1, 0);
        }
        self.seq[i] = self.next_seq;
        self.next_seq += 1;
    }

    pub(super) fn has_due(&self) -> bool {
        !self.due.is_empty()
    }

    fn mark_due(&mut self, ch: usize) {
        if !self.is_due[ch] {
            self.is_due[ch] = true;
            self.due.push(ch as u32);
        }
    }

    /// Wake the channel when it frees, unless a wake is already posted (a
    /// stale one re-arms itself, see `on_channel_free`).
    fn arm(&mut self, ch: usize, at: u64, q: &mut EventQueue) {
        if !self.armed[ch] {
            self.armed[ch] = true;
            q.post(at, Event::ChannelFree(ch as u32));
        }
    }
}

impl Scheduler {
    #[inline]
    fn channel_of_unit(&self, unit: usize) -> usize {
        self.geo.channel_of_die(unit as u32 * self.unit_dies) as usize
    }

    /// The unit waits for its channel: to start its next batch (phase
    /// Idle) or to move a finished read's data out (phase Transfer).
    // Off the default path (`channel_order = "fcfs"`): kept out of line so
    // the callers' hot code does not carry it.
    #[cold]
    #[inline(never)]
    pub(super) fn wait_channel(&mut self, unit: usize, q: &mut EventQueue) {
        let ch = self.channel_of_unit(unit);
        let busy = self.channels.at(ch).busy_until;
        let Some(w) = self.chan.as_mut() else { return };
        if w.queued[unit] {
            return;
        }
        w.queued[unit] = true;
        w.waiting[ch].push(unit as u32);
        if busy <= q.now() {
            w.mark_due(ch);
        } else {
            w.arm(ch, busy, q);
        }
    }

    /// `Event::ChannelFree`: the channel may be free; decide at the end of
    /// this instant, or wait again if it was taken since the event was posted.
    pub fn on_channel_free(&mut self, ch: u32, q: &mut EventQueue) {
        let ch = ch as usize;
        assert!(ch < self.channels.0.len(), "event on channel {ch} of a device with {} channels", self.channels.0.len());
        let busy = self.channels.at(ch).busy_until;
        let Some(w) = self.chan.as_mut() else { return };
        w.armed[ch] = false;
        if w.waiting[ch].is_empty() {
            return;
        }
        if busy > q.now() {
            w.arm(ch, busy, q);
        } else {
            w.mark_due(ch);
        }
    }

    /// Grant every free channel with units waiting (from `kick`).
    // Off the default path (`channel_order = "fcfs"`): kept out of line so
    // the callers' hot code does not carry it.
    #[cold]
    #[inline(never)]
    pub(super) fn decide_channels(&mut self, q: &mut EventQueue) {
        while let Some(ch) = self.chan.as_mut().and_then(|w| w.due.pop()) {
            let ch = ch as usize;
            if let Some(w) = self.chan.as_mut() {
                w.is_due[ch] = false;
            }
            self.serve_channel(ch, q);
        }
    }

    /// Grant the channel in SSDSim's order until it is busy again or no
    /// unit waits; then wake it when it frees if units are left.
    fn serve_channel(&mut self, ch: usize, q: &mut EventQueue) {
        while self.channels.at(ch).busy_until <= q.now() {
            let Some(unit) = self.next_on_channel(ch) else { break };
            if self.dies.at(unit).phase == Phase::Transfer {
                let dur = self.data_out_ns(unit);
                self.request_bus(unit, dur, q);
            } else {
                // forms its batch now and takes the channel (or resumes a
                // suspended operation, which needs no channel)
                self.start(unit, q);
            }
        }
        let busy = self.channels.at(ch).busy_until;
        if let Some(w) = self.chan.as_mut() {
            if !w.waiting[ch].is_empty() {
                w.arm(ch, busy, q);
            }
        }
    }

    /// Take the unit the channel serves next off its list, in the peer's
    /// order; a unit left with nothing to start goes last.
    fn next_on_channel(&mut self, ch: usize) -> Option<usize> {
        let mqsim = self.cfg.channel_order == ChannelOrder::DataOutsFirst;
        let w = self.chan.as_ref()?;
        let mut best: Option<((u8, u64), usize)> = None;
        for (i, &u) in w.waiting[ch].iter().enumerate() {
            let key = match mqsim {
                true => self.mqsim_key(ch, u as usize, i),
                false => self.ssdsim_key(u as usize),
            };
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, i));
            }
        }
        let (_, i) = best?;
        let unit = w.waiting[ch][i] as usize;
        // the search for a command stopped at this chip: the next starts after it
        let turn = (self.chip_in_channel(ch, unit) + 1) % self.chips_on_channel(ch);
        let starts = mqsim && self.dies.at(unit).phase != Phase::Transfer;
        let w = self.chan.as_mut()?;
        w.waiting[ch].remove(i);
        w.queued[unit] = false;
        if starts {
            w.turn[ch] = turn;
        }
        Some(unit)
    }

    /// SSDSim's `process()`: a read command (the oldest read first), then
    /// a data-out (lowest chip first), then a write or other batch (lowest
    /// chip first).
    fn ssdsim_key(&self, u: usize) -> (u8, u64) {
        let d = self.dies.at(u);
        if d.phase == Phase::Transfer {
            return (1, u as u64);
        }
        let w = self.chan.as_ref().expect("called with a channel order");
        match self.policy.pick(self.queues.at(u), &self.ops, d.suspended.is_some()) {
            Some(p) if self.ops.get(p.id).kind == OpKind::Read => (0, w.seq.get(p.id as usize).copied().unwrap_or(0)),
            Some(_) => (2, u as u64),
            None => (3, u as u64),
        }
    }

    /// MQSim's: data-outs in the order they asked (`i`), mapping reads'
    /// before user reads' before GC reads'; then a chip with a command to
    /// issue, the first at or after the channel's turn.
    fn mqsim_key(&self, ch: usize, u: usize, i: usize) -> (u8, u64) {
        let d = self.dies.at(u);
        if d.phase == Phase::Transfer {
            let op = self.ops.get(d.batch[0]);
            let queue = match (op.prio, op.class) {
                (MAPPING, _) => 0,
                (_, Class::Background) => 2,
                _ => 1,
            };
            return (0, (queue << 32) | i as u64);
        }
        if self.policy.pick(self.queues.at(u), &self.ops, d.suspended.is_some()).is_none() {
            return (3, u as u64);
        }
        let n = self.chips_on_channel(ch);
        let turn = self.chan.as_ref().map_or(0, |w| w.turn[ch]);
        (1, ((self.chip_in_channel(ch, u) + n - turn % n) % n) as u64)
    }

    /// The unit's chip, counted from its channel's first.
    fn chip_in_channel(&self, ch: usize, unit: usize) -> u32 {
        self.geo.chip_of_die(unit as u32 * self.unit_dies) - ch as u32 * self.geo.chips_per_channel
    }

    /// Chips on channel `ch`: those of a device channel, or the spare chips
    /// on their own bus.
    fn chips_on_channel(&self, ch: usize) -> u32 {
        match (ch as u32) < self.geo.channels {
            true => self.geo.chips_per_channel.max(1),
            false => self.geo.spare_chips.max(1),
        }
    }
}
