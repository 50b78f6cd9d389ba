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

/// Whether the configured scheme deduplicates by content and the user has
/// not asked for synthetic content.
pub fn needs_trace_content(cfg: &Config) -> bool {
    let dedup = matches!(planning_scheme(cfg), "ca-ssd" | "rr-ssd" | "oracle" | "pblru");
    dedup && !cfg.scheme.rrssd.synthetic_content
}

/// Passes requests through, and turns the first write without content into
/// an error when the scheme needs content (see the module docs).
pub struct ContentGuard<'a> {
    inner: &'a mut dyn Iterator<Item = Result<Request>>,
    scheme: Option<String>,
    source: String,
}

impl<'a> ContentGuard<'a> {
    pub fn new(inner: &'a mut dyn Iterator<Item = Result<Request>>, cfg: &Config, source: &str) -> Self {
        let scheme = needs_trace_content(cfg).then(|| planning_scheme(cfg).to_string());
        ContentGuard { inner, scheme, source: source.to_string() }
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

impl Iterator for ContentGuard<'_> {
    type Item = Result<Request>;

    fn next(&mut self) -> Option<Result<Request>> {
        let next = self.inner.next()?;
        if let (Some(scheme), Ok(req)) = (&self.scheme, &next) {
            if req.kind == IoKind::Write && req.content == 0 {
                return Some(Err(self.refuse(scheme, req)));
            }
        }
        Some(next)
    }
}
