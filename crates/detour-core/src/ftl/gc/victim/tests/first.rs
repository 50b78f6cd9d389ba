//! `ftl.gc_policy = "first"`: the first candidate in the plane's free
//! order, however many live pages it holds.
//!
//! Why: a baseline that makes no choice, against which the others' gains
//! in write amplification show.

use super::{Candidate, Policy, Variant};

pub(super) const ENTRY: Variant = Variant {
    name: "first",
    about: "the first candidate in the plane's free order (a baseline making no choice)",
    build: |_cfg, _seed, _blocks| Box::new(First),
};

struct First;

impl Policy for First {
    fn pick(&mut self, candidates: &[Candidate], _pages_per_block: u32) -> Option<u32> {
        candidates.first().map(|&(block, _)| block)
    }
}
