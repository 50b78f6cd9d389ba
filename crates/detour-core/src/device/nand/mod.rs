//! The flash's imperfections (`[nand]`): per-block wear (an initial P/E
//! count, a limit, erase failures, factory bad blocks), the retention age
//! of each block's data, its read-disturb count, and the read-retry steps
//! these cost a read through the RBER model of `rber.rs` or the drift model
//! of `drift.rs`. Built only when
//! `[nand]` sets something: with it off no per-block state is kept and no
//! read does any of this work.

mod drift;
mod rber;
mod summary;

pub use drift::Drift;
pub use rber::{BlockFactors, Ecc, Fit};
pub use summary::NandSummary;

use crate::config::{ErrorModel, NandConfig};
use crate::types::Time;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Counters for the summary.
#[derive(Clone, Debug, Default)]
pub struct NandStats {
    pub reads: u64,
    pub reads_retried: u64,
    pub retry_steps: u64,
    pub retry_steps_max: u32,
    pub uncorrectable: u64,
    pub bad_factory: u64,
    pub retired_wear: u64,
    pub retired_failure: u64,
    /// Blocks refreshed (their data rewritten, `refresh_steps`).
    pub refreshes: u64,
}

/// How reads' retry steps are decided (`nand.error_model`).
enum Model {
    /// RBER from a power law, steps from the ECC (`rber.rs`).
    PowerLaw(Fit, Ecc),
    /// Steps from the read reference's drift in table entries (`drift.rs`).
    Drift(Drift),
}

pub struct Nand {
    cfg: NandConfig,
    /// The error model (None: reads never retry).
    model: Option<Model>,
    pages_per_block: f64,
    /// P/E cycles each block had before the run (empty: all 0).
    base_pe: Vec<u32>,
    /// When each block's data was programmed, on a clock that reads
    /// `initial_age` at simulated time 0; 0 for data older than the run.
    written_at: Vec<Time>,
    /// Reads of each block since its erase (read disturb).
    reads: Vec<u32>,
    /// Each block's P/E-dependent RBER factors (empty without the power law).
    factors: Vec<BlockFactors>,
    /// Each block's drift rate (empty without the drift model).
    rates: Vec<f64>,
    initial_age: Time,
    /// Blocks whose reads passed `refresh_steps`, in the order they did,
    /// and a flag per block so each is listed once until its erase.
    pub refresh_wanted: Vec<u32>,
    flagged: Vec<bool>,
    rng: ChaCha8Rng,
    pub stats: NandStats,
}

impl Nand {
    /// The model `[nand]` asks for, or None for the ideal flash; `seed`:
    /// `run.seed`, whence its own stream.
    pub fn new(n: &NandConfig, seed: u64, blocks: u32, pages_per_block: u32) -> Option<Box<Nand>> {
        if !n.tracks_blocks() {
            return None;
        }
        let model = match n.error_model {
            ErrorModel::Off => None,
            ErrorModel::PowerLaw => {
                let ecc = Ecc { codeword_bits: n.codeword_bytes as f64 * 8.0, t: n.ecc_bits as f64, max_retries: n.max_retries };
                Some(Model::PowerLaw(Fit::of(n.fit), ecc))
            }
            ErrorModel::VthDrift => Some(Model::Drift(Drift::of(n.drift_fit, n.max_retries))),
        };
        // A stream of its own, so turning wear on does not move any other
        // seeded choice of the run.
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6e61_6e64);
        let base_pe = if n.initial_pe > 0 {
            let (lo, hi) = spread(n.initial_pe, n.initial_pe_spread);
            (0..blocks).map(|_| rng.random_range(lo..=hi)).collect()
        } else {
            Vec::new()
        };
        let pe0 = |b: u32| base_pe.get(b as usize).copied().unwrap_or(0) as f64;
        let (factors, rates) = match &model {
            Some(Model::PowerLaw(fit, _)) => ((0..blocks).map(|b| fit.of_block(pe0(b))).collect(), Vec::new()),
            Some(Model::Drift(d)) => (Vec::new(), (0..blocks).map(|b| d.rate(pe0(b))).collect()),
            None => (Vec::new(), Vec::new()),
        };
        Some(Box::new(Nand {
            factors,
            rates,
            cfg: n.clone(),
            model,
            pages_per_block: pages_per_block as f64,
            base_pe,
            written_at: vec![0; blocks as usize],
            reads: vec![0; blocks as usize],
            initial_age: (n.initial_age_days * 86400.0 * 1e9).round() as Time,
            refresh_wanted: Vec::new(),
            flagged: if n.refresh_steps > 0 { vec![false; blocks as usize] } else { Vec::new() },
            rng,
            stats: NandStats::default(),
        }))
    }

    /// Blocks bad from the factory: each with probability
    /// `bad_block_fraction`, drawn in block order from the seeded stream.
    pub fn factory_bad(&mut self, blocks: u32) -> Vec<u32> {
        let f = self.cfg.bad_block_fraction;
        if f <= 0.0 {
            return Vec::new();
        }
        let bad: Vec<u32> = (0..blocks).filter(|_| self.rng.random_bool(f)).collect();
        self.stats.bad_factory = bad.len() as u64;
        bad
    }

    /// P/E cycles of `block` given the erases it had in this run.
    #[inline]
    pub fn pe(&self, block: u32, erases: u32) -> u32 {
        self.base_pe.get(block as usize).copied().unwrap_or(0) + erases
    }

    pub fn pe_limit(&self) -> u32 {
        self.cfg.pe_limit
    }

    /// The block was erased (its `erases`-th in the run): true if it is now
    /// to be retired (worn out, or the erase failed).
    pub fn erased(&mut self, block: u32, erases: u32) -> bool {
        self.reads[block as usize] = 0;
        self.written_at[block as usize] = 0;
        if let Some(f) = self.flagged.get_mut(block as usize) {
            *f = false;
        }
        let pe = self.pe(block, erases) as f64;
        match &self.model {
            Some(Model::PowerLaw(fit, _)) => self.factors[block as usize] = fit.of_block(pe),
            Some(Model::Drift(d)) => self.rates[block as usize] = d.rate(pe),
            None => {}
        }
        let limit = self.cfg.pe_limit;
        if limit > 0 && self.pe(block, erases) >= limit {
            self.stats.retired_wear += 1;
            return true;
        }
        let p = self.cfg.erase_fail_prob;
        if p > 0.0 && self.rng.random_bool(p) {
            self.stats.retired_failure += 1;
            return true;
        }
        false
    }

    /// A block's first page was programmed at `now`: its data's age counts
    /// from here. (Writes that take no simulated time leave the block's data
    /// as old as the drive's starting data.)
    #[inline]
    pub fn programmed(&mut self, block: u32, now: Time) {
        self.written_at[block as usize] = now + self.initial_age;
    }

    /// Retention age at `now` of the data in `block`, ns.
    #[inline]
    pub fn age(&self, block: u32, now: Time) -> Time {
        (now + self.initial_age).saturating_sub(self.written_at[block as usize])
    }

    /// A read of `block` issued at `now`: the retry steps it needs; counts
    /// the read against the block's read disturb.
    #[inline]
    pub fn read(&mut self, block: u32, now: Time) -> u8 {
        let b = block as usize;
        self.reads[b] = self.reads[b].saturating_add(1);
        let age = self.age(block, now) as f64;
        let (k, failed) = match &self.model {
            None => return 0,
            Some(Model::PowerLaw(fit, ecc)) => ecc.steps(self.factors[b].rber(fit, age, self.reads[b] as f64, self.pages_per_block)),
            Some(Model::Drift(d)) => d.steps(self.rates[b], age),
        };
        self.count(block, k, failed);
        k as u8
    }

    fn count(&mut self, block: u32, k: u32, failed: bool) {
        let b = block as usize;
        let s = &mut self.stats;
        s.reads += 1;
        s.reads_retried += (k > 0) as u64;
        s.retry_steps += k as u64;
        s.retry_steps_max = s.retry_steps_max.max(k);
        s.uncorrectable += failed as u64;
        let refresh = self.cfg.refresh_steps;
        if refresh > 0 && k >= refresh && !self.flagged[b] {
            self.flagged[b] = true;
            self.refresh_wanted.push(block);
        }
    }
}

/// The uniform range mean x (1 +- spread), in whole cycles.
fn spread(mean: u32, spread: f64) -> (u32, u32) {
    let d = (mean as f64 * spread).round() as u32;
    (mean.saturating_sub(d), mean + d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn cfg(f: impl FnOnce(&mut NandConfig)) -> Config {
        let mut c = Config::preset("small").unwrap();
        f(&mut c.nand);
        c
    }

    #[test]
    fn off_builds_nothing() {
        let c = cfg(|_| {});
        assert!(Nand::new(&c.nand, c.run.seed, 100, 64).is_none());
    }

    #[test]
    fn fresh_reads_need_no_retry() {
        let c = cfg(|n| n.error_model = ErrorModel::PowerLaw);
        let mut nand = Nand::new(&c.nand, c.run.seed, 100, 64).unwrap();
        assert_eq!(nand.read(3, 0), 0);
    }

    #[test]
    fn aged_reads_retry_and_age_grows_from_program_time() {
        let c = cfg(|n| {
            n.error_model = ErrorModel::PowerLaw;
            n.fit = crate::config::RberFit::Tlc3d72;
            n.initial_pe = 3000;
            n.initial_age_days = 365.0;
        });
        let mut nand = Nand::new(&c.nand, c.run.seed, 100, 64).unwrap();
        assert!(nand.read(3, 0) > 0);
        nand.programmed(4, 1_000);
        assert_eq!(nand.age(4, 5_000), 4_000);
    }

    #[test]
    fn wear_limit_retires() {
        let c = cfg(|n| n.pe_limit = 3);
        let mut nand = Nand::new(&c.nand, c.run.seed, 10, 64).unwrap();
        assert!(!nand.erased(0, 2));
        assert!(nand.erased(0, 3));
        assert_eq!(nand.stats.retired_wear, 1);
    }

    #[test]
    fn drift_model_ages_unworn_blocks_and_resets_at_erase() {
        // vth_drift, tlc3d48: an unworn block's 90-day-old data takes 4
        // steps (the fit's input), the same block just programmed none.
        let c = cfg(|n| {
            n.error_model = ErrorModel::VthDrift;
            n.initial_age_days = 90.0;
        });
        let mut nand = Nand::new(&c.nand, c.run.seed, 10, 64).unwrap();
        assert_eq!(nand.read(2, 0), 4);
        nand.erased(2, 1);
        nand.programmed(2, 0);
        assert_eq!(nand.read(2, 1_000), 0);
        assert_eq!(nand.stats.reads, 2);
        assert_eq!(nand.stats.retry_steps, 4);
    }
}
