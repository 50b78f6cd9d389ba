//! Format auto-detection: every parser tries the first data lines, and the
//! format that reads at least one request with the fewest malformed lines
//! wins, earlier in [`TraceFormat::ALL`] on ties. Fewest-errors rather than
//! all-or-nothing means a file with one bad line among the first still gets
//! its format, and the user then hears what is wrong with that line instead
//! of a vague "unknown format".

use crate::workload::formats::{Line, TraceFormat};

/// How many data lines (non-blank, non-comment) detection looks at: enough to
/// see a blkparse `Q` among the other events of the first I/Os.
pub(super) const SAMPLE_LINES: usize = 32;

/// Pick the format of `sample` (line number, text), or explain, format by
/// format, why none fits.
pub(super) fn detect(sample: &[(u64, String)]) -> Result<TraceFormat, String> {
    if sample.is_empty() {
        return Err(
            "no data lines, so the format cannot be detected; give it explicitly".to_string(),
        );
    }
    let mut best: Option<(usize, TraceFormat)> = None;
    let mut tried = Vec::new();
    for format in TraceFormat::ALL {
        let (requests, errors, first_error) = score(format, sample);
        if requests > 0 && best.map_or(true, |(e, _)| errors < e) {
            best = Some((errors, format));
        }
        let why = match first_error {
            Some((line, reason)) if requests == 0 => {
                format!("{} (line {line}: {reason})", format.name())
            }
            _ => format!(
                "{} (no request in the first {} lines)",
                format.name(),
                sample.len()
            ),
        };
        tried.push(why);
    }
    best.map(|(_, f)| f).ok_or_else(|| {
        format!(
            "cannot detect the trace format; tried {}; give the format explicitly",
            tried.join(", ")
        )
    })
}

/// Requests read, malformed lines, and the first malformed line's reason.
fn score(format: TraceFormat, sample: &[(u64, String)]) -> (usize, usize, Option<(u64, String)>) {
    let (mut requests, mut errors, mut first_error) = (0, 0, None);
    for (number, text) in sample {
        match format.parse_line(text) {
            Ok(Line::Request(_)) => requests += 1,
            Ok(Line::Skip | Line::Ignored) => {}
            Err(reason) => {
                errors += 1;
                first_error.get_or_insert((*number, reason));
            }
        }
    }
    (requests, errors, first_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(lines: &[&str]) -> Vec<(u64, String)> {
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| (i as u64 + 1, l.to_string()))
            .collect()
    }

    #[test]
    fn detects_each_sample_shape() {
        let cases = [
            (
                "128166385295514663,hm,0,Write,9056014336,2048,2833",
                TraceFormat::Msr,
            ),
            ("0,20941264,8192,W,0.551706", TraceFormat::Spc),
            (
                "89966522969723 4270 nfsd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221",
                TraceFormat::Fiu,
            ),
            ("11413000 0 657728 16 1", TraceFormat::Mqsim),
            ("11.413 0 657728 16 1", TraceFormat::Disksim),
            (
                "1456095145.133076000,0.000806000,R,0,899056122368,131072",
                TraceFormat::Systor,
            ),
            ("1538323200,4247200,128,1,1058", TraceFormat::Tencent),
            ("1,5633898,2a,512,42932745", TraceFormat::CloudPhysics),
            (
                "  8,0    3        1     0.000000000  4162  Q   W 223490 + 8 [proc]",
                TraceFormat::Blkparse,
            ),
        ];
        for (line, want) in cases {
            assert_eq!(detect(&sample(&[line])), Ok(want), "{line}");
        }
    }

    #[test]
    fn one_bad_line_does_not_hide_the_format() {
        let s = sample(&[
            "1,hm,0,Read,0,512,1",
            "1,hm,0,Read,0,0,1",
            "2,hm,0,Write,0,512,1",
        ]);
        assert_eq!(detect(&s), Ok(TraceFormat::Msr));
    }

    #[test]
    fn failure_names_every_format_tried() {
        let err = detect(&sample(&["hello world"])).unwrap_err();
        for f in TraceFormat::ALL {
            assert!(err.contains(f.name()), "{err}");
        }
        assert!(detect(&[]).is_err());
    }
}
