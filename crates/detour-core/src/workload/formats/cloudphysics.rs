//! CloudPhysics VMware vscsi traces, as the CSV libCacheSim ships
//! (`data/cloudPhysicsIO.csv`): header `version,time,op,size,lbn`, then e.g.
//! `1,5633898,2a,512,42932745`.
//!
//! Units, decided from the sample and confirmed by libCacheSim's docs:
//! `time` is whole **seconds** (113,872 requests span 7,200 ticks, up to
//! ~2,500 per tick, which only makes sense as 2 hours, not 7 ms); `size` is
//! bytes; `lbn` is a 512 B sector number (512 B requests step it by one).
//! `op` is a SCSI opcode in hex: READ(10/16/6) 0x28/0x88/0x08 and
//! WRITE(10/16/6) 0x2a/0x8a/0x0a; any other opcode (inquiry, sync cache...)
//! is ignored and counted. The trace has no volume column: volume is 0.

use std::fmt::Write;

use super::{csv_fields, expect_fields, offset_sectors, parse_decimal, parse_u64, request, size_bytes, to_sectors, Line, ParseResult};
use crate::types::IoKind;
use crate::workload::Request;

pub const HEADER: &str = "version,time,op,size,lbn";

pub fn parse_line(line: &str) -> ParseResult {
    let f = csv_fields(line);
    if f[0].eq_ignore_ascii_case("version") {
        return Ok(Line::Skip);
    }
    expect_fields(&f, 5, false, HEADER)?;
    parse_u64(f[0], "version")?;
    let time = parse_decimal(f[1], 9, "time")?;
    let hex = f[2].trim_start_matches("0x").trim_start_matches("0X");
    let op = u8::from_str_radix(hex, 16).map_err(|_| format!("op: `{}` is not a hex SCSI opcode", f[2]))?;
    let kind = match op {
        0x28 | 0x88 | 0x08 => IoKind::Read,
        0x2a | 0x8a | 0x0a => IoKind::Write,
        _ => return Ok(Line::Ignored),
    };
    let size = size_bytes(parse_u64(f[3], "size")?, "size")?;
    let offset = offset_sectors(parse_u64(f[4], "lbn")?, "lbn")?;
    Ok(Line::Request(request(time, offset, size, kind, 0)))
}

/// Lossy: the time is truncated to whole seconds; volume and content are
/// dropped. Fails on offsets that are not whole sectors.
pub fn write_line(req: &Request, out: &mut String) -> Result<(), String> {
    let (lbn, _) = to_sectors(&Request { size: 512, ..*req })?;
    let op = if req.kind == IoKind::Read { "28" } else { "2a" };
    let _ = write!(out, "1,{},{op},{},{lbn}", req.time_ns / 1_000_000_000, req.size);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_header_and_sample_line() {
        assert_eq!(parse_line(HEADER), Ok(Line::Skip));
        let Ok(Line::Request(r)) = parse_line("1,5633898,2a,6656,40409911") else { panic!() };
        assert_eq!(r.time_ns, 5_633_898_000_000_000);
        assert_eq!((r.offset, r.size, r.kind, r.volume), (40_409_911 * 512, 6656, IoKind::Write, 0));
        let Ok(Line::Request(r)) = parse_line("2,1,0x88,512,7") else { panic!() };
        assert_eq!(r.kind, IoKind::Read);
    }

    #[test]
    fn other_opcodes_are_ignored() {
        assert_eq!(parse_line("1,5,35,0,0"), Ok(Line::Ignored));
        assert_eq!(parse_line("1,5,12,36,0"), Ok(Line::Ignored));
    }

    #[test]
    fn rejects_bad_lines() {
        for l in ["1,5,zz,512,0", "1,5,28,0,0", "1,5,28,512", "x,5,28,512,0", "1,5,123,512,0"] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }
}
