//! A failing case made as small as it will go while it still fails the same
//! way: each config key dropped (back to its default) and each trace line
//! removed, one at a time, keeping every removal after which the case still
//! fails. The result is written out as a trace file and the `detour run`
//! command that replays it.

use super::case::Case;
use super::{bounded_case, Outcome};
use std::path::PathBuf;

/// The same kind of failure (a panic, a hang, or a check's first words).
fn same(a: &Result<Option<Outcome>, ()>, b: &Result<Option<Outcome>, ()>) -> bool {
    let word = |o: &Result<Option<Outcome>, ()>| match o {
        Err(()) => "hang".to_string(),
        Ok(None) => "panic".to_string(),
        Ok(Some(Outcome::Bad(why))) => why.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
        Ok(Some(_)) => "ok".to_string(),
    };
    word(a) == word(b)
}

/// At most this many runs of the case while shrinking (hangs cost a timeout each).
const MOST_TRIES: usize = 400;

pub fn shrink(c: &Case, failure: &Result<Option<Outcome>, ()>) -> Case {
    let mut best = c.clone();
    let mut tries = 0;
    let still = |candidate: &Case, tries: &mut usize| {
        *tries += 1;
        *tries <= MOST_TRIES && same(&bounded_case(candidate.clone()), failure)
    };
    // "run.verify=true" stays: the checks need it.
    let mut i = 0;
    while i < best.keys.len() {
        let mut k = best.clone();
        if k.keys[i] != "run.verify=true" {
            k.keys.remove(i);
            if still(&k, &mut tries) {
                best = k;
                continue;
            }
        }
        i += 1;
    }
    let text = String::from_utf8_lossy(&best.trace).to_string();
    let mut lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let mut fewer = lines.clone();
        fewer.remove(i);
        let mut k = best.clone();
        k.trace = fewer.join("\n").into_bytes();
        if still(&k, &mut tries) {
            lines = fewer;
            best = k;
        } else {
            i += 1;
        }
    }
    best
}

/// Write the shrunk case's trace beside the build and say how to replay it.
pub fn command(c: &Case) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz");
    let path = dir.join(format!("seed-{}.trace", c.seed));
    let written = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, &c.trace));
    let mut cmd = format!("detour run -t {} --verify", path.display());
    if let Some(f) = c.opts.format {
        cmd += &format!(" -f {f}");
    }
    if c.opts.skip_malformed {
        cmd += " --skip-malformed";
    }
    if c.opts.clamp_backwards_time {
        cmd += " --clamp-backwards-time";
    }
    for k in c.keys.iter().filter(|k| *k != "run.verify=true") {
        cmd += &format!(" --set {k}");
    }
    match written {
        Ok(()) => cmd,
        Err(e) => format!("{cmd}  (the trace could not be written to {}: {e})", path.display()),
    }
}
