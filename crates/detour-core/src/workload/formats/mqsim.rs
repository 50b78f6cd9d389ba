//! MQSim's ASCII trace input (also what `shared/bench/gen_trace.py` writes):
//! five blank-separated integers `time_ns device lba_sectors size_sectors op`,
//! op 1 = read, 0 = write, e.g. `11413000 0 657728 16 1`.
//!
//! The time must be an integer: a decimal time means the DiskSim variant
//! (milliseconds), which keeps auto-detection of the two apart.

use std::fmt::Write;

use super::{offset_sectors, parse_u32, parse_u64, request, size_sectors, to_sectors, Line, ParseResult, SECTOR};
use crate::types::IoKind;
use crate::workload::Request;

pub fn parse_line(line: &str) -> ParseResult {
    if let Some(req) = parse_fast(line.as_bytes()) {
        return Ok(Line::Request(req));
    }
    parse_checked(line)
}

/// The common case in one pass over the bytes: five plain integers in
/// range. Anything else (extra fields, signs, overflow, a bad op) returns
/// None and goes through `parse_checked`, which says what is wrong; the two
/// agree on every line this accepts.
pub fn parse_fast(line: &[u8]) -> Option<Request> {
    let mut f = [0u64; 5];
    let (mut i, mut last_len) = (0, 0);
    for v in &mut f {
        while i < line.len() && line[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        let mut x: u64 = 0;
        while i < line.len() && line[i].is_ascii_digit() {
            // 19 digits always fit in a u64; longer numbers take the checked path.
            if i - start == 19 {
                return None;
            }
            x = x * 10 + (line[i] - b'0') as u64;
            i += 1;
        }
        if i == start || (i < line.len() && !line[i].is_ascii_whitespace()) {
            return None;
        }
        *v = x;
        last_len = i - start;
    }
    if line[i..].iter().any(|b| !b.is_ascii_whitespace()) {
        return None;
    }
    let [time, volume, lba, size, op] = f;
    // The op is exactly one character: `01` is not an op.
    let kind = match (op, last_len) {
        (1, 1) => IoKind::Read,
        (0, 1) => IoKind::Write,
        _ => return None,
    };
    let volume = u32::try_from(volume).ok()?;
    let offset = lba.checked_mul(SECTOR)?;
    let size = u32::try_from(size.checked_mul(SECTOR)?).ok().filter(|&s| s > 0)?;
    Some(request(time, offset, size, kind, volume))
}

fn parse_checked(line: &str) -> ParseResult {
    let f = five_fields(line, "time_ns device lba size op")?;
    let time = parse_u64(f[0], "time_ns")?;
    let volume = parse_u32(f[1], "device")?;
    let offset = offset_sectors(parse_u64(f[2], "lba")?, "lba")?;
    let size = size_sectors(parse_u64(f[3], "size")?, "size")?;
    let kind = match f[4] {
        "1" => IoKind::Read,
        "0" => IoKind::Write,
        op => return Err(format!("op: `{op}` is neither 1 (read) nor 0 (write)")),
    };
    Ok(Line::Request(request(time, offset, size, kind, volume)))
}

/// The five blank-separated fields of the MQSim/SSDSim/DiskSim layout.
pub(super) fn five_fields<'a>(line: &'a str, what: &str) -> Result<[&'a str; 5], String> {
    let mut f = [""; 5];
    let mut n = 0;
    for (i, field) in line.split_ascii_whitespace().enumerate() {
        if i < 5 {
            f[i] = field;
        }
        n += 1;
    }
    if n != 5 {
        return Err(format!("expected 5 blank-separated fields ({what}), found {n}"));
    }
    Ok(f)
}

/// Lossy: the content is dropped. Fails on unaligned requests (sectors only).
pub fn write_line(req: &Request, out: &mut String) -> Result<(), String> {
    let (lba, sectors) = to_sectors(req)?;
    let op = u8::from(req.kind == IoKind::Read);
    let _ = write!(out, "{} {} {lba} {sectors} {op}", req.time_ns, req.volume);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sample_lines() {
        let Ok(Line::Request(r)) = parse_line("11413000 0 657728 16 1") else { panic!() };
        assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (11_413_000, 657_728 * 512, 8192, IoKind::Read, 0));
        let Ok(Line::Request(w)) = parse_line("938513000\t4 264719034 16 0") else { panic!() };
        assert_eq!((w.kind, w.volume), (IoKind::Write, 4));
    }

    #[test]
    fn rejects_bad_lines() {
        for l in ["1.5 0 1 8 1", "1 0 1 0 1", "1 0 1 8 2", "1 0 1 8", "1 0 1 8 1 9"] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }

    #[test]
    fn fast_path_agrees_with_the_checked_parser() {
        for l in [
            "11413000 0 657728 16 1",
            " 1\t0 1 8 0 ",
            "+1 0 1 8 1",
            "1 0 1 8 01",
            "1 0 1 8 1x",
            "1 4294967296 1 8 1",
            "1 0 36028797018963968 8 1",
            "18446744073709551615 0 1 8 1",
            "18446744073709551616 0 1 8 1",
            "1 0 1 8388608 1",
            "1 0 1 8388607 1",
        ] {
            if let Some(r) = parse_fast(l.as_bytes()) {
                assert_eq!(parse_checked(l), Ok(Line::Request(r)), "{l}");
            }
        }
        assert!(parse_fast(b"11413000 0 657728 16 1").is_some());
    }

    proptest::proptest! {
        #[test]
        fn fast_path_never_accepts_what_the_checked_parser_rejects(
            fields in proptest::collection::vec("[0-9+ ]{0,21}", 3..7),
            sep in "[ \t]{1,2}",
        ) {
            let l = fields.join(&sep);
            if let Some(r) = parse_fast(l.as_bytes()) {
                proptest::prop_assert_eq!(parse_checked(&l), Ok(Line::Request(r)));
            }
        }

        #[test]
        fn fast_path_takes_every_plain_line(
            // 20-digit numbers are left to the checked parser.
            time in 0u64..10_000_000_000_000_000_000,
            volume: u32,
            lba in 0u64..1 << 50,
            size in 1u64..1 << 20,
            read: bool,
            sep in "[ \t]{1,3}",
        ) {
            let l = [time.to_string(), volume.to_string(), lba.to_string(), size.to_string(), u8::from(read).to_string()]
                .join(&sep);
            let Ok(Line::Request(want)) = parse_checked(&l) else {
                return Err(proptest::test_runner::TestCaseError::fail(format!("checked parser refused {l:?}")));
            };
            proptest::prop_assert_eq!(parse_fast(l.as_bytes()), Some(want));
        }
    }
}
