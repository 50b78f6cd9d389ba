//! FIU IODedup traces (SNIA IOTTA "FIU"), blkparse-derived text with one MD5
//! per block: `ts_ns pid process lba size_sectors R|W major minor md5hex`,
//! e.g. `89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba4...`.
//!
//! The content value is the first 16 hex digits of the MD5 as `u64`; 0 is
//! reserved for "no content", so an all-zero prefix becomes 1. Fields are
//! taken from both ends so a process name containing blanks still parses.
//! Volume = minor device number.

use std::fmt::Write;

use super::{offset_sectors, parse_u32, parse_u64, request, size_sectors, to_sectors, Line, ParseResult};
use crate::types::IoKind;
use crate::workload::Request;

pub fn parse_line(line: &str) -> ParseResult {
    let f: Vec<&str> = line.split_ascii_whitespace().collect();
    if f.len() < 9 {
        return Err(format!("expected 9 fields (ts_ns pid process lba size R|W major minor md5), found {}", f.len()));
    }
    let tail = &f[f.len() - 6..];
    let time = parse_u64(f[0], "ts_ns")?;
    parse_u64(f[1], "pid")?;
    let offset = offset_sectors(parse_u64(tail[0], "lba")?, "lba")?;
    let size = size_sectors(parse_u64(tail[1], "size")?, "size")?;
    let kind = match tail[2] {
        "R" | "r" => IoKind::Read,
        "W" | "w" => IoKind::Write,
        op => return Err(format!("op: `{op}` is neither R nor W")),
    };
    parse_u32(tail[3], "major")?;
    let volume = parse_u32(tail[4], "minor")?;
    let content = content_of(tail[5])?;
    Ok(Line::Request(crate::workload::Request { content, ..request(time, offset, size, kind, volume) }))
}

fn content_of(md5: &str) -> Result<u64, String> {
    if md5.len() != 32 || !md5.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("md5: `{md5}` is not 32 hex digits"));
    }
    let v = u64::from_str_radix(&md5[..16], 16).map_err(|e| format!("md5: {e}"))?;
    Ok(v.max(1))
}

/// Lossy: pid 0, process `detour`, major 0 are written; the content is
/// written as 32 hex digits, the `u64` zero-padded on the left to 16 digits
/// then 16 zeros (the reader keys on the first 16), so it reads back
/// unchanged except 0, which reads back as 1. Fails on unaligned
/// requests (sectors only).
pub fn write_line(req: &Request, out: &mut String) -> Result<(), String> {
    let (lba, sectors) = to_sectors(req)?;
    let op = if req.kind == IoKind::Read { 'R' } else { 'W' };
    let _ = write!(out, "{} 0 detour {lba} {sectors} {op} 0 {} {:016x}{:016x}", req.time_ns, req.volume, req.content, 0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sample_line() {
        let l = "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221";
        let Ok(Line::Request(r)) = parse_line(l) else { panic!() };
        assert_eq!(r.time_ns, 89_966_522_969_723);
        assert_eq!((r.offset, r.size, r.kind, r.volume), (18_579_576 * 512, 4096, IoKind::Write, 0));
        assert_eq!(r.content, 0xd6c7_5ba4_6e82_326f);
    }

    #[test]
    fn process_with_blanks_and_zero_hash() {
        let l = "5 1 kworker u:2 8 8 R 8 3 00000000000000000000000000000abc";
        let Ok(Line::Request(r)) = parse_line(l) else { panic!() };
        assert_eq!((r.content, r.volume, r.kind), (1, 3, IoKind::Read));
    }

    #[test]
    fn rejects_bad_lines() {
        for l in [
            "1 2 p 3 0 W 6 0 d6c75ba46e82326fefa545b57a12e221",
            "1 2 p 3 8 X 6 0 d6c75ba46e82326fefa545b57a12e221",
            "1 2 p 3 8 W 6 0 xyz",
            "1 2 p 3 8 W 6 0",
            "1 2 p 3 8 W 6 0 d6c75ba46e82326fefa545b57a12e22g",
        ] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }

    #[test]
    fn writes_content_as_32_hex_digits() {
        let r = Request { content: 0xabc, ..request(7, 4096, 4096, IoKind::Write, 2) };
        let mut s = String::new();
        write_line(&r, &mut s).unwrap();
        assert_eq!(s, "7 0 detour 8 8 W 0 2 0000000000000abc0000000000000000");
        assert_eq!(parse_line(&s), Ok(Line::Request(r)));
    }
}
