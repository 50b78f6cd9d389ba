//! The reader's options and failure modes on the fixtures: malformed lines
//! (error naming file and line, or skipped and counted), the volume filter,
//! gzip and zstd by magic bytes, truncated input, missing files, a wrong
//! explicit format.

mod fixtures;
use fixtures::*;

use detour_core::workload::{open_trace, open_trace_reader, TraceFormat, TraceOptions};
use detour_core::ErrorKind;

#[test]
fn malformed_lines_name_file_line_and_reason() {
    let results: Vec<_> = open("malformed_msr.csv", &TraceOptions::literal()).collect();
    assert_eq!(results.len(), 7);
    let errors: Vec<String> = results.iter().filter_map(|r| r.as_ref().err()).map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 2);
    assert!(errors[0].contains("malformed_msr.csv:4:") && errors[0].contains("zero-size"), "{}", errors[0]);
    assert!(errors[1].contains("malformed_msr.csv:6:") && errors[1].contains("Trim"), "{}", errors[1]);
    assert!(results.iter().filter_map(|r| r.as_ref().err()).all(|e| e.kind() == ErrorKind::Trace));
}

#[test]
fn skip_mode_counts_malformed_lines() {
    let opts = TraceOptions { skip_malformed: true, ..TraceOptions::literal() };
    let (reqs, s) = read_all("malformed_msr.csv", &opts);
    let lines: Vec<u64> = reqs.iter().map(|r| r.line).collect();
    assert_eq!((lines, s.skipped_malformed()), (vec![1, 2, 3, 5, 7], 2));
}

#[test]
fn volume_filter_counts_what_it_drops() {
    let opts = TraceOptions { volume: Some(1), ..TraceOptions::literal() };
    let (reqs, s) = read_all("mqsim_wsrch.trace", &opts);
    let lines: Vec<u64> = reqs.iter().map(|r| r.line).collect();
    assert_eq!((lines, s.filtered_out()), (vec![2, 3, 8, 9], 8));
    assert_eq!((reqs[0].time_ns, reqs[1].time_ns), (0, 156_000));
}

#[test]
fn gzip_and_zstd_by_magic_not_name() {
    let (plain, _) = read_all("mqsim_wsrch.trace", &TraceOptions::literal());
    for name in ["mqsim_wsrch.trace.gz", "mqsim_wsrch.trace.zst"] {
        let (reqs, s) = read_all(name, &TraceOptions::literal());
        assert_eq!((s.format(), &reqs), (TraceFormat::Mqsim, &plain), "{name}");
        let bytes = std::fs::read(fixture(name)).unwrap();
        let s = open_trace_reader("misleading.txt", std::io::Cursor::new(bytes), &TraceOptions::literal()).unwrap();
        assert_eq!(s.collect::<Result<Vec<_>, _>>().unwrap(), plain, "{name} in memory");
    }
}

#[test]
fn truncated_zstd_is_an_io_error_then_the_stream_ends() {
    let bytes = std::fs::read(fixture("mqsim_wsrch.trace.zst")).unwrap();
    let cut = bytes[..bytes.len() - 8].to_vec();
    let opts = TraceOptions { format: Some(TraceFormat::Mqsim), ..TraceOptions::literal() };
    let results: Vec<_> = open_trace_reader("cut.zst", std::io::Cursor::new(cut), &opts).unwrap().collect();
    let last = results.last().unwrap().as_ref().unwrap_err();
    assert_eq!(last.kind(), ErrorKind::Io);
    assert!(last.to_string().starts_with("cut.zst:"), "{last}");
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let err = open_trace(&fixture("no_such_trace.csv"), &TraceOptions::literal()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert!(err.to_string().contains("no_such_trace.csv"), "{err}");
}

#[test]
fn wrong_explicit_format_fails_on_the_first_line() {
    let opts = TraceOptions { format: Some(TraceFormat::Tencent), ..TraceOptions::literal() };
    let err = open("msr_hm_0.csv", &opts).next().unwrap().unwrap_err().to_string();
    assert!(err.contains("msr_hm_0.csv:1:") && err.contains("fields"), "{err}");
}
