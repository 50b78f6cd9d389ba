//! SNIA Systor'17 VDI traces: CSV with header
//! `Timestamp,Response,IOType,LUN,Offset,Size`, e.g.
//! `1456095145.133076000,0.000806000,R,0,899056122368,131072`.
//!
//! Timestamp is Unix seconds (decimal, converted exactly to ns), IOType `R`
//! or `W`, offset and size in bytes, volume = LUN. Response is ignored and
//! may be empty. The published traces are not sorted by time: read them with
//! `clamp_backwards_time`.

use std::fmt::Write;

use super::{csv_fields, expect_fields, format_seconds, parse_decimal, parse_u32, parse_u64, request, size_bytes, Line, ParseResult};
use crate::types::IoKind;
use crate::workload::Request;

pub const HEADER: &str = "Timestamp,Response,IOType,LUN,Offset,Size";

pub fn parse_line(line: &str) -> ParseResult {
    let f = csv_fields(line);
    if f[0].eq_ignore_ascii_case("timestamp") && f.get(2).is_some_and(|t| t.eq_ignore_ascii_case("iotype")) {
        return Ok(Line::Skip);
    }
    expect_fields(&f, 6, false, HEADER)?;
    let time = parse_decimal(f[0], 9, "Timestamp")?;
    let kind = match f[2] {
        "R" | "r" => IoKind::Read,
        "W" | "w" => IoKind::Write,
        t => return Err(format!("IOType: `{t}` is neither R nor W")),
    };
    let volume = parse_u32(f[3], "LUN")?;
    let offset = parse_u64(f[4], "Offset")?;
    let size = size_bytes(parse_u64(f[5], "Size")?, "Size")?;
    Ok(Line::Request(request(time, offset, size, kind, volume)))
}

/// Lossy: the response time is written as 0 and the content is dropped.
pub fn write_line(req: &Request, out: &mut String) -> Result<(), String> {
    format_seconds(req.time_ns, out);
    let kind = if req.kind == IoKind::Read { 'R' } else { 'W' };
    let _ = write!(out, ",0.000000000,{kind},{},{},{}", req.volume, req.offset, req.size);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_header_and_sample_line() {
        assert_eq!(parse_line(HEADER), Ok(Line::Skip));
        let Ok(Line::Request(r)) = parse_line("1456095145.133076000,0.000806000,R,0,899056122368,131072") else { panic!() };
        assert_eq!(r.time_ns, 1_456_095_145_133_076_000);
        assert_eq!((r.offset, r.size, r.kind, r.volume), (899_056_122_368, 131_072, IoKind::Read, 0));
    }

    #[test]
    fn empty_response_is_fine() {
        assert!(matches!(parse_line("1.0,,W,2,0,512"), Ok(Line::Request(_))));
    }

    #[test]
    fn rejects_bad_lines() {
        for l in ["1.0,0,X,0,0,512", "1.0,0,R,0,0,0", "1.0,0,R,0,0", "abc,0,R,0,0,512"] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }
}
