//! SSDSim's trace input: `time_ns device lsn size_sectors ope`, ope 1 = read,
//! 0 = write. The layout is MQSim's exactly, so this delegates; the name
//! exists so a user can say what the file is, and auto-detection reports such
//! files as `mqsim` (same requests either way).
//!
//! SSDSim wants no newline after the last line; the reader accepts both.

use super::{mqsim, ParseResult};
use crate::workload::Request;

pub fn parse_line(line: &str) -> ParseResult {
    mqsim::parse_line(line)
}

/// Lossy: the content is dropped. Fails on unaligned requests.
pub fn write_line(req: &Request, out: &mut String) -> Result<(), String> {
    mqsim::write_line(req, out)
}
