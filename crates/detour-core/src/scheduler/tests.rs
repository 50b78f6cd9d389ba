//! Unit tests of dispatch order and batching on one die.

use super::*;
use crate::config::Config;
use crate::types::{Owner, Time};

fn setup(read_priority: bool) -> (Scheduler, EventQueue) {
    let mut cfg = Config::preset("small").unwrap();
    cfg.device.channels = 1;
    cfg.device.chips_per_channel = 1;
    cfg.device.dies_per_chip = 1;
    cfg.scheduler.read_priority = read_priority;
    cfg.scheduler.multiplane = false;
    let geo = Geometry::from_config(&cfg.device).unwrap();
    let timing = Timing::from_config(&cfg);
    (Scheduler::new(&geo, &timing, &cfg.scheduler, cfg.host.write_ack).unwrap(), EventQueue::new())
}

/// An operation of `kind` on `ppn` (tagged with it), alone in its group.
pub(super) fn op(kind: OpKind, class: Class, ppn: u32) -> FlashOp {
    FlashOp {
        kind,
        class,
        flags: 0,
        stage: 0,
        retries: 0,
        prio: 1,
        group: 0,
        die: 0,
        ppn,
        owner: Owner::NONE,
        token: 0,
        tag: ppn,
        txn: 0,
        next: NO_OP,
        qnext: NO_OP,
        bus_ns: 0,
        array_ns: 0,
        xfer_bytes: 0,
        early_ns: 0,
        failed: false,
    }
}

/// Run to completion; the tags of finished operations in order, with times.
fn run(s: &mut Scheduler, q: &mut EventQueue) -> Vec<(Time, u32)> {
    let mut out = Vec::new();
    s.kick(q);
    while let Some((_, ev)) = q.pop() {
        match ev {
            Event::ArrayDone { die, gen } => s.on_array_done(die, gen, q),
            Event::TransferDone(die) => s.on_transfer_done(die, q),
            Event::SuspendDone { die, gen } => s.on_suspend_done(die, gen, q),
            _ => {}
        }
        s.kick(q);
        for id in s.done.drain(..) {
            out.push((q.now(), s.ops.get(id).tag));
        }
    }
    out
}

#[test]
fn reads_overtake_queued_writes_with_read_priority() {
    let (mut s, mut q) = setup(true);
    for (k, c, tag) in [(OpKind::Program, Class::HostWrite, 1), (OpKind::Program, Class::HostWrite, 2), (OpKind::Read, Class::HostRead, 3)]
    {
        let id = s.ops.insert(op(k, c, tag));
        s.submit(id, &mut q);
    }
    let order: Vec<u32> = run(&mut s, &mut q).into_iter().map(|(_, t)| t).collect();
    // All three queued at once: the read goes first.
    assert_eq!(order, vec![3, 1, 2]);
}

#[test]
fn fifo_without_read_priority() {
    let (mut s, mut q) = setup(false);
    for (k, c, tag) in [(OpKind::Program, Class::HostWrite, 1), (OpKind::Read, Class::HostRead, 2)] {
        let id = s.ops.insert(op(k, c, tag));
        s.submit(id, &mut q);
    }
    let order: Vec<u32> = run(&mut s, &mut q).into_iter().map(|(_, t)| t).collect();
    assert_eq!(order, vec![1, 2]);
}

#[test]
fn background_runs_last_and_occ_counts_queued_and_running() {
    let (mut s, mut q) = setup(true);
    for (k, c, tag) in [(OpKind::Erase, Class::Background, 1), (OpKind::Program, Class::HostWrite, 2)] {
        let id = s.ops.insert(op(k, c, tag));
        s.submit(id, &mut q);
    }
    assert_eq!(s.view().occ(0), 2);
    assert_eq!(s.dies.at(0).host_occ, 1, "the erase is background work");
    let order: Vec<u32> = run(&mut s, &mut q).into_iter().map(|(_, t)| t).collect();
    assert_eq!(order, vec![2, 1]);
    assert_eq!((s.view().occ(0), s.dies.at(0).host_occ), (0, 0));
    assert_eq!((s.counts()[0].programs, s.counts()[0].erases), (1, 1));
}

#[test]
#[should_panic(expected = "inconsistent geometry")]
fn a_geometry_changed_after_its_conversions_is_refused() {
    // The per-channel table is read unchecked by a die's channel.
    let cfg = Config::preset("small").unwrap();
    let mut geo = Geometry::from_config(&cfg.device).unwrap();
    geo.chips_per_channel *= 2;
    Scheduler::new(&geo, &Timing::from_config(&cfg), &cfg.scheduler, cfg.host.write_ack).unwrap();
}

#[test]
#[should_panic(expected = "on die 9 of a device with 1 dies")]
fn an_operation_on_a_die_past_the_device_is_a_bug_caught_on_entry() {
    let (mut s, mut q) = setup(true);
    let id = s.ops.insert(FlashOp { die: 9, ..op(OpKind::Read, Class::HostRead, 0) });
    s.submit(id, &mut q);
}

/// One die of two planes, multi-plane on, in `order`.
fn two_planes(order: &str) -> (Scheduler, EventQueue, u32) {
    let mut cfg = Config::preset("small").unwrap();
    (cfg.device.channels, cfg.device.chips_per_channel, cfg.device.dies_per_chip, cfg.device.planes_per_die) = (1, 1, 1, 2);
    cfg.scheduler.order = order.into();
    cfg.scheduler.multiplane = true;
    let geo = Geometry::from_config(&cfg.device).unwrap();
    let plane1 = geo.pages_per_block * geo.blocks_per_plane;
    let s = Scheduler::new(&geo, &Timing::from_config(&cfg), &cfg.scheduler, cfg.host.write_ack).unwrap();
    (s, EventQueue::new(), plane1)
}

/// Submit (kind, class, ppn) operations at time 0 and run them: the finish
/// time of each, by ppn.
fn finish_times(s: &mut Scheduler, q: &mut EventQueue, ops: &[(OpKind, Class, u32)]) -> std::collections::HashMap<u32, Time> {
    for &(k, c, ppn) in ops {
        let id = s.ops.insert(op(k, c, ppn));
        s.submit(id, q);
    }
    run(s, q).into_iter().map(|(t, tag)| (tag, t)).collect()
}

#[test]
fn out_of_order_batches_a_background_program_with_a_host_one() {
    // A host program on plane 0 and a GC program on plane 1: priority
    // batches within the head's queue only, so they run one after the other;
    // out of order fills the head's batch from the background queue too.
    for (order, together) in [("priority", false), ("fcfs", true), ("out-of-order", true)] {
        let (mut s, mut q, plane1) = two_planes(order);
        let t = finish_times(&mut s, &mut q, &[(OpKind::Program, Class::HostWrite, 0), (OpKind::Program, Class::Background, plane1)]);
        assert_eq!(t[&0] == t[&plane1], together, "{order}: {t:?}");
    }
}

#[test]
fn out_of_order_finds_a_free_plane_deep_in_the_queue() {
    // Five programs on plane 0, then one on plane 1: priority looks four
    // deep (twice the planes) and misses it; out of order batches it with
    // the first.
    let mut ops: Vec<(OpKind, Class, u32)> = (0..5).map(|i| (OpKind::Program, Class::HostWrite, i)).collect();
    for (order, together) in [("priority", false), ("out-of-order", true)] {
        let (mut s, mut q, plane1) = two_planes(order);
        ops.truncate(5);
        ops.push((OpKind::Program, Class::HostWrite, plane1));
        let t = finish_times(&mut s, &mut q, &ops);
        assert_eq!(t[&0] == t[&plane1], together, "{order}: {t:?}");
    }
}

/// One chip of two single-plane dies served as one unit, with suspension
/// (50 µs) and reads suspending only programs with `min_left_us` to go.
fn chip_unit(min_left_us: f64) -> (Scheduler, EventQueue, Timing) {
    let mut cfg = Config::preset("small").unwrap();
    (cfg.device.channels, cfg.device.chips_per_channel, cfg.device.dies_per_chip, cfg.device.planes_per_die) = (1, 1, 2, 1);
    cfg.scheduler.unit = ServiceUnit::Chip;
    (cfg.scheduler.suspension, cfg.scheduler.suspend_us, cfg.scheduler.suspend_min_remaining_us) = (true, 50.0, min_left_us);
    cfg.scheduler.multiplane = false;
    let geo = Geometry::from_config(&cfg.device).unwrap();
    let t = Timing::from_config(&cfg);
    (Scheduler::new(&geo, &t, &cfg.scheduler, cfg.host.write_ack).unwrap(), EventQueue::new(), t)
}

/// A program on die 0 at time 0, then a host read on `read_die` at `at`:
/// when each finishes (program tag 1, read tag 2), and the suspensions.
fn program_then_read(min_left_us: f64, read_die: u32, at: Time) -> (Time, Time, u64, Timing) {
    let (mut s, mut q, t) = chip_unit(min_left_us);
    let id = s.ops.insert(FlashOp { die: 0, ..op(OpKind::Program, Class::HostWrite, 1) });
    s.submit(id, &mut q);
    s.kick(&mut q);
    q.post(at, Event::Tick);
    let mut done = std::collections::HashMap::new();
    while let Some((_, ev)) = q.pop() {
        match ev {
            Event::ArrayDone { die, gen } => s.on_array_done(die, gen, &mut q),
            Event::TransferDone(die) => s.on_transfer_done(die, &mut q),
            Event::SuspendDone { die, gen } => s.on_suspend_done(die, gen, &mut q),
            Event::Tick => {
                let id = s.ops.insert(FlashOp { die: read_die, ..op(OpKind::Read, Class::HostRead, 2) });
                s.submit(id, &mut q);
            }
            _ => {}
        }
        s.kick(&mut q);
        for id in s.done.drain(..) {
            done.insert(s.ops.get(id).tag, q.now());
        }
    }
    (done[&1], done[&2], s.counts().iter().map(|c| c.suspensions).sum(), t)
}

#[test]
fn a_chip_unit_serves_a_read_on_its_other_die_beside_a_program() {
    let (_, _, t) = chip_unit(0.0);
    let program_end = t.command + t.transfer + t.program;
    let at = t.command + t.transfer + t.program / 4;
    let read = t.command + t.read + t.transfer;
    // Other die: the read starts at once, the program ends on time, nothing is suspended.
    let (p, r, n, _) = program_then_read(0.0, 1, at);
    assert_eq!((p, r, n), (program_end, at + read, 0));
    // Same die: suspended (50 µs), the read after it, the program later by both.
    let (p, r, n, _) = program_then_read(0.0, 0, at);
    assert_eq!((r, n), (at + t.suspend + read, 1));
    assert_eq!(p, r + (program_end - at));
    // With less than the minimum left the read waits for the program.
    let late = program_end - t.program / 8;
    let (p, r, n, _) = program_then_read(t.program as f64 / 4e3, 1, late);
    assert_eq!((p, r, n), (program_end, program_end + read, 0));
}
