//! Results: the summary as JSON, per-request columns as NumPy arrays.

use detour_core::metrics::{PairCount, ProbeSeries, RequestColumns, Summary};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Names of the per-request columns, in the order `columns()` returns them.
pub const COLUMNS: &[&str] =
    &["arrival_ns", "latency_ns", "offset", "size", "is_write", "bus_ns", "array_ns", "delay_ns", "warmup", "lost", "retry_steps"];

/// Hand each column's buffer to NumPy (no copy). No rows kept (streamed
/// to a file, or not recorded): an empty dict, so that NumPy is not even
/// imported.
pub fn columns<'py>(py: Python<'py>, c: RequestColumns, kept: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    if !kept {
        return Ok(d);
    }
    d.set_item("arrival_ns", PyArray1::from_vec(py, c.arrival_ns))?;
    d.set_item("latency_ns", PyArray1::from_vec(py, c.latency_ns))?;
    d.set_item("offset", PyArray1::from_vec(py, c.offset))?;
    d.set_item("size", PyArray1::from_vec(py, c.size))?;
    d.set_item("is_write", PyArray1::from_vec(py, c.is_write))?;
    d.set_item("bus_ns", PyArray1::from_vec(py, c.bus_ns))?;
    d.set_item("array_ns", PyArray1::from_vec(py, c.array_ns))?;
    d.set_item("delay_ns", PyArray1::from_vec(py, c.delay_ns))?;
    d.set_item("warmup", PyArray1::from_vec(py, c.warmup))?;
    d.set_item("lost", PyArray1::from_vec(py, c.lost))?;
    d.set_item("retry_steps", PyArray1::from_vec(py, c.retry_steps))?;
    Ok(d)
}

/// Collision pairs as three NumPy arrays (empty unless `metrics.collisions`).
pub fn pairs<'py>(py: Python<'py>, p: &[PairCount]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    if p.is_empty() {
        return Ok(d);
    }
    d.set_item("lpn_a", PyArray1::from_vec(py, p.iter().map(|x| x.lpn_a).collect()))?;
    d.set_item("lpn_b", PyArray1::from_vec(py, p.iter().map(|x| x.lpn_b).collect()))?;
    d.set_item("count", PyArray1::from_vec(py, p.iter().map(|x| x.count).collect()))?;
    Ok(d)
}

/// The `[probes]` series as NumPy arrays, flattened sample-major, plus
/// `dies`, `chips`, `interval_ns` (an empty dict when the probe was off).
pub fn timeseries<'py>(py: Python<'py>, t: Option<ProbeSeries>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let Some(t) = t else { return Ok(d) };
    d.set_item("interval_ns", t.interval_ns)?;
    d.set_item("dies", t.dies)?;
    d.set_item("chips", t.chips)?;
    d.set_item("t_ns", PyArray1::from_vec(py, t.t_ns))?;
    d.set_item("die_queue", PyArray1::from_vec(py, t.die_queue))?;
    d.set_item("die_busy", PyArray1::from_vec(py, t.die_busy))?;
    d.set_item("chip_queue", PyArray1::from_vec(py, t.chip_queue))?;
    d.set_item("chip_host_queue", PyArray1::from_vec(py, t.chip_host_queue))?;
    d.set_item("chip_busy", PyArray1::from_vec(py, t.chip_busy))?;
    d.set_item("die_free_blocks", PyArray1::from_vec(py, t.die_free_blocks))?;
    if let Some(b) = t.buffer_pages {
        d.set_item("buffer_pages", PyArray1::from_vec(py, b))?;
    }
    Ok(d)
}

pub fn summary_json(s: &Summary) -> PyResult<String> {
    to_json(s)
}

pub fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| PyValueError::new_err(format!("cannot serialise to JSON: {e}")))
}
