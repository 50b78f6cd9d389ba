//! The discards' part of the summary (`trim` in summary.json).

/// What the workload's discards (TRIM) did (`sim/trim.rs`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TrimSummary {
    /// Discard requests, and the logical pages they named.
    pub requests: u64,
    pub pages: u64,
    /// Of those pages, the ones that held data and were unmapped (their
    /// flash page invalidated, so GC does not move it).
    pub unmapped_pages: u64,
    /// Host pages read while discarded: answered "unwritten" (zeros)
    /// without a flash read.
    pub unwritten_reads: u64,
    /// Discards dropped by `trim.discards = "ignore"` (requests).
    pub ignored: u64,
}
