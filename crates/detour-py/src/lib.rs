//! # detour-py
//!
//! The Python extension module `detour._detour`. It only converts: Python
//! values to core types on the way in, core results to JSON text and NumPy
//! arrays on the way out, core errors to Python exceptions. There is no
//! simulation logic here. Modules mirror the core's:
//!
//! - `config`: `config()`, `config_json()`, `presets()`
//! - `schemes`: `schemes()`
//! - `sim`: `run()` (GIL released during the run; Ctrl-C stops it cleanly)
//! - `metrics`: summary JSON and per-request NumPy columns
//! - `workload`: workload sources, `formats()`, `inspect_trace()`,
//!   `convert_trace()`, `profiles()`, `profile_spec()`, `generate()`
//! - `error`: one Python exception class per core error kind
//!
//! The stubs in `python/detour/_detour.pyi` document every function.

use pyo3::prelude::*;

mod config;
mod error;
mod metrics;
mod schemes;
mod sim;
mod workload;

#[pymodule]
fn _detour(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("COLUMNS", metrics::COLUMNS.to_vec())?;
    error::register(m)?;
    m.add_function(wrap_pyfunction!(config::config, m)?)?;
    m.add_function(wrap_pyfunction!(config::config_json, m)?)?;
    m.add_function(wrap_pyfunction!(config::logical_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(config::presets, m)?)?;
    m.add_function(wrap_pyfunction!(config::compats, m)?)?;
    m.add_function(wrap_pyfunction!(config::compat_settings, m)?)?;
    m.add_function(wrap_pyfunction!(schemes::schemes, m)?)?;
    m.add_function(wrap_pyfunction!(schemes::policies, m)?)?;
    m.add_function(wrap_pyfunction!(sim::run, m)?)?;
    m.add_function(wrap_pyfunction!(workload::formats, m)?)?;
    m.add_function(wrap_pyfunction!(workload::inspect_trace, m)?)?;
    m.add_function(wrap_pyfunction!(workload::convert_trace, m)?)?;
    m.add_function(wrap_pyfunction!(workload::profiles, m)?)?;
    m.add_function(wrap_pyfunction!(workload::profile_spec, m)?)?;
    m.add_function(wrap_pyfunction!(workload::generate, m)?)?;
    m.add_function(wrap_pyfunction!(workload::value_popularity, m)?)?;
    Ok(())
}
