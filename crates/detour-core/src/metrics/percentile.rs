//! Exact latency statistics of a sample held in memory (`from_ns`; the
//! reference the run summary's histogram is tested against, see
//! `histogram`). Percentiles use the nearest-rank definition: p-th
//! percentile = the ceil(p/100 * n)-th smallest value.
//!
//! The ranks are found in two passes over the sample without copying it: the
//! first counts values into fine bins (one per value below 256 ns, then 128
//! per power of two), which tells in which bin each wanted rank lies; the
//! second keeps only the values of those few bins, and sorting them gives
//! the exact values at the ranks.

use serde::Serialize;

/// Latency statistics in microseconds.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencyStats {
    pub count: u64,
    pub mean: f64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p97: f64,
    pub p98: f64,
    pub p99: f64,
    pub p995: f64,
    pub p999: f64,
    pub max: f64,
}

/// The percentiles a summary reports, ascending.
pub(crate) const PCTS: [f64; 8] = [50.0, 90.0, 95.0, 97.0, 98.0, 99.0, 99.5, 99.9];

/// The nearest rank (1-based) of percentile `p` among `n > 0` values.
pub(crate) fn rank(n: u64, p: f64) -> u64 {
    (((p / 100.0) * n as f64).ceil() as u64).clamp(1, n)
}

/// The nearest-rank percentile of an ascending slice (0 for an empty one).
pub fn nearest_rank(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[rank(sorted.len() as u64, p) as usize - 1]
}

const SUB_BITS: u32 = 7;
/// The largest bin is that of u64::MAX: (63 - 7) * 128 + 255.
const BINS: usize = (64 - SUB_BITS as usize + 1) << SUB_BITS;

/// The bin of `v`, ascending with `v`: values below 256 have a bin each,
/// and each later power of two is split into 128 bins.
#[inline(always)]
pub(crate) fn bin(v: u64) -> usize {
    log_bin::<SUB_BITS>(v)
}

/// The bin of `v` in a log-linear histogram with 2^SUB bins per power of
/// two (and one per value below 2^(SUB+1)), ascending with `v`; shared
/// with the run summary's histogram (`histogram`).
#[inline(always)]
pub(crate) fn log_bin<const SUB: u32>(v: u64) -> usize {
    let shift = (63 - (v | 1).leading_zeros()).saturating_sub(SUB);
    ((shift as usize) << SUB) + (v >> shift) as usize
}

/// Exact statistics of one sample, fed in two passes: every value to
/// [`count`](Self::count), then, after [`find_ranks`](Self::find_ranks),
/// every value again to [`keep`](Self::keep), in any order both times.
#[derive(Clone, Debug)]
pub struct Exact {
    hist: Box<[u64]>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
    /// Per percentile: its bin and its 1-based rank among that bin's values.
    at: [(usize, u64); PCTS.len()],
    /// Bit b set: bin b holds a wanted rank.
    wanted: Box<[u64]>,
    kept: Vec<u64>,
}

impl Default for Exact {
    fn default() -> Self {
        Exact {
            hist: vec![0; BINS].into_boxed_slice(),
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
            at: [(0, 0); PCTS.len()],
            wanted: vec![0; BINS / 64].into_boxed_slice(),
            kept: Vec::new(),
        }
    }
}

impl Exact {
    /// First pass: one value of the sample.
    #[inline]
    pub fn count(&mut self, v: u64) {
        self.hist[bin(v)] += 1;
        self.n += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Add another sample's first pass to this one (e.g. reads and writes
    /// into all requests).
    pub fn absorb(&mut self, other: &Exact) {
        for (a, b) in self.hist.iter_mut().zip(&other.hist) {
            *a += b;
        }
        self.n += other.n;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Between the passes: find the bin of every wanted rank.
    pub fn find_ranks(&mut self) {
        if self.n == 0 {
            return;
        }
        let ranks = PCTS.map(|p| rank(self.n, p));
        let mut k = 0;
        let mut below = 0;
        for (b, &c) in self.hist.iter().enumerate() {
            while k < PCTS.len() && ranks[k] <= below + c {
                self.at[k] = (b, ranks[k] - below);
                self.wanted[b / 64] |= 1 << (b % 64);
                k += 1;
            }
            below += c;
            if k == PCTS.len() {
                break;
            }
        }
    }

    /// Second pass: one value of the sample again.
    #[inline]
    pub fn keep(&mut self, v: u64) {
        self.keep_in(bin(v), v)
    }

    /// [`keep`](Self::keep) for a value whose bin the caller has (one bin
    /// serves a value's class and the whole sample).
    #[inline]
    pub fn keep_in(&mut self, b: usize, v: u64) {
        if self.wanted[b / 64] & (1 << (b % 64)) != 0 {
            self.kept.push(v);
        }
    }

    /// The statistics, in microseconds.
    pub fn stats(mut self) -> LatencyStats {
        if self.n == 0 {
            return LatencyStats::default();
        }
        self.kept.sort_unstable();
        // The kept values are the wanted bins' values in bin order, and the
        // wanted bins ascend with the percentiles.
        let mut at = [0u64; PCTS.len()];
        let (mut before, mut prev) = (0u64, None);
        for (out, &(b, within)) in at.iter_mut().zip(&self.at) {
            if prev != Some(b) {
                before += prev.map_or(0, |p| self.hist[p]);
                prev = Some(b);
            }
            *out = self.kept[(before + within - 1) as usize];
        }
        let seen = before + prev.map_or(0, |p| self.hist[p]);
        assert_eq!(seen, self.kept.len() as u64, "the second pass saw another sample than the first");
        LatencyStats::build(self.n, self.sum, self.min, self.max, at)
    }
}

impl LatencyStats {
    pub(crate) fn build(n: u64, sum: u128, min: u64, max: u64, at: [u64; PCTS.len()]) -> LatencyStats {
        let us = |v: u64| v as f64 / 1000.0;
        let [p50, p90, p95, p97, p98, p99, p995, p999] = at.map(us);
        LatencyStats {
            count: n,
            mean: sum as f64 / n as f64 / 1000.0,
            min: us(min),
            p50,
            p90,
            p95,
            p97,
            p98,
            p99,
            p995,
            p999,
            max: us(max),
        }
    }

    /// Statistics of latencies given in ns, in any order.
    pub fn from_ns(ns: &[u64]) -> LatencyStats {
        let mut e = Exact::default();
        ns.iter().for_each(|&v| e.count(v));
        e.find_ranks();
        ns.iter().for_each(|&v| e.keep(v));
        e.stats()
    }

    /// Statistics of latencies in ns already in ascending order (the
    /// reference `from_ns` is tested against).
    #[cfg(test)]
    fn from_sorted(ns: &[u64]) -> LatencyStats {
        if ns.is_empty() {
            return LatencyStats::default();
        }
        let sum: u128 = ns.iter().map(|&v| v as u128).sum();
        let at = PCTS.map(|p| nearest_rank(ns, p));
        LatencyStats::build(ns.len() as u64, sum, ns[0], ns[ns.len() - 1], at)
    }
}

/// Mean and relative standard deviation (std / mean) of counts.
pub fn rsd(values: &[u64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<u64>() as f64 / n;
    if mean == 0.0 {
        return (0.0, 0.0);
    }
    let var = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt() / mean)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn nearest_rank_definition() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(nearest_rank(&v, 50.0), 50);
        assert_eq!(nearest_rank(&v, 99.0), 99);
        assert_eq!(nearest_rank(&v, 99.9), 100);
        assert_eq!(nearest_rank(&v, 0.0), 1);
        assert_eq!(nearest_rank(&[7], 99.0), 7);
    }

    #[test]
    fn stats_in_us() {
        let s = LatencyStats::from_ns(&[3000, 1000, 2000]);
        assert_eq!(s.count, 3);
        assert_eq!(s.mean, 2.0);
        assert_eq!(s.p50, 2.0);
        assert_eq!(s.max, 3.0);
    }

    /// Every value below `linear`, the values around each power of two
    /// from `2^first_exp` and half-way to the next, and `u64::MAX`, in
    /// order; asserts `bin` never decreases over them.
    pub(crate) fn ascending_probes(linear: u64, first_exp: u32, bin: fn(u64) -> usize) -> Vec<u64> {
        let mut probes: Vec<u64> = (0..linear).collect();
        for e in first_exp..64 {
            for d in [0u64, 1, 2] {
                probes.extend([(1u64 << e) - d, (1u64 << e) + d, (3u64 << (e - 1)) + d]);
            }
        }
        probes.push(u64::MAX);
        probes.sort_unstable();
        for w in probes.windows(2) {
            assert!(bin(w[0]) <= bin(w[1]), "{} -> {}, {} -> {}", w[0], bin(w[0]), w[1], bin(w[1]));
        }
        probes
    }

    #[test]
    fn bins_ascend_with_values_and_stay_in_range() {
        ascending_probes(4096, 8, bin);
        assert_eq!(bin(255), 255);
        assert_eq!(bin(u64::MAX), BINS - 1);
    }

    #[test]
    fn two_passes_agree_with_sorting() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for n in [1, 2, 7, 100, 1001, 20_000] {
            // Few distinct values (ties across ranks, one bin holding all),
            // a wide spread, and values up to u64::MAX (bins and the sum).
            for spread in [5u64, 1 << 40, u64::MAX] {
                let v: Vec<u64> = (0..n).map(|_| rng.random_range(0..spread)).collect();
                let mut sorted = v.clone();
                sorted.sort_unstable();
                assert_eq!(LatencyStats::from_ns(&v), LatencyStats::from_sorted(&sorted), "n={n} spread={spread}");
            }
            let constant = vec![98_765; n];
            assert_eq!(LatencyStats::from_ns(&constant), LatencyStats::from_sorted(&constant));
        }
    }

    #[test]
    fn absorbing_one_sample_into_another_is_their_union() {
        let (a, b): (Vec<u64>, Vec<u64>) = ((0..500).map(|i| i * 37 % 1000).collect(), (0..300).map(|i| 1 << (i % 40)).collect());
        let (mut ea, mut eb) = (Exact::default(), Exact::default());
        a.iter().for_each(|&v| ea.count(v));
        b.iter().for_each(|&v| eb.count(v));
        ea.absorb(&eb);
        ea.find_ranks();
        a.iter().chain(&b).for_each(|&v| ea.keep(v));
        let mut all: Vec<u64> = a.iter().chain(&b).copied().collect();
        all.sort_unstable();
        assert_eq!(ea.stats(), LatencyStats::from_sorted(&all));
    }

    #[test]
    fn an_empty_sample_is_all_zero() {
        assert_eq!(LatencyStats::from_ns(&[]), LatencyStats::default());
    }

    #[test]
    fn rsd_of_equal_is_zero() {
        assert_eq!(rsd(&[5, 5, 5]).1, 0.0);
        let (m, r) = rsd(&[0, 10]);
        assert_eq!(m, 5.0);
        assert!((r - 1.0).abs() < 1e-12);
    }
}
