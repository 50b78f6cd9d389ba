//! `ftl.gc_policy = "cost-benefit"`: the largest age x free / used, age
//! counted in blocks filled since this one was.
//!
//! Why: Rosenblum and Ousterhout's LFS cleaner: an old block whose live
//! data has stayed put is worth moving even when a younger one holds a
//! little less, since the younger one's data may still be overwritten.

use super::{Candidate, Fills, Policy, Variant};

pub(super) const ENTRY: Variant = Variant {
    name: "cost-benefit",
    about: "the largest age x free / used, age in blocks filled since (LFS's cleaner)",
    build: |_cfg, _seed, blocks| Box::new(CostBenefit { fills: Fills::new(blocks) }),
};

struct CostBenefit {
    fills: Fills,
}

impl Policy for CostBenefit {
    fn on_full(&mut self, block: u32) {
        self.fills.on_full(block)
    }

    fn pick(&mut self, candidates: &[Candidate], pages_per_block: u32) -> Option<u32> {
        let now = self.fills.now();
        // Maximise age x free / used: minimise used / (age x free),
        // compared by cross-multiplication (exact, no floats).
        let mut best: Option<(u32, u64, u64)> = None;
        for &(b, used) in candidates {
            let age = now.wrapping_sub(self.fills.at(b)) as u64 + 1;
            let gain = age * (pages_per_block - used) as u64;
            if best.is_none_or(|(_, bu, bg)| (used as u64) * bg < bu * gain) {
                best = Some((b, used as u64, gain));
            }
        }
        best.map(|(b, _, _)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::super::build;

    #[test]
    fn takes_an_old_half_valid_block_over_a_young_emptier_one() {
        let mut p = build("cost-benefit", 0, 8);
        p.on_full(0); // old
        for b in 1..7 {
            p.on_full(b);
        }
        p.on_full(7); // young
        let cands = [(0, 32), (7, 28)]; // 64-page blocks: half valid vs a little emptier
        assert_eq!(p.pick(&cands, 64), Some(0));
        assert_eq!(build("greedy", 0, 8).pick(&cands, 64), Some(7), "greedy takes the emptier");
    }
}
