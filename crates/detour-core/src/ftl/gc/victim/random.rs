//! `ftl.gc_policy = "random"`: the fewest live pages among `ftl.gc_choices`
//! candidates drawn at random (with d at least the candidates, greedy).
//!
//! Why: the power of d choices: nearly greedy's write amplification for a
//! fraction of its scan on a large plane, and wear spread by chance.

use super::{min_first, Candidate, Policy, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(super) const ENTRY: Variant = Variant {
    name: "random",
    about: "the fewest live pages of ftl.gc_choices candidates drawn at random (power of d choices)",
    build: |cfg, seed, _blocks| {
        Box::new(Random {
            choices: cfg.gc_choices as usize,
            // GC's own stream, apart from the simulator's.
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x6C_7669_6374_696D),
            drawn: Vec::new(),
        })
    },
};

struct Random {
    choices: usize,
    rng: ChaCha8Rng,
    drawn: Vec<Candidate>,
}

impl Policy for Random {
    fn pick(&mut self, candidates: &[Candidate], _pages_per_block: u32) -> Option<u32> {
        let all = &mut self.drawn;
        all.clear();
        all.extend_from_slice(candidates);
        let d = self.choices;
        if all.len() > d {
            // Partial Fisher-Yates: the first d are a uniform draw.
            for i in 0..d {
                let j = self.rng.random_range(i..all.len());
                all.swap(i, j);
            }
            all.truncate(d);
        }
        min_first(all, |&(_, live)| live as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, Candidate};

    #[test]
    fn d_choices_over_every_candidate_is_greedy() {
        let cands: Vec<Candidate> = (0..50).map(|b| (b, (b * 37 % 61) + 1)).collect();
        let best = build("greedy", 0, 50).pick(&cands, 64);
        assert_eq!(build("random", 50, 50).pick(&cands, 64), best);
        // With 2 choices it is random: over many draws it misses the best sometimes.
        let mut r2 = build("random", 2, 50);
        assert!((0..100).any(|_| r2.pick(&cands, 64) != best));
    }
}
