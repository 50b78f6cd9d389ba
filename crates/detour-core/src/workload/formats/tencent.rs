//! Tencent CBS block traces (SNIA IOTTA): CSV `Timestamp,Offset,Size,IOType,
//! VolumeID`, e.g. `1538323200,4247200,128,1,1058`.
//!
//! Timestamp is Unix seconds (whole seconds in the published traces, so
//! requests in one second share a time), offset and size are 512 B sectors,
//! IOType 0 = read, 1 = write. The traces are not sorted within a second:
//! read them with `clamp_backwards_time`.

use std::fmt::Write;

use super::{
    csv_fields, expect_fields, offset_sectors, parse_decimal, parse_u32, parse_u64, request, size_sectors, to_sectors, Line, ParseResult,
};
use crate::types::IoKind;
use crate::workload::Request;

pub fn parse_line(line: &str) -> ParseResult {
    let f = csv_fields(line);
    if f[0].eq_ignore_ascii_case("timestamp") && f.get(1).is_some_and(|t| t.eq_ignore_ascii_case("offset")) {
        return Ok(Line::Skip);
    }
    expect_fields(&f, 5, false, "Timestamp,Offset,Size,IOType,VolumeID")?;
    let time = parse_decimal(f[0], 9, "Timestamp")?;
    let offset = offset_sectors(parse_u64(f[1], "Offset")?, "Offset")?;
    let size = size_sectors(parse_u64(f[2], "Size")?, "Size")?;
    let kind = match f[3] {
        "0" => IoKind::Read,
        "1" => IoKind::Write,
        t => return Err(format!("IOType: `{t}` is neither 0 (read) nor 1 (write)")),
    };
    let volume = parse_u32(f[4], "VolumeID")?;
    Ok(Line::Request(request(time, offset, size, kind, volume)))
}

/// Lossy: the time is truncated to whole seconds and the content dropped.
/// Fails on unaligned requests (sectors only).
pub fn write_line(req: &Request, out: &mut String) -> Result<(), String> {
    let (off, sectors) = to_sectors(req)?;
    let op = u8::from(req.kind == IoKind::Write);
    let _ = write!(out, "{},{off},{sectors},{op},{}", req.time_ns / 1_000_000_000, req.volume);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sample_line() {
        let Ok(Line::Request(r)) = parse_line("1538323200,4247200,128,1,1058") else { panic!() };
        assert_eq!(r.time_ns, 1_538_323_200_000_000_000);
        assert_eq!((r.offset, r.size, r.kind, r.volume), (4_247_200 * 512, 65_536, IoKind::Write, 1058));
        let Ok(Line::Request(r)) = parse_line("1538323199,13896880,128,0,1063") else { panic!() };
        assert_eq!(r.kind, IoKind::Read);
    }

    #[test]
    fn rejects_bad_lines() {
        for l in ["1,2,0,1,3", "1,2,8,2,3", "1,2,8,1", "1,2,8,R,3", "1,x,8,1,3"] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }
}
