//! Auto-detection never guesses: every fixture, and any ordered selection of
//! its lines, is detected as its own format and nothing else (a property
//! test), and each pair of formats whose lines can be confused is refused
//! with both names and `--format` rather than read as either.

mod fixtures;
use fixtures::*;

use detour_core::workload::formats::Line;
use detour_core::workload::{open_trace_reader, TraceFormat, TraceOptions};
use proptest::prelude::*;
use std::io::Cursor;

/// (fixture, what detection must say): SSDSim's layout is MQSim's and reads
/// identically, so it is detected as mqsim (documented).
const FIXTURES: &[(&str, TraceFormat)] = &[
    ("msr_hm_0.csv", TraceFormat::Msr),
    ("spc_financial.csv", TraceFormat::Spc),
    ("fiu_mail.blkparse", TraceFormat::Fiu),
    ("mqsim_wsrch.trace", TraceFormat::Mqsim),
    ("disksim.trace", TraceFormat::Disksim),
    ("ssdsim.trace", TraceFormat::Mqsim),
    ("systor17.csv", TraceFormat::Systor),
    ("tencent_cbs.csv", TraceFormat::Tencent),
    ("cloudphysics_io.csv", TraceFormat::CloudPhysics),
    ("blkparse.txt", TraceFormat::Blkparse),
];

fn detect(text: &str) -> Result<TraceFormat, String> {
    open_trace_reader("t", Cursor::new(text.as_bytes().to_vec()), &TraceOptions::literal()).map(|s| s.format()).map_err(|e| e.to_string())
}

fn lines(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(fixture(name)).expect("fixture");
    text.lines().map(str::to_string).collect()
}

fn is_request(format: TraceFormat, line: &str) -> bool {
    matches!(format.parse_line(line), Ok(Line::Request(_)))
}

#[test]
fn every_fixture_is_detected_as_itself_compressed_or_not() {
    for &(name, want) in FIXTURES {
        assert_eq!(detect(&lines(name).join("\n")), Ok(want), "{name}");
    }
    for name in ["mqsim_wsrch.trace.gz", "mqsim_wsrch.trace.zst"] {
        assert_eq!(open(name, &TraceOptions::literal()).format(), TraceFormat::Mqsim);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any ordered selection of a fixture's lines holding at least one
    /// request (a blkparse window needs its `Q`) is still its format, and no
    /// other format reads the whole selection cleanly.
    #[test]
    fn any_selection_of_a_fixture_is_detected_as_itself(
        which in 0..FIXTURES.len(),
        keep in prop::collection::vec(any::<bool>(), 32),
    ) {
        let (name, want) = FIXTURES[which];
        let all = lines(name);
        let chosen: Vec<&String> = all.iter().zip(keep.iter().cycle()).filter(|(_, k)| **k).map(|(l, _)| l).collect();
        prop_assume!(chosen.iter().any(|l| is_request(want, l)));
        let text = chosen.iter().map(|l| l.as_str()).collect::<Vec<_>>().join("\n");
        prop_assert_eq!(detect(&text), Ok(want), "{}: {}", name, text);
        for other in TraceFormat::ALL {
            if other == want || (want == TraceFormat::Mqsim && other == TraceFormat::Ssdsim) {
                continue;
            }
            let clean = chosen.iter().all(|l| other.parse_line(l).is_ok())
                && chosen.iter().any(|l| is_request(other, l));
            // DiskSim reads MQSim lines, loosely (integer times): detection
            // discounts that reading; any other clean reading is a confusion.
            let loose = other == TraceFormat::Disksim && !text.contains('.');
            prop_assert!(!clean || loose, "{} also reads {}: {}", other, name, text);
        }
    }
}

/// Each pair of formats that can read the same lines, with lines both read.
#[test]
fn each_confusable_pair_is_refused_naming_both() {
    let cases = [
        // MQSim with a bad op: DiskSim reads it (ns times as ms, op as flags).
        ("mqsim", "disksim", "11413000 0 657728 16 1\n11565000 1 31244784 64 7\n"),
        ("mqsim", "disksim", "11413000 0 657728 16 1\n11565000 1 31244784 64 1\n11721000 1 8 16 2\n"),
        // Tencent sizes 8/28/88/a are SCSI READ/WRITE opcodes to CloudPhysics.
        ("tencent", "cloudphysics", "1538323200,4247200,8,1,1058\n1538323201,4247208,28,1,1058\n"),
    ];
    for (a, b, text) in cases {
        let err = detect(text).unwrap_err();
        assert!(err.contains(&format!("{a} or {b}")) && err.contains("--format") && err.starts_with("t:"), "{err}");
        // With the format given, each reads as asked (or names the line).
        for f in [a, b] {
            let opts = TraceOptions { format: Some(f.parse().unwrap()), ..TraceOptions::literal() };
            let s = open_trace_reader("t", Cursor::new(text.as_bytes().to_vec()), &opts).unwrap();
            assert_eq!(s.format().name(), f);
        }
    }
}

/// A DiskSim file with integer times only cannot be told from MQSim's
/// nanoseconds, so DiskSim alone is not chosen either.
#[test]
fn a_loose_disksim_reading_alone_is_refused() {
    let err = detect("0 0 0 8 2\n10 0 8 8 3\n").unwrap_err();
    assert!(err.contains("disksim") && err.contains("milliseconds"), "{err}");
    assert_eq!(detect("0.5 0 0 8 2\n10 0 8 8 3\n"), Ok(TraceFormat::Disksim));
}
