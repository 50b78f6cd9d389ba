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
mod spread;
mod window;

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
pub use spread::CoarseTime;
use spread::Spread;
use window::Window;

/// The reorder window of [`TraceOptions::default`], ns: wide enough for the
/// interleaved per-volume logs of the Systor'17 and Tencent CBS samples,
/// and for any trace stamped in whole seconds; a sorted trace passes
/// through it unchanged.
pub const DEFAULT_REORDER_WINDOW_NS: u64 = 2_000_000_000;

/// How to read a trace. The default detects the format, keeps every volume,
/// stops at the first malformed line, sorts arrivals within
/// [`DEFAULT_REORDER_WINDOW_NS`] and stops at time going back further,
/// spreads coarse timestamps over their resolution, and makes the first
/// request arrive at 0.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// Sort arrivals within this many ns of trace time before the rule
    /// above applies (0 = off): a request up to this far behind the
    /// newest time read is put in its place (`reader/window.rs`).
    pub reorder_window_ns: u64,
    /// Let a request that goes back in time through unchanged (still
    /// counted in `backwards`): for statistics (`inspect`), never for
    /// simulation, whose arrivals must be in order.
    pub keep_disorder: bool,
    /// Timestamps coarser than the arrivals (whole seconds): spread over
    /// their resolution, or kept (`reader/spread.rs`).
    pub coarse_time: CoarseTime,
    /// Seed of the spread's offsets (a run passes `run.seed`).
    pub spread_seed: u64,
}

impl TraceOptions {
    /// The trace read exactly as written: no reorder window (time going
    /// back is an error) and coarse timestamps kept; for tests of a
    /// format and for tools that must not change times.
    pub fn literal() -> TraceOptions {
        TraceOptions { reorder_window_ns: 0, coarse_time: CoarseTime::Keep, ..TraceOptions::default() }
    }
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            format: None,
            volume: None,
            skip_malformed: false,
            keep_absolute_time: false,
            clamp_backwards_time: false,
            reorder_window_ns: DEFAULT_REORDER_WINDOW_NS,
            keep_disorder: false,
            coarse_time: CoarseTime::Spread,
            spread_seed: 0,
        }
    }
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
pub fn open_trace_reader<R: Read + Send + 'static>(name: &str, reader: R, opts: &TraceOptions) -> Result<TraceStream> {
    TraceStream::new(name.to_string(), PathBuf::from(name), Box::new(reader), opts)
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
    /// Disorder in file order: requests before the newest time read so
    /// far, the largest such step back, and that newest time.
    backwards: u64,
    max_step_back_ns: u64,
    newest: Option<u64>,
    window: Option<Window>,
    spread: Option<Spread>,
    done: bool,
    /// The end was reported (an I/O error, or a trace without requests).
    ended: bool,
}

impl TraceStream {
    fn new(name: String, path: PathBuf, reader: Box<dyn Read + Send>, opts: &TraceOptions) -> Result<Self> {
        let mut lines = Lines::new(input::decompress(reader).map_err(|e| Error::io(&name, e))?);
        let mut pending = VecDeque::new();
        let format = match opts.format {
            Some(format) => format,
            None => {
                let sample = read_sample(&mut lines, &mut pending).map_err(|e| Error::io(&name, e))?;
                // No data line: the file as a whole (line 0) is to blame.
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
            backwards: 0,
            max_step_back_ns: 0,
            newest: None,
            window: (opts.reorder_window_ns > 0 && !opts.keep_disorder).then(|| Window::new(opts.reorder_window_ns)),
            // Disorder let through is not sorted: detect, never move.
            spread: Some(Spread::new(
                opts.spread_seed,
                format.time_resolution_ns(),
                if opts.keep_disorder { CoarseTime::Keep } else { opts.coarse_time },
            )),
            done: false,
            ended: false,
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
    /// Requests read with a time before an earlier line's (file order,
    /// after the volume filter), whatever the options then did with them.
    pub fn backwards(&self) -> u64 {
        self.backwards
    }
    /// The largest such step back, ns: a reorder window this wide sorts the trace.
    pub fn max_step_back_ns(&self) -> u64 {
        self.max_step_back_ns
    }
    /// Requests the reorder window put before an earlier line's.
    pub fn reordered(&self) -> u64 {
        self.window.as_ref().map_or(0, |w| w.reordered)
    }
    /// The reorder window, ns (0: none).
    pub fn reorder_window_ns(&self) -> u64 {
        self.window.as_ref().map_or(0, |_| self.opts.reorder_window_ns)
    }
    /// The timestamps' resolution when coarse (1 s, 100 ms, 10 ms or 1 ms),
    /// else 0; known once the first request is read.
    pub fn time_resolution_ns(&self) -> u64 {
        self.spread.as_ref().map_or(0, Spread::resolution_ns)
    }
    /// Requests whose time the spread of coarse timestamps moved.
    pub fn spread(&self) -> u64 {
        self.spread.as_ref().map_or(0, |s| s.moved)
    }

    /// The end of the input: an error, once, when it held no request at
    /// all (an empty file, only comments, everything skipped or filtered),
    /// so a run does not report nothing as a result; else the end.
    fn none_read(&mut self) -> Option<Result<Request>> {
        if self.ended || self.requests > 0 {
            return None;
        }
        self.ended = true;
        let mut why = vec![];
        for (n, what) in [
            (self.skipped_malformed, "malformed lines skipped"),
            (self.filtered_out, "requests of other volumes left out"),
            (self.ignored, "operations neither read nor write"),
        ] {
            if n > 0 {
                why.push(format!("{n} {what}"));
            }
        }
        let why = if why.is_empty() { "the file is empty or holds only blank lines and comments".to_string() } else { why.join(", ") };
        Some(Err(Error::trace(&self.name, 0, format!("no requests read as {}: {why}", self.format.name()))))
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

    /// The volume filter and the disorder counts; false means "dropped".
    fn admit(&mut self, req: &Request) -> bool {
        if self.opts.volume.is_some_and(|v| v != req.volume) {
            self.filtered_out += 1;
            return false;
        }
        let time = req.time_ns;
        match self.newest {
            Some(newest) if time < newest => {
                self.backwards += 1;
                self.max_step_back_ns = self.max_step_back_ns.max(newest - time);
            }
            _ => self.newest = Some(time),
        }
        true
    }

    /// The time rules, on a request in the order it leaves the window.
    fn finish(&mut self, mut req: Request) -> Result<Request> {
        let mut time = req.time_ns;
        if let Some(prev) = self.prev.filter(|&p| time < p && !self.opts.keep_disorder) {
            if !self.opts.clamp_backwards_time {
                let hint = "widen the window: --reorder-window S, reorder_window_s=S; or ";
                let reason = format!(
                    "time goes backwards by {} ns from the previous request, beyond the reorder window of {} s \
                     ({hint}clamp it: --clamp-backwards-time, clamp_backwards_time=True)",
                    prev - time,
                    self.reorder_window_ns() as f64 / 1e9,
                );
                return Err(Error::trace(&self.name, req.line, reason));
            }
            self.clamped += 1;
            time = prev;
        }
        let base = *self.base.get_or_insert(time);
        self.prev = Some(self.prev.map_or(time, |p| p.max(time)));
        req.time_ns = if self.opts.keep_absolute_time { time } else { time.saturating_sub(base) };
        self.requests += 1;
        Ok(req)
    }
}

impl Iterator for TraceStream {
    type Item = Result<Request>;

    fn next(&mut self) -> Option<Result<Request>> {
        let Some(mut spread) = self.spread.take() else {
            return self.next_ordered();
        };
        let next = spread.next(&mut || self.next_ordered());
        self.spread = Some(spread);
        next
    }
}

impl TraceStream {
    /// The next request in arrival order, before any spread.
    fn next_ordered(&mut self) -> Option<Result<Request>> {
        loop {
            if let Some(req) = self.window.as_mut().and_then(Window::pop_ready) {
                return Some(self.finish(req));
            }
            if self.done {
                return match self.window.as_mut().and_then(Window::pop_any) {
                    Some(req) => Some(self.finish(req)),
                    None => self.none_read(),
                };
            }
            let (number, parsed) = match self.next_parsed() {
                Some(Ok(next)) => next,
                Some(Err(e)) => {
                    (self.done, self.ended) = (true, true);
                    return Some(Err(Error::io(&self.name, e)));
                }
                None => {
                    self.done = true;
                    continue;
                }
            };
            match parsed {
                Ok(Line::Request(mut req)) => {
                    req.line = number;
                    if !self.admit(&req) {
                        continue;
                    }
                    match self.window.as_mut() {
                        Some(w) => w.push(req),
                        None => return Some(self.finish(req)),
                    }
                }
                Ok(Line::Skip) => {}
                Ok(Line::Ignored) => self.ignored += 1,
                Err(_) if self.opts.skip_malformed => self.skipped_malformed += 1,
                Err(reason) => {
                    // Name the format: a wrong --format reads every line as garbage.
                    let how = if self.opts.format.is_some() { "given with --format" } else { "detected" };
                    let reason = format!("not a {} line ({how}): {reason}", self.format.name());
                    return Some(Err(Error::trace(&self.name, number, reason)));
                }
            }
        }
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
            .field("backwards", &self.backwards)
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
fn read_sample(lines: &mut Lines, pending: &mut VecDeque<(u64, Result<String, String>)>) -> io::Result<Vec<(u64, String)>> {
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
        let mut s = open_trace_reader("mem.trace", io::Cursor::new(text.as_bytes().to_vec()), opts).unwrap();
        let out = s.by_ref().collect();
        (out, s)
    }

    #[test]
    fn relative_times_and_line_numbers() {
        let (reqs, s) = read("# comment\n\n100 0 8 8 1\n250 1 16 8 0\n", &TraceOptions::default());
        let reqs: Vec<Request> = reqs.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(s.format(), TraceFormat::Mqsim);
        assert_eq!((reqs[0].time_ns, reqs[0].line, reqs[0].kind), (0, 3, IoKind::Read));
        assert_eq!((reqs[1].time_ns, reqs[1].line, reqs[1].volume), (150, 4, 1));
    }

    /// No reorder window: the reader's strict rule alone.
    fn strict() -> TraceOptions {
        TraceOptions { reorder_window_ns: 0, ..Default::default() }
    }

    #[test]
    fn backwards_time_errors_or_clamps() {
        let text = "100 0 8 8 1\n50 0 8 8 1\n120 0 8 8 1\n";
        let (reqs, _) = read(text, &strict());
        let err = reqs[1].as_ref().unwrap_err().to_string();
        assert!(err.starts_with("mem.trace:2:") && err.contains("backwards") && err.contains("--clamp-backwards-time"), "{err}");
        let opts = TraceOptions { clamp_backwards_time: true, ..strict() };
        let (reqs, s) = read(text, &opts);
        let times: Vec<u64> = reqs.into_iter().map(|r| r.unwrap().time_ns).collect();
        assert_eq!((times, s.clamped()), (vec![0, 0, 20], 1));
    }

    #[test]
    fn the_default_window_sorts_small_steps_back_and_refuses_large_ones() {
        let (reqs, s) = read("100 0 8 8 1\n50 0 8 8 1\n120 0 8 8 1\n", &TraceOptions::default());
        let got: Vec<(u64, u64)> = reqs.into_iter().map(|r| r.map(|r| (r.time_ns, r.line)).unwrap()).collect();
        assert_eq!((got, s.reordered()), (vec![(0, 2), (50, 1), (70, 3)], 1));
        // 3 s back, past the 2 s window: an error naming both flags.
        let (reqs, _) = read("3000000000 0 8 8 1\n5000000000 0 8 8 1\n1000000 0 8 8 1\n", &TraceOptions::default());
        let err = reqs.iter().find_map(|r| r.as_ref().err()).unwrap().to_string();
        assert!(err.starts_with("mem.trace:3:") && err.contains("--reorder-window") && err.contains("--clamp-backwards-time"), "{err}");
    }

    #[test]
    fn disorder_is_counted_and_a_window_sorts_it() {
        // Two volumes interleaved: 300 steps back 200 ns from 500, 350 by 150.
        let text = "100 0 8 8 1\n500 1 8 8 1\n300 0 8 8 1\n350 0 8 8 1\n900 1 8 8 1\n";
        let keep = TraceOptions { keep_disorder: true, keep_absolute_time: true, ..Default::default() };
        let (reqs, s) = read(text, &keep);
        assert_eq!(reqs.len(), 5);
        assert_eq!((s.backwards(), s.max_step_back_ns(), s.clamped()), (2, 200, 0));
        let window = |ns| TraceOptions { reorder_window_ns: ns, ..Default::default() };
        let (reqs, s) = read(text, &window(200));
        let got: Vec<(u64, u64)> = reqs.into_iter().map(|r| r.map(|r| (r.time_ns, r.line)).unwrap()).collect();
        assert_eq!(got, vec![(0, 1), (200, 3), (250, 4), (400, 2), (800, 5)]);
        assert_eq!((s.reordered(), s.backwards(), s.clamped()), (2, 2, 0));
        // 250 comes 650 ns behind the newest, after 300 and 500 have left a 100 ns window.
        let late = "100 0 8 8 1\n500 1 8 8 1\n300 0 8 8 1\n900 1 8 8 1\n250 0 8 8 1\n";
        let (reqs, _) = read(late, &window(100));
        let err = reqs.iter().find_map(|r| r.as_ref().err()).unwrap().to_string();
        assert!(err.starts_with("mem.trace:5:") && err.contains("widen the window"), "{err}");
        let narrow = TraceOptions { clamp_backwards_time: true, ..window(100) };
        let (reqs, s) = read(late, &narrow);
        let times: Vec<u64> = reqs.into_iter().map(|r| r.unwrap().time_ns).collect();
        assert_eq!((times, s.clamped(), s.reordered()), (vec![0, 200, 400, 400, 800], 1, 2));
    }

    #[test]
    fn a_window_leaves_a_sorted_trace_as_it_is() {
        let text = "0 0 8 8 1\n5 0 16 8 1\n5 0 24 8 0\n9 0 8 8 1\n";
        let opts = TraceOptions { reorder_window_ns: 1_000_000, ..Default::default() };
        let (reqs, s) = read(text, &opts);
        let lines: Vec<u64> = reqs.into_iter().map(|r| r.unwrap().line).collect();
        assert_eq!((lines, s.reordered(), s.backwards()), (vec![1, 2, 3, 4], 0, 0));
    }

    #[test]
    fn undetectable_input_is_an_error_naming_the_file() {
        let err =
            open_trace_reader("x.txt", io::Cursor::new(b"what is this\n".to_vec()), &TraceOptions::default()).unwrap_err().to_string();
        assert!(err.starts_with("x.txt:1:") && err.contains("tried msr"), "{err}");
    }

    #[test]
    fn input_without_requests_is_one_error_naming_the_file_not_line_0() {
        let opts = TraceOptions { format: Some(TraceFormat::Msr), ..Default::default() };
        let (reqs, _) = read("", &opts);
        let errs: Vec<String> = reqs.into_iter().map(|r| r.unwrap_err().to_string()).collect();
        assert_eq!(errs, vec!["mem.trace: no requests read as msr: the file is empty or holds only blank lines and comments"]);
        let only_vol_1 = TraceOptions { volume: Some(1), ..Default::default() };
        let (reqs, _) = read("100 0 8 8 1\n", &only_vol_1);
        assert!(reqs[0].as_ref().unwrap_err().to_string().ends_with("no requests read as mqsim: 1 requests of other volumes left out"));
        let err =
            open_trace_reader("e.csv", io::Cursor::new(b"# only a comment\n".to_vec()), &TraceOptions::default()).unwrap_err().to_string();
        assert!(err.starts_with("e.csv: no requests"), "{err}");
    }
}
