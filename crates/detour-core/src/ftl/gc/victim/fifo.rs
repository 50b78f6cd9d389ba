//! `ftl.gc_policy = "fifo"`: the block filled first (of those with a stale
//! page), whatever it holds.
//!
//! Why: a log-structured device's cleaner in its plainest form, and a
//! baseline whose wear is even by construction.

use super::{min_first, Candidate, Fills, Policy, Variant};

pub(super) const ENTRY: Variant = Variant {
    name: "fifo",
    about: "the block filled first",
    build: |_cfg, _seed, blocks| Box::new(Fifo { fills: Fills::new(blocks) }),
};

struct Fifo {
    fills: Fills,
}

impl Policy for Fifo {
    fn on_full(&mut self, block: u32) {
        self.fills.on_full(block)
    }

    fn pick(&mut self, candidates: &[Candidate], _pages_per_block: u32) -> Option<u32> {
        min_first(candidates, |&(b, _)| self.fills.at(b) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::build;

    #[test]
    fn takes_the_block_filled_first() {
        let mut p = build("fifo", 0, 4);
        for b in [2, 0, 3, 1] {
            p.on_full(b);
        }
        assert_eq!(p.pick(&[(0, 10), (1, 1), (2, 60), (3, 5)], 64), Some(2));
    }
}
