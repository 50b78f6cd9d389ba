//! What a scheme needs from its input, checked as the requests stream in,
//! so a run that cannot mean anything is refused instead of finishing
//! quietly with numbers that look plausible.
//!
//! Today the one requirement is content: the deduplicating schemes (ca-ssd,
//! rr-ssd, oracle, pblru, and the collision layer over one of them) compare
//! the values written. A trace without content hashes (every format but
//! FIU) gives each write a unique value, so nothing deduplicates and the
//! four schemes report the same numbers. Such a write is an error naming
//! the line and the key that accepts it: `scheme.rrssd.synthetic_content =
//! true` asks for unique synthetic values on purpose (today's behaviour for
//! writes without content).
//!
//! The same schemes keep one row per period (`summary.periods`), so a
//! request arriving more periods after the start than [`MAX_PERIODS`] is
//! refused too, naming the period key: a trace with a ten-day gap under a
//! 50 ms period would otherwise fill memory with empty rows (the run fuzz
//! test found one, at 22 GB).

use crate::config::Config;
use crate::error::{Error, Result};
use crate::types::IoKind;
use crate::workload::Request;

/// The scheme that plans the requests: the collision layer's base, or the
/// scheme itself.
fn planning_scheme(cfg: &Config) -> &str {
    match cfg.scheme.name.as_str() {
        "collisions" => cfg.scheme.collisions.base.as_str(),
        name => name,
    }
}

/// Most period rows a run may make: 100,000 (a week of the synthetic
/// profiles' 60 s days is 10,080), about 150 MB of rows.
pub const MAX_PERIODS: f64 = 100_000.0;

fn is_dedup(cfg: &Config) -> bool {
    matches!(planning_scheme(cfg), "ca-ssd" | "rr-ssd" | "oracle" | "pblru")
}

/// Whether the configured scheme deduplicates by content and the user has
/// not asked for synthetic content.
pub fn needs_trace_content(cfg: &Config) -> bool {
    is_dedup(cfg) && !cfg.scheme.rrssd.synthetic_content
}

/// A dedup scheme's period, ns of simulated time, and the key that set it:
/// every tick closes a period, and `scheme.tick_us` overrides the ticks.
fn period(cfg: &Config) -> Option<(f64, &'static str)> {
    match cfg.scheme.tick_us {
        _ if !is_dedup(cfg) => None,
        us if us > 0.0 => Some(((us * 1e3).round().max(1.0), "scheme.tick_us")),
        _ => Some(((cfg.scheme.rrssd.period_s * 1e9).round().max(1.0), "scheme.rrssd.period_s")),
    }
}

/// Passes requests through, and turns the first request the scheme cannot
/// use into an error (see the module docs).
pub struct InputGuard<'a> {
    inner: &'a mut dyn Iterator<Item = Result<Request>>,
    scheme: Option<String>,
    /// The latest trace time allowed, ns (before `host.time_scale`), and
    /// the key that sets the period.
    period_limit: Option<(f64, &'static str)>,
    source: String,
}

impl<'a> InputGuard<'a> {
    pub fn new(inner: &'a mut dyn Iterator<Item = Result<Request>>, cfg: &Config, source: &str) -> Self {
        let scheme = needs_trace_content(cfg).then(|| planning_scheme(cfg).to_string());
        let period_limit = period(cfg).map(|(ns, key)| (ns * MAX_PERIODS / cfg.host.time_scale, key));
        InputGuard { inner, scheme, period_limit, source: source.to_string() }
    }

    fn check(&self, req: &Request) -> Result<()> {
        if let Some(scheme) = &self.scheme {
            if req.kind == IoKind::Write && req.content == 0 {
                return Err(self.refuse(scheme, req));
            }
        }
        match self.period_limit {
            Some((limit, key)) if req.time_ns as f64 > limit => {
                let reason = format!(
                    "this request arrives more than {MAX_PERIODS} periods after the start ({key}), and the \
                     deduplicating schemes keep a row per period: raise {key}, or cut the trace"
                );
                Err(Error::trace(&self.source, req.line, reason))
            }
            _ => Ok(()),
        }
    }

    fn refuse(&self, scheme: &str, req: &Request) -> Error {
        let reason = format!(
            "scheme {scheme} deduplicates by content, but this write carries none (of the trace formats only \
             FIU has content hashes; synthetic profiles always do): every write would count as unique and \
             ca-ssd, rr-ssd, oracle and pblru would give the same numbers. Give a trace with content, or set \
             scheme.rrssd.synthetic_content = true to give each written page a unique value on purpose"
        );
        Error::trace(&self.source, req.line, reason)
    }
}

impl Iterator for InputGuard<'_> {
    type Item = Result<Request>;

    fn next(&mut self) -> Option<Result<Request>> {
        let next = self.inner.next()?;
        if let Ok(req) = &next {
            if let Err(e) = self.check(req) {
                return Some(Err(e));
            }
        }
        Some(next)
    }
}
