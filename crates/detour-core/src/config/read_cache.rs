//! `[read_cache]`: a DRAM cache of pages read from the flash, as MQSim's
//! data cache serves reads (`sim/read_cache.rs` has the rules and their
//! source). Off by default.

use super::{in_range_f, Config};
use crate::ensure_config;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// Where the read cache's room comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadCacheMode {
    /// No read cache (the default).
    #[default]
    Off,
    /// Its own capacity (`pages` or `size_mib`), beside any write buffer.
    Separate,
    /// The write buffer's DRAM, shared: read pages take what the buffered
    /// writes leave (MQSim's `WRITE_READ_CACHE`, one cache for both).
    Shared,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ReadCacheConfig {
    /// Default off.
    pub mode: ReadCacheMode,
    /// Capacity in pages (`separate`); 0 = use `size_mib`. Default 0.
    pub pages: u64,
    /// Capacity in MiB, rounded down to whole pages (`separate`). Default 0.
    pub size_mib: f64,
}

impl ReadCacheConfig {
    /// Off and unsized: left out when a config is written out.
    pub fn is_off(&self) -> bool {
        *self == ReadCacheConfig::default()
    }

    /// Its own capacity in pages of `page_size` bytes (`separate`; 0 otherwise).
    pub fn capacity(&self, page_size: u32) -> u64 {
        if self.mode != ReadCacheMode::Separate {
            0
        } else if self.size_mib > 0.0 {
            (self.size_mib * 1_048_576.0 / page_size.max(1) as f64).floor() as u64
        } else {
            self.pages
        }
    }
}

impl Config {
    pub(super) fn validate_read_cache(&self) -> Result<()> {
        let c = &self.read_cache;
        in_range_f("read_cache.size_mib", c.size_mib, 0.0, 1_048_576.0)?;
        ensure_config!(c.pages <= 1 << 32, "read_cache.pages", "{} is out of range; valid: 0..=4294967296", c.pages);
        ensure_config!(
            !(c.pages > 0 && c.size_mib > 0.0),
            "read_cache.size_mib",
            "give the capacity once: pages ({}) or size_mib ({}), not both",
            c.pages,
            c.size_mib
        );
        let sized = c.pages > 0 || c.size_mib > 0.0;
        match c.mode {
            ReadCacheMode::Off => {
                ensure_config!(!sized, "read_cache.mode", "is off, yet a capacity is given: set mode = \"separate\"");
            }
            ReadCacheMode::Separate => {
                let pages = c.capacity(self.device.page_size);
                ensure_config!(
                    pages > 0,
                    "read_cache.pages",
                    "mode = \"separate\" needs a capacity of at least one page (pages or size_mib)"
                );
            }
            ReadCacheMode::Shared => {
                ensure_config!(
                    !sized,
                    "read_cache.mode",
                    "\"shared\" takes the write buffer's capacity; give none of its own (pages, size_mib)"
                );
                ensure_config!(
                    self.write_buffer.capacity(self.device.page_size) > 0,
                    "read_cache.mode",
                    "\"shared\" shares the write buffer's DRAM, and there is no write buffer (write_buffer.pages or size_mib)"
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigBuilder;

    fn build(kv: &[&str]) -> crate::error::Result<crate::config::Config> {
        ConfigBuilder::from_preset("small")?.set_all(kv.iter().copied())?.build()
    }

    #[test]
    fn each_mode_checks_its_capacity() {
        assert_eq!(build(&["read_cache.mode=\"separate\"", "read_cache.size_mib=1"]).unwrap().read_cache.capacity(4096), 256);
        let errs = [
            build(&["read_cache.mode=\"separate\""]).unwrap_err(),
            build(&["read_cache.pages=8"]).unwrap_err(),
            build(&["read_cache.mode=\"shared\""]).unwrap_err(),
            build(&["read_cache.mode=\"shared\"", "write_buffer.pages=64", "host.write_ack=\"buffer\"", "read_cache.pages=8"]).unwrap_err(),
        ];
        for e in errs {
            assert!(e.to_string().contains("read_cache."), "{e}");
        }
        assert!(build(&["read_cache.mode=\"shared\"", "write_buffer.pages=64", "host.write_ack=\"buffer\""]).is_ok());
    }
}
