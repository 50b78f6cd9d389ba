//! MQSim's ASCII trace input (also what `shared/bench/gen_trace.py` writes):
//! five blank-separated integers `time_ns device lba_sectors size_sectors op`,
//! op 1 = read, 0 = write, e.g. `11413000 0 657728 16 1`.
//!
//! The time must be an integer: a decimal time means the DiskSim variant
//! (milliseconds), which keeps auto-detection of the two apart.

use std::fmt::Write;

use super::{
    offset_sectors, parse_u32, parse_u64, request, size_sectors, to_sectors, Line, ParseResult,
};
use crate::types::IoKind;
use crate::workload::Request;

pub fn parse_line(line: &str) -> ParseResult {
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
        let Ok(Line::Request(r)) = parse_line("11413000 0 657728 16 1") else {
            panic!()
        };
        assert_eq!(
            (r.time_ns, r.offset, r.size, r.kind, r.volume),
            (11_413_000, 657_728 * 512, 8192, IoKind::Read, 0)
        );
        let Ok(Line::Request(w)) = parse_line("938513000\t4 264719034 16 0") else {
            panic!()
        };
        assert_eq!((w.kind, w.volume), (IoKind::Write, 4));
    }

    #[test]
    fn rejects_bad_lines() {
        for l in [
            "1.5 0 1 8 1",
            "1 0 1 0 1",
            "1 0 1 8 2",
            "1 0 1 8",
            "1 0 1 8 1 9",
        ] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }
}
