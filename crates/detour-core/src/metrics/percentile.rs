//! Exact latency statistics. Percentiles use the nearest-rank definition on
//! the full sorted sample: p-th percentile = the ceil(p/100 * n)-th smallest
//! value. No histogram, so there is no approximation error.

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

/// The nearest-rank percentile of an ascending slice (0 for an empty one).
pub fn nearest_rank(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let n = sorted.len();
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    sorted[rank.clamp(1, n) - 1]
}

/// Merge two ascending slices into one ascending vector.
pub fn merge_sorted(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

impl LatencyStats {
    /// Statistics of latencies given in ns; sorts `ns` in place.
    pub fn from_ns(ns: &mut [u64]) -> LatencyStats {
        ns.sort_unstable();
        Self::from_sorted(ns)
    }

    /// Statistics of latencies in ns already in ascending order.
    pub fn from_sorted(ns: &[u64]) -> LatencyStats {
        if ns.is_empty() {
            return LatencyStats::default();
        }
        let us = |v: u64| v as f64 / 1000.0;
        let sum: u128 = ns.iter().map(|&v| v as u128).sum();
        let pct = |p: f64| us(nearest_rank(ns, p));
        LatencyStats {
            count: ns.len() as u64,
            mean: sum as f64 / ns.len() as f64 / 1000.0,
            min: us(ns[0]),
            p50: pct(50.0),
            p90: pct(90.0),
            p95: pct(95.0),
            p97: pct(97.0),
            p98: pct(98.0),
            p99: pct(99.0),
            p995: pct(99.5),
            p999: pct(99.9),
            max: us(ns[ns.len() - 1]),
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
    fn rsd_of_equal_is_zero() {
        assert_eq!(rsd(&[5, 5, 5]).1, 0.0);
        let (m, r) = rsd(&[0, 10]);
        assert_eq!(m, 5.0);
        assert!((r - 1.0).abs() < 1e-12);
    }
}
