//! Writes that take no simulated time: preconditioning before measurement,
//! and placing a never-written page the first time the trace reads it (as if
//! preconditioning had written it). Both go through the scheme's own
//! `plan_write`, so the layout is the scheme's, and the plan is applied at
//! once instead of being timed.

use super::Simulation;
use crate::device::OpKind;
use crate::error::{Error, Result};
use crate::scheduler::flags;
use crate::schemes::{OpDone, Plan};
use crate::types::{mix64, page_token, Lpn, Token};
use rand::Rng;
use std::ops::Range;

/// The content of a page nobody wrote during the run: fixed per LPN.
pub fn initial_token(lpn: Lpn) -> Token {
    page_token(mix64(lpn as u64 ^ 0xD1B5_4A32_D192_ED03), 0)
}

impl Simulation {
    /// Fill the device as `ftl.precondition` asks, then reset the counters.
    pub(super) fn precondition(&mut self) -> Result<()> {
        let p = self.cfg.ftl.precondition.clone();
        let logical = self.geo.logical_pages;
        let valid = ((p.valid * logical as f64) as u32).min(logical);
        for lpn in 0..valid {
            let t = initial_token(lpn);
            self.instant_write(lpn, t)?;
        }
        let overwrites = if p.to_gc_threshold {
            u64::MAX
        } else {
            (p.invalid * self.geo.total_pages() as f64) as u64
        };
        if overwrites > 0 && valid == 0 {
            return Err(Error::config("ftl.precondition.invalid", "needs ftl.precondition.valid > 0 (stale pages come from overwrites)"));
        }
        let floor = self.geo.planes() as u64 * (self.gc_free_blocks() as u64 + 1);
        let mut k = 0u64;
        while k < overwrites && (!p.to_gc_threshold || self.total_free_blocks() > floor) {
            let lpn = self.rng.random_range(0..valid);
            let t = mix64(k ^ 0xA076_1D64_78BD_642F) | 1;
            self.instant_write(lpn, t)?;
            k += 1;
            if k > self.geo.total_pages() as u64 * 4 {
                break;
            }
        }
        self.ftl.gc_wanted.clear();
        self.ftl.stats = Default::default();
        Ok(())
    }

    fn gc_free_blocks(&self) -> u32 {
        ((self.cfg.ftl.gc_threshold * self.geo.blocks_per_plane as f64).ceil() as u32).max(crate::ftl::GC_RESERVE + 1)
    }

    fn total_free_blocks(&self) -> u64 {
        (0..self.geo.planes()).map(|p| self.ftl.free_blocks(p) as u64).sum()
    }

    fn instant_write(&mut self, lpn: Lpn, token: Token) -> Result<()> {
        let mut plan = std::mem::take(&mut self.plan);
        plan.clear();
        let r = self.with_ctx(|s, ctx| s.plan_write(lpn..lpn + 1, &[token], ctx, &mut plan));
        if r.is_err() {
            self.plan = plan;
            return Err(Error::config(
                "ftl.precondition",
                format!("the device filled up while preconditioning (at LPN {lpn}); lower valid or invalid"),
            ));
        }
        self.apply_instantly(&mut plan);
        self.plan = plan;
        self.mark_placed(lpn);
        if let Some(o) = self.oracle.as_mut() {
            o.set(lpn, token);
        }
        Ok(())
    }

    /// Place every never-written page of `lpns`. Some(lpn) if a plane had no
    /// free page for it (the read waits for an erase).
    pub(super) fn place_unwritten(&mut self, lpns: Range<Lpn>) -> Result<Option<Lpn>> {
        for lpn in lpns {
            if self.is_placed(lpn) {
                continue;
            }
            let token = initial_token(lpn);
            let mut plan = std::mem::take(&mut self.plan);
            plan.clear();
            let r = self.with_ctx(|s, ctx| s.plan_write(lpn..lpn + 1, &[token], ctx, &mut plan));
            if r.is_err() {
                self.plan = plan;
                return Ok(Some(lpn));
            }
            self.apply_instantly(&mut plan);
            self.plan = plan;
            self.mark_placed(lpn);
            self.n.placed_on_read += 1;
            if let Some(o) = self.oracle.as_mut() {
                o.set(lpn, token);
            }
        }
        Ok(None)
    }

    /// Apply a plan's effects at once, stage by stage within each group.
    fn apply_instantly(&mut self, plan: &mut Plan) {
        if !plan.ops.is_sorted_by_key(|op| (op.group, op.stage)) {
            plan.ops.sort_by_key(|op| (op.group, op.stage));
        }
        let mut acc: Token = 0;
        let mut group = u32::MAX;
        for i in 0..plan.ops.len() {
            let op = plan.ops[i];
            if op.group != group {
                group = op.group;
                acc = 0;
            }
            let token = match op.kind {
                OpKind::Read => {
                    let t = self.ftl.token(op.ppn);
                    if op.flags & flags::RESULT != 0 {
                        acc ^= t;
                    }
                    t
                }
                OpKind::Program => {
                    let t = if op.flags & flags::FROM_PREV != 0 { acc ^ op.token } else { op.token };
                    self.ftl.program_done(op.ppn, t);
                    t
                }
                OpKind::Erase => {
                    self.ftl.erase_done(self.geo.block_of(op.ppn));
                    0
                }
            };
            let lpn = plan.groups.get(op.group as usize).map_or(0, |g| g.lpn);
            let done = OpDone { kind: op.kind, class: op.class, ppn: op.ppn, owner: op.owner, token, tag: op.tag, lpn, host: false, failed: false };
            self.with_ctx(|s, ctx| s.on_complete(&done, ctx));
        }
        // Background work a scheme asks for during setup is not simulated.
        self.bg.clear();
    }
}
