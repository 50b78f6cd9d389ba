//! Rails in-drive (docs/schemes/rails.md): both copies converge across
//! frequent role swaps under GC pressure, reads never see stale data, and
//! reads stay off the writing half.

mod common;
use common::*;
use detour_core::sim;

// The stress workload (tests/common) has a hot set of 300 pages and
// multi-page requests, half writes: reads often hit pages whose read-half
// copy is stale or still being flushed.

#[test]
fn copies_converge_across_frequent_swaps_under_gc_pressure() {
    for (seed, swap) in [(1, "scheme.rails.swap_us=2000"), (2, "scheme.rails.swap_us=300")] {
        let mut o = TINY.to_vec();
        o.extend_from_slice(&["scheme.name=rails", swap]);
        let r = sim::run_requests(small(&o), &stress(seed, 6500)).unwrap();
        let s = &r.summary;
        assert_eq!(s.requests, 12_000);
        assert_eq!(s.verify_errors, 0, "{swap}: {:?}", r.verify_failures);
        assert!(s.gc.runs > 0);
        for key in ["rails.swaps", "rails.pages_flushed", "rails.reads_write_half", "rails.reads_read_half"] {
            assert!(counter(s, key) > 0.0, "{swap}: {key} {:?}", s.scheme_counters);
        }
    }
}

/// 4+4 on the small preset (TLC): the baseline's reads often find their
/// die writing; Rails' reads almost never do.
#[test]
fn reads_stay_off_the_writing_half() {
    let reqs = stress_gap(3, 100_000, 1_200_000);
    let mut o = vec!["device.flash.cell=tlc", "scheme.hotr.migrate_share=0", "scheme.name=hotr"];
    let base = sim::run_requests(small(&o), &reqs).unwrap().summary;
    o.pop();
    o.extend_from_slice(&["scheme.name=rails", "scheme.rails.swap_us=100000"]);
    let rails = sim::run_requests(small(&o), &reqs).unwrap().summary;
    let b = counter(&base, "hotr.reads_blocked") / counter(&base, "hotr.reads");
    let r = counter(&rails, "rails.reads_blocked") / counter(&rails, "rails.reads");
    println!(
        "blocked share: baseline {b:.3}, rails {r:.3}; read mean {:.1} vs {:.1} us",
        base.latency_us.read.mean, rails.latency_us.read.mean
    );
    assert!(r < b / 2.0, "baseline {b}, rails {r}");
    assert!(rails.latency_us.read.mean < base.latency_us.read.mean);
}

#[test]
fn an_odd_chip_count_is_a_config_error() {
    let cfg = small(&["device.channels=3", "device.chips_per_channel=1", "scheme.name=rails"]);
    let Err(err) = sim::run_requests(cfg, &[]) else { panic!("3 chips cannot be mirrored") };
    let err = err.to_string();
    assert!(err.contains("even number of chips"), "{err}");
}

/// A corrupted timestamp centuries into the trace would cost Rails a swap
/// tick every 50 ms until then (1.8e11 ticks, in effect a hang: the run
/// fuzz test found it): the request is refused, naming the swap key.
#[test]
fn a_request_beyond_the_most_ticks_is_refused_naming_the_tick() {
    let mut reqs: Vec<_> = (0..10).map(|i| req(i * 1000, i, 1, detour_core::IoKind::Write)).collect();
    let mut far = req(9_000_000_000 * 1_000_000_000, 3, 1, detour_core::IoKind::Read);
    far.line = 11;
    reqs.push(far);
    let err = sim::run_requests(small(&["scheme.name=rails"]), &reqs).unwrap_err().to_string();
    assert!(err.starts_with("<workload>:11:") && err.contains("scheme.rails.swap_us"), "{err}");
    // Without ticks the same trace only waits.
    assert!(sim::run_requests(small(&[]), &reqs).is_ok());
}

/// Rails under DiskSim's rules (`compat = "disksim"`: one FCFS queue per
/// chip, a write done after its program), worked by hand on two chips, one
/// per channel: chip 0 is half 0 (the read half until the first swap),
/// chip 1 half 1. Reads 50 us, programs 1,000 us, a 4 KiB page 1 us on the
/// bus (8-bit bus at 4,096 MT/s), no command time. HotR's paper credits
/// Rails with reads that "can eliminate almost all read/write
/// interferences" (Sec. IV-B): a read of a page with a fresh read-half copy
/// pays its own array and bus time and queues behind the reads ahead of it
/// on its chip, never behind a program of the write half; only a page
/// rewritten in this period is read from the write half, behind that
/// half's program. (Investigated for hr-5, issue 49: the read side holds
/// one copy per page and charges die time, so Rails' reads are an
/// interference-free device's, not faster.)
#[test]
fn read_half_reads_pay_their_own_time_and_queue_only_behind_reads() {
    let o = [
        "compat=disksim",
        "scheme.name=rails",
        "scheme.rails.swap_us=1000000",
        "device.channels=2",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "device.planes_per_die=1",
        "device.blocks_per_plane=64",
        "device.pages_per_block=32",
        "device.overprovisioning=0.2",
        "device.flash.cell=custom",
        "device.flash.read_us=50",
        "device.flash.program_us=1000",
        "device.flash.erase_us=3000",
        "device.channel.width_bits=8",
        "device.channel.rate_mts=4096",
        "device.channel.command_ns=0",
    ];
    let run = |reqs: &[detour_core::workload::Request]| sim::run_requests(small(&o), reqs).unwrap().summary;
    use detour_core::IoKind::{Read, Write};
    // A write of page 9 at 0 (chip 1: 1 us in, 1,000 us programming), then
    // two reads at 10 us of pages never written (placed in both halves as
    // preconditioning would): on chip 0, one after the other.
    let s = run(&[req(0, 9, 1, Write), req(10_000, 1, 1, Read), req(10_000, 2, 1, Read)]);
    assert_eq!(s.latency_us.write.mean, 1001.0, "the write: 1 us on the bus + 1,000 us program");
    // First read 50 + 1 = 51 us; the second waits for it (FCFS on chip 0): 51 + 51 = 102 us.
    assert_eq!((s.latency_us.read.min, s.latency_us.read.max), (51.0, 102.0));
    assert_eq!(counter(&s, "rails.reads_blocked"), 0.0);
    // Page 9 rewritten at 0 and read at 10 us, its program still running:
    // served from the controller's buffer (Rails' NVRAM), no flash read.
    let s = run(&[req(0, 9, 1, Write), req(10_000, 9, 1, Read)]);
    assert_eq!((s.pages.buffered_reads, counter(&s, "rails.reads")), (1, 0.0));
    // Read at 1,600 us, once programmed: its read-half copy is stale, so
    // it reads chip 1, behind page 10's program (1,500 + 1 + 1,000 =
    // 2,501 us): 2,501 + 51 - 1,600 = 952 us.
    let s = run(&[req(0, 9, 1, Write), req(1_500_000, 10, 1, Write), req(1_600_000, 9, 1, Read)]);
    assert_eq!(s.latency_us.read.mean, 952.0);
    assert_eq!((counter(&s, "rails.reads_write_half"), counter(&s, "rails.reads_blocked")), (1.0, 1.0));
}
