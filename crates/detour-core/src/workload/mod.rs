//! Workloads: streaming trace readers (one file per format), the synthetic
//! generator and its named profiles.
//!
//! Every source yields [`Request`]s in arrival order. Readers decompress gzip
//! and zstd transparently, name file and line in every error, and never panic.

/// One host request, as every reader and the generator produce it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Arrival time in ns from the start of the trace (the first request of a
    /// trace arrives at 0 unless the reader is told to keep absolute times).
    pub time_ns: u64,
    /// Byte offset on the device.
    pub offset: u64,
    /// Size in bytes (> 0).
    pub size: u32,
    pub kind: crate::types::IoKind,
    /// Content value of the request's first page (a trace's hash folded to 64
    /// bits, or a value the generator drew); 0 when the source has none.
    /// Page `i` of the request gets `types::page_token(content, i)`.
    pub content: u64,
    /// Device / volume / LUN number as the trace gives it (0 if none).
    pub volume: u32,
    /// 1-based line (or record) number in the source, for error messages.
    pub line: u64,
}

// Trace readers: `reader` opens a file (gzip/zstd by magic bytes), detects the
// format and streams `Request`s; `formats/` holds one parser per format.
pub mod ahead;
pub mod formats;
pub mod inspect;
pub mod job;
pub mod popularity;
pub mod reader;
pub mod writer;

// Synthetic workloads.
pub mod generator;
pub mod profiles;

pub use formats::TraceFormat;
pub use inspect::{extent, inspect, Extent, SizeBucket, TraceStats};
pub use popularity::{popularity, Popularity};
pub use reader::{open_trace, open_trace_reader, TraceOptions, TraceStream};
pub use writer::write_trace;
