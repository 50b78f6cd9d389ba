//! Verify mode must catch wrong data: a scheme that misroutes some reads on
//! purpose, and a mapping broken behind the scheme's back.

mod common;
use common::*;
use detour_core::scheduler::Class;
use detour_core::schemes::{Conventional, Ctx, Plan, Scheme, Stall};
use detour_core::sim::{NoProgress, Simulation};
use detour_core::types::{Lpn, Owner, Ppn, Token};
use std::ops::Range;

/// The conventional scheme, except every `every`-th read goes to the page
/// that holds the next LPN.
struct Misroute {
    inner: Conventional,
    every: u64,
    reads: u64,
}

impl Scheme for Misroute {
    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for lpn in lpns {
            self.reads += 1;
            let wrong = self.reads % self.every == 0;
            let target = if wrong { lpn + 1 } else { lpn };
            let ppn = ctx.ftl.map.get(target);
            if wrong && ppn != u32::MAX && ctx.ftl.is_programmed(ppn) {
                let g = plan.group(lpn, true);
                plan.read(g, 0, ppn, Class::HostRead, 0);
            } else {
                ctx.read_mapped(lpn, Class::HostRead, plan);
            }
        }
        Ok(())
    }
    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        self.inner.plan_write(lpns, tokens, ctx, plan)
    }
    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        self.inner.on_gc_move(from, to, owner, ctx)
    }
}

fn run_with(scheme: Box<dyn Scheme>, verify: bool) -> detour_core::sim::RunResult {
    let cfg = small(&[if verify { "run.verify=true" } else { "run.verify=false" }]);
    let reqs = poisson(5_000, 2_000.0, 0.7, 2_000, 8);
    let mut it = reqs.into_iter().map(Ok);
    Simulation::with_scheme(cfg, scheme).unwrap().run(&mut it, "test", &mut NoProgress).unwrap()
}

#[test]
fn misrouted_reads_are_counted() {
    let r = run_with(Box::new(Misroute { inner: Conventional, every: 10, reads: 0 }), true);
    let reads = r.summary.pages.host_read;
    let errors = r.summary.verify_errors;
    // About a tenth of flash reads go astray (fewer: buffered and unplaced ones are not misrouted).
    assert!(errors > reads / 20 && errors <= reads / 10 + 1, "{errors} errors of {reads} reads");
    assert!(!r.verify_failures.is_empty());
}

#[test]
fn honest_scheme_has_no_errors_and_verify_off_reports_zero() {
    let r = run_with(Box::new(Misroute { inner: Conventional, every: u64::MAX, reads: 0 }), true);
    assert_eq!(r.summary.verify_errors, 0);
    let off = run_with(Box::new(Misroute { inner: Conventional, every: 10, reads: 0 }), false);
    assert!(!off.summary.verify);
    assert_eq!(off.summary.verify_errors, 0);
}

/// A scheme that forgets to follow GC moves: its map goes stale once GC
/// relocates a page, and verify must see it.
struct ForgetsGc(Conventional);

impl Scheme for ForgetsGc {
    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        self.0.plan_read(lpns, ctx, plan)
    }
    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        self.0.plan_write(lpns, tokens, ctx, plan)
    }
    fn on_gc_move(&mut self, _: Ppn, _: Ppn, _: Owner, _: &mut Ctx) {}
}

#[test]
fn a_map_left_stale_by_gc_is_caught() {
    let cfg = small(&[
        "run.verify=true",
        "device.channels=1",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "device.planes_per_die=1",
        "device.blocks_per_plane=32",
        "device.pages_per_block=16",
        "device.overprovisioning=0.3",
    ]);
    let reqs = poisson(2000, 500.0, 0.5, 80, 4);
    let mut it = reqs.into_iter().map(Ok);
    let r = Simulation::with_scheme(cfg, Box::new(ForgetsGc(Conventional))).unwrap().run(&mut it, "t", &mut NoProgress).unwrap();
    assert!(r.summary.gc.moves > 0);
    assert!(r.summary.verify_errors > 0);
}
