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
        // Pairs are read, so they sit in the read part of the footprint.
        let pages = spec.read_footprint_pages() * spec.alignment / page;
        let stride = p.stride as u64;
        let max_m = ((pages - 1) / stride).clamp(1, MAX_MULTIPLE);
        let residue = Residues::new(stride, p.die_skew, rng);
        // Every page in at most one pair, so each pair is its own pattern;
        // give up on distinctness only if the footprint is nearly all pairs.
        let mut used = HashSet::new();
        let mut pairs = Vec::with_capacity(p.count as usize);
        let mut tries = 0u64;
        let mut balance = p.balanced.then(|| Balance::new(stride, p.count, p.theta));
        while pairs.len() < p.count as usize {
            let span = stride * rng.random_range(1..=max_m);
            let a = match balance.as_mut() {
                Some(b) => b.place(pairs.len(), pages - span, rng),
                None => residue.place(pages - span, rng),
            };
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

/// Where pairs start: anywhere, or (`die_skew` > 0) on a residue modulo the
/// stride drawn by Zipf over a seeded order of the residues, so some dies
/// hold more pairs than others.
struct Residues {
    stride: u64,
    zipf: Option<(Zipf<f64>, Vec<u64>)>,
}

impl Residues {
    fn new(stride: u64, skew: f64, rng: &mut ChaCha8Rng) -> Self {
        if skew <= 0.0 || stride < 2 {
            return Residues { stride, zipf: None };
        }
        let mut order: Vec<u64> = (0..stride).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let z = Zipf::new(stride as f64, skew).expect("skew checked");
        Residues { stride, zipf: Some((z, order)) }
    }

    /// A start page below `limit`.
    fn place(&self, limit: u64, rng: &mut ChaCha8Rng) -> u64 {
        let Some((z, order)) = &self.zipf else {
            return rng.random_range(0..limit);
        };
        let r = order[(z.sample(rng) as usize).clamp(1, order.len()) - 1];
        // limit > stride (validated), so at least one block fits below it.
        let blocks = (limit - r).div_ceil(self.stride).max(1);
        (rng.random_range(0..blocks) * self.stride + r).min(limit - 1)
    }
}

/// `balanced` placement: pairs in popularity order, each on the residue
/// (die) with the least expected pair reads so far (longest-processing-time
/// first), so hot pairs do not pile reads on a few dies: real volumes
/// repeat a few pairs thousands of times with reads spread evenly over dies
/// (the paper's Fig. 4 and Table 3), which random placement of a Zipf head
/// cannot give.
struct Balance {
    stride: u64,
    weights: Vec<f64>,
    load: Vec<f64>,
    /// The residue of the pair being placed (a retry keeps it).
    current: Option<(usize, u64)>,
}

impl Balance {
    fn new(stride: u64, count: u32, theta: f64) -> Self {
        let weights = (1..=count as usize).map(|i| (i as f64).powf(-theta)).collect();
        Balance { stride, weights, load: vec![0.0; stride as usize], current: None }
    }

    /// A start page below `limit` for the pair of rank `i` (0 = hottest).
    fn place(&mut self, i: usize, limit: u64, rng: &mut ChaCha8Rng) -> u64 {
        let r = match self.current {
            Some((j, r)) if j == i => r,
            _ => {
                let r = (0..self.load.len()).min_by(|&x, &y| self.load[x].total_cmp(&self.load[y])).unwrap_or(0);
                self.load[r] += self.weights[i];
                self.current = Some((i, r as u64));
                r as u64
            }
        };
        let blocks = (limit.saturating_sub(r)).div_ceil(self.stride).max(1);
        (rng.random_range(0..blocks) * self.stride + r).min(limit - 1)
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
    fn die_skew_concentrates_pairs_on_some_residues() {
        use rand::SeedableRng;
        let spec = SyntheticSpec { footprint_bytes: 1 << 30, ..SyntheticSpec::default() };
        let count = |skew: f64| {
            let p = PairSpec { count: 4000, die_skew: skew, ..PairSpec::default() };
            let m = PairModel::new(&spec, &p, &mut ChaCha8Rng::seed_from_u64(5));
            let mut per = [0u32; 16];
            for &(a, b) in m.pairs() {
                let (a, b) = (a / 4096, b / 4096);
                assert_eq!(a % 16, b % 16, "a pair spans two residues");
                per[(a % 16) as usize] += 1;
            }
            per
        };
        let flat = count(0.0);
        let skewed = count(1.0);
        assert!(*flat.iter().max().unwrap() < 2 * *flat.iter().min().unwrap(), "{flat:?}");
        assert!(*skewed.iter().max().unwrap() > 5 * *skewed.iter().min().unwrap(), "{skewed:?}");
    }

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
