//! Every fixture in `tests/fixtures/traces/` read with auto-detection and
//! with its explicit format, and exact field values of chosen lines of each
//! (including absolute time, clamping and the volume filter where a format
//! needs them). Failure modes and options are in `trace_options.rs`.

mod fixtures;
use fixtures::*;

use detour_core::workload::{TraceFormat, TraceOptions};
use detour_core::{ErrorKind, IoKind, Request};

fn clamp() -> TraceOptions {
    TraceOptions { clamp_backwards_time: true, ..TraceOptions::literal() }
}

fn at(reqs: &[Request], line: u64) -> Request {
    *reqs.iter().find(|r| r.line == line).unwrap_or_else(|| panic!("no request from line {line}"))
}

/// (file, its format, what auto-detection says, requests, ignored operations)
const FIXTURES: &[(&str, TraceFormat, TraceFormat, usize, u64)] = &[
    ("msr_hm_0.csv", TraceFormat::Msr, TraceFormat::Msr, 12, 0),
    ("spc_financial.csv", TraceFormat::Spc, TraceFormat::Spc, 7, 0),
    ("fiu_mail.blkparse", TraceFormat::Fiu, TraceFormat::Fiu, 10, 0),
    ("mqsim_wsrch.trace", TraceFormat::Mqsim, TraceFormat::Mqsim, 12, 0),
    ("disksim.trace", TraceFormat::Disksim, TraceFormat::Disksim, 6, 0),
    // Same layout as mqsim, which wins detection (documented).
    ("ssdsim.trace", TraceFormat::Ssdsim, TraceFormat::Mqsim, 5, 0),
    ("systor17.csv", TraceFormat::Systor, TraceFormat::Systor, 10, 0),
    ("tencent_cbs.csv", TraceFormat::Tencent, TraceFormat::Tencent, 10, 0),
    ("cloudphysics_io.csv", TraceFormat::CloudPhysics, TraceFormat::CloudPhysics, 9, 1),
    ("blkparse.txt", TraceFormat::Blkparse, TraceFormat::Blkparse, 4, 1),
    ("blkparse_discard.txt", TraceFormat::Blkparse, TraceFormat::Blkparse, 4, 0),
];

#[test]
fn every_fixture_reads_with_detection_and_explicit_format() {
    for &(name, format, detected, count, ignored) in FIXTURES {
        let (auto, s) = read_all(name, &clamp());
        assert_eq!(s.format(), detected, "{name}");
        assert_eq!((auto.len(), s.ignored()), (count, ignored), "{name}");
        let (explicit, s) = read_all(name, &TraceOptions { format: Some(format), ..clamp() });
        assert_eq!((s.format(), explicit.len()), (format, count), "{name}");
        assert_eq!(auto, explicit, "{name}: detection and explicit format disagree");
        assert_eq!(explicit[0].time_ns, 0, "{name}: first request not at 0");
        assert!(explicit.windows(2).all(|w| w[0].time_ns <= w[1].time_ns && w[0].line < w[1].line), "{name}");
    }
}

#[test]
fn msr_fields_and_absolute_time() {
    let (reqs, _) = read_all("msr_hm_0.csv", &TraceOptions::literal());
    let r = at(&reqs, 5);
    let want_time = (128_166_385_368_421_959u64 - 128_166_385_357_547_445) * 100;
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume, r.content), (want_time, 1_898_643_456, 4096, IoKind::Read, 0, 0));
    assert_eq!(at(&reqs, 11).size, 512);
    let (abs, _) = read_all("msr_hm_0.csv", &TraceOptions { keep_absolute_time: true, ..TraceOptions::literal() });
    assert_eq!(abs[0].time_ns, 12_816_638_535_754_744_500);
}

#[test]
fn spc_fields() {
    let (reqs, _) = read_all("spc_financial.csv", &TraceOptions::literal());
    let r = at(&reqs, 3);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (14_433_000, 20_939_792 * 512, 512, IoKind::Read, 0));
    let r = at(&reqs, 4);
    assert_eq!((r.offset, r.size, r.kind, r.volume), (13_327 * 512, 3072, IoKind::Write, 1));
    assert_eq!(at(&reqs, 7).time_ns, 448_294_000);
}

#[test]
fn fiu_fields_and_content() {
    let (reqs, _) = read_all("fiu_mail.blkparse", &TraceOptions::literal());
    let r = at(&reqs, 5);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (871_207_882, 283_193_112 * 512, 4096, IoKind::Read, 0));
    assert_eq!(r.content, 0xef58_ea75_6605_8790);
    assert_eq!(at(&reqs, 1).content, 0xfdb3_5b5a_a60a_373a);
    // Lines 6 and 7 are the same block read twice: same content.
    assert_eq!(at(&reqs, 6).content, at(&reqs, 7).content);
}

#[test]
fn mqsim_disksim_ssdsim_fields() {
    let (reqs, _) = read_all("mqsim_wsrch.trace", &TraceOptions::literal());
    let r = at(&reqs, 12);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (25_517_000, 983_392 * 512, 8192, IoKind::Read, 0));
    assert_eq!((at(&reqs, 2).volume, at(&reqs, 2).size), (1, 32_768));

    let (reqs, _) = read_all("disksim.trace", &TraceOptions::literal());
    let r = at(&reqs, 5);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (2_500_000, 4096 * 512, 32_768, IoKind::Read, 1));
    assert_eq!((at(&reqs, 4).time_ns, at(&reqs, 4).kind), (1_000_001, IoKind::Write));
    assert_eq!((at(&reqs, 6).kind, at(&reqs, 6).size), (IoKind::Write, 512));

    let opts = TraceOptions { format: Some(TraceFormat::Ssdsim), ..TraceOptions::literal() };
    let (reqs, _) = read_all("ssdsim.trace", &opts);
    let r = at(&reqs, 5);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind), (900_000, 524_296 * 512, 4096, IoKind::Read));
    assert_eq!(at(&reqs, 4).kind, IoKind::Write);
}

#[test]
fn systor_needs_clamping_and_counts_it() {
    let err = open("systor17.csv", &TraceOptions::literal()).find_map(Result::err).unwrap();
    assert_eq!(err.kind(), ErrorKind::Trace);
    assert!(err.to_string().contains("systor17.csv:3:"), "{err}");
    // The default reorder window sorts it instead: nothing clamped.
    let (sorted, s) = read_all("systor17.csv", &TraceOptions::default());
    assert!(s.clamped() == 0 && s.reordered() > 0 && sorted.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
    let (reqs, s) = read_all("systor17.csv", &clamp());
    assert_eq!(s.clamped(), 5);
    let r = at(&reqs, 5);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (2_878_000, 4_256_050_519_552, 21_504, IoKind::Read, 0));
    assert_eq!(at(&reqs, 3).time_ns, 0); // clamped to the first request's time
    assert_eq!(at(&reqs, 11).time_ns, 20_472_000);
}

#[test]
fn tencent_volume_filter_sets_the_time_base() {
    let (reqs, s) = read_all("tencent_cbs.csv", &clamp());
    assert_eq!((s.clamped(), reqs.iter().all(|r| r.time_ns == 0)), (9, true));
    let opts = TraceOptions { volume: Some(1063), ..TraceOptions::literal() };
    let (reqs, s) = read_all("tencent_cbs.csv", &opts);
    assert_eq!((reqs.len(), s.filtered_out(), s.clamped()), (9, 1, 0));
    let r = at(&reqs, 2);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (0, 13_896_880 * 512, 65_536, IoKind::Read, 1063));
    assert_eq!(at(&reqs, 5).kind, IoKind::Write);
}

#[test]
fn cloudphysics_seconds_sectors_and_ignored_ops() {
    let (reqs, s) = read_all("cloudphysics_io.csv", &TraceOptions::literal());
    assert_eq!(s.ignored(), 1);
    let r = at(&reqs, 5);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind), (0, 40_409_911 * 512, 6656, IoKind::Write));
    let r = at(&reqs, 11);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (2_000_000_000, 6_160_431 * 512, 4096, IoKind::Read, 0));
    assert!(reqs.iter().all(|r| r.line != 6));
}

#[test]
fn blkparse_queue_events_only() {
    let (reqs, s) = read_all("blkparse.txt", &TraceOptions::literal());
    let lines: Vec<u64> = reqs.iter().map(|r| r.line).collect();
    assert_eq!((lines, s.ignored()), (vec![1, 6, 10, 12], 1));
    let r = at(&reqs, 6);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (1_000_000, 1024 * 512, 32_768, IoKind::Read, 16));
    let r = at(&reqs, 10);
    assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (2_500_000, 223_498 * 512, 8192, IoKind::Write, 0));
    let (vol16, _) = read_all("blkparse.txt", &TraceOptions { volume: Some(16), ..TraceOptions::literal() });
    assert_eq!((vol16.len(), vol16[1].time_ns), (2, 2_000_000));
}

#[test]
fn format_names_parse_and_list() {
    assert_eq!(TraceFormat::ALL.len(), 10);
    for f in TraceFormat::ALL {
        assert_eq!(f.name().parse::<TraceFormat>().unwrap(), f);
    }
    assert_eq!("CloudPhysics".parse::<TraceFormat>().unwrap(), TraceFormat::CloudPhysics);
    assert_eq!("x".parse::<TraceFormat>().unwrap_err().kind(), ErrorKind::Config);
}
