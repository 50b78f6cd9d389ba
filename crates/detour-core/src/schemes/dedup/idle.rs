//! Why a deduplicating scheme never acted, where its configuration shows
//! it: the reason the `scheme_idle` warning gives (metrics/warnings/).

use super::{DedupConfig, Placement};
use crate::metrics::warnings::RunFacts;
use crate::metrics::Summary;
use crate::schemes::registry;

/// CA-SSD: no write found its value stored.
pub(super) fn ca_ssd(_: &Summary, f: &RunFacts) -> Option<String> {
    let r: DedupConfig = registry::section(&f.cfg.scheme).ok()?;
    Some(if r.synthetic_content {
        "scheme.dedup.synthetic_content gives every written page a value of its own".into()
    } else {
        "no written page repeated a value already stored".into()
    })
}

/// RR-SSD: no period ended while requests arrived, or no budget.
pub(super) fn rr_ssd(s: &Summary, f: &RunFacts) -> Option<String> {
    let r: DedupConfig = registry::section(&f.cfg.scheme).ok()?;
    let period_ns = r.period_s * 1e9;
    let arrivals = f.shape.last_arrival_ns - f.shape.first_arrival_ns.unwrap_or(0);
    if r.placement != Placement::Online && period_ns > arrivals as f64 {
        return Some(format!(
            "scheme.dedup.period_s = {} s is longer than the workload's {:.3} s of arrivals, so no period \
             ended (and no replica was made) while requests arrived",
            r.period_s,
            arrivals as f64 / 1e9
        ));
    }
    no_budget(s, &r)
}

/// PBLRU: no budget to replicate into.
pub(super) fn pblru(s: &Summary, f: &RunFacts) -> Option<String> {
    no_budget(s, &registry::section(&f.cfg.scheme).ok()?)
}

fn no_budget(s: &Summary, r: &DedupConfig) -> Option<String> {
    let saved = s.scheme_counters.get("dedup.space_saved_pages").copied().unwrap_or(0.0);
    (r.alpha_pct == 0.0 && saved == 0.0)
        .then(|| "its replication budget was 0: scheme.dedup.alpha_pct = 0 and deduplication saved no space".to_string())
}
