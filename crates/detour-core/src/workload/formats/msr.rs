//! MSR Cambridge block traces (SNIA IOTTA), CSV without header:
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, e.g.
//! `128166385295514663,hm,0,Write,9056014336,2048,2833`.
//!
//! Timestamp is a Windows filetime (100 ns ticks since 1601); it is kept in
//! that epoch (ticks x 100 ns), which fits `u64` until the year 2185 and needs
//! no date arithmetic. Offset and size are bytes; the volume is DiskNumber.
//! The response time is ignored: Detour measures its own.

use std::fmt::Write;

use super::{csv_fields, expect_fields, parse_u32, parse_u64, request, scale_time, size_bytes, Line, ParseResult};
use crate::types::IoKind;
use crate::workload::Request;

const NS_PER_TICK: u64 = 100;

pub fn parse_line(line: &str) -> ParseResult {
    let f = csv_fields(line);
    if f[0].eq_ignore_ascii_case("timestamp") {
        return Ok(Line::Skip);
    }
    expect_fields(&f, 7, false, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime")?;
    let time = scale_time(parse_u64(f[0], "Timestamp")?, NS_PER_TICK, "Timestamp")?;
    let volume = parse_u32(f[2], "DiskNumber")?;
    let kind = match f[3] {
        t if t.eq_ignore_ascii_case("read") => IoKind::Read,
        t if t.eq_ignore_ascii_case("write") => IoKind::Write,
        t => return Err(format!("Type: `{t}` is neither Read nor Write")),
    };
    let offset = parse_u64(f[4], "Offset")?;
    let size = size_bytes(parse_u64(f[5], "Size")?, "Size")?;
    Ok(Line::Request(request(time, offset, size, kind, volume)))
}

/// Lossy: time is truncated to 100 ns ticks, the host is written as
/// `detour`, the response time as 0, and the content is dropped.
pub fn write_line(req: &Request, out: &mut String) -> Result<(), String> {
    let kind = if req.kind == IoKind::Read { "Read" } else { "Write" };
    let ticks = req.time_ns / NS_PER_TICK;
    let _ = write!(out, "{ticks},detour,{},{kind},{},{},0", req.volume, req.offset, req.size);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_sample_line_without_float_loss() {
        let Line::Request(r) = parse_line("128166385295514663,hm,0,Write,9056014336,2048,2833").unwrap() else { panic!("no request") };
        assert_eq!(r.time_ns, 12_816_638_529_551_466_300);
        assert_eq!((r.offset, r.size, r.kind, r.volume), (9_056_014_336, 2048, IoKind::Write, 0));
    }

    #[test]
    fn accepts_header_and_read() {
        assert_eq!(parse_line("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"), Ok(Line::Skip));
        let Ok(Line::Request(r)) = parse_line("10,src,3,read,512,4096,1") else { panic!() };
        assert_eq!((r.time_ns, r.kind, r.volume), (1000, IoKind::Read, 3));
    }

    #[test]
    fn rejects_bad_lines() {
        for l in [
            "1,hm,0,Write,0,0,1",
            "1,hm,0,Trim,0,512,1",
            "1,hm,0,Write,0,512",
            "x,hm,0,Read,0,512,1",
            "999999999999999999999,hm,0,Read,0,512,1",
            "184467440737095517,hm,0,Read,0,512,1",
        ] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }
}
