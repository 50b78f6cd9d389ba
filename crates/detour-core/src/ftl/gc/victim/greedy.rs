//! `ftl.gc_policy = "greedy"` (the default): the block with the fewest live
//! pages, ties to the first in the plane's free order.
//!
//! Why: it moves the least data per block reclaimed; what most simulators
//! (SSDSim, MQSim's GREEDY) and many controllers do.

use super::{min_first, Candidate, Policy, Variant};

pub(super) const ENTRY: Variant = Variant {
    name: "greedy",
    about: "the fewest live pages (default)",
    build: |_cfg, _seed, _blocks| Box::new(Greedy),
};

struct Greedy;

impl Policy for Greedy {
    fn pick(&mut self, candidates: &[Candidate], _pages_per_block: u32) -> Option<u32> {
        min_first(candidates, |&(_, live)| live as u64)
    }
}
