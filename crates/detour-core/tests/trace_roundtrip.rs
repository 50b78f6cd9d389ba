//! Write then read gives the same requests, for every format, up to the
//! losses `write_trace` documents (content outside FIU, time below 100 ns in
//! MSR and below 1 s in Tencent/CloudPhysics, CloudPhysics's volume).

use std::io::Cursor;
use std::path::PathBuf;

use detour_core::workload::{open_trace, open_trace_reader, write_trace, TraceFormat, TraceOptions};
use detour_core::{ErrorKind, IoKind, Request};

/// What reading back a request written as `format` must give (line aside).
fn lossy(format: TraceFormat, r: &Request) -> Request {
    let mut want = Request { line: 0, ..*r };
    match format {
        TraceFormat::Fiu => want.content = r.content.max(1),
        _ => want.content = 0,
    }
    match format {
        TraceFormat::Msr => want.time_ns -= want.time_ns % 100,
        TraceFormat::Tencent | TraceFormat::CloudPhysics => want.time_ns -= want.time_ns % 1_000_000_000,
        _ => {}
    }
    if format == TraceFormat::CloudPhysics {
        want.volume = 0;
    }
    want
}

fn write(format: TraceFormat, reqs: &[Request]) -> Vec<u8> {
    let mut out = Vec::new();
    let n = write_trace(format, reqs.iter().copied().map(Ok), &mut out).unwrap_or_else(|e| panic!("{format}: {e}"));
    assert_eq!(n, reqs.len() as u64, "{format}");
    out
}

fn read(format: Option<TraceFormat>, bytes: Vec<u8>) -> Vec<Request> {
    let opts = TraceOptions { format, ..TraceOptions::literal() };
    let stream = open_trace_reader("roundtrip", Cursor::new(bytes), &opts).unwrap_or_else(|e| panic!("{e}"));
    stream.collect::<Result<Vec<_>, _>>().unwrap_or_else(|e| panic!("{format:?}: {e}"))
}

fn synthetic() -> Vec<Request> {
    let r = |time_ns, offset, size, kind, content, volume| Request { time_ns, offset, size, kind, content, volume, line: 0 };
    vec![
        r(0, 0, 512, IoKind::Write, 0xdead_beef_0000_0001, 0),
        r(1_234_567_891, 4096, 4096, IoKind::Read, 0, 3),
        r(1_234_567_891, 1 << 40, 65_536, IoKind::Write, u64::MAX, 3),
        r(2_000_000_000, 512 * 12_345, 131_072, IoKind::Read, 7, 1),
        r(86_400_000_000_123, 8192, 1024, IoKind::Write, 0, 250),
    ]
}

#[test]
fn synthetic_requests_survive_every_format() {
    let reqs = synthetic();
    for format in TraceFormat::ALL {
        let back = read(Some(format), write(format, &reqs));
        let want: Vec<Request> = reqs.iter().map(|r| lossy(format, r)).collect();
        let got: Vec<Request> = back.iter().map(|r| Request { line: 0, ..*r }).collect();
        assert_eq!(got, want, "{format}");
        let first_line = if format.header().is_some() { 2 } else { 1 };
        let lines: Vec<u64> = back.iter().map(|r| r.line).collect();
        assert_eq!(lines, (first_line..first_line + reqs.len() as u64).collect::<Vec<_>>(), "{format}");
    }
}

#[test]
fn written_traces_are_auto_detected() {
    let reqs = synthetic();
    for format in TraceFormat::ALL {
        let bytes = write(format, &reqs);
        let stream = open_trace_reader("w", Cursor::new(bytes), &TraceOptions::literal()).unwrap();
        // ssdsim output is byte for byte mqsim's, and reads as such.
        let want = if format == TraceFormat::Ssdsim { TraceFormat::Mqsim } else { format };
        assert_eq!(stream.format(), want, "{format}");
    }
}

#[test]
fn every_fixture_converts_to_every_format() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let fixtures = [
        "msr_hm_0.csv",
        "spc_financial.csv",
        "fiu_mail.blkparse",
        "mqsim_wsrch.trace",
        "disksim.trace",
        "ssdsim.trace",
        "systor17.csv",
        "tencent_cbs.csv",
        "cloudphysics_io.csv",
        "blkparse.txt",
    ];
    let opts = TraceOptions { clamp_backwards_time: true, ..TraceOptions::literal() };
    for name in fixtures {
        let source: Vec<Request> = open_trace(&dir.join(name), &opts).unwrap().collect::<Result<_, _>>().unwrap();
        for format in TraceFormat::ALL {
            let back = read(Some(format), write(format, &source));
            let want: Vec<Request> = source.iter().map(|r| lossy(format, r)).collect();
            let got: Vec<Request> = back.iter().map(|r| Request { line: 0, ..*r }).collect();
            assert_eq!(got, want, "{name} as {format}");
        }
    }
}

#[test]
fn absolute_times_round_trip_when_kept() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let opts = TraceOptions { keep_absolute_time: true, ..TraceOptions::literal() };
    let source: Vec<Request> = open_trace(&dir.join("msr_hm_0.csv"), &opts).unwrap().collect::<Result<_, _>>().unwrap();
    let mut out = Vec::new();
    write_trace(TraceFormat::Msr, source.iter().copied().map(Ok), &mut out).unwrap();
    let back: Vec<Request> = open_trace_reader("abs", Cursor::new(out), &opts).unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(back, source);
}

#[test]
fn a_reader_error_stops_the_writer_and_is_returned() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let stream = open_trace(&dir.join("malformed_msr.csv"), &TraceOptions::literal()).unwrap();
    let mut out = Vec::new();
    let err = write_trace(TraceFormat::Mqsim, stream, &mut out).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Trace);
    assert!(err.to_string().contains("malformed_msr.csv:4:"), "{err}");
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 3);
}

#[test]
fn unaligned_requests_are_refused_by_sector_formats_only() {
    let odd = [Request { time_ns: 0, offset: 100, size: 300, kind: IoKind::Read, content: 0, volume: 0, line: 9 }];
    for format in TraceFormat::ALL {
        let result = write_trace(format, odd.iter().copied().map(Ok), Vec::new());
        let byte_format = matches!(format, TraceFormat::Msr | TraceFormat::Systor);
        assert_eq!(result.is_ok(), byte_format, "{format}");
        if let Err(e) = result {
            assert!(e.to_string().contains("source line 9"), "{e}");
        }
    }
}
