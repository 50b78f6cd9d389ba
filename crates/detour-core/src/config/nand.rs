//! `[nand]`: the flash's imperfections, all off by default (the ideal
//! flash: every read takes tR, blocks never wear out, data never ages).
//! The model and its sources are in docs/nand.md and `device/nand/`.

use super::validate::{in_range_f, in_range_u};
use crate::ensure_config;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// Whether reads pay for their raw bit errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorModel {
    /// Every read decodes at once (the ideal flash).
    #[default]
    Off,
    /// RBER from P/E cycles, retention age and read disturb (a power law
    /// fitted to measured chips, `device/nand/rber.rs`), and the read-retry
    /// steps the ECC then needs.
    PowerLaw,
    /// Retry steps from the drift of the read reference in retry-table
    /// entries, logarithmic in retention age at any wear
    /// (`device/nand/drift.rs`; fitted to Park et al., docs/nand.md).
    VthDrift,
}

impl ErrorModel {
    /// Reads can retry.
    pub fn is_on(self) -> bool {
        self != ErrorModel::Off
    }
}

/// Which published fit of the RBER power law to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RberFit {
    /// 2y-nm planar MLC (the fit SimpleSSD uses; docs/nand.md).
    #[default]
    Mlc2y,
    /// 72-layer 3D TLC (docs/nand.md).
    Tlc3d72,
}

/// Which fit of the read-reference drift model (`error_model = "vth_drift"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriftFit {
    /// 48-layer 3D TLC: fitted to two of Park et al.'s (ASPLOS'21)
    /// read-retry points by scripts/nand_drift_fit.py (docs/nand.md).
    #[default]
    Tlc3d48,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NandConfig {
    pub error_model: ErrorModel,
    /// The fitted RBER parameters (`mlc2y` or `tlc3d72`).
    pub fit: RberFit,
    /// The fitted drift parameters of `error_model = "vth_drift"` (`tlc3d48`).
    pub drift_fit: DriftFit,
    /// ECC codeword size, bytes (the unit the ECC corrects). Default 1024.
    pub codeword_bytes: u32,
    /// Bit errors the ECC corrects per codeword in one decode. Default 40.
    pub ecc_bits: u32,
    /// Decode time of each retry step, µs (added to its tR). Default 5.
    pub decode_us: f64,
    /// Read-retry steps the controller tries before giving up (the read is
    /// then counted uncorrectable and returns after the last). Default 15.
    pub max_retries: u32,
    /// P/E cycles a block endures: one reaching it is retired at its erase
    /// and never written again. 0 = no limit (the default).
    pub pe_limit: u32,
    /// Probability an erase fails and retires its block (seeded). Default 0.
    pub erase_fail_prob: f64,
    /// Share of blocks bad from the factory (seeded, never written). Default 0.
    pub bad_block_fraction: f64,
    /// The drive's age at the start: mean P/E cycles of its blocks...
    pub initial_pe: u32,
    /// ...spread uniformly over initial_pe x (1 +- this). Default 0.
    pub initial_pe_spread: f64,
    /// ...and the age of the data already on it (preconditioned pages), days.
    pub initial_age_days: f64,
    /// Refresh: a block one of whose reads needed at least this many retry
    /// steps has its data rewritten elsewhere and is erased (a background
    /// job like GC, `summary.nand.refreshes`). 0 = never (the default).
    pub refresh_steps: u32,
}

impl Default for NandConfig {
    fn default() -> Self {
        NandConfig {
            error_model: ErrorModel::Off,
            fit: RberFit::Mlc2y,
            drift_fit: DriftFit::Tlc3d48,
            codeword_bytes: 1024,
            ecc_bits: 40,
            decode_us: 5.0,
            max_retries: 15,
            pe_limit: 0,
            erase_fail_prob: 0.0,
            bad_block_fraction: 0.0,
            initial_pe: 0,
            initial_pe_spread: 0.0,
            initial_age_days: 0.0,
            refresh_steps: 0,
        }
    }
}

impl NandConfig {
    /// Nothing configured: the ideal flash, no per-block state kept.
    pub fn is_off(&self) -> bool {
        *self == NandConfig::default()
    }

    /// Wear-out or aging is on (per-block state is kept).
    pub fn tracks_blocks(&self) -> bool {
        !self.is_off()
    }

    pub(crate) fn validate(&self) -> Result<()> {
        in_range_u("nand.codeword_bytes", self.codeword_bytes as u64, 64, 1 << 20)?;
        in_range_u("nand.ecc_bits", self.ecc_bits as u64, 1, self.codeword_bytes as u64 * 8)?;
        in_range_f("nand.decode_us", self.decode_us, 0.0, 1e4)?;
        in_range_u("nand.max_retries", self.max_retries as u64, 0, 255)?;
        in_range_u("nand.pe_limit", self.pe_limit as u64, 0, 10_000_000)?;
        in_range_f("nand.erase_fail_prob", self.erase_fail_prob, 0.0, 1.0)?;
        in_range_f("nand.bad_block_fraction", self.bad_block_fraction, 0.0, 0.5)?;
        in_range_u("nand.initial_pe", self.initial_pe as u64, 0, 10_000_000)?;
        in_range_f("nand.initial_pe_spread", self.initial_pe_spread, 0.0, 1.0)?;
        in_range_f("nand.initial_age_days", self.initial_age_days, 0.0, 36_500.0)?;
        in_range_u("nand.refresh_steps", self.refresh_steps as u64, 0, 255)?;
        ensure_config!(
            self.refresh_steps == 0 || self.error_model.is_on(),
            "nand.refresh_steps",
            "refreshes blocks by their reads' retry steps: it needs nand.error_model = \"power_law\" or \"vth_drift\""
        );
        ensure_config!(
            self.pe_limit == 0 || self.initial_pe < self.pe_limit,
            "nand.initial_pe",
            "{} is at or past nand.pe_limit = {}: every block would be worn out before the run",
            self.initial_pe,
            self.pe_limit
        );
        Ok(())
    }
}
