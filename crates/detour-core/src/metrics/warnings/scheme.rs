//! The `scheme_idle` warning: the scheme under study never did what
//! distinguishes it from a conventional SSD, so its numbers are a
//! conventional SSD's (plus its overheads), and, where the configuration
//! shows why, the reason (the scheme's own, `RunFacts::why_idle`).

use super::RunFacts;
use crate::metrics::Summary;

/// The warning's message, when every activity counter of the scheme stayed 0.
pub(super) fn idle(s: &Summary, f: &RunFacts) -> Option<String> {
    // The counters that show the scheme acting (any non-zero one is
    // enough); a scheme with none (whose work is every request's) is never
    // idle.
    let counters = f.activity;
    if counters.is_empty() {
        return None;
    }
    let value = |k: &str| s.scheme_counters.get(k).copied();
    // A counter the scheme does not report tells nothing either way.
    if counters.iter().any(|k| value(k).is_none_or(|v| v != 0.0)) {
        return None;
    }
    let why = f.why_idle.and_then(|reason| reason(s, f)).map(|r| format!(": {r}")).unwrap_or_default();
    Some(format!(
        "scheme {} never acted ({} stayed 0), so its numbers are a plain page-mapped SSD's plus its overheads{why}",
        s.scheme,
        counters.join(", ")
    ))
}
