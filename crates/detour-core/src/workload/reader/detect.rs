//! Format auto-detection that never guesses: every parser reads the first
//! data lines, and a format is chosen only when it is the one reading that
//! fits. Otherwise detection refuses, naming the candidates and `--format`,
//! because a wrong guess is silent: an MQSim trace read as DiskSim runs to
//! the end with its nanosecond times taken as milliseconds.
//!
//! The rules, in order:
//! 1. A format *fits* when it reads every sample line (at least one as a
//!    request) and its reading is not *loose*. A loose reading parses but
//!    probably misreads: DiskSim on a sample whose times are all integers
//!    (DiskSim writes decimal milliseconds; integer times are MQSim's
//!    nanoseconds). SSDSim is never a candidate: its layout is MQSim's and
//!    reads identically, so it is reported as `mqsim`.
//! 2. One format fits: it is chosen. Several fit: refuse.
//! 3. None fits: when exactly one format reads any request and its reading
//!    is not loose, it is chosen, so a file with one bad line among the
//!    first still gets its format and the user hears what is wrong with that
//!    line instead of a vague "unknown format". Otherwise refuse.

use crate::workload::formats::{Line, TraceFormat};

/// How many data lines (non-blank, non-comment) detection looks at: enough
/// to see a blkparse `Q` among the other events of the first I/Os, and to
/// meet a line that only one of two similar formats reads (a size column
/// that is no hex SCSI opcode, a fractional time) in most traces.
pub(super) const SAMPLE_LINES: usize = 128;

/// What one format made of the sample.
struct Reading {
    format: TraceFormat,
    requests: usize,
    errors: usize,
    first_error: Option<(u64, String)>,
    loose: bool,
}

impl Reading {
    fn fits(&self) -> bool {
        self.requests > 0 && self.errors == 0 && !self.loose
    }

    /// One clause for an error message: why this format is (not) the one.
    fn describe(&self, lines: usize) -> String {
        let name = self.format.name();
        match &self.first_error {
            Some((line, reason)) if self.requests == 0 => format!("{name} (line {line}: {reason})"),
            Some((line, reason)) => format!("{name} ({} of {lines} lines read, but line {line}: {reason})", self.requests),
            None if self.loose => format!("{name} ({})", loose_reason(self.format)),
            None if self.requests > 0 => format!("{name} (reads every line)"),
            None => format!("{name} (no request in the first {lines} lines)"),
        }
    }
}

/// Pick the format of `sample` (line number, text), or explain, format by
/// format, why none or several fit.
pub(super) fn detect(sample: &[(u64, String)]) -> Result<TraceFormat, String> {
    if sample.is_empty() {
        return Err("no requests: the file is empty or holds only blank lines and comments (so no format to detect either)".to_string());
    }
    let readings: Vec<Reading> = TraceFormat::ALL.into_iter().filter(|&f| f != TraceFormat::Ssdsim).map(|f| read(f, sample)).collect();
    let fitting: Vec<&Reading> = readings.iter().filter(|r| r.fits()).collect();
    if let [one] = fitting.as_slice() {
        return Ok(one.format);
    }
    let n = sample.len();
    if fitting.len() > 1 {
        return Err(ambiguous(&fitting, n));
    }
    let reading: Vec<&Reading> = readings.iter().filter(|r| r.requests > 0).collect();
    match reading.as_slice() {
        [one] if !one.loose => Ok(one.format),
        [] => {
            let tried: Vec<String> = readings.iter().map(|r| r.describe(n)).collect();
            Err(format!("cannot detect the trace format; tried {}; give it with --format", tried.join(", ")))
        }
        several => Err(ambiguous(several, n)),
    }
}

fn ambiguous(candidates: &[&Reading], lines: usize) -> String {
    let names: Vec<&str> = candidates.iter().map(|r| r.format.name()).collect();
    let why: Vec<String> = candidates.iter().map(|r| r.describe(lines)).collect();
    format!(
        "cannot tell the trace format for sure: it could be {}; {}; give it with --format {}",
        names.join(" or "),
        why.join("; "),
        names.join("|")
    )
}

/// Read the sample with one format.
fn read(format: TraceFormat, sample: &[(u64, String)]) -> Reading {
    let mut r = Reading { format, requests: 0, errors: 0, first_error: None, loose: false };
    for (number, text) in sample {
        match format.parse_line(text) {
            Ok(Line::Request(_)) => r.requests += 1,
            Ok(Line::Skip | Line::Ignored) => {}
            Err(reason) => {
                r.errors += 1;
                r.first_error.get_or_insert((*number, reason));
            }
        }
    }
    r.loose = r.requests > 0 && is_loose(format, sample);
    r
}

/// Whether a reading that parses is still probably a misreading.
fn is_loose(format: TraceFormat, sample: &[(u64, String)]) -> bool {
    match format {
        // DiskSim times are decimal milliseconds; a sample with no fraction
        // anywhere is far more likely MQSim's integer nanoseconds.
        TraceFormat::Disksim => !sample.iter().any(|(_, text)| text.split_ascii_whitespace().next().is_some_and(|time| time.contains('.'))),
        _ => false,
    }
}

fn loose_reason(format: TraceFormat) -> &'static str {
    match format {
        TraceFormat::Disksim => {
            "reads every line, but no time has a fraction: DiskSim's are decimal milliseconds, \
             integer times are more likely MQSim's nanoseconds"
        }
        _ => "reads every line, loosely",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(lines: &[&str]) -> Vec<(u64, String)> {
        lines.iter().enumerate().map(|(i, l)| (i as u64 + 1, l.to_string())).collect()
    }

    #[test]
    fn detects_each_sample_shape() {
        let cases = [
            ("128166385295514663,hm,0,Write,9056014336,2048,2833", TraceFormat::Msr),
            ("0,20941264,8192,W,0.551706", TraceFormat::Spc),
            ("89966522969723 4270 nfsd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221", TraceFormat::Fiu),
            ("11413000 0 657728 16 1", TraceFormat::Mqsim),
            ("11.413 0 657728 16 1", TraceFormat::Disksim),
            ("1456095145.133076000,0.000806000,R,0,899056122368,131072", TraceFormat::Systor),
            ("1538323200,4247200,128,1,1058", TraceFormat::Tencent),
            ("1,5633898,2a,512,42932745", TraceFormat::CloudPhysics),
            ("  8,0    3        1     0.000000000  4162  Q   W 223490 + 8 [proc]", TraceFormat::Blkparse),
        ];
        for (line, want) in cases {
            assert_eq!(detect(&sample(&[line])), Ok(want), "{line}");
        }
    }

    #[test]
    fn one_bad_line_does_not_hide_the_format() {
        let s = sample(&["1,hm,0,Read,0,512,1", "1,hm,0,Read,0,0,1", "2,hm,0,Write,0,512,1"]);
        assert_eq!(detect(&s), Ok(TraceFormat::Msr));
    }

    #[test]
    fn failure_names_every_format_tried() {
        let err = detect(&sample(&["hello world"])).unwrap_err();
        for f in TraceFormat::ALL.into_iter().filter(|&f| f != TraceFormat::Ssdsim) {
            assert!(err.contains(f.name()), "{err}");
        }
        assert!(detect(&[]).is_err());
    }

    #[test]
    fn integer_times_with_a_bad_op_are_refused_not_read_as_disksim() {
        for bad in [
            ["11413000 0 657728 16 1", "11565000 1 31244784 64 7", "11721000 1 8 16 1"],
            ["11413000 0 657728 16 1", "11565000 1 31244784 64 1", "11721000 1 8 16 2"],
        ] {
            let err = detect(&sample(&bad)).unwrap_err();
            assert!(err.contains("mqsim or disksim") && err.contains("--format"), "{err}");
        }
    }

    #[test]
    fn integer_times_alone_are_not_enough_for_disksim() {
        let err = detect(&sample(&["0 0 0 8 2", "5 0 8 8 3"])).unwrap_err();
        assert!(err.contains("disksim") && err.contains("--format"), "{err}");
        // One fractional time makes it DiskSim's milliseconds.
        assert_eq!(detect(&sample(&["0 0 0 8 2", "5.5 0 8 8 3"])), Ok(TraceFormat::Disksim));
    }

    #[test]
    fn a_line_both_tencent_and_cloudphysics_read_is_refused() {
        // Tencent: 8 sectors written; CloudPhysics: a 1-byte READ(6).
        let err = detect(&sample(&["1538323200,4247200,8,1,1058"])).unwrap_err();
        assert!(err.contains("tencent or cloudphysics"), "{err}");
        let s = sample(&["1538323200,4247200,8,1,1058", "1538323200,4247200,128,1,1058"]);
        assert_eq!(detect(&s), Ok(TraceFormat::Tencent));
    }
}
