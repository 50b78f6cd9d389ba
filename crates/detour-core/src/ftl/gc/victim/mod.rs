//! GC victim policies (`ftl.gc_policy`): which full block of a plane GC
//! reclaims. Every policy sees the same candidates (full, unpinned blocks
//! with a stale page, in the plane's free order) and ties go to the first.
//!
//! The registry below lists them, one file each (`greedy.rs`, the
//! default: the fewest live pages); each file's header says what it picks.
//!
//! A policy is a trait object: GC consults it once per block it reclaims,
//! and once per block filled, against the page moves and the erase that
//! follow each choice, so an indirect call costs nothing measurable.
//! docs/extending.md says how to add one.

use crate::config::FtlConfig;
use crate::error::Result;
use crate::policy::Choice;

crate::registry! {
    /// Every GC victim policy, one a line; `ftl.gc_policy` names one.
    pub const REGISTRY: &[Variant] = [
        greedy,
        cost_benefit,
        random,
        fifo,
    ];
}

/// The GC victim family: `ftl.gc_policy`.
pub enum Victims {}

impl crate::policy::Family for Victims {
    type Variant = Variant;
    const KEY: &'static str = "ftl.gc_policy";
    const ALL: &'static [Variant] = REGISTRY;
}

/// (name, description) of every GC victim policy, in registry order.
pub fn list() -> Vec<(&'static str, &'static str)> {
    crate::policy::list::<Victims>()
}

/// A GC victim policy: its name (the value of `ftl.gc_policy`), a line for
/// listings, and how to build it.
pub struct Variant {
    pub name: &'static str,
    pub about: &'static str,
    /// The policy of an FTL of so many blocks (the third argument; block
    /// ids are below it), set up from `[ftl]` (its own keys, such as
    /// `ftl.gc_choices`) and `run.seed` (the second, for a random one).
    pub(crate) build: fn(&FtlConfig, u64, u32) -> Box<dyn Policy>,
}

impl crate::policy::Entry for Variant {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        self.about
    }
}

/// A candidate block: (block id, live pages).
pub type Candidate = (u32, u32);

/// What a victim policy does.
pub trait Policy: Send {
    /// Block `block` has just been filled (each block, at every fill): for
    /// the policies that weigh age.
    fn on_full(&mut self, _block: u32) {}

    /// The victim among `candidates` (never empty; in the plane's free
    /// order, ties to the first by convention) of blocks of
    /// `pages_per_block` pages, or None to reclaim nothing now.
    fn pick(&mut self, candidates: &[Candidate], pages_per_block: u32) -> Option<u32>;
}

/// The FTL's victim policy, and the list its candidates are gathered in.
pub struct VictimPolicy {
    policy: Box<dyn Policy>,
    candidates: Vec<Candidate>,
}

impl VictimPolicy {
    /// The policy `ftl.gc_policy` names, for `blocks` blocks.
    pub fn new(cfg: &FtlConfig, seed: u64, blocks: u32) -> Result<Self> {
        let v = Choice::<Victims>::named(&cfg.gc_policy)?.variant();
        Ok(VictimPolicy { policy: (v.build)(cfg, seed, blocks), candidates: Vec::new() })
    }

    /// Block `block` has just been filled.
    #[inline]
    pub fn on_full(&mut self, block: u32) {
        self.policy.on_full(block)
    }

    /// The victim among `candidates` (in the plane's free order) of blocks
    /// of `pages_per_block` pages.
    pub fn pick(&mut self, candidates: impl Iterator<Item = Candidate>, pages_per_block: u32) -> Option<u32> {
        self.candidates.clear();
        self.candidates.extend(candidates);
        if self.candidates.is_empty() {
            return None;
        }
        self.policy.pick(&self.candidates, pages_per_block)
    }
}

/// The first candidate with the smallest key.
pub(super) fn min_first(candidates: &[Candidate], mut key: impl FnMut(&Candidate) -> u64) -> Option<u32> {
    let mut best: Option<(u32, u64)> = None;
    for c in candidates {
        let k = key(c);
        if best.is_none_or(|(_, bk)| k < bk) {
            best = Some((c.0, k));
        }
    }
    best.map(|(b, _)| b)
}

/// When each block was last filled, in blocks filled before it: the age
/// the policies that weigh it count in.
pub(super) struct Fills {
    at: Vec<u32>,
    now: u32,
}

impl Fills {
    pub fn new(blocks: u32) -> Fills {
        Fills { at: vec![0; blocks as usize], now: 0 }
    }

    #[inline]
    pub fn on_full(&mut self, block: u32) {
        if let Some(f) = self.at.get_mut(block as usize) {
            self.now = self.now.wrapping_add(1);
            *f = self.now;
        }
    }

    /// Blocks filled so far (wrapping).
    pub fn now(&self) -> u32 {
        self.now
    }

    /// When `block` was last filled (0: never).
    pub fn at(&self, block: u32) -> u32 {
        self.at[block as usize]
    }
}

/// The policy `name` for `blocks` blocks, with `ftl.gc_choices = choices`
/// and seed 1.
#[cfg(test)]
pub(super) fn build(name: &str, choices: u32, blocks: u32) -> Box<dyn Policy> {
    let cfg = FtlConfig { gc_policy: name.into(), gc_choices: choices, ..FtlConfig::default() };
    (Choice::<Victims>::named(name).unwrap().variant().build)(&cfg, 1, blocks)
}

#[cfg(test)]
mod tests;
