//! The `scheme_idle` warning: the scheme under study never did what
//! distinguishes it from a conventional SSD, so its numbers are a
//! conventional SSD's (plus its overheads), and, where the configuration
//! shows why, the reason.

use super::RunFacts;
use crate::metrics::Summary;
use crate::schemes::{registry, DedupConfig, Placement};

/// The warning's message, when every activity counter of the scheme stayed 0.
pub(super) fn idle(s: &Summary, f: &RunFacts) -> Option<String> {
    // The counters that show the scheme acting (any non-zero one is
    // enough): its registry entry's `activity`; a scheme with none (whose
    // work is every request's) is never idle.
    let counters = registry::find(&s.scheme).ok()?.activity;
    if counters.is_empty() {
        return None;
    }
    let value = |k: &str| s.scheme_counters.get(k).copied();
    // A counter the scheme does not report tells nothing either way.
    if counters.iter().any(|k| value(k).is_none_or(|v| v != 0.0)) {
        return None;
    }
    let why = reason(s, f).map(|r| format!(": {r}")).unwrap_or_default();
    Some(format!(
        "scheme {} never acted ({} stayed 0), so its numbers are a plain page-mapped SSD's plus its overheads{why}",
        s.scheme,
        counters.join(", ")
    ))
}

/// Why the scheme stayed idle, where its configuration shows it.
fn reason(s: &Summary, f: &RunFacts) -> Option<String> {
    let r: DedupConfig = registry::section(&f.cfg.scheme).ok()?;
    let counter = |k: &str| s.scheme_counters.get(k).copied().unwrap_or(0.0);
    match s.scheme.as_str() {
        "ca-ssd" if r.synthetic_content => Some("scheme.dedup.synthetic_content gives every written page a value of its own".into()),
        "ca-ssd" => Some("no written page repeated a value already stored".into()),
        "rr-ssd" | "pblru" => {
            let period_ns = r.period_s * 1e9;
            let arrivals = f.shape.last_arrival_ns - f.shape.first_arrival_ns.unwrap_or(0);
            if s.scheme == "rr-ssd" && r.placement != Placement::Online && period_ns > arrivals as f64 {
                return Some(format!(
                    "scheme.dedup.period_s = {} s is longer than the workload's {:.3} s of arrivals, so no period \
                     ended (and no replica was made) while requests arrived",
                    r.period_s,
                    arrivals as f64 / 1e9
                ));
            }
            (r.alpha_pct == 0.0 && counter("dedup.space_saved_pages") == 0.0)
                .then(|| "its replication budget was 0: scheme.dedup.alpha_pct = 0 and deduplication saved no space".to_string())
        }
        _ => None,
    }
}
