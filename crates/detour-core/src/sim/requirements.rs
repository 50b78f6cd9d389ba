//! What a scheme needs from its input, checked as the requests stream in,
//! so a run that cannot mean anything is refused instead of finishing
//! quietly with numbers that look plausible.
//!
//! Today the one requirement is content: the deduplicating schemes (ca-ssd,
//! rr-ssd, oracle, pblru, and the collision layer over one of them) compare
//! the values written. A trace without content hashes (every format but
//! FIU) gives each write a unique value, so nothing deduplicates and the
//! four schemes report the same numbers. Such a write is an error naming
//! the line and the key that accepts it: `scheme.dedup.synthetic_content =
//! true` asks for unique synthetic values on purpose (today's behaviour for
//! writes without content).
//!
//! A scheme with a periodic tick runs it from the start to the last
//! arrival, so a request very far into the trace costs ticks without end: a
//! corrupted timestamp 285 years in, under Rails' 50 ms swaps, is 1.8e11
//! ticks, in effect a hang. A request more than `MAX_TICKS` ticks after
//! the start is refused, naming the key of the tick. The deduplicating
//! schemes also keep one row per period (one per tick) in
//! `summary.periods`, so for them the bound is `MAX_PERIODS`: a ten-day
//! gap under a 50 ms period would otherwise fill memory with empty rows
//! (the run fuzz test found both cases).
//!
//! What each scheme needs it says itself ([`Scheme::needs_content`],
//! [`Scheme::max_ticks`], [`Scheme::tick_key`]); a layer asks its base.

use crate::error::{Error, Result};
use crate::schemes::requirements::MAX_PERIODS;
use crate::schemes::Scheme;
use crate::types::IoKind;
use crate::workload::Request;

/// Passes requests through, and turns the first request the scheme cannot
/// use into an error (see the module docs).
pub struct InputGuard<'a> {
    inner: &'a mut dyn Iterator<Item = Result<Request>>,
    scheme: Option<String>,
    /// The latest trace time allowed, ns (before `host.time_scale`), the
    /// most ticks it stands for, and the key that sets the tick.
    tick_limit: Option<(f64, f64, &'static str)>,
    source: String,
}

impl<'a> InputGuard<'a> {
    /// `tick_ns`: the simulation's tick interval, if the scheme ticks;
    /// `tick_us_set`: `scheme.tick_us` overrides the scheme's own.
    pub fn new(
        inner: &'a mut dyn Iterator<Item = Result<Request>>,
        (scheme, name): (&dyn Scheme, &str),
        (tick_ns, tick_us_set): (Option<u64>, bool),
        time_scale: f64,
        source: &str,
    ) -> Self {
        let most = scheme.max_ticks();
        let key = if tick_us_set { "scheme.tick_us" } else { scheme.tick_key() };
        let tick_limit = tick_ns.map(|ns| (ns as f64 * most / time_scale, most, key));
        let scheme = scheme.needs_content().then(|| name.to_string());
        InputGuard { inner, scheme, tick_limit, source: source.to_string() }
    }

    fn check(&self, req: &Request) -> Result<()> {
        if let Some(scheme) = &self.scheme {
            if req.kind == IoKind::Write && req.content == 0 {
                return Err(self.refuse(scheme, req));
            }
        }
        match self.tick_limit {
            Some((limit, most, key)) if req.time_ns as f64 > limit => {
                let rows = if most == MAX_PERIODS { ", and the deduplicating schemes keep a row per tick" } else { "" };
                let reason = format!(
                    "this request arrives more than {most} of the scheme's ticks after the start (a tick every \
                     {key}){rows}: raise {key}, or check the trace's times"
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
             scheme.dedup.synthetic_content = true to give each written page a unique value on purpose"
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
