//! `[trim]`: what the discards (TRIM) of a workload do (`sim/trim.rs`).

use serde::{Deserialize, Serialize};

/// Whether discards reach the FTL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiscardMode {
    /// Unmap the pages (the default): GC moves less, and a read of a
    /// discarded page returns "unwritten" without the flash.
    #[default]
    Apply,
    /// Drop them, counted in the summary (Detour before TRIM, and the way to
    /// run a scheme that does not model discards on a trace that has them).
    Ignore,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TrimConfig {
    /// Default apply.
    pub discards: DiscardMode,
}
