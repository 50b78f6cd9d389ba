//! Configuration: presets, layered building, validation.

use crate::error::ToPyResult;
use detour_core::config::{self as core_config, Config, ConfigBuilder};
use detour_core::device::Geometry;
use detour_core::schemes::registry;
use pyo3::prelude::*;
use std::path::PathBuf;

/// Resolve a configuration and return it as a complete TOML document.
///
/// Layers, later ones winning key by key: `preset` (or the built-in
/// defaults), `file`, `toml` text, then `overrides` (`"key=value"`). The
/// result is validated; errors raise `ConfigError` naming the key.
#[pyfunction]
#[pyo3(signature = (preset=None, file=None, toml=None, overrides=Vec::new()))]
pub fn config(preset: Option<&str>, file: Option<PathBuf>, toml: Option<&str>, overrides: Vec<String>) -> PyResult<String> {
    let mut b = match preset {
        Some(name) => ConfigBuilder::from_preset(name).py()?,
        None => ConfigBuilder::new(),
    };
    if let Some(path) = file {
        b = b.merge_file(&path).py()?;
    }
    if let Some(text) = toml {
        b = b.merge_toml_str(text).py()?;
    }
    b = b.set_all(overrides.iter().map(String::as_str)).py()?;
    Ok(b.build().py()?.to_toml_string())
}

/// The resolved configuration `config_toml` (as `config()` returns it) as JSON.
#[pyfunction]
pub fn config_json(config_toml: &str) -> PyResult<String> {
    let cfg = parse(config_toml)?;
    serde_json::to_string(&cfg).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// `(name, description)` of every built-in device preset.
#[pyfunction]
pub fn presets() -> Vec<(&'static str, &'static str)> {
    core_config::presets::names().to_vec()
}

/// `(name, description)` of every compatibility bundle (`compat = NAME`).
#[pyfunction]
pub fn compats() -> Vec<(&'static str, &'static str)> {
    core_config::Compat::ALL.iter().map(|c| (c.name(), c.description())).collect()
}

/// The settings of compatibility bundle `name`: `(key, value, because)`.
#[pyfunction]
pub fn compat_settings(name: &str) -> PyResult<Vec<(&'static str, &'static str, &'static str)>> {
    let peer = core_config::Compat::parse(name).py()?;
    Ok(peer.settings().iter().map(|s| (s.key, s.value, s.because)).collect())
}

/// Bytes of logical space a host may address on the configuration
/// `config_toml`: the device's logical pages after over-provisioning, less
/// what its scheme keeps for itself (rails' second copy, hotr's staging
/// chip, parity). What a synthetic profile's footprint must fit in.
#[pyfunction]
pub fn logical_bytes(config_toml: &str) -> PyResult<u64> {
    let cfg = parse(config_toml)?;
    let geo = Geometry::from_config(&cfg.device).py()?;
    let scheme = registry::build(&cfg).py()?;
    let pages = scheme.logical_pages(&geo).unwrap_or(geo.logical_pages);
    Ok(u64::from(pages) * u64::from(cfg.device.page_size))
}

/// Parse and validate a complete configuration document.
pub fn parse(config_toml: &str) -> PyResult<Config> {
    Config::from_toml_str(config_toml).py()
}
