//! Whatever the bytes, the readers never panic, always end, and whatever
//! they let through is a sane request: arbitrary bytes, arbitrary text
//! lines, mutated valid lines, and compressed (possibly truncated) input,
//! for every format and for auto-detection, strict and skipping.

use std::io::{Cursor, Write};

use detour_core::workload::{open_trace_reader, TraceFormat, TraceOptions};
use detour_core::ErrorKind;
use proptest::prelude::*;

/// One valid line per format, for mutation.
const TEMPLATES: &[&str] = &[
    "128166385295514663,hm,0,Write,9056014336,2048,2833",
    "0,20941264,8192,W,0.551706",
    "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221",
    "11413000 0 657728 16 1",
    "0.152000 0 2097152 16 0",
    "Timestamp,Response,IOType,LUN,Offset,Size",
    "1456095145.133076000,0.000806000,R,0,899056122368,131072",
    "1538323200,4247200,128,1,1058",
    "version,time,op,size,lbn",
    "1,5633898,2a,512,42932745",
    "  8,0    3        1     0.000000000  4162  Q   W 223490 + 8 [proc]",
];

/// Every way of reading: detection or each format, strict or skipping,
/// clamping or not.
fn all_options() -> Vec<TraceOptions> {
    let formats = std::iter::once(None).chain(TraceFormat::ALL.into_iter().map(Some));
    formats
        .flat_map(|format| {
            [(false, false), (true, true), (true, false)].map(|(skip_malformed, clamp_backwards_time)| TraceOptions {
                format,
                skip_malformed,
                clamp_backwards_time,
                ..TraceOptions::literal()
            })
        })
        .collect()
}

/// Read `bytes` every way and check what comes out.
fn check(bytes: &[u8]) {
    for opts in all_options() {
        let Ok(stream) = open_trace_reader("fuzz", Cursor::new(bytes.to_vec()), &opts) else {
            continue;
        };
        let mut last_time = 0;
        let mut items = 0usize;
        for item in stream {
            items += 1;
            assert!(items <= 100_000, "stream does not end ({opts:?})");
            match item {
                Ok(r) => {
                    assert!(r.size > 0 && r.line >= 1, "{r:?}");
                    assert!(r.time_ns >= last_time, "time went back: {r:?}");
                    last_time = r.time_ns;
                }
                Err(e) => {
                    assert!(matches!(e.kind(), ErrorKind::Trace | ErrorKind::Io), "{e}");
                    // Skipping and clamping leave only I/O errors, and the
                    // reader's one error for input that held no request.
                    if opts.skip_malformed && opts.clamp_backwards_time && !e.to_string().contains(": no requests read as") {
                        assert_eq!(e.kind(), ErrorKind::Io, "skipping and clamping let a line error through: {e}");
                    }
                }
            }
        }
    }
}

fn mutated_line() -> impl Strategy<Value = String> {
    let edits = prop::collection::vec((any::<prop::sample::Index>(), prop::char::range(' ', '~')), 0..4);
    (prop::sample::select(TEMPLATES), edits, any::<prop::sample::Index>(), any::<bool>()).prop_map(|(template, edits, cut, truncate)| {
        let mut chars: Vec<char> = template.chars().collect();
        for (at, c) in edits {
            let i = at.index(chars.len());
            chars[i] = c;
        }
        if truncate {
            chars.truncate(cut.index(chars.len() + 1));
        }
        chars.into_iter().collect()
    })
}

fn compress(text: &[u8], zstd_not_gzip: bool) -> Vec<u8> {
    if zstd_not_gzip {
        zstd::encode_all(text, 1).unwrap()
    } else {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text).unwrap();
        gz.finish().unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check(&bytes);
    }

    #[test]
    fn arbitrary_lines(lines in prop::collection::vec("[ -~\t]{0,60}", 0..12)) {
        check(lines.join("\n").as_bytes());
    }

    #[test]
    fn trace_like_lines(lines in prop::collection::vec("[0-9a-fA-FRWrwQ,. +#x-]{0,50}", 0..12)) {
        check(lines.join("\n").as_bytes());
    }

    #[test]
    fn mutated_valid_lines(lines in prop::collection::vec(mutated_line(), 1..10), crlf in any::<bool>()) {
        check(lines.join(if crlf { "\r\n" } else { "\n" }).as_bytes());
    }

    #[test]
    fn compressed_and_truncated(lines in prop::collection::vec(mutated_line(), 1..8),
                                zst in any::<bool>(), cut in any::<prop::sample::Index>()) {
        let packed = compress(lines.join("\n").as_bytes(), zst);
        check(&packed);
        check(&packed[..cut.index(packed.len())]);
    }
}
