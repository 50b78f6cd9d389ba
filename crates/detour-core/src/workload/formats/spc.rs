//! SPC trace format, used by the UMass repository's Financial1/2 and
//! WebSearch1-3 traces: CSV `ASU,LBA,Size,Opcode,Timestamp[,...]`, e.g.
//! `0,20941264,8192,W,0.551706`.
//!
//! LBA is in 512 B sectors, Size in bytes, Opcode `r`/`R`/`w`/`W`, Timestamp
//! seconds from trace start (decimal, converted exactly). Fields after the
//! fifth are optional in the SPC specification and ignored. Volume = ASU.

use std::fmt::Write;

use super::{
    csv_fields, expect_fields, format_seconds, offset_sectors, parse_decimal, parse_u32, parse_u64, request, size_bytes, to_sectors, Line,
    ParseResult,
};
use crate::types::IoKind;
use crate::workload::Request;

pub fn parse_line(line: &str) -> ParseResult {
    let f = csv_fields(line);
    expect_fields(&f, 5, true, "ASU,LBA,Size,Opcode,Timestamp")?;
    let volume = parse_u32(f[0], "ASU")?;
    let offset = offset_sectors(parse_u64(f[1], "LBA")?, "LBA")?;
    let size = size_bytes(parse_u64(f[2], "Size")?, "Size")?;
    let kind = match f[3] {
        "r" | "R" => IoKind::Read,
        "w" | "W" => IoKind::Write,
        op => return Err(format!("Opcode: `{op}` is not r, R, w or W")),
    };
    let time = parse_decimal(f[4], 9, "Timestamp")?;
    Ok(Line::Request(request(time, offset, size, kind, volume)))
}

/// Lossy: the content is dropped. Fails on offsets that are not whole
/// sectors (the LBA column cannot express them).
pub fn write_line(req: &Request, out: &mut String) -> Result<(), String> {
    let (lba, _) = to_sectors(&Request { size: 512, ..*req })?;
    let op = if req.kind == IoKind::Read { 'r' } else { 'w' };
    let _ = write!(out, "{},{lba},{},{op},", req.volume, req.size);
    format_seconds(req.time_ns, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_financial_line() {
        let Ok(Line::Request(r)) = parse_line("0,20941264,8192,W,0.551706") else { panic!() };
        assert_eq!(r.time_ns, 551_706_000);
        assert_eq!((r.offset, r.size, r.kind, r.volume), (20_941_264 * 512, 8192, IoKind::Write, 0));
    }

    #[test]
    fn ignores_extra_fields_and_lowercase_read() {
        let Ok(Line::Request(r)) = parse_line("2,8,512,r,1.5,extra,fields") else { panic!() };
        assert_eq!((r.time_ns, r.offset, r.kind, r.volume), (1_500_000_000, 4096, IoKind::Read, 2));
    }

    #[test]
    fn rejects_bad_lines() {
        for l in ["0,1,0,r,0.0", "0,1,512,x,0.0", "0,1,512,r", "0,-1,512,r,0.0", "0,1,512,r,-0.5"] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }

    #[test]
    fn writer_rejects_unaligned_offset() {
        let r = request(0, 100, 512, IoKind::Read, 0);
        assert!(write_line(&r, &mut String::new()).is_err());
    }
}
