//! Summary statistics of a trace, computed in one streaming pass: what a
//! user checks before simulating (is this the trace I think it is: read
//! ratio, sizes, footprint, rate) and what papers report about a workload.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::error::Result;
use crate::types::IoKind;
use crate::workload::formats::TraceFormat;
use crate::workload::reader::TraceStream;
use crate::workload::Request;

/// Footprint granularity: the usual flash page and OS page size.
const PAGE: u64 = 4096;

/// Requests whose size is in `(max_bytes / 2, max_bytes]`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SizeBucket {
    /// `max_bytes` in binary units, e.g. `4KiB`.
    pub label: String,
    pub max_bytes: u64,
    pub count: u64,
}

/// What [`inspect`] found. Ratios and means are 0 for an empty trace.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TraceStats {
    pub format: TraceFormat,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// reads / requests.
    pub read_ratio: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub mean_size_bytes: f64,
    /// Power-of-two size buckets, smallest first; empty buckets left out.
    pub size_histogram: Vec<SizeBucket>,
    /// Distinct 4 KiB pages touched, counted per volume (the same address
    /// on two volumes is two pages: they are different devices).
    pub footprint_pages: u64,
    pub footprint_bytes: u64,
    /// Time from the earliest to the latest request (file order need not be time order).
    pub duration_s: f64,
    /// requests / duration_s.
    pub rate_per_s: f64,
    /// Volumes seen among the kept requests, ascending.
    pub volumes: Vec<u32>,
    pub skipped_malformed: u64,
    pub clamped: u64,
    pub filtered_out: u64,
    /// Operations that are neither reads nor writes.
    pub ignored: u64,
    /// Requests that arrive before an earlier line's time (multi-volume
    /// traces interleave their logs), and the largest such step back, ns:
    /// a reorder window that wide sorts the trace.
    pub backwards: u64,
    pub max_step_back_ns: u64,
    /// Requests a reorder window moved (when the reader had one).
    pub reordered: u64,
    /// The timestamps' resolution when coarse (whole seconds...), else 0:
    /// a run spreads the requests of each instant over it (`reader/spread.rs`).
    pub time_resolution_ns: u64,
    /// Discards (TRIM), not counted in `requests` or any figure above.
    pub discards: u64,
}

/// Read `stream` to the end and summarise it; the first error ends it.
/// Memory grows with the footprint (one hash entry per distinct page).
pub fn inspect(mut stream: TraceStream) -> Result<TraceStats> {
    let mut acc = Accumulator::default();
    for req in stream.by_ref() {
        acc.add(&req?);
    }
    Ok(acc.finish(&stream))
}

#[derive(Default)]
struct Accumulator {
    reads: u64,
    writes: u64,
    bytes_read: u64,
    bytes_written: u64,
    sizes: BTreeMap<u64, u64>,
    pages: HashSet<(u32, u64)>,
    volumes: BTreeSet<u32>,
    /// The earliest and latest times: with disorder let through
    /// (`keep_disorder`) the file's first line need not be the earliest.
    discards: u64,
    first_ns: Option<u64>,
    last_ns: u64,
}

impl Accumulator {
    fn add(&mut self, r: &Request) {
        let size = u64::from(r.size);
        match r.kind {
            IoKind::Read => (self.reads += 1, self.bytes_read += size),
            IoKind::Write => (self.writes += 1, self.bytes_written += size),
            IoKind::Discard => return self.discards += 1,
        };
        *self.sizes.entry(size.next_power_of_two()).or_default() += 1;
        let first = r.offset / PAGE;
        let last = r.offset.saturating_add(size.max(1) - 1) / PAGE;
        for page in first..=last {
            self.pages.insert((r.volume, page));
        }
        self.volumes.insert(r.volume);
        self.first_ns = Some(self.first_ns.map_or(r.time_ns, |f| f.min(r.time_ns)));
        self.last_ns = self.last_ns.max(r.time_ns);
    }

    fn finish(self, stream: &TraceStream) -> TraceStats {
        let requests = self.reads + self.writes;
        let per_request = |x: f64| {
            if requests == 0 {
                0.0
            } else {
                x / requests as f64
            }
        };
        let duration_ns = self.first_ns.map_or(0, |f| self.last_ns.saturating_sub(f));
        let duration_s = duration_ns as f64 / 1e9;
        let footprint_pages = self.pages.len() as u64;
        TraceStats {
            format: stream.format(),
            requests,
            reads: self.reads,
            writes: self.writes,
            read_ratio: per_request(self.reads as f64),
            bytes_read: self.bytes_read,
            bytes_written: self.bytes_written,
            mean_size_bytes: per_request((self.bytes_read + self.bytes_written) as f64),
            size_histogram: self
                .sizes
                .into_iter()
                .map(|(max_bytes, count)| SizeBucket { label: binary_label(max_bytes), max_bytes, count })
                .collect(),
            footprint_pages,
            footprint_bytes: footprint_pages * PAGE,
            duration_s,
            rate_per_s: if duration_ns == 0 { 0.0 } else { requests as f64 / duration_s },
            volumes: self.volumes.into_iter().collect(),
            skipped_malformed: stream.skipped_malformed(),
            clamped: stream.clamped(),
            filtered_out: stream.filtered_out(),
            ignored: stream.ignored(),
            backwards: stream.backwards(),
            max_step_back_ns: stream.max_step_back_ns(),
            reordered: stream.reordered(),
            time_resolution_ns: stream.time_resolution_ns(),
            discards: self.discards,
        }
    }
}

/// How far a workload reaches in time and address, from one pass that keeps
/// nothing per request: what a run must know before it starts when a
/// setting follows the workload (an automatic RR-SSD period follows its
/// span; `ftl.precondition.span = "footprint"` its end).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Extent {
    pub requests: u64,
    /// Earliest to latest arrival, s; None for no requests.
    pub span_s: Option<f64>,
    /// One past the highest byte a request touches.
    pub end_bytes: u64,
}

/// Read `requests` to the end for their [`Extent`]; the first error ends it.
pub fn extent(requests: impl Iterator<Item = Result<Request>>) -> Result<Extent> {
    let (mut n, mut first, mut last, mut end) = (0u64, u64::MAX, 0u64, 0u64);
    for r in requests {
        let r = r?;
        n += 1;
        first = first.min(r.time_ns);
        last = last.max(r.time_ns);
        end = end.max(r.offset.saturating_add(u64::from(r.size)));
    }
    let span_s = (n > 0).then(|| last.saturating_sub(first) as f64 / 1e9);
    Ok(Extent { requests: n, span_s, end_bytes: end })
}

/// `512B`, `4KiB`, `1MiB`...: the largest unit that divides `bytes`.
fn binary_label(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["GiB", "MiB", "KiB", "B"];
    for (i, unit) in UNITS.iter().enumerate() {
        let scale = 1u64 << (10 * (3 - i));
        if bytes >= scale && bytes % scale == 0 {
            return format!("{}{unit}", bytes / scale);
        }
    }
    format!("{bytes}B")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::reader::{open_trace_reader, TraceOptions};

    fn stats(text: &str) -> TraceStats {
        let s = open_trace_reader("t", std::io::Cursor::new(text.as_bytes().to_vec()), &TraceOptions::default());
        inspect(s.unwrap()).unwrap()
    }

    #[test]
    fn counts_sizes_footprint_and_rate() {
        // mqsim: time_ns dev lba sectors op(1 = read)
        let s = stats("0 0 0 8 1\n500000000 0 0 16 0\n1000000000 1 0 1 0\n");
        assert_eq!((s.requests, s.reads, s.writes), (3, 1, 2));
        assert_eq!((s.bytes_read, s.bytes_written), (4096, 8192 + 512));
        // Pages 0 and 1 on volume 0, page 0 on volume 1.
        assert_eq!((s.footprint_pages, s.footprint_bytes), (3, 3 * 4096));
        assert_eq!((s.duration_s, s.rate_per_s), (1.0, 3.0));
        assert_eq!(s.volumes, vec![0, 1]);
        let labels: Vec<(&str, u64)> = s.size_histogram.iter().map(|b| (b.label.as_str(), b.count)).collect();
        assert_eq!(labels, vec![("512B", 1), ("4KiB", 1), ("8KiB", 1)]);
        assert!((s.read_ratio - 1.0 / 3.0).abs() < 1e-12);
    }

    /// A trace read as written: times kept absolute, disorder kept.
    fn as_written(text: &str, format: Option<TraceFormat>) -> TraceStream {
        let opts = TraceOptions { keep_disorder: true, keep_absolute_time: true, format, ..Default::default() };
        open_trace_reader("t", std::io::Cursor::new(text.as_bytes().to_vec()), &opts).unwrap()
    }

    #[test]
    fn disorder_is_reported_not_refused() {
        let s = inspect(as_written("1000 0 0 8 1\n3000 1 0 8 1\n1500 0 8 8 1\n4000 1 0 8 0\n", None)).unwrap();
        assert_eq!((s.requests, s.backwards, s.max_step_back_ns, s.clamped), (4, 1, 1500, 0));
        assert_eq!(s.duration_s, 3000e-9);
    }

    #[test]
    fn extent_spans_time_and_address_whatever_the_order() {
        let e = extent(as_written("1000 0 0 8 1\n3000 0 64 16 0\n1500 0 8 8 1\n", None)).unwrap();
        assert_eq!((e.requests, e.span_s, e.end_bytes), (3, Some(2000e-9), (64 + 16) * 512));
        assert_eq!(extent(std::iter::empty()).unwrap(), Extent::default());
        let bad = as_written("0 0 0 8 1\nnonsense\n", Some(TraceFormat::Mqsim));
        assert!(extent(bad).is_err(), "a malformed line ends the pass with its error");
    }

    #[test]
    fn labels_use_binary_units() {
        assert_eq!(binary_label(1), "1B");
        assert_eq!(binary_label(1 << 20), "1MiB");
        assert_eq!(binary_label(1 << 32), "4GiB");
    }

    #[test]
    fn serialises_to_json() {
        let json = serde_json::to_string(&stats("0 0 0 8 1\n")).unwrap();
        assert!(json.contains("\"format\":\"mqsim\"") && json.contains("\"footprint_pages\":1"), "{json}");
    }
}
