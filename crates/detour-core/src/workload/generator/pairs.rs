//! Planted patterned read pairs: pages `a` and `b = a + m * stride` that the
//! host reads back to back. Under a static `lpn % stride` die mapping both sit
//! on one die, so the second read collides with the first: the patterned
//! collisions the read-collision paper's replication removes.

use std::collections::HashSet;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Zipf};

use super::arrival::uniform;
use super::spec::{PairSpec, SyntheticSpec};

/// Largest multiple of the stride between the two pages of a pair: keeps
/// pairs "nearby" like related blocks of one file, without making them
/// adjacent in any way a die mapping could separate.
const MAX_MULTIPLE: u64 = 64;

pub(crate) struct PairModel {
    /// Byte offsets `(a, b)`, most popular first.
    pairs: Vec<(u64, u64)>,
    zipf: Option<Zipf<f64>>,
    /// Probability that a main read starts a pair.
    pub(crate) start_p: f64,
    gap_ns: f64,
    pub(crate) size: u32,
}

impl PairModel {
    pub(crate) fn new(spec: &SyntheticSpec, p: &PairSpec, rng: &mut ChaCha8Rng) -> Self {
        let page = spec.pair_page_bytes();
        let pages = spec.footprint_bytes / page;
        let stride = p.stride as u64;
        let max_m = ((pages - 1) / stride).clamp(1, MAX_MULTIPLE);
        // Every page in at most one pair, so each pair is its own pattern;
        // give up on distinctness only if the footprint is nearly all pairs.
        let mut used = HashSet::new();
        let mut pairs = Vec::with_capacity(p.count as usize);
        let mut tries = 0u64;
        while pairs.len() < p.count as usize {
            let span = stride * rng.random_range(1..=max_m);
            let a = rng.random_range(0..pages - span);
            tries += 1;
            let fresh = !used.contains(&a) && !used.contains(&(a + span));
            if fresh || tries > 64 * p.count as u64 {
                used.extend([a, a + span]);
                pairs.push((a * page, (a + span) * page));
            }
        }
        let n = p.count as f64;
        PairModel {
            pairs,
            zipf: (p.theta > 0.0).then(|| Zipf::new(n, p.theta).expect("theta checked")),
            start_p: start_probability(p.read_share),
            gap_ns: p.gap_us * 1e3,
            size: page as u32,
        }
    }

    pub(crate) fn pairs(&self) -> &[(u64, u64)] {
        &self.pairs
    }

    /// A pair by popularity, and the partner's delay in ns (within the gap).
    pub(crate) fn pick(&self, rng: &mut ChaCha8Rng) -> ((u64, u64), f64) {
        let n = self.pairs.len();
        let i = match &self.zipf {
            Some(z) => (z.sample(rng) as usize).clamp(1, n) - 1,
            None => rng.random_range(0..n),
        };
        (self.pairs[i], uniform(rng) * self.gap_ns)
    }
}

/// A main read that starts a pair yields two reads, so for a share `s` of
/// all reads to be pair reads, `2p / (1 + p) = s`, i.e. `p = s / (2 - s)`.
pub(crate) fn start_probability(share: f64) -> f64 {
    share / (2.0 - share)
}

/// Read probability and rate scale of the main process such that, partners
/// included, the workload keeps the spec's read ratio `r` and rate. Per main
/// arrival there are `r_m * p` partners (all reads):
/// `r_m (1 + p) / (1 + r_m p) = r`  =>  `r_m = r / (1 + p (1 - r))`.
pub(crate) fn main_process(read_ratio: f64, start_p: f64) -> (f64, f64) {
    let r_m = read_ratio / (1.0 + start_p * (1.0 - read_ratio));
    (r_m, 1.0 / (1.0 + r_m * start_p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_process_keeps_the_totals() {
        for (r, s) in [(0.95, 0.3), (0.5, 1.0), (1.0, 0.2), (0.0, 0.5)] {
            let p = start_probability(s);
            let (r_m, _) = main_process(r, p);
            let reads = r_m * (1.0 + p);
            let total = 1.0 + r_m * p;
            assert!((reads / total - r).abs() < 1e-12, "r={r} s={s}");
            if r > 0.0 {
                assert!((2.0 * r_m * p / reads - s).abs() < 1e-12);
            }
        }
    }
}
