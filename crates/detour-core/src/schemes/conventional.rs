//! # Conventional
//!
//! **What:** a page-mapped FTL with one copy of every page. Reads go to the
//! mapped page (or the write buffer while its program is pending); writes go
//! to a fresh page on the plane the allocation policy picks (static order
//! from the LPN, or the least-loaded die), and the old copy is invalidated.
//!
//! **Why:** the baseline every paper compares against, and the proof that
//! the scheme interface is enough for an FTL: it uses nothing else.
//!
//! **References:** page-level mapping as in MQSim and SSDSim.

use super::registry::{Env, SchemeEntry};
use super::{Ctx, Plan, Scheme, Stall};
use crate::scheduler::Class;
use crate::types::{Lpn, Owner, Ppn, Token};
use std::ops::Range;

pub const ENTRY: SchemeEntry = SchemeEntry::new(
    "conventional",
    "Page-mapped FTL with the configured allocation; one copy of every page",
    build,
)
.colour("#404040");

fn build(_: &Env) -> crate::error::Result<Box<dyn Scheme>> {
    Ok(Box::new(Conventional))
}

#[derive(Default)]
pub struct Conventional;

impl Scheme for Conventional {
    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for lpn in lpns {
            ctx.read_mapped(lpn, Class::HostRead, plan);
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for (i, lpn) in lpns.enumerate() {
            ctx.write_mapped(lpn, tokens[i], plan, i as u32)?;
        }
        Ok(())
    }

    fn write_instantly(&mut self, lpn: Lpn, token: Token, ctx: &mut Ctx, _: &mut Plan) -> Result<(), Stall> {
        ctx.remap_new_programmed(lpn, token).map(|_| ())
    }

    fn wants_completions(&self) -> bool {
        false
    }

    fn uses_shared_map(&self) -> bool {
        true
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        ctx.remap_moved(owner.index(), from, to);
    }

    fn discard(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx) -> Result<u64, &'static str> {
        Ok(lpns.map(|l| ctx.unmap(l) as u64).sum())
    }
}
