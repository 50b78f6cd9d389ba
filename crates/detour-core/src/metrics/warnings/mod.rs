//! Warnings: what makes a completed run's numbers mean less than they seem,
//! written as `warnings` in summary.json and printed by `detour run`.
//!
//! A run can finish cleanly, with every request served and verified, and
//! still measure nothing useful: no request was measured, the scheme under
//! study never acted, the device was overloaded (so latencies measure a
//! queue growing with the trace's length, not a steady state), or most reads
//! were of pages the trace never wrote (so their placement is synthetic).
//! Each check here looks only at what the run already produced, so results
//! do not change; each warning has a fixed `kind` and a message that says
//! which numbers and keys it is about. Definitions: docs/results.md.

mod scheme;

use super::stream::Shape;
use super::Summary;
use crate::config::Config;
use crate::device::Geometry;
use serde::Serialize;

/// One warning: a stable `kind` for programs, a sentence for people.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Warning {
    pub kind: String,
    pub message: String,
}

/// What the checks read besides the summary.
pub struct RunFacts<'a> {
    pub cfg: &'a Config,
    pub geo: &'a Geometry,
    /// The trace's shape over every request, warm-up included.
    pub shape: &'a Shape,
    pub die_busy_ns: &'a [u64],
    pub channel_busy_ns: &'a [u64],
    /// Time of the run's last event (background work included), ns.
    pub end_ns: u64,
    /// Settings away from their defaults that nothing in the run read
    /// (`schemes::registry::inert_keys`), dotted.
    pub inert: &'a [String],
    /// The scheme's activity counters (its registry entry's `activity`):
    /// all 0 at the end is the `scheme_idle` warning.
    pub activity: &'a [&'a str],
    /// Why the scheme stayed idle, where its configuration shows it (its
    /// registry entry's `why_idle`).
    pub why_idle: Option<IdleReason>,
}

/// A scheme's account of why it never acted, from the summary and the run.
pub type IdleReason = fn(&Summary, &RunFacts) -> Option<String>;

/// Saturation is a steady-state notion: below this many requests a short
/// run's busy share and queue say nothing about the arrival rate.
const MIN_REQUESTS_FOR_SATURATION: u64 = 256;
/// Busy share of the run at which a die or channel counts as saturated.
const SATURATED_SHARE: f64 = 0.95;
/// Growth of the queue from the second quarter of the run to the last
/// (mean requests outstanding at the arrivals of each) below which it is
/// too small to matter; it must also be a quarter of the second quarter's
/// mean, so that a long steady queue's wobble is not taken for growth.
/// Means over quarters, not the queue at single arrivals: under bursty
/// arrivals the queue at any one arrival depends on where in its burst it
/// falls, and three such points rise by chance.
const MIN_GROWING_QUEUE: u64 = 32;

/// Every warning the run deserves, in a fixed order.
pub fn collect(s: &Summary, f: &RunFacts) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut warn = |kind: &str, message: String| out.push(Warning { kind: kind.to_string(), message });
    if let Some(m) = nothing_measured(s, f) {
        warn("nothing_measured", m);
        return out;
    }
    if let Some(m) = scheme::idle(s, f) {
        warn("scheme_idle", m);
    }
    for m in saturated(f) {
        warn("saturated", m);
    }
    if let Some(m) = reads_unwritten(s) {
        warn("reads_unwritten", m);
    }
    if !f.inert.is_empty() {
        warn(
            "inert_settings",
            format!(
                "{} set, but scheme {} never reads it: the run is the same as without it (a failure configured on a \
             scheme without redundancy does not happen)",
                f.inert.join(", "),
                f.cfg.scheme.name
            ),
        );
    }
    if let Some(m) = s.mapping.as_ref().filter(|m| m.covers) {
        warn(
            "cmt_covers_map",
            format!(
                "ftl.cmt_size_kib = {} holds the whole map ({} translation pages): no lookup misses and nothing is read from or \
             written to flash, so the results are the DRAM map's (ftl.mapping = \"dram\")",
                f.cfg.ftl.cmt_size_kib, m.translation_pages
            ),
        );
    }
    out
}

fn nothing_measured(s: &Summary, f: &RunFacts) -> Option<String> {
    if s.requests > 0 {
        return None;
    }
    let n = f.shape.rows;
    Some(if n == 0 {
        "the workload had no requests (an empty trace, or every line filtered out or ignored): nothing was measured, \
         and every number in this summary is 0"
            .to_string()
    } else {
        format!(
            "host.warmup_requests = {} is at least the workload's {n} requests: every request was warm-up, nothing \
             was measured",
            f.cfg.host.warmup_requests
        )
    })
}

/// A queue still growing through the run, and dies or
/// channels busy for nearly the whole run.
fn saturated(f: &RunFacts) -> Vec<String> {
    let n = f.shape.rows;
    if n < MIN_REQUESTS_FOR_SATURATION {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mean = |q: u64| f.shape.outstanding.mean_over(n * q / 4, n * (q + 1) / 4);
    let (second, third, last) = (mean(1), mean(2), mean(3));
    if second < third && third < last && last - second >= (MIN_GROWING_QUEUE as f64).max(second / 4.0) {
        out.push(format!(
            "the queue kept growing through the run (on average {second:.0} requests \
             outstanding at the arrivals of its second quarter, {third:.0} at those of the third, {last:.0} at those \
             of the last): requests arrive faster than the device serves them, so latencies grow with the trace's \
             length rather than reaching a steady state"
        ));
    }
    let first = f.shape.first_arrival_ns.unwrap_or(0);
    let span = f.end_ns.saturating_sub(first);
    let channels = busy_names(f.channel_busy_ns, span, |c| format!("channel {c}"));
    let dies = busy_names(f.die_busy_ns, span, |d| format!("die {d} (channel {}, chip {})", f.geo.channel_of_die(d), f.geo.chip_of_die(d)));
    for (what, names) in [("channels", channels), ("dies", dies)] {
        if !names.is_empty() {
            out.push(format!(
                "{what} busy for at least {:.0}% of the run: {}; the device's throughput, not the scheme, \
                 sets these latencies",
                SATURATED_SHARE * 100.0,
                names.join(", ")
            ));
        }
    }
    out
}

/// Names (with busy share) of the resources busy for most of `span`, the
/// first few only: a saturated device can have hundreds of dies.
fn busy_names(busy_ns: &[u64], span: u64, name: impl Fn(u32) -> String) -> Vec<String> {
    if span == 0 {
        return Vec::new();
    }
    let busy: Vec<(u32, f64)> = busy_ns
        .iter()
        .enumerate()
        .map(|(i, &b)| (i as u32, b as f64 / span as f64))
        .filter(|&(_, share)| share >= SATURATED_SHARE)
        .collect();
    let mut names: Vec<String> = busy.iter().take(4).map(|&(i, share)| format!("{} ({:.1}%)", name(i), share.min(1.0) * 100.0)).collect();
    if busy.len() > 4 {
        names.push(format!("and {} more of {}", busy.len() - 4, busy_ns.len()));
    }
    names
}

/// Most pages read were never written: their placement is synthetic.
fn reads_unwritten(s: &Summary) -> Option<String> {
    let p = &s.pages;
    if p.placed_on_read == 0 || p.placed_on_read * 2 <= p.host_read || p.placed_on_read <= p.host_written {
        return None;
    }
    Some(format!(
        "{} of the {} pages read had never been written when first read (pages.placed_on_read), against {} pages \
         written: the read footprint is far larger than the written one, so most reads hit pages placed as \
         preconditioning would have placed them rather than where the trace put them (ftl.precondition.valid \
         places them before the run)",
        p.placed_on_read, p.host_read, p.host_written
    ))
}
