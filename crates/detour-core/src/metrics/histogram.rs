//! Latency statistics in constant memory, so that a run's summary costs the
//! same for a thousand requests as for a billion.
//!
//! A log-linear histogram: one bin per value below 2048 ns, then 1024 bins
//! per power of two. A percentile is the nearest-rank one of the sample,
//! reported as the middle of the bin that holds it, so it is within
//! [`RELATIVE_ERROR`] of the exact value (exact below 2048 ns). Count, mean,
//! min and max are exact. The exact percentiles remain in requests.parquet
//! (docs/results.md).

use super::percentile::{log_bin, rank, LatencyStats, PCTS};

const SUB_BITS: u32 = 10;
/// The largest bin is that of u64::MAX: (63 - 10) * 1024 + 2047.
const BINS: usize = (64 - SUB_BITS as usize + 1) << SUB_BITS;

/// Bound on |reported - exact| / exact for every percentile: half a bin's
/// width over its lowest value, 2^s / 2 / (1024 * 2^s).
pub const RELATIVE_ERROR: f64 = 1.0 / 2048.0;

#[inline(always)]
fn bin(v: u64) -> usize {
    log_bin::<SUB_BITS>(v)
}

/// The middle value of bin `b` (of the integers it holds).
fn middle(b: usize) -> u64 {
    if b < 2 << SUB_BITS {
        return b as u64;
    }
    let shift = (b >> SUB_BITS) as u32 - 1;
    let lo = ((b - ((shift as usize) << SUB_BITS)) as u64) << shift;
    lo + ((1u64 << shift) - 1) / 2
}

/// One sample's histogram, with its exact count, sum, min and max.
#[derive(Clone, Debug)]
pub struct LogHistogram {
    counts: Box<[u64]>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram { counts: vec![0; BINS].into_boxed_slice(), n: 0, sum: 0, min: u64::MAX, max: 0 }
    }
}

impl LogHistogram {
    #[inline]
    pub fn record(&mut self, v: u64) {
        // The bin is in range for every u64 (see BINS).
        if let Some(c) = self.counts.get_mut(bin(v)) {
            *c += 1;
        }
        self.n += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Add another sample's values to this one.
    pub fn merge(&mut self, other: &LogHistogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        self.n += other.n;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Statistics in µs; percentiles within [`RELATIVE_ERROR`].
    pub fn stats(&self) -> LatencyStats {
        if self.n == 0 {
            return LatencyStats::default();
        }
        let mut at = [0u64; PCTS.len()];
        let (mut seen, mut k) = (0u64, 0usize);
        for (b, &c) in self.counts.iter().enumerate().filter(|&(_, &c)| c > 0) {
            seen += c;
            while k < PCTS.len() && rank(self.n, PCTS[k]) <= seen {
                at[k] = middle(b).clamp(self.min, self.max);
                k += 1;
            }
            if k == PCTS.len() {
                break;
            }
        }
        LatencyStats::build(self.n, self.sum, self.min, self.max, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn bins_ascend_and_their_middles_lie_inside() {
        let probes = crate::metrics::percentile::tests::ascending_probes(5000, 11, bin);
        for &v in &probes {
            let m = middle(bin(v));
            assert_eq!(bin(m), bin(v), "the middle of {v}'s bin ({m}) is in another bin");
            assert!((m as f64 - v as f64).abs() <= v as f64 * RELATIVE_ERROR, "{v} reported as {m}");
        }
        assert_eq!(bin(2047), 2047);
        assert_eq!(bin(u64::MAX), BINS - 1);
    }

    #[test]
    fn percentiles_within_the_bound_of_exact_ones() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for n in [1usize, 3, 100, 10_007] {
            for spread in [10u64, 5_000_000, 1 << 50] {
                let v: Vec<u64> = (0..n).map(|_| rng.random_range(0..spread)).collect();
                let mut h = LogHistogram::default();
                v.iter().for_each(|&x| h.record(x));
                let (got, exact) = (h.stats(), LatencyStats::from_ns(&v));
                assert_eq!((got.count, got.min, got.max, got.mean), (exact.count, exact.min, exact.max, exact.mean));
                for (g, e) in [(got.p50, exact.p50), (got.p99, exact.p99), (got.p999, exact.p999), (got.p90, exact.p90)] {
                    assert!((g - e).abs() <= e * RELATIVE_ERROR, "n={n} spread={spread}: {g} vs exact {e}");
                }
            }
        }
    }

    #[test]
    fn merging_is_recording_both() {
        let (mut a, mut b, mut both) = (LogHistogram::default(), LogHistogram::default(), LogHistogram::default());
        for i in 0..3000u64 {
            let v = i * i * 7919 % 10_000_000;
            if i % 3 == 0 {
                a.record(v)
            } else {
                b.record(v)
            }
            both.record(v);
        }
        a.merge(&b);
        assert_eq!(a.stats(), both.stats());
        assert_eq!(LogHistogram::default().stats(), LatencyStats::default());
    }
}
