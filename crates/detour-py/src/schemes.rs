//! The scheme catalogue.

use detour_core::schemes::SCHEMES;
use pyo3::prelude::*;

/// `(name, description, config section)` of every registered scheme, in
/// the registry's order (the section is "" for a scheme without one).
#[pyfunction]
pub fn schemes() -> Vec<(&'static str, &'static str, &'static str)> {
    SCHEMES.iter().map(|e| (e.name, e.about, e.section.map_or("", |s| s.key))).collect()
}
