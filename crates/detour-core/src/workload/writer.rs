//! Write requests in any supported trace format: to convert traces for the
//! peer simulators (MQSim, SSDSim, DiskSim) or between repositories, to cut
//! fixtures, and to test the readers by round trip.

use std::io::{BufWriter, Write};

use crate::error::{Error, Result};
use crate::workload::formats::TraceFormat;
use crate::workload::Request;

/// Name used for the output in errors: the writer is given a `Write`, not a
/// path.
const OUTPUT: &str = "trace output";

/// Write `requests` as `format`, one line each (after the format's header,
/// if it has one), and return how many were written. Times are written as
/// given: pass a stream read with `keep_absolute_time` to keep the origin.
///
/// Reading the output back gives the same requests except for what the
/// format cannot hold:
/// - every format but `fiu` drops `content` (reads back as 0); `fiu` writes
///   it as 32 hex digits (16-digit value then 16 zeros), and 0 reads back
///   as 1;
/// - `msr` truncates time to 100 ns; `tencent` and `cloudphysics` to whole
///   seconds; the others are exact (ns, or 9 / 6 decimals);
/// - `cloudphysics` has no volume column (reads back as 0);
/// - `line` is renumbered by whoever reads the output;
/// - placeholder fields are written for what `Request` lacks (MSR host
///   `detour`, response times 0, FIU pid 0 and process `detour`, blkparse
///   major 8, cpu 0, pid 0).
///
/// A discard (TRIM) is written by `blkparse` (RWBS `D`); every other format
/// has no such operation and fails with [`Error::Trace`] rather than
/// writing it as a write.
///
/// Sector-based formats (all but `msr` and `systor`) fail with
/// [`Error::Trace`] on an offset (and, where the size is in sectors, a size)
/// that is not a multiple of 512 B rather than silently moving the request.
/// An error from `requests` is returned as is, after what came before it
/// was written.
pub fn write_trace<W: Write>(format: TraceFormat, requests: impl Iterator<Item = Result<Request>>, out: W) -> Result<u64> {
    let mut out = BufWriter::new(out);
    let io = |e| Error::io(OUTPUT, e);
    let mut line_no = 0u64;
    if let Some(header) = format.header() {
        writeln!(out, "{header}").map_err(io)?;
        line_no += 1;
    }
    let mut written = 0u64;
    let mut line = String::with_capacity(128);
    for req in requests {
        let req = req?;
        line.clear();
        line_no += 1;
        format.write_line(&req, written + 1, &mut line).map_err(|reason| {
            let reason = format!("cannot write the request from source line {} as {format}: {reason}", req.line);
            Error::trace(OUTPUT, line_no, reason)
        })?;
        line.push('\n');
        out.write_all(line.as_bytes()).map_err(io)?;
        written += 1;
    }
    out.flush().map_err(io)?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::IoKind;
    use crate::workload::reader::{open_trace_reader, TraceOptions};

    use crate::workload::formats::request as req;

    #[test]
    fn writes_header_then_lines() {
        let reqs = [req(1_000_000_000, 4096, 512, IoKind::Read, 0)];
        let mut out = Vec::new();
        let n = write_trace(TraceFormat::CloudPhysics, reqs.into_iter().map(Ok), &mut out).unwrap();
        assert_eq!(n, 1);
        assert_eq!(String::from_utf8(out).unwrap(), "version,time,op,size,lbn\n1,1,28,512,8\n");
    }

    #[test]
    fn unaligned_request_is_refused_with_its_source_line() {
        let bad = Request { line: 42, ..req(0, 100, 512, IoKind::Write, 0) };
        let err = write_trace(TraceFormat::Mqsim, [Ok(bad)].into_iter(), Vec::new()).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("source line 42") && msg.contains("512"), "{msg}");
    }

    #[test]
    fn systor_round_trip_keeps_byte_offsets() {
        let reqs = vec![req(0, 100, 3, IoKind::Write, 2), req(1_500, 7, 9, IoKind::Read, 2)];
        let mut out = Vec::new();
        write_trace(TraceFormat::Systor, reqs.clone().into_iter().map(Ok), &mut out).unwrap();
        let back: Vec<Request> = open_trace_reader("rt", std::io::Cursor::new(out), &TraceOptions::default())
            .unwrap()
            .map(|r| Request { line: 0, ..r.unwrap() })
            .collect();
        assert_eq!(back, reqs);
    }
}
