//! The summary's `nand` section.

use super::Nand;
use crate::config::{DriftFit, ErrorModel, RberFit};
use serde::Serialize;

/// The fit the summary names: either model's, as its key spells it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ModelFit {
    PowerLaw(RberFit),
    Drift(DriftFit),
}

/// Read retry, wear-out and aging over the run (present only with `[nand]`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct NandSummary {
    /// The error model's fit (`nand.fit` for the power law, `nand.drift_fit`
    /// for the drift model), absent with `error_model = "off"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit: Option<ModelFit>,
    /// Flash reads the error model judged (every read, host's and GC's).
    pub reads: u64,
    /// Of them, reads that needed at least one retry step.
    pub reads_retried: u64,
    pub retry_steps: u64,
    /// Retry steps per flash read.
    pub retry_steps_mean: f64,
    pub retry_steps_max: u32,
    /// Reads still failing after `max_retries` steps (returned after the last).
    pub uncorrectable: u64,
    /// `pe_limit` (0: none).
    pub pe_limit: u32,
    pub blocks: u64,
    pub blocks_bad_factory: u64,
    pub blocks_retired_wear: u64,
    pub blocks_retired_failure: u64,
    /// Blocks still in service at the end.
    pub blocks_usable: u64,
    /// Usable blocks beyond those the logical space needs: the
    /// over-provisioning left (the run stops with an error at 0).
    pub spare_blocks: i64,
    /// P/E cycles per block (the starting ones included), over blocks in service.
    pub pe_mean: f64,
    pub pe_max: u32,
    /// 1 - pe_mean / pe_limit: the share of the rated endurance left
    /// (absent without a limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub life_remaining: Option<f64>,
    /// The data's age at the start, days.
    pub initial_age_days: f64,
    /// Blocks refreshed: their data rewritten elsewhere and the block
    /// erased because a read of it needed `refresh_steps` retry steps.
    pub refreshes: u64,
    /// Retired blocks opened for writing again: always 0 (a check).
    pub retired_reopened: u64,
}

impl Nand {
    /// The section; `pe` gives every in-service block's P/E cycles.
    pub fn summary(&self, blocks: u64, retired: u64, logical_blocks: u64, pe: impl Iterator<Item = u32>) -> NandSummary {
        let s = &self.stats;
        let (mut n, mut sum, mut max) = (0u64, 0u64, 0u32);
        for c in pe {
            n += 1;
            sum += c as u64;
            max = max.max(c);
        }
        let pe_mean = if n == 0 { 0.0 } else { sum as f64 / n as f64 };
        let limit = self.cfg.pe_limit;
        let usable = blocks - retired;
        NandSummary {
            fit: match self.cfg.error_model {
                ErrorModel::Off => None,
                ErrorModel::PowerLaw => Some(ModelFit::PowerLaw(self.cfg.fit)),
                ErrorModel::VthDrift => Some(ModelFit::Drift(self.cfg.drift_fit)),
            },
            reads: s.reads,
            reads_retried: s.reads_retried,
            retry_steps: s.retry_steps,
            retry_steps_mean: if s.reads == 0 { 0.0 } else { s.retry_steps as f64 / s.reads as f64 },
            retry_steps_max: s.retry_steps_max,
            uncorrectable: s.uncorrectable,
            pe_limit: limit,
            blocks,
            blocks_bad_factory: s.bad_factory,
            blocks_retired_wear: s.retired_wear,
            blocks_retired_failure: s.retired_failure,
            blocks_usable: usable,
            spare_blocks: usable as i64 - logical_blocks as i64,
            pe_mean,
            pe_max: max,
            life_remaining: (limit > 0).then(|| (1.0 - pe_mean / limit as f64).max(0.0)),
            initial_age_days: self.cfg.initial_age_days,
            refreshes: s.refreshes,
            retired_reopened: 0,
        }
    }
}
