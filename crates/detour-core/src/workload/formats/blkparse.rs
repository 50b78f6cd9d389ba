//! Plain `blkparse` text output (default format), e.g.
//! `  8,0    3        1     0.000000000  4162  Q   W 223490 + 8 [proc]`:
//! device `major,minor`, cpu, sequence, seconds, pid, action, RWBS, then for
//! I/O actions `sector + count [process]`.
//!
//! Only `Q` (queued) events are requests: every I/O appears once per stage
//! (Q, G, I, D, C...), and Q is when the host issued it. Other actions and
//! the closing per-CPU summary (lines with a `:` such as
//! `Reads Queued: ...`) are skipped. A Q whose RWBS has `D` is a discard
//! (TRIM; blktrace's `fill_rwbs` writes D for REQ_OP_DISCARD, and a secure
//! erase's `DE` is one too); one with neither R, W nor D (a pure flush) is
//! ignored and counted. Sectors are 512 B; the time is seconds since the
//! trace started; volume = minor number.

use std::fmt::Write;

use super::{format_seconds, offset_sectors, parse_decimal, parse_u32, parse_u64, request, size_sectors, to_sectors, Line, ParseResult};
use crate::types::IoKind;
use crate::workload::Request;

pub fn parse_line(line: &str) -> ParseResult {
    let f: Vec<&str> = line.split_ascii_whitespace().collect();
    let Some((major, minor)) = f.first().and_then(|d| d.split_once(',')) else {
        return summary_or_error(line);
    };
    if !is_number(major) || !is_number(minor) {
        return summary_or_error(line);
    }
    if f.len() < 6 {
        return Err(format!("event line has {} fields, expected at least 6 (dev cpu seq time pid action)", f.len()));
    }
    if f[5] != "Q" {
        return Ok(Line::Skip);
    }
    let volume = parse_u32(minor, "minor")?;
    let time = parse_decimal(f[3], 9, "time")?;
    let rwbs = *f.get(6).ok_or("Q event without RWBS field")?;
    let kind = match (rwbs.contains('D'), rwbs.contains('R'), rwbs.contains('W')) {
        (true, _, _) => IoKind::Discard,
        (false, true, _) => IoKind::Read,
        (false, false, true) => IoKind::Write,
        (false, false, false) => return Ok(Line::Ignored),
    };
    let flush = rwbs.contains('F');
    let (sector, plus, count) = match (f.get(7), f.get(8), f.get(9)) {
        (Some(s), Some(p), Some(c)) => (*s, *p, *c),
        _ if flush => return Ok(Line::Ignored),
        _ => return Err("Q event without `sector + count`".to_string()),
    };
    if plus != "+" {
        return Err(format!("expected `sector + count`, found `{sector} {plus} {count}`"));
    }
    let sectors = parse_u64(count, "count")?;
    if sectors == 0 && flush {
        return Ok(Line::Ignored);
    }
    let offset = offset_sectors(parse_u64(sector, "sector")?, "sector")?;
    let size = size_sectors(sectors, "count")?;
    Ok(Line::Request(request(time, offset, size, kind, volume)))
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// blkparse ends with per-CPU and total summaries whose lines all contain a
/// colon; anything else that is not an event line is a real error.
fn summary_or_error(line: &str) -> ParseResult {
    if line.contains(':') {
        Ok(Line::Skip)
    } else {
        Err("not a blkparse event line (expected `major,minor cpu seq time pid action ...`)".to_string())
    }
}

/// Writes one Q event per request with major 8, cpu 0, pid 0 and process
/// `detour`. Lossy: the content is dropped. Fails on unaligned requests.
pub fn write_line(req: &Request, seq: u64, out: &mut String) -> Result<(), String> {
    let (sector, count) = to_sectors(req)?;
    let _ = write!(out, "8,{} 0 {seq} ", req.volume);
    format_seconds(req.time_ns, out);
    let rw = match req.kind {
        IoKind::Read => 'R',
        IoKind::Write => 'W',
        IoKind::Discard => 'D',
    };
    let _ = write!(out, " 0 Q {rw} {sector} + {count} [detour]");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_queue_event() {
        let l = "  8,0    3        1     0.000000000  4162  Q   W 223490 + 8 [proc]";
        let Ok(Line::Request(r)) = parse_line(l) else { panic!() };
        assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (0, 223_490 * 512, 4096, IoKind::Write, 0));
        let Ok(Line::Request(r)) = parse_line("259,2 1 7 1.000000500 9 Q RS 8 + 16 [fio job]") else { panic!() };
        assert_eq!((r.time_ns, r.kind, r.volume, r.size), (1_000_000_500, IoKind::Read, 2, 8192));
    }

    #[test]
    fn other_events_and_summaries_are_skipped() {
        assert_eq!(parse_line("8,0 3 2 0.000001 4162 G W 223490 + 8 [proc]"), Ok(Line::Skip));
        assert_eq!(parse_line("8,0 3 0 0.0 0 m N cfq4162 alloced"), Ok(Line::Skip));
        assert_eq!(parse_line("CPU3 (8,0):"), Ok(Line::Skip));
        assert_eq!(parse_line(" Reads Queued:           0,        0KiB"), Ok(Line::Skip));
    }

    #[test]
    fn flushes_are_ignored_and_discards_read() {
        assert_eq!(parse_line("8,0 0 5 0.1 7 Q FWS [kworker]"), Ok(Line::Ignored));
        assert_eq!(parse_line("8,0 0 5 0.1 7 Q FWS 0 + 0 [kworker]"), Ok(Line::Ignored));
        for rwbs in ["D", "DS", "DE"] {
            let Ok(Line::Request(r)) = parse_line(&format!("8,0 0 5 0.1 7 Q {rwbs} 64 + 8 [fstrim]")) else { panic!("{rwbs}") };
            assert_eq!((r.kind, r.offset, r.size), (IoKind::Discard, 64 * 512, 4096));
        }
        let mut out = String::new();
        write_line(&request(0, 4096, 8192, IoKind::Discard, 0), 1, &mut out).unwrap();
        assert!(out.ends_with(" Q D 8 + 16 [detour]"), "{out}");
    }

    #[test]
    fn rejects_bad_lines() {
        for l in [
            "garbage",
            "8,0 3 1 x 4162 Q W 1 + 8 [p]",
            "8,0 3 1 0.1 4162 Q W 1 + 0 [p]",
            "8,0 3 1 0.1 4162 Q W 1 - 8",
            "8,0 3 1 0.1 4162 Q W",
            "8,0 3 1 0.1",
        ] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }
}
