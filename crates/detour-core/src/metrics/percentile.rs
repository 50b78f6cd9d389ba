//! Exact latency statistics. Percentiles use the nearest-rank definition on
//! the full sample: p-th percentile = the ceil(p/100 * n)-th smallest
//! value. No histogram, so there is no approximation error. The ranks are
//! found by selection (linear time), not by sorting the sample.

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
const PCTS: [f64; 8] = [50.0, 90.0, 95.0, 97.0, 98.0, 99.0, 99.5, 99.9];

/// The nearest rank (1-based) of percentile `p` among `n > 0` values.
fn rank(n: usize, p: f64) -> usize {
    (((p / 100.0) * n as f64).ceil() as usize).clamp(1, n)
}

/// The nearest-rank percentile of an ascending slice (0 for an empty one).
pub fn nearest_rank(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[rank(sorted.len(), p) - 1]
}

impl LatencyStats {
    /// Statistics of latencies given in ns, in any order; reorders `ns`
    /// (each percentile's rank is selected, from the smallest rank up, so
    /// every selection works on what lies above the one before).
    pub fn from_ns(ns: &mut [u64]) -> LatencyStats {
        if ns.is_empty() {
            return LatencyStats::default();
        }
        let n = ns.len();
        let (min, max) = ns.iter().fold((u64::MAX, 0), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let sum: u128 = ns.iter().map(|&v| v as u128).sum();
        let mut at = [0u64; PCTS.len()];
        let mut lo = 0;
        for (k, &p) in PCTS.iter().enumerate() {
            // PCTS ascends, so i >= lo: everything at lo.. is >= ns[lo].
            let i = rank(n, p) - 1;
            ns[lo..].select_nth_unstable(i - lo);
            lo = i;
            at[k] = ns[i];
        }
        Self::build(n, sum, min, max, at)
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
        Self::build(ns.len(), sum, ns[0], ns[ns.len() - 1], at)
    }

    fn build(n: usize, sum: u128, min: u64, max: u64, at: [u64; PCTS.len()]) -> LatencyStats {
        let us = |v: u64| v as f64 / 1000.0;
        let [p50, p90, p95, p97, p98, p99, p995, p999] = at.map(us);
        LatencyStats {
            count: n as u64,
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
mod tests {
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
        let mut v = vec![3000, 1000, 2000];
        let s = LatencyStats::from_ns(&mut v);
        assert_eq!(s.count, 3);
        assert_eq!(s.mean, 2.0);
        assert_eq!(s.p50, 2.0);
        assert_eq!(s.max, 3.0);
    }

    #[test]
    fn selection_agrees_with_sorting() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for n in [1, 2, 7, 100, 1001, 20_000] {
            // Few distinct values too, so ties across ranks are covered.
            let spread = if n % 2 == 0 { 5 } else { 1 << 40 };
            let mut v: Vec<u64> = (0..n).map(|_| rng.random_range(0..spread)).collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            assert_eq!(LatencyStats::from_ns(&mut v), LatencyStats::from_sorted(&sorted), "n={n}");
        }
    }

    #[test]
    fn rsd_of_equal_is_zero() {
        assert_eq!(rsd(&[5, 5, 5]).1, 0.0);
        let (m, r) = rsd(&[0, 10]);
        assert_eq!(m, 5.0);
        assert!((r - 1.0).abs() < 1e-12);
    }
}
