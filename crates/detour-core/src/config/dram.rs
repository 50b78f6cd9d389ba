//! `[write_buffer.dram]`: the timing of the controller DRAM that holds the
//! write buffer, as MQSim's data cache times it. Off (`rate_mts = 0`, the
//! default) every buffer access costs a flat `ftl.buffer_read_ns`.

use crate::ensure_config;
use crate::error::Result;
use crate::types::Time;
use serde::{Deserialize, Serialize};

/// MQSim's `Data_Cache_DRAM_*` parameters. With `rate_mts > 0` the DRAM is
/// one first-come-first-served server (`memory_channel_is_busy`,
/// `Data_Cache_Manager_Flash_Advanced::service_dram_access_request`): a
/// host write's data, or a read's buffered part, takes
/// [`DramTiming::access_ns`] of it after the accesses queued before.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DramTiming {
    /// Data rate in MT/s (`Data_Cache_DRAM_Data_Rate`); 0 = untimed (default).
    pub rate_mts: f64,
    /// Bytes per burst (`Data_Cache_DRAM_Data_Busrt_Size`). Default 1.
    pub burst_bytes: u32,
    /// Row size in bytes (`Data_Cache_DRAM_Row_Size`). Default 8192.
    pub row_bytes: u32,
    /// Row activate, column and precharge times, ns (`Data_Cache_DRAM_tRCD`,
    /// `_tCL`, `_tRP`). Default 13 each.
    pub trcd_ns: u64,
    pub tcl_ns: u64,
    pub trp_ns: u64,
}

impl Default for DramTiming {
    fn default() -> Self {
        DramTiming { rate_mts: 0.0, burst_bytes: 1, row_bytes: 8192, trcd_ns: 13, tcl_ns: 13, trp_ns: 13 }
    }
}

impl DramTiming {
    pub fn timed(&self) -> bool {
        self.rate_mts > 0.0
    }

    /// The time one access of `bytes` holds the DRAM: MQSim's
    /// `estimate_dram_access_time` (Data_Cache_Manager_Base.h), transcribed
    /// with its integer divisions and truncations (its formula past one row
    /// is kept as written, odd as it is: the remainder is divided by the
    /// burst time, not multiplied).
    pub fn access_ns(&self, bytes: u64) -> Time {
        let burst = 1e9 / (self.rate_mts * 1e6);
        let (row, b) = (self.row_bytes.max(1) as u64, self.burst_bytes.max(1) as u64);
        let (rcd, cl, rp) = (self.trcd_ns, self.tcl_ns, self.trp_ns);
        if bytes <= row {
            return rcd + cl + ((bytes / b / 2) as f64 * burst) as u64;
        }
        let per_row = ((row / b / 2) as f64 * burst + rp as f64) as u64;
        let rows = (rcd + cl + per_row) as f64 * (bytes / row / 2) as f64;
        let rest = ((bytes % row) as f64 / (b as f64 * burst)) as u64;
        (rows + (rcd + cl) as f64 + rest as f64) as Time
    }

    pub(super) fn validate(&self) -> Result<()> {
        let r = self.rate_mts;
        ensure_config!(
            r.is_finite() && (0.0..=1_000_000.0).contains(&r),
            "write_buffer.dram.rate_mts",
            "{r} is out of range; valid: 0 (untimed)..=1000000"
        );
        ensure_config!(self.burst_bytes >= 1, "write_buffer.dram.burst_bytes", "must be at least 1");
        ensure_config!(self.row_bytes >= 1, "write_buffer.dram.row_bytes", "must be at least 1");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mqsims_example_dram_takes_41_us_for_an_8_kib_write() {
        // ssdconfig.xml: 100 MT/s, 1-byte bursts, 8 KiB rows, 13 ns each:
        // 13 + 13 + 8192 / 1 / 2 x 10 ns.
        let d = DramTiming { rate_mts: 100.0, ..Default::default() };
        assert_eq!(d.access_ns(8192), 26 + 40_960);
        assert_eq!(d.access_ns(4096), 26 + 20_480);
        // two rows: (26 + (40,960 + 13)) x 1 + 26 + 0
        assert_eq!(d.access_ns(16_384), 26 + 40_973 + 26);
        assert!(!DramTiming::default().timed() && d.timed());
    }
}
