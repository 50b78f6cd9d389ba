//! `[energy]`: what each flash operation, each byte over a channel and each
//! idle die costs, for the run's joules (`metrics/energy.rs`).
//!
//! The default is SSDSim's: its parameter file gives one flash operating
//! current and a supply voltage (`page.parameters`: "flash operating
//! current=25000.0" µA, "flash supply voltage=3.3" V, read by
//! `initialize.c`'s `load_parameters`), so an operation costs I × V × its
//! time, whatever it is. A per-operation energy set here (from a datasheet,
//! or a measurement) replaces that product for its operation. SSDSim has
//! no standby current for the flash, so an idle die costs nothing unless
//! `idle_mw_per_die` says otherwise.

use super::{in_range_f, Config};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// 25 mA × 3.3 V: SSDSim's `page.parameters` (see the module docs).
pub const SSDSIM_ACTIVE_MW: f64 = 25.0 * 3.3;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct EnergyConfig {
    /// Power a die draws while it reads, programs, erases or moves data
    /// over its channel, mW. Default 82.5 (SSDSim: 25 mA at 3.3 V).
    pub active_mw: f64,
    /// Energy of one page read (array part), µJ. Unset: `active_mw` × tR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_uj: Option<f64>,
    /// Energy of one page program, µJ. Unset: `active_mw` × tPROG.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program_uj: Option<f64>,
    /// Energy of one block erase, µJ. Unset: `active_mw` × tBERS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub erase_uj: Option<f64>,
    /// Energy of one byte over a flash channel, nJ. Unset: `active_mw` ×
    /// the time a byte takes at the channel's rate and width.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_nj_per_byte: Option<f64>,
    /// Power of a die while it does nothing, mW. Default 0 (SSDSim models
    /// no flash standby current).
    pub idle_mw_per_die: f64,
}

impl Default for EnergyConfig {
    fn default() -> Self {
        EnergyConfig {
            active_mw: SSDSIM_ACTIVE_MW,
            read_uj: None,
            program_uj: None,
            erase_uj: None,
            transfer_nj_per_byte: None,
            idle_mw_per_die: 0.0,
        }
    }
}

/// The energies a run charges, resolved from the config and the device's
/// timing: µJ per operation, nJ per byte, mW per idle die.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnergyCosts {
    pub read_uj: f64,
    pub program_uj: f64,
    pub erase_uj: f64,
    pub transfer_nj_per_byte: f64,
    pub idle_mw_per_die: f64,
}

impl Config {
    /// Resolve `[energy]` against the device: mW × µs = nJ, so an unset
    /// operation costs `active_mw` × its time in µs / 1000 µJ.
    pub fn energy_costs(&self) -> EnergyCosts {
        let (e, f, ch) = (&self.energy, &self.device.flash, &self.device.channel);
        let uj = |us: f64| e.active_mw * us / 1000.0;
        let us_per_byte = 8.0 / (ch.rate_mts * ch.width_bits as f64);
        EnergyCosts {
            read_uj: e.read_uj.unwrap_or_else(|| uj(f.read_us)),
            program_uj: e.program_uj.unwrap_or_else(|| uj(f.program_us)),
            erase_uj: e.erase_uj.unwrap_or_else(|| uj(f.erase_us)),
            transfer_nj_per_byte: e.transfer_nj_per_byte.unwrap_or(e.active_mw * us_per_byte),
            idle_mw_per_die: e.idle_mw_per_die,
        }
    }

    pub(super) fn validate_energy(&self) -> Result<()> {
        let e = &self.energy;
        in_range_f("energy.active_mw", e.active_mw, 0.0, 1e6)?;
        in_range_f("energy.idle_mw_per_die", e.idle_mw_per_die, 0.0, 1e6)?;
        let each = [("energy.read_uj", e.read_uj), ("energy.program_uj", e.program_uj), ("energy.erase_uj", e.erase_uj)];
        for (key, v) in each {
            if let Some(v) = v {
                in_range_f(key, v, 0.0, 1e9)?;
            }
        }
        if let Some(v) = e.transfer_nj_per_byte {
            in_range_f("energy.transfer_nj_per_byte", v, 0.0, 1e6)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigBuilder;

    #[test]
    fn unset_energies_are_active_power_times_the_operation_time() {
        let cfg = ConfigBuilder::from_preset("small")
            .unwrap()
            .set_all(["device.flash.read_us=40", "device.channel.rate_mts=400", "device.channel.width_bits=8"])
            .unwrap()
            .build()
            .unwrap();
        let c = cfg.energy_costs();
        // 82.5 mW × 40 µs = 3300 nJ; a byte at 400 MB/s takes 2.5 ns.
        assert!((c.read_uj - 3.3).abs() < 1e-12, "{c:?}");
        assert!((c.transfer_nj_per_byte - 82.5 * 0.0025).abs() < 1e-12, "{c:?}");
        let set = ConfigBuilder::from_preset("small").unwrap().set_all(["energy.read_uj=1.5"]).unwrap().build().unwrap();
        assert_eq!(set.energy_costs().read_uj, 1.5);
    }

    #[test]
    fn a_negative_energy_names_its_key() {
        let err = ConfigBuilder::from_preset("small").unwrap().set_all(["energy.erase_uj=-1"]).unwrap().build().unwrap_err();
        assert!(err.to_string().contains("energy.erase_uj"), "{err}");
    }
}
