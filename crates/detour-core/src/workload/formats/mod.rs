//! One parser per trace format, each a pure function from one text line to a
//! [`Line`], so a format can be unit-tested without files and the reader can
//! try every parser on a few lines to detect the format.
//!
//! Each format file holds the whole knowledge of its format: how to read a
//! line, the header it may carry, and how to write a request back
//! (`write_line`), so adding a format means one file plus one enum variant.
//!
//! Times are absolute, in ns, in the unit origin of the trace (Windows epoch
//! for MSR, Unix epoch for Systor/Tencent, trace start for the rest); the
//! reader makes them relative. Parsers use integer or exact decimal arithmetic
//! so a 2007 filetime (~1.3e19 ns) loses nothing to `f64` rounding.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::types::IoKind;
use crate::workload::Request;

mod blkparse;
mod cloudphysics;
mod disksim;
mod fiu;
mod mqsim;
mod msr;
mod spc;
mod ssdsim;
mod systor;
mod tencent;

/// What one line of a trace says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// A request; `line` is left 0 for the reader to fill.
    Request(Request),
    /// A header, comment, summary or other line that carries no request.
    Skip,
    /// A well-formed operation that is neither a read nor a write (a SCSI
    /// inquiry, a flush): counted by the reader so nothing vanishes silently.
    Ignored,
}

/// Why a line is malformed; the reader adds file and line.
pub type ParseResult = Result<Line, String>;

/// The trace formats Detour reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    Msr,
    Spc,
    Fiu,
    Mqsim,
    Disksim,
    Ssdsim,
    Systor,
    Tencent,
    CloudPhysics,
    Blkparse,
}

impl TraceFormat {
    /// Every format. Auto-detection (`reader/detect.rs`) never prefers one
    /// by its place here: where two formats read the same lines cleanly it
    /// refuses and names both (ssdsim, read exactly as mqsim, is reported
    /// as mqsim).
    pub const ALL: [TraceFormat; 10] = [
        TraceFormat::Msr,
        TraceFormat::Spc,
        TraceFormat::Fiu,
        TraceFormat::Mqsim,
        TraceFormat::Disksim,
        TraceFormat::Ssdsim,
        TraceFormat::Systor,
        TraceFormat::Tencent,
        TraceFormat::CloudPhysics,
        TraceFormat::Blkparse,
    ];

    /// The name used on command lines, in configs and in `FromStr`.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::Spc => "spc",
            TraceFormat::Fiu => "fiu",
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Disksim => "disksim",
            TraceFormat::Ssdsim => "ssdsim",
            TraceFormat::Systor => "systor",
            TraceFormat::Tencent => "tencent",
            TraceFormat::CloudPhysics => "cloudphysics",
            TraceFormat::Blkparse => "blkparse",
        }
    }

    /// The resolution the format stamps times with, ns, when it is coarse
    /// by definition (whole seconds); 0 for the rest. The reader's spread
    /// (`reader/spread.rs`) uses it when the first requests cannot tell.
    pub fn time_resolution_ns(self) -> u64 {
        match self {
            TraceFormat::Tencent | TraceFormat::CloudPhysics => 1_000_000_000,
            _ => 0,
        }
    }

    /// Parse one line (without its line terminator).
    pub fn parse_line(self, line: &str) -> ParseResult {
        match self {
            TraceFormat::Msr => msr::parse_line(line),
            TraceFormat::Spc => spc::parse_line(line),
            TraceFormat::Fiu => fiu::parse_line(line),
            TraceFormat::Mqsim => mqsim::parse_line(line),
            TraceFormat::Disksim => disksim::parse_line(line),
            TraceFormat::Ssdsim => ssdsim::parse_line(line),
            TraceFormat::Systor => systor::parse_line(line),
            TraceFormat::Tencent => tencent::parse_line(line),
            TraceFormat::CloudPhysics => cloudphysics::parse_line(line),
            TraceFormat::Blkparse => blkparse::parse_line(line),
        }
    }

    /// A format's parser for its common case, on the line's bytes: only
    /// lines of plain ASCII numbers, so the line needs no UTF-8 check
    /// first. None: parse the text with `parse_line` (which agrees on every
    /// line this accepts).
    #[inline]
    pub fn parse_fast(self, line: &[u8]) -> Option<Request> {
        match self {
            TraceFormat::Mqsim => mqsim::parse_fast(line),
            _ => None,
        }
    }

    /// The header line a written trace starts with, if the format has one.
    pub fn header(self) -> Option<&'static str> {
        match self {
            TraceFormat::Systor => Some(systor::HEADER),
            TraceFormat::CloudPhysics => Some(cloudphysics::HEADER),
            _ => None,
        }
    }

    /// Append `req` as one line (no terminator) to `out`; `seq` is its
    /// 1-based position, which blkparse needs for its sequence column.
    /// Fails when the request cannot be expressed (unaligned sectors, or a
    /// discard in a format that has none).
    pub fn write_line(self, req: &Request, seq: u64, out: &mut String) -> Result<(), String> {
        // Only blkparse has a discard operation; the others' writers would write
        // one as a write.
        if req.kind == crate::types::IoKind::Discard && self != TraceFormat::Blkparse {
            return Err(format!("{self} has no discard (TRIM) operation; blkparse has"));
        }
        match self {
            TraceFormat::Msr => msr::write_line(req, out),
            TraceFormat::Spc => spc::write_line(req, out),
            TraceFormat::Fiu => fiu::write_line(req, out),
            TraceFormat::Mqsim => mqsim::write_line(req, out),
            TraceFormat::Disksim => disksim::write_line(req, out),
            TraceFormat::Ssdsim => ssdsim::write_line(req, out),
            TraceFormat::Systor => systor::write_line(req, out),
            TraceFormat::Tencent => tencent::write_line(req, out),
            TraceFormat::CloudPhysics => cloudphysics::write_line(req, out),
            TraceFormat::Blkparse => blkparse::write_line(req, seq, out),
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TraceFormat {
    type Err = Error;

    /// Case-insensitive; the error lists the accepted names.
    fn from_str(s: &str) -> Result<Self, Error> {
        let wanted = s.trim();
        TraceFormat::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(wanted)).ok_or_else(|| {
            let names: Vec<&str> = TraceFormat::ALL.iter().map(|f| f.name()).collect();
            Error::config("trace.format", format!("unknown trace format `{s}`; expected one of {}", names.join(", ")))
        })
    }
}

// ---------------------------------------------------------------------------
// Field helpers shared by the parsers. They return messages that name the
// field, because "invalid digit" alone does not tell a user which column.

pub(crate) const SECTOR: u64 = 512;

/// Split a CSV line on commas, trimming blanks around each field (no format
/// we read quotes its fields).
pub(crate) fn csv_fields(line: &str) -> Fields<'_> {
    let mut f = Fields { items: [""; MAX_FIELDS], len: 0 };
    for field in line.split(',') {
        if f.len < MAX_FIELDS {
            f.items[f.len] = field.trim();
        }
        f.len += 1;
    }
    f
}

const MAX_FIELDS: usize = 16;

/// The fields of one CSV line without a heap allocation (at most
/// `MAX_FIELDS` are kept; no format has more).
pub(crate) struct Fields<'a> {
    items: [&'a str; MAX_FIELDS],
    len: usize,
}

impl<'a> std::ops::Deref for Fields<'a> {
    type Target = [&'a str];
    fn deref(&self) -> &[&'a str] {
        &self.items[..self.len.min(MAX_FIELDS)]
    }
}

/// Demand exactly (or at least, when `at_least`) `n` fields.
pub(crate) fn expect_fields(fields: &[&str], n: usize, at_least: bool, what: &str) -> Result<(), String> {
    let ok = if at_least { fields.len() >= n } else { fields.len() == n };
    if ok {
        Ok(())
    } else {
        let need = if at_least { format!("at least {n}") } else { n.to_string() };
        Err(format!("expected {need} fields ({what}), found {}", fields.len()))
    }
}

pub(crate) fn parse_u64(s: &str, field: &str) -> Result<u64, String> {
    s.parse::<u64>().map_err(|_| format!("{field}: `{s}` is not a non-negative integer"))
}

pub(crate) fn parse_u32(s: &str, field: &str) -> Result<u32, String> {
    s.parse::<u32>().map_err(|_| format!("{field}: `{s}` is not an integer in 0..=4294967295"))
}

/// A byte size from the trace: non-zero and within `u32`.
pub(crate) fn size_bytes(bytes: u64, field: &str) -> Result<u32, String> {
    if bytes == 0 {
        return Err(format!("{field}: zero-size request"));
    }
    u32::try_from(bytes).map_err(|_| format!("{field}: {bytes} bytes does not fit in 32 bits"))
}

/// A size given in 512 B sectors, as bytes.
pub(crate) fn size_sectors(sectors: u64, field: &str) -> Result<u32, String> {
    let bytes = sectors.checked_mul(SECTOR).ok_or_else(|| format!("{field}: {sectors} sectors overflows"))?;
    size_bytes(bytes, field)
}

/// An address given in 512 B sectors, as a byte offset.
pub(crate) fn offset_sectors(sectors: u64, field: &str) -> Result<u64, String> {
    sectors.checked_mul(SECTOR).ok_or_else(|| format!("{field}: sector {sectors} overflows a 64-bit byte offset"))
}

/// Multiply a time by its unit without silent wrap-around.
pub(crate) fn scale_time(value: u64, ns_per_unit: u64, field: &str) -> Result<u64, String> {
    value.checked_mul(ns_per_unit).ok_or_else(|| format!("{field}: {value} overflows 64-bit nanoseconds"))
}

/// A non-negative decimal number (`12`, `12.5`, `.5`, `1.5e3`) times
/// `10^exp`, as an integer, truncated. Plain decimals are converted exactly
/// with integers (digits beyond `exp` are dropped), so `1456095145.133076000`
/// seconds becomes exactly 1456095145133076000 ns; only exponent notation goes
/// through `f64`.
pub(crate) fn parse_decimal(s: &str, exp: u32, field: &str) -> Result<u64, String> {
    let bad = || format!("{field}: `{s}` is not a non-negative number");
    if s.contains(['e', 'E']) {
        let v: f64 = s.parse().map_err(|_| bad())?;
        let scaled = v * 10f64.powi(exp as i32);
        // 1.8e19 is u64::MAX; the comparison also rejects NaN.
        if !(0.0..1.8e19).contains(&scaled) {
            return Err(format!("{field}: `{s}` is negative or too large"));
        }
        return Ok(scaled as u64);
    }
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return Err(bad());
    }
    let unit = 10u64.pow(exp);
    let whole = if int.is_empty() { 0 } else { int.parse::<u64>().map_err(|_| bad())? };
    let mut part = 0u64;
    for (i, b) in frac.bytes().take(exp as usize).enumerate() {
        part += u64::from(b - b'0') * 10u64.pow(exp - 1 - i as u32);
    }
    whole.checked_mul(unit).and_then(|w| w.checked_add(part)).ok_or_else(|| format!("{field}: `{s}` overflows 64-bit nanoseconds"))
}

/// `ns` as decimal seconds with 9 digits, so writing loses nothing.
pub(crate) fn format_seconds(ns: u64, out: &mut String) {
    use std::fmt::Write;
    let _ = write!(out, "{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
}

/// Offset and size in whole sectors, or why the request is not expressible.
pub(crate) fn to_sectors(req: &Request) -> Result<(u64, u64), String> {
    if req.offset % SECTOR != 0 || u64::from(req.size) % SECTOR != 0 {
        return Err(format!("offset {} / size {} is not a multiple of 512 B sectors, which this format needs", req.offset, req.size));
    }
    Ok((req.offset / SECTOR, u64::from(req.size) / SECTOR))
}

/// A request with the fields every parser fills; `line` stays 0.
pub(crate) fn request(time_ns: u64, offset: u64, size: u32, kind: IoKind, volume: u32) -> Request {
    Request { time_ns, offset, size, kind, content: 0, volume, line: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_is_exact_for_long_fractions() {
        assert_eq!(parse_decimal("1456095145.133076000", 9, "t"), Ok(1_456_095_145_133_076_000));
        assert_eq!(parse_decimal("0.5", 9, "t"), Ok(500_000_000));
        assert_eq!(parse_decimal(".25", 6, "t"), Ok(250_000));
        assert_eq!(parse_decimal("3.1234567", 6, "t"), Ok(3_123_456));
        assert_eq!(parse_decimal("12", 0, "t"), Ok(12));
        assert_eq!(parse_decimal("1.5e3", 6, "t"), Ok(1_500_000_000));
    }

    #[test]
    fn decimal_rejects_garbage() {
        for s in ["", ".", "-1", "1.2.3", "abc", "1e400", "-1e3", "99999999999999999999"] {
            assert!(parse_decimal(s, 9, "t").is_err(), "{s}");
        }
    }

    #[test]
    fn names_round_trip() {
        for f in TraceFormat::ALL {
            assert_eq!(f.name().parse::<TraceFormat>().unwrap(), f);
            assert_eq!(f.name().to_uppercase().parse::<TraceFormat>().unwrap(), f);
        }
        let err = "nope".parse::<TraceFormat>().unwrap_err().to_string();
        assert!(err.contains("msr") && err.contains("blkparse"), "{err}");
    }

    #[test]
    fn sizes_must_be_non_zero_and_fit() {
        assert!(size_bytes(0, "s").is_err());
        assert!(size_sectors(1 << 23, "s").is_err());
        assert_eq!(size_sectors(8, "s"), Ok(4096));
        assert!(offset_sectors(u64::MAX, "o").is_err());
    }
}
