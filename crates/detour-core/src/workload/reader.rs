//! Streaming trace reader: bytes (plain, gzip or zstd) to numbered lines, to
//! one format's parser, to [`Request`]s with times relative to the first one.
//!
//! It never holds more than one line (plus the few lines auto-detection
//! looks at), so a multi-gigabyte trace costs the same memory as a tiny one.
//! Every problem names the file and the line; what the options let through
//! (malformed lines, clamped times, other volumes, non-I/O operations) is
//! counted so a caller can report it instead of it vanishing.

mod detect;
mod input;

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::iter::FusedIterator;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::workload::formats::{Line, TraceFormat};
use crate::workload::Request;
use input::Lines;

/// How to read a trace. The default detects the format, keeps every volume,
/// stops at the first malformed line and at time going backwards, and makes
/// the first request arrive at 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceOptions {
    /// The format, or `None` to detect it from the first data lines.
    pub format: Option<TraceFormat>,
    /// Keep only requests of this volume / device / LUN / ASU.
    pub volume: Option<u32>,
    /// Skip (and count) malformed lines instead of returning an error.
    pub skip_malformed: bool,
    /// Keep the trace's own time origin (e.g. Unix epoch) instead of 0.
    pub keep_absolute_time: bool,
    /// Give a request that arrives before the previous one the previous
    /// time (and count it) instead of returning an error. Needed for the
    /// Systor and Tencent traces, which are not sorted.
    pub clamp_backwards_time: bool,
}

/// Open a trace file; gzip and zstd are recognised by their magic bytes.
pub fn open_trace(path: &Path, opts: &TraceOptions) -> Result<TraceStream> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| Error::io(&name, e))?;
    TraceStream::new(name, path.to_path_buf(), Box::new(file), opts)
}

/// Read a trace from any reader (in-memory bytes, a pipe); `name` stands for
/// the file name in errors. `'static + Send` so the stream can be boxed and
/// moved to another thread (the Python bindings need both).
pub fn open_trace_reader<R: Read + Send + 'static>(
    name: &str,
    reader: R,
    opts: &TraceOptions,
) -> Result<TraceStream> {
    TraceStream::new(
        name.to_string(),
        PathBuf::from(name),
        Box::new(reader),
        opts,
    )
}

/// An iterator of the requests of one trace, in file order.
///
/// After an I/O error (a truncated gzip stream, say) it ends; after a
/// malformed line or a backwards time it can be resumed with the next line.
pub struct TraceStream {
    name: String,
    path: PathBuf,
    lines: Lines,
    format: TraceFormat,
    opts: TraceOptions,
    /// Lines auto-detection already read, replayed before the rest.
    pending: VecDeque<(u64, Result<String, String>)>,
    /// Absolute time of the first kept request, and of the previous one.
    base: Option<u64>,
    prev: Option<u64>,
    requests: u64,
    skipped_malformed: u64,
    clamped: u64,
    filtered_out: u64,
    ignored: u64,
    done: bool,
}

impl TraceStream {
    fn new(
        name: String,
        path: PathBuf,
        reader: Box<dyn Read + Send>,
        opts: &TraceOptions,
    ) -> Result<Self> {
        let mut lines = Lines::new(input::decompress(reader).map_err(|e| Error::io(&name, e))?);
        let mut pending = VecDeque::new();
        let format = match opts.format {
            Some(format) => format,
            None => {
                let sample =
                    read_sample(&mut lines, &mut pending).map_err(|e| Error::io(&name, e))?;
                let first = sample.first().map_or(0, |(n, _)| *n);
                detect::detect(&sample).map_err(|reason| Error::trace(&name, first, reason))?
            }
        };
        Ok(TraceStream {
            name,
            path,
            lines,
            format,
            opts: opts.clone(),
            pending,
            base: None,
            prev: None,
            requests: 0,
            skipped_malformed: 0,
            clamped: 0,
            filtered_out: 0,
            ignored: 0,
            done: false,
        })
    }

    /// The format read (given or detected).
    pub fn format(&self) -> TraceFormat {
        self.format
    }
    /// The file path, or the name given to [`open_trace_reader`].
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Requests returned so far.
    pub fn requests(&self) -> u64 {
        self.requests
    }
    /// Malformed lines skipped under `skip_malformed`.
    pub fn skipped_malformed(&self) -> u64 {
        self.skipped_malformed
    }
    /// Requests whose time was raised to the previous one's.
    pub fn clamped(&self) -> u64 {
        self.clamped
    }
    /// Requests dropped by the volume filter.
    pub fn filtered_out(&self) -> u64 {
        self.filtered_out
    }
    /// Well-formed operations that are neither reads nor writes (SCSI
    /// commands other than READ/WRITE, flushes, discards).
    pub fn ignored(&self) -> u64 {
        self.ignored
    }

    /// The next line's number and what the parser made of it.
    fn next_parsed(&mut self) -> Option<io::Result<(u64, Result<Line, String>)>> {
        let format = self.format;
        if let Some((number, text)) = self.pending.pop_front() {
            return Some(Ok((number, text.and_then(|t| parse(format, &t)))));
        }
        match self.lines.next_line() {
            Ok(None) => None,
            Ok(Some((number, line))) => Some(Ok((number, line.and_then(|l| parse_bytes(format, l))))),
            Err(e) => Some(Err(e)),
        }
    }

    /// Apply the volume filter and the time rules; `None` means "dropped".
    fn keep(&mut self, mut req: Request, number: u64) -> Option<Result<Request>> {
        if self.opts.volume.is_some_and(|v| v != req.volume) {
            self.filtered_out += 1;
            return None;
        }
        let mut time = req.time_ns;
        if let Some(prev) = self.prev.filter(|&p| time < p) {
            if !self.opts.clamp_backwards_time {
                let reason = format!(
                    "time goes backwards by {} ns from the previous request (set clamp_backwards_time to clamp it)",
                    prev - time
                );
                return Some(Err(Error::trace(&self.name, number, reason)));
            }
            self.clamped += 1;
            time = prev;
        }
        let base = *self.base.get_or_insert(time);
        self.prev = Some(time);
        req.time_ns = if self.opts.keep_absolute_time {
            time
        } else {
            time.saturating_sub(base)
        };
        req.line = number;
        self.requests += 1;
        Some(Ok(req))
    }
}

impl Iterator for TraceStream {
    type Item = Result<Request>;

    fn next(&mut self) -> Option<Result<Request>> {
        while !self.done {
            let (number, parsed) = match self.next_parsed() {
                Some(Ok(next)) => next,
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(Error::io(&self.name, e)));
                }
                None => {
                    self.done = true;
                    return None;
                }
            };
            match parsed {
                Ok(Line::Request(req)) => {
                    if let Some(out) = self.keep(req, number) {
                        return Some(out);
                    }
                }
                Ok(Line::Skip) => {}
                Ok(Line::Ignored) => self.ignored += 1,
                Err(_) if self.opts.skip_malformed => self.skipped_malformed += 1,
                Err(reason) => return Some(Err(Error::trace(&self.name, number, reason))),
            }
        }
        None
    }
}

impl FusedIterator for TraceStream {}

impl fmt::Debug for TraceStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceStream")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("requests", &self.requests)
            .field("skipped_malformed", &self.skipped_malformed)
            .field("clamped", &self.clamped)
            .field("filtered_out", &self.filtered_out)
            .field("ignored", &self.ignored)
            .finish_non_exhaustive()
    }
}

/// A line as read: the format's fast parser first, then as text.
fn parse_bytes(format: TraceFormat, line: &[u8]) -> Result<Line, String> {
    if let Some(req) = format.parse_fast(line) {
        return Ok(Line::Request(req));
    }
    parse(format, input::utf8(line)?)
}

/// Blank lines and `#` comments carry nothing in any format.
fn parse(format: TraceFormat, text: &str) -> Result<Line, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(Line::Skip);
    }
    format.parse_line(text)
}

/// Read lines into `pending` until it holds [`detect::SAMPLE_LINES`] data
/// lines or the input ends, and return those data lines for detection.
fn read_sample(
    lines: &mut Lines,
    pending: &mut VecDeque<(u64, Result<String, String>)>,
) -> io::Result<Vec<(u64, String)>> {
    let mut sample = Vec::new();
    while sample.len() < detect::SAMPLE_LINES {
        let Some((number, text)) = lines.next_line()? else {
            break;
        };
        let text = text.and_then(input::utf8).map(str::to_string);
        if let Ok(t) = &text {
            let trimmed = t.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                sample.push((number, t.clone()));
            }
        }
        pending.push_back((number, text));
    }
    Ok(sample)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::IoKind;

    fn read(text: &str, opts: &TraceOptions) -> (Vec<Result<Request>>, TraceStream) {
        let mut s = open_trace_reader("mem.trace", io::Cursor::new(text.as_bytes().to_vec()), opts)
            .unwrap();
        let out = s.by_ref().collect();
        (out, s)
    }

    #[test]
    fn relative_times_and_line_numbers() {
        let (reqs, s) = read(
            "# comment\n\n100 0 8 8 1\n250 1 16 8 0\n",
            &TraceOptions::default(),
        );
        let reqs: Vec<Request> = reqs.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(s.format(), TraceFormat::Mqsim);
        assert_eq!(
            (reqs[0].time_ns, reqs[0].line, reqs[0].kind),
            (0, 3, IoKind::Read)
        );
        assert_eq!((reqs[1].time_ns, reqs[1].line, reqs[1].volume), (150, 4, 1));
    }

    #[test]
    fn backwards_time_errors_or_clamps() {
        let text = "100 0 8 8 1\n50 0 8 8 1\n120 0 8 8 1\n";
        let (reqs, _) = read(text, &TraceOptions::default());
        let err = reqs[1].as_ref().unwrap_err().to_string();
        assert!(
            err.starts_with("mem.trace:2:") && err.contains("backwards"),
            "{err}"
        );
        let opts = TraceOptions {
            clamp_backwards_time: true,
            ..Default::default()
        };
        let (reqs, s) = read(text, &opts);
        let times: Vec<u64> = reqs.into_iter().map(|r| r.unwrap().time_ns).collect();
        assert_eq!((times, s.clamped()), (vec![0, 0, 20], 1));
    }

    #[test]
    fn undetectable_input_is_an_error_naming_the_file() {
        let err = open_trace_reader(
            "x.txt",
            io::Cursor::new(b"what is this\n".to_vec()),
            &TraceOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("x.txt:1:") && err.contains("tried msr"),
            "{err}"
        );
    }

    #[test]
    fn explicit_format_on_empty_input_is_an_empty_stream() {
        let opts = TraceOptions {
            format: Some(TraceFormat::Msr),
            ..Default::default()
        };
        let (reqs, _) = read("", &opts);
        assert!(reqs.is_empty());
    }
}
