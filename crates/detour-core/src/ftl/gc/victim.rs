//! GC victim policies (`ftl.gc_policy`): which full block of a plane GC
//! reclaims. Every policy sees the same candidates (full, unpinned blocks
//! with a stale page, in the plane's free order) and ties go to the first.
//!
//! - `greedy` (default): the fewest live pages.
//! - `cost-benefit`: the largest age x free / used, age counted in blocks
//!   filled since this one was (Rosenblum and Ousterhout's LFS cleaner: an
//!   old block whose live data has stayed put is worth moving even when a
//!   younger one holds a little less).
//! - `random`: the fewest live pages among `ftl.gc_choices` candidates drawn
//!   at random (power of d choices); with d at least the candidates, greedy.
//! - `fifo`: the block filled first.

use crate::config::GcPolicy;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A candidate block: (block id, live pages).
pub type Candidate = (u32, u32);

pub struct VictimPolicy {
    policy: GcPolicy,
    choices: u32,
    rng: ChaCha8Rng,
    /// When each block was last filled, in blocks filled before it (kept
    /// only for the policies that ask for age).
    filled: Vec<u32>,
    fills: u32,
    scratch: Vec<Candidate>,
}

impl VictimPolicy {
    pub fn new(policy: GcPolicy, choices: u32, blocks: u32, seed: u64) -> Self {
        let aged = matches!(policy, GcPolicy::CostBenefit | GcPolicy::Fifo);
        VictimPolicy {
            policy,
            choices,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x6C_7669_6374_696D),
            filled: if aged { vec![0; blocks as usize] } else { Vec::new() },
            fills: 0,
            scratch: Vec::new(),
        }
    }

    /// Block `block` has just been filled.
    #[inline]
    pub fn on_full(&mut self, block: u32) {
        if let Some(f) = self.filled.get_mut(block as usize) {
            self.fills = self.fills.wrapping_add(1);
            *f = self.fills;
        }
    }

    /// The victim among `candidates` (in the plane's free order) of blocks
    /// of `pages_per_block` pages.
    pub fn pick(&mut self, candidates: impl Iterator<Item = Candidate>, pages_per_block: u32) -> Option<u32> {
        match self.policy {
            GcPolicy::Greedy => min_first(candidates, |&(_, v)| v as u64),
            GcPolicy::Fifo => min_first(candidates, |&(b, _)| self.filled[b as usize] as u64),
            GcPolicy::CostBenefit => {
                let now = self.fills;
                let filled = &self.filled;
                // Maximise age x free / used: minimise used / (age x free),
                // compared by cross-multiplication (exact, no floats).
                let mut best: Option<(u32, u64, u64)> = None;
                for (b, used) in candidates {
                    let age = now.wrapping_sub(filled[b as usize]) as u64 + 1;
                    let gain = age * (pages_per_block - used) as u64;
                    if best.is_none_or(|(_, bu, bg)| (used as u64) * bg < bu * gain) {
                        best = Some((b, used as u64, gain));
                    }
                }
                best.map(|(b, _, _)| b)
            }
            GcPolicy::Random => {
                let mut all = std::mem::take(&mut self.scratch);
                all.clear();
                all.extend(candidates);
                let d = self.choices as usize;
                if all.len() > d {
                    // Partial Fisher-Yates: the first d are a uniform draw.
                    for i in 0..d {
                        let j = self.rng.random_range(i..all.len());
                        all.swap(i, j);
                    }
                    all.truncate(d);
                }
                let pick = min_first(all.iter().copied(), |&(_, v)| v as u64);
                self.scratch = all;
                pick
            }
        }
    }
}

/// The first candidate with the smallest key.
fn min_first(candidates: impl Iterator<Item = Candidate>, mut key: impl FnMut(&Candidate) -> u64) -> Option<u32> {
    let mut best: Option<(u32, u64)> = None;
    for c in candidates {
        let k = key(&c);
        if best.is_none_or(|(_, bk)| k < bk) {
            best = Some((c.0, k));
        }
    }
    best.map(|(b, _)| b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_benefit_takes_an_old_half_valid_block_over_a_young_emptier_one() {
        let mut p = VictimPolicy::new(GcPolicy::CostBenefit, 0, 8, 1);
        p.on_full(0); // old
        for b in 1..7 {
            p.on_full(b);
        }
        p.on_full(7); // young
        let cands = [(0, 32), (7, 28)]; // 64-page blocks: half valid vs a little emptier
        assert_eq!(p.pick(cands.into_iter(), 64), Some(0));
        let mut g = VictimPolicy::new(GcPolicy::Greedy, 0, 8, 1);
        assert_eq!(g.pick(cands.into_iter(), 64), Some(7), "greedy takes the emptier");
    }

    #[test]
    fn d_choices_over_every_candidate_is_greedy() {
        let cands: Vec<Candidate> = (0..50).map(|b| (b, (b * 37 % 61) + 1)).collect();
        let mut g = VictimPolicy::new(GcPolicy::Greedy, 0, 50, 1);
        let mut r = VictimPolicy::new(GcPolicy::Random, 50, 50, 1);
        assert_eq!(r.pick(cands.iter().copied(), 64), g.pick(cands.iter().copied(), 64));
        // With 2 choices it is random: over many draws it misses the best sometimes.
        let mut r2 = VictimPolicy::new(GcPolicy::Random, 2, 50, 1);
        let best = g.pick(cands.iter().copied(), 64);
        assert!((0..100).any(|_| r2.pick(cands.iter().copied(), 64) != best));
    }

    #[test]
    fn fifo_takes_the_block_filled_first() {
        let mut p = VictimPolicy::new(GcPolicy::Fifo, 0, 4, 1);
        for b in [2, 0, 3, 1] {
            p.on_full(b);
        }
        assert_eq!(p.pick([(0, 10), (1, 1), (2, 60), (3, 5)].into_iter(), 64), Some(2));
    }
}
