//! The scheme catalogue.

use detour_core::schemes::SchemeKind;
use pyo3::prelude::*;

/// `(name, description)` of every scheme, in the core's order.
#[pyfunction]
pub fn schemes() -> Vec<(&'static str, &'static str)> {
    SchemeKind::ALL.to_vec()
}
