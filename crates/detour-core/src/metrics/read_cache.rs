//! The read cache's part of the summary (`read_cache` in summary.json).

/// What the DRAM read cache did over the run (`sim/read_cache.rs`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ReadCacheSummary {
    /// Its own capacity in pages; with `shared`, the write buffer's.
    pub capacity_pages: u64,
    /// Host pages read past the write buffer, and how many the cache served.
    pub read_pages: u64,
    pub read_hits: u64,
    /// read_hits / read_pages (0 with no reads).
    pub hit_ratio: f64,
    /// Pages put in after their flash read, and pages evicted for room.
    pub inserts: u64,
    pub evictions: u64,
    /// Pages dropped because the host wrote (or discarded) them.
    pub invalidations: u64,
}
