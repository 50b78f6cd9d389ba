//! DiskSim's ASCII input: `time_ms device blkno size_blocks flags`, time in
//! milliseconds (decimal, converted exactly to ns), 512 B blocks, and a flags
//! word whose bit 0 set means read (DiskSim's `DISKSIM_READ`), e.g.
//! `0.123456 0 2048 8 1`.

use std::fmt::Write;

use super::mqsim::five_fields;
use super::{offset_sectors, parse_decimal, parse_u32, parse_u64, request, size_sectors, to_sectors, Line, ParseResult};
use crate::types::IoKind;
use crate::workload::Request;

pub fn parse_line(line: &str) -> ParseResult {
    let f = five_fields(line, "time_ms device blkno size flags")?;
    let time = parse_decimal(f[0], 6, "time_ms")?;
    let volume = parse_u32(f[1], "device")?;
    let offset = offset_sectors(parse_u64(f[2], "blkno")?, "blkno")?;
    let size = size_sectors(parse_u64(f[3], "size")?, "size")?;
    let flags = parse_u32(f[4], "flags")?;
    let kind = if flags & 1 == 1 { IoKind::Read } else { IoKind::Write };
    Ok(Line::Request(request(time, offset, size, kind, volume)))
}

/// Lossy: the content is dropped; the time is written in ms with 6 decimals
/// (exact ns). Fails on unaligned requests.
pub fn write_line(req: &Request, out: &mut String) -> Result<(), String> {
    let (blk, blocks) = to_sectors(req)?;
    let flags = u8::from(req.kind == IoKind::Read);
    let (ms, ns) = (req.time_ns / 1_000_000, req.time_ns % 1_000_000);
    let _ = write!(out, "{ms}.{ns:06} {} {blk} {blocks} {flags}", req.volume);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ms_and_flag_bit() {
        let Ok(Line::Request(r)) = parse_line("12.5 1 2048 8 3") else { panic!() };
        assert_eq!((r.time_ns, r.offset, r.size, r.kind, r.volume), (12_500_000, 2048 * 512, 4096, IoKind::Read, 1));
        let Ok(Line::Request(w)) = parse_line("0 0 0 1 2") else { panic!() };
        assert_eq!((w.time_ns, w.kind), (0, IoKind::Write));
    }

    #[test]
    fn rejects_bad_lines() {
        for l in ["-1 0 1 8 1", "1 0 1 0 1", "1 0 1 8 x", "1 0 1 8"] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }
}
