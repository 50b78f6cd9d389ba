//! The write buffer's part of the summary (`write_buffer` in summary.json).

/// What the DRAM write buffer did over the run (docs/results.md).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct WriteBufferSummary {
    pub capacity_pages: u64,
    /// Host pages read while the buffer was on, and how many it served.
    pub read_pages: u64,
    pub read_hits: u64,
    /// read_hits / read_pages (0 with no reads).
    pub hit_ratio: f64,
    /// Host pages written into the buffer, and how many of them overwrote a
    /// page it still held (absorbed without another flash write).
    pub write_pages: u64,
    pub write_hits: u64,
    /// Pages flushed to flash, and how many of those after the last request
    /// arrived (the buffer drained at the end of the run).
    pub flushes: u64,
    pub drained: u64,
    /// Pages held, averaged over simulated time, and at most.
    pub occupancy_mean: f64,
    pub occupancy_max: u64,
    /// Host writes that waited for room, their total and mean wait, µs.
    pub writes_waited: u64,
    pub wait_us_total: f64,
    pub wait_us_mean: f64,
    /// Write-backs that read their page's other sectors first (SSDSim's
    /// `update read count`); absent unless `partial_write_back = "read_first"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update_reads: Option<u64>,
}
