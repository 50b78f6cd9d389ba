//! `[scheme.raid]`: the section shared by the channel-RAID family (pure,
//! cr1, cr4, cr5, cr5m).

use crate::config::{in_range_f, in_range_u, DeviceConfig};
use crate::error::Result;
use crate::schemes::registry::SchemeSection;
use serde::{Deserialize, Serialize};

/// `[scheme.raid]`: mirror threshold and failure injection.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RaidConfig {
    /// CR5M: mirroring writes stop (and expired data is reclaimed) when the
    /// mirror chip's free space falls below this share of its capacity.
    /// Default 0.02 (the paper's 2%); 0..=0.5.
    pub mirror_threshold: f64,
    /// CR5M: which channel's mirror chip holds a channel's mirror copies.
    pub mirror_channel: MirrorChannel,
    /// CR5M: how a mirroring write uses the channel when its copy is on the
    /// same channel.
    pub mirror_write: MirrorWrite,
    /// CR5M: what happens when a mirror chip reaches its threshold.
    pub reclaim: Reclaim,
    /// What fails. Default "none".
    pub fail_unit: FailUnit,
    /// Index of the failed die, chip or channel (dense ids). Default 0.
    pub fail_index: u32,
    /// When the failure happens, in µs of simulated time. Default 0 (at the first request).
    pub fail_at_us: f64,
    /// Rebuild a failed die's or chip's pages onto the surviving dies of the
    /// same channel, in the background, right after the failure. Default false.
    pub rebuild: bool,
}

/// `scheme.raid.mirror_channel`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MirrorChannel {
    /// The paper's Fig. 4: the update and its copy share a channel, so
    /// losing the channel loses updates not yet in the parity.
    #[default]
    Same,
    /// Channel c's copies on channel c+1's mirror chip: one channel failure
    /// loses nothing, and the two programs of a mirroring write use two buses.
    Next,
}

/// CR5M's mirroring write on the channel (`scheme.raid.mirror_write`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MirrorWrite {
    /// One data transfer for the page and its mirror copy (the paper's
    /// count: "as chips on the same channel can work in an interleaving
    /// way, the overhead of an MW operation is equivalent to a write
    /// operation").
    #[default]
    Interleaved,
    /// The data crosses the channel twice, once per chip.
    Separate,
}

/// CR5M's expired-data reclaim at the mirror threshold (`scheme.raid.reclaim`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reclaim {
    /// A full mirror chip gets one background reclaim (its oldest stripe)
    /// per host write, so it hovers just under its limit and mirroring
    /// stays on: the model before issue 49's third round.
    #[default]
    Rolling,
    /// The paper's Sec. III-B: "an expired data reclaim process will be
    /// carried out when MW is disabled", the first case being "when the
    /// available capacity of mirroring chip is lower than a predefined
    /// threshold". A full mirror chip disables MW on its channel and every
    /// entry of the channel is reclaimed in the background; MW comes back
    /// when the channel's table is empty and those reclaims have finished.
    Drain,
}

/// `scheme.raid.fail_unit`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailUnit {
    #[default]
    None,
    Die,
    Chip,
    Channel,
}

impl FailUnit {
    /// Dies in one unit of this kind (0 for none).
    pub fn dies(self, d: &DeviceConfig) -> u32 {
        match self {
            FailUnit::None => 0,
            FailUnit::Die => 1,
            FailUnit::Chip => d.dies_per_chip,
            FailUnit::Channel => d.dies_per_chip * d.chips_per_channel,
        }
    }
}

impl Default for RaidConfig {
    fn default() -> Self {
        RaidConfig {
            mirror_threshold: 0.02,
            mirror_channel: MirrorChannel::Same,
            mirror_write: MirrorWrite::Interleaved,
            reclaim: Reclaim::Rolling,
            fail_unit: FailUnit::None,
            fail_index: 0,
            fail_at_us: 0.0,
            rebuild: false,
        }
    }
}

impl SchemeSection for RaidConfig {
    const KEY: &'static str = "raid";

    fn validate(&self, d: &DeviceConfig) -> Result<()> {
        in_range_f("scheme.raid.mirror_threshold", self.mirror_threshold, 0.0, 0.5)?;
        in_range_f("scheme.raid.fail_at_us", self.fail_at_us, 0.0, 1e15)?;
        let chips = d.channels as u64 * d.chips_per_channel as u64;
        let units = match self.fail_unit {
            FailUnit::Die => chips * d.dies_per_chip as u64,
            FailUnit::Chip => chips,
            FailUnit::None | FailUnit::Channel => d.channels as u64,
        };
        in_range_u("scheme.raid.fail_index", self.fail_index as u64, 0, units - 1)
    }
}
