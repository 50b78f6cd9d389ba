//! [`SyntheticSpec::validate`]: every error names the key and its valid range.

use super::spec::{Arrival, ClassSpec, ContentSpec, PairSpec, SizeDist, SyntheticSpec, WriteRegion, GIB, MIB};
use crate::ensure_config;
use crate::error::Result;

/// Largest footprint the content model tracks (it keeps 9 bytes per page).
pub const CONTENT_MAX_FOOTPRINT: u64 = 64 * GIB;
const MAX_THETA: f64 = 10.0;
const MAX_RATE: f64 = 1e9;

fn unit(key: &str, v: f64) -> Result<()> {
    ensure_config!((0.0..=1.0).contains(&v), key, "must be in 0..=1, got {v}");
    Ok(())
}

fn theta(key: &str, v: f64) -> Result<()> {
    ensure_config!((0.0..=MAX_THETA).contains(&v), key, "must be in 0..=10, got {v}");
    Ok(())
}

fn positive(key: &str, v: f64, max: f64) -> Result<()> {
    ensure_config!(v > 0.0 && v <= max, key, "must be > 0 and <= {max}, got {v}");
    Ok(())
}

impl SyntheticSpec {
    /// Check every field; the error names the first bad key and its valid range.
    pub fn validate(&self) -> Result<()> {
        ensure_config!(self.seed <= i64::MAX as u64, "seed", "must be in 0..=2^63-1, got {}", self.seed);
        self.check_limits()?;
        self.check_arrival()?;
        unit("read_ratio", self.read_ratio)?;
        unit("discard_ratio", self.discard_ratio)?;
        ensure_config!(
            self.discard_ratio == 0.0 || self.content.is_none(),
            "discard_ratio",
            "discards are not drawn with a content model (`content`): its value tables would keep discarded pages"
        );
        self.check_space()?;
        self.check_size()?;
        theta("zipf_theta", self.zipf_theta)?;
        unit("sequential", self.sequential)?;
        ensure_config!((1..=4096).contains(&self.streams), "streams", "must be in 1..=4096, got {}", self.streams);
        if let Some(c) = &self.classes {
            self.check_classes(c)?;
        }
        if let Some(c) = &self.content {
            self.check_content(c)?;
        }
        self.check_writes()?;
        if let Some(p) = &self.pairs {
            self.check_pairs(p)?;
        }
        Ok(())
    }

    fn check_writes(&self) -> Result<()> {
        let WriteRegion::Apart { write_pages } = self.writes else { return Ok(()) };
        positive("writes.write_pages", write_pages, 16.0)?;
        ensure_config!(self.classes.is_none(), "writes", "`apart` cannot be combined with page classes (`classes`)");
        ensure_config!(self.content.is_none(), "writes", "`apart` cannot be combined with a content model");
        let need = (self.size.max() as u64).div_ceil(self.alignment);
        let (read, all) = (self.read_footprint_pages(), self.footprint_pages());
        ensure_config!(
            read >= need && all - read >= need,
            "writes.write_pages",
            "both parts of the footprint must hold the largest request ({need} units); read part {read}, write part {}",
            all - read
        );
        Ok(())
    }

    fn check_limits(&self) -> Result<()> {
        let d = self.duration_s;
        ensure_config!((0.0..=1e9).contains(&d), "duration_s", "must be in 0..=1e9 (0 = no limit), got {d}");
        ensure_config!(self.requests > 0 || d > 0.0, "requests", "set `requests` (>= 1) or `duration_s` (> 0), or both; 0 means no limit");
        Ok(())
    }

    fn check_arrival(&self) -> Result<()> {
        match self.arrival {
            Arrival::Poisson { rate_per_s } | Arrival::Constant { rate_per_s } => positive("arrival.rate_per_s", rate_per_s, MAX_RATE),
            Arrival::Bursty { rate_per_s, on_s, off_s, off_rate_per_s } => {
                positive("arrival.rate_per_s", rate_per_s, MAX_RATE)?;
                positive("arrival.on_s", on_s, 1e9)?;
                ensure_config!((0.0..=1e9).contains(&off_s), "arrival.off_s", "must be in 0..=1e9, got {off_s}");
                ensure_config!(
                    (0.0..=MAX_RATE).contains(&off_rate_per_s),
                    "arrival.off_rate_per_s",
                    "must be in 0..=1e9, got {off_rate_per_s}"
                );
                Ok(())
            }
            Arrival::Onoff { rate_per_s, mean_on_s, mean_off_s, off_rate_per_s } => {
                positive("arrival.rate_per_s", rate_per_s, MAX_RATE)?;
                positive("arrival.mean_on_s", mean_on_s, 1e9)?;
                ensure_config!((0.0..=1e9).contains(&mean_off_s), "arrival.mean_off_s", "must be in 0..=1e9, got {mean_off_s}");
                ensure_config!(
                    (0.0..=MAX_RATE).contains(&off_rate_per_s),
                    "arrival.off_rate_per_s",
                    "must be in 0..=1e9, got {off_rate_per_s}"
                );
                Ok(())
            }
        }
    }

    fn check_space(&self) -> Result<()> {
        let a = self.alignment;
        ensure_config!(a.is_power_of_two() && (512..=MIB).contains(&a), "alignment", "must be a power of two in 512..=1048576, got {a}");
        let f = self.footprint_bytes;
        ensure_config!(
            f >= a && f % a == 0 && f / a <= u32::MAX as u64,
            "footprint_bytes",
            "must be a non-zero multiple of alignment ({a}) of at most 2^32 alignment units, got {f}"
        );
        Ok(())
    }

    fn check_size(&self) -> Result<()> {
        let limit = self.footprint_bytes.min(u32::MAX as u64);
        let ok = |s: u32| s >= 1 && s as u64 <= limit;
        match &self.size {
            SizeDist::Fixed(s) => {
                ensure_config!(ok(*s), "size", "must be in 1..={limit} (the footprint), got {s}");
            }
            SizeDist::Weighted(v) => {
                ensure_config!(!v.is_empty(), "size", "the [bytes, weight] list is empty");
                for &(s, w) in v {
                    ensure_config!(ok(s), "size", "sizes must be in 1..={limit} (the footprint), got {s}");
                    ensure_config!(w.is_finite() && w >= 0.0, "size", "weights must be finite and >= 0, got {w}");
                }
                let total: f64 = v.iter().map(|e| e.1).sum();
                ensure_config!(total.is_finite() && total > 0.0, "size", "weights must not all be 0 and must sum to a finite number");
            }
        }
        Ok(())
    }

    fn check_classes(&self, c: &ClassSpec) -> Result<()> {
        unit("classes.read_only", c.read_only)?;
        unit("classes.write_only", c.write_only)?;
        ensure_config!(
            (0.0..=1.0).contains(&(c.read_only + c.write_only)),
            "classes.write_only",
            "read_only + write_only must be <= 1, got {}",
            c.read_only + c.write_only
        );
        let need = (self.size.max() as u64).div_ceil(self.alignment) * self.alignment;
        if let Some(b) = c.chunk_bytes {
            ensure_config!(
                b % self.alignment == 0 && b >= need && b <= self.footprint_bytes,
                "classes.chunk_bytes",
                "must be a multiple of alignment in {need}..={} (largest request..footprint), got {b}",
                self.footprint_bytes
            );
        }
        ensure_config!(
            need <= self.footprint_bytes,
            "classes.chunk_bytes",
            "the largest request rounded to alignment ({need}) exceeds the footprint"
        );
        Ok(())
    }

    fn check_content(&self, c: &ContentSpec) -> Result<()> {
        unit("content.write_unique", c.write_unique)?;
        unit("content.read_unique", c.read_unique)?;
        theta("content.write_theta", c.write_theta)?;
        theta("content.read_theta", c.read_theta)?;
        let pool = 1..=(1u32 << 24);
        ensure_config!(pool.contains(&c.write_pool), "content.write_pool", "must be in 1..=16777216, got {}", c.write_pool);
        ensure_config!(pool.contains(&c.read_pool), "content.read_pool", "must be in 1..=16777216, got {}", c.read_pool);
        unit("content.drift_per_day", c.drift_per_day)?;
        positive("content.day_s", c.day_s, 1e12)?;
        unit("content.fresh_from_written", c.fresh_from_written)?;
        ensure_config!(
            self.alignment == 4096 && self.size == SizeDist::Fixed(4096),
            "size",
            "the content model needs single 4 KiB pages: size = 4096 and alignment = 4096"
        );
        ensure_config!(
            self.footprint_bytes <= CONTENT_MAX_FOOTPRINT,
            "footprint_bytes",
            "must be <= 64 GiB with a content model (it tracks every page), got {}",
            self.footprint_bytes
        );
        ensure_config!(self.pairs.is_none(), "pairs", "cannot be combined with a content model");
        // Content reads pick pages by value, not by class.
        ensure_config!(self.classes.is_none(), "classes", "cannot be combined with a content model");
        Ok(())
    }

    fn check_pairs(&self, p: &PairSpec) -> Result<()> {
        ensure_config!((1..=1 << 20).contains(&p.count), "pairs.count", "must be in 1..=1048576, got {}", p.count);
        ensure_config!((1..=1 << 20).contains(&p.stride), "pairs.stride", "must be in 1..=1048576, got {}", p.stride);
        let pb = self.pair_page_bytes();
        ensure_config!(
            pb >= self.alignment && pb % self.alignment == 0 && pb <= u32::MAX as u64,
            "pairs.page_bytes",
            "must be a multiple of alignment ({}) below 4 GiB, got {pb}",
            self.alignment
        );
        let pages = self.read_footprint_pages() * self.alignment / pb;
        ensure_config!(
            pages > p.stride as u64,
            "pairs.stride",
            "the footprint holds {pages} pair pages; stride must be below that, got {}",
            p.stride
        );
        unit("pairs.read_share", p.read_share)?;
        positive("pairs.gap_us", p.gap_us, 1e9)?;
        theta("pairs.theta", p.theta)?;
        theta("pairs.die_skew", p.die_skew)?;
        Ok(())
    }
}
