//! A device that runs out of room must end the run with a clear error or
//! complete it; nothing periodic (a scheme's tick) or in the background may
//! keep the clock moving when nothing can make progress (issue 50.2).

mod common;
use common::*;
use detour_core::config::{ConfigBuilder, FlowConfig, RwMode};
use detour_core::schemes::prelude::{self, Class, Ctx, Lpn, Owner, Plan, Ppn, Range, Stall, Time, Token};
use detour_core::sim::{self, NoProgress, Simulation};
use std::sync::mpsc;
use std::time::Duration;

/// Sequential 4 KiB writes at QD1 on `small` with 16 blocks per plane and
/// over-provisioning `op`, run on a thread that must end within a minute.
fn stalled_writes(scheme: &str, op: &str, ios: u64, extra: &[&str]) -> Result<sim::RunResult, String> {
    let s = format!("scheme.name={scheme}");
    let op = format!("device.overprovisioning={op}");
    let mut o = vec![s.as_str(), "device.blocks_per_plane=16", op.as_str()];
    o.extend_from_slice(extra);
    let mut b = ConfigBuilder::from_preset("small").map_err(|e| e.to_string())?;
    b = b.set_all(o.iter().copied()).map_err(|e| e.to_string())?;
    let mut cfg = b.build().map_err(|e| e.to_string())?;
    cfg.flows = vec![FlowConfig { rw: RwMode::Write, bs: 4096, iodepth: 1, ios, ..FlowConfig::default() }];
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(sim::run(cfg, std::iter::empty()).map_err(|e| e.to_string()));
    });
    rx.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("{scheme}: still running after 60 s"))
}

const TICKING: [(&str, &[&str]); 6] = [
    ("conventional", &[]),
    ("rails", &[]),
    ("rr-ssd", &["scheme.dedup.synthetic_content=true"]),
    ("oracle", &["scheme.dedup.synthetic_content=true"]),
    ("ca-ssd", &["scheme.dedup.synthetic_content=true"]),
    ("pblru", &["scheme.dedup.synthetic_content=true"]),
];

/// The device (1.6 spare blocks per plane) is refused before the
/// run, naming the key; it used to run until GC stalled, and then Rails and
/// RR-SSD ticked for ever and the dedup schemes until the clock overflowed.
#[test]
fn a_device_without_room_for_gc_is_refused_up_front() {
    for (scheme, extra) in TICKING {
        let e = stalled_writes(scheme, "0.1", 15_000, extra).err().unwrap_or_default();
        assert!(e.contains("device.overprovisioning") && e.contains("spare blocks per plane"), "{scheme}: {e}");
    }
}

/// At the edge of GC's room every scheme with a tick ends: the whole flow
/// completes or the run says which requests could not.
#[test]
fn every_ticking_scheme_ends_at_the_edge_of_gcs_room() {
    for (scheme, extra) in TICKING {
        let t = std::time::Instant::now();
        let r = stalled_writes(scheme, "0.2", 40_000, extra);
        println!("{scheme}: {:.2} s: {:?}", t.elapsed().as_secs_f64(), r.as_ref().map(|r| (r.summary.requests, r.summary.sim_time_s)));
        match r {
            Ok(r) => assert_eq!(r.summary.requests, 40_000, "{scheme}"),
            Err(e) => assert!(e.contains("could not complete"), "{scheme}: {e}"),
        }
    }
}

/// A scheme that never finds room for a write and ticks every millisecond:
/// the stall no configuration check can foresee (a scheme holding space).
struct Hoarder;

impl prelude::Scheme for Hoarder {
    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for lpn in lpns {
            ctx.read_mapped(lpn, Class::HostRead, plan);
        }
        Ok(())
    }
    fn plan_write(&mut self, _: Range<Lpn>, _: &[Token], _: &mut Ctx, _: &mut Plan) -> Result<(), Stall> {
        Err(Stall { done: 0 })
    }
    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        ctx.remap_moved(owner.index(), from, to);
    }
    fn tick_interval(&self) -> Option<Time> {
        Some(1_000_000)
    }
}

/// Nothing but the tick could ever happen again: the ticks stop, the run
/// ends and says which requests could not complete. A closed-loop flow
/// always has more to issue, and used to keep a stalled run ticking for
/// ever; an open-loop trace the same once its last request had arrived
/// and its last one was stalled.
#[test]
fn a_stall_with_only_ticks_left_ends_with_a_report() {
    let flows = vec![FlowConfig { rw: RwMode::Write, bs: 4096, iodepth: 4, ios: 1000, ..FlowConfig::default() }];
    let trace: Vec<_> = (0..50).map(|i| req(i * 1000, i, 1, detour_core::IoKind::Write)).collect();
    for closed in [true, false] {
        let mut cfg = small(&[]);
        if closed {
            cfg.flows = flows.clone();
        }
        let reqs = if closed { Vec::new() } else { trace.clone() };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let sim = Simulation::with_scheme(cfg, Box::new(Hoarder)).unwrap();
            let r = sim.run(&mut reqs.into_iter().map(Ok), "requests", &mut NoProgress);
            let _ = tx.send(r.map(|r| r.summary.sim_time_s).map_err(|e| e.to_string()));
        });
        let r = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|_| panic!("closed={closed}: still running after 30 s"));
        let e = r.expect_err("nothing can be written");
        assert!(e.contains("could not complete"), "closed={closed}: {e}");
    }
}

/// Issue 50.5: 16,000 sequential 96 KiB writes 1 µs apart saturate the
/// device, and RR-SSD's automatic period (a seventh of the 16 ms span) kept
/// ticking through the seconds-long drain, each period surveying every
/// value: 38.5 s and 3,281 period rows against 0.28 s for the conventional
/// SSD, growing with the square of the length. Its periods end with the
/// arrivals now; the run costs about what the conventional one does.
#[test]
fn rr_ssd_periods_end_with_the_arrivals_on_a_saturating_trace() {
    let reqs: Vec<_> = (0..16_000u64)
        .map(|i| {
            let mut r = req(i * 1000, (i * 24) % 400_000, 24, detour_core::IoKind::Write);
            r.content = i + 1;
            r.line = i + 1;
            r
        })
        .collect();
    let time = |scheme: &str| {
        let s = format!("scheme.name={scheme}");
        let t = std::time::Instant::now();
        let r = sim::run_requests(small(&[s.as_str()]), &reqs).unwrap();
        (t.elapsed().as_secs_f64(), r)
    };
    let (conv_s, conv) = time("conventional");
    let (rr_s, rr) = time("rr-ssd");
    let span = 16e-3;
    println!(
        "conventional {conv_s:.2} s, rr-ssd {rr_s:.2} s ({} period rows), drain to {:.2} s",
        rr.summary.periods.len(),
        conv.summary.sim_time_s
    );
    assert!(conv.summary.sim_time_s > 10.0 * span, "the trace must saturate the device");
    assert!(rr.summary.periods.len() <= 8, "{} period rows for a span of 7 periods", rr.summary.periods.len());
    assert!(rr_s < 10.0 * conv_s.max(0.1), "rr-ssd {rr_s:.2} s against conventional {conv_s:.2} s");
}

/// Issue 50.6: settings another setting makes inert are said, not ignored.
#[test]
fn a_failure_on_a_scheme_without_redundancy_and_a_covering_cmt_are_warned_about() {
    let reqs: Vec<_> = (0..200)
        .map(|i| req(i * 100_000, i % 50, 1, if i % 3 == 0 { detour_core::IoKind::Write } else { detour_core::IoKind::Read }))
        .collect();
    let kinds = |o: &[&str]| -> Vec<String> {
        let r = sim::run_requests(small(o), &reqs).unwrap();
        r.summary.warnings.iter().map(|w| format!("{}: {}", w.kind, w.message)).collect()
    };
    let w = kinds(&["scheme.raid.fail_unit=die"]);
    assert!(w.iter().any(|m| m.starts_with("inert_settings") && m.contains("scheme.raid.fail_unit")), "{w:?}");
    // The same key read by a scheme that has redundancy is no warning.
    let w = kinds(&["scheme.name=cr5", "scheme.raid.fail_unit=die"]);
    assert!(!w.iter().any(|m| m.starts_with("inert_settings")), "{w:?}");
    // A layer reads its base's section.
    let w = kinds(&["scheme.name=collisions", "scheme.collisions.base=hotr", "scheme.hotr.staging=op"]);
    assert!(!w.iter().any(|m| m.starts_with("inert_settings")), "{w:?}");
    let w = kinds(&["ftl.mapping=cmt", "ftl.cmt_size_kib=1048576"]);
    assert!(w.iter().any(|m| m.starts_with("cmt_covers_map")), "{w:?}");
    assert!(!kinds(&["ftl.mapping=cmt", "ftl.cmt_size_kib=64"]).iter().any(|m| m.starts_with("cmt_covers_map")));
}

/// `ftl.precondition.span = "footprint"` under closed-loop flows takes the
/// flows' regions as the footprint (it was refused with a message about a
/// library call).
#[test]
fn closed_loop_flows_precondition_their_footprint() {
    let mut cfg = small(&["ftl.precondition.span=footprint", "ftl.precondition.valid=1.0", "run.verify=true"]);
    cfg.flows = vec![FlowConfig { rw: RwMode::RandRead, bs: 4096, iodepth: 4, ios: 2000, size_bytes: 64 << 20, ..FlowConfig::default() }];
    let r = sim::run(cfg, std::iter::empty()).unwrap();
    assert_eq!(r.summary.requests, 2000);
    assert_eq!(r.summary.pages.placed_on_read, 0, "every page the flow reads was preconditioned");
    assert_eq!(r.summary.verify_errors, 0);
}
