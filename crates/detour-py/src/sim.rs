//! Running a simulation: the GIL is released for the whole run and taken
//! back only in the progress hook, which calls the Python callback and
//! checks for Ctrl-C.

use crate::error::to_py;
use crate::workload::{coarse_time_from, requests_from_dict, resolve_spec, trace_extent, trace_options, Source};
use crate::{config, metrics};
use detour_core::config::PreconditionSpan;
use detour_core::metrics::parquet::ParquetSink;
use detour_core::metrics::RequestSink;
use detour_core::schemes::registry;
use detour_core::sim::{Progress, Simulation};
use detour_core::workload::ahead::ReadAhead;
use detour_core::ErrorKind;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// The core's progress hook, bridged to Python.
struct PyProgress {
    callback: Option<Py<PyAny>>,
    /// The exception that stopped the run (KeyboardInterrupt, or one the
    /// callback raised), re-raised once the core has returned.
    error: Option<PyErr>,
}

impl Progress for PyProgress {
    fn update(&mut self, requests_arrived: u64, sim_time_ns: u64) -> bool {
        Python::with_gil(|py| {
            if let Err(e) = py.check_signals() {
                self.error = Some(e);
                return false;
            }
            if let Some(cb) = &self.callback {
                if let Err(e) = cb.call1(py, (requests_arrived, sim_time_ns)) {
                    self.error = Some(e);
                    return false;
                }
            }
            true
        })
    }

    /// Preconditioning can take seconds on large devices: let Ctrl-C stop it.
    fn precondition(&mut self, _done: u64, _total: u64) -> bool {
        Python::with_gil(|py| match py.check_signals() {
            Ok(()) => true,
            Err(e) => {
                self.error = Some(e);
                false
            }
        })
    }
}

/// What [`run`] returns: `(summary_json, columns, verify_failures_json,
/// workload_json, collision_pairs, timeseries)`.
type RunOutput<'py> = (String, Bound<'py, PyDict>, String, String, Bound<'py, PyDict>, Bound<'py, PyDict>);

/// Run one simulation.
///
/// `config` is a complete TOML document (what `config()` returns). The
/// workload is exactly one of `trace` (a file, with `format`,
/// `skip_malformed`, `volume`, `clamp_backwards_time`,
/// `reorder_window_ns` (None: the reader's default, 2 s) and `coarse_time`
/// ("spread" or "keep", seeded by `run.seed`) for the reader),
/// `profile` or `profile_toml` (a synthetic profile by name, or a TOML spec,
/// with `profile_overrides`) or `requests` (a dict of arrays, see the stubs). `progress(requests_arrived, sim_time_ns)` is called every
/// few thousand requests and at the end. With `requests_parquet`, the
/// per-request rows are written to that Parquet file as requests complete
/// (and `columns` is empty); a trace or profile is read on a second thread.
///
/// Returns `(summary_json, columns, verify_failures_json, workload_json,
/// collision_pairs, timeseries)`.
#[pyfunction]
#[pyo3(signature = (
    config, *, trace=None, format=None, skip_malformed=false, volume=None, clamp_backwards_time=false,
    reorder_window_ns=None, coarse_time="spread", profile=None, profile_toml=None, profile_overrides=Vec::new(), requests=None, progress=None,
    requests_parquet=None
))]
#[allow(clippy::too_many_arguments)]
pub fn run<'py>(
    py: Python<'py>,
    config: &str,
    trace: Option<PathBuf>,
    format: Option<&str>,
    skip_malformed: bool,
    volume: Option<u32>,
    clamp_backwards_time: bool,
    reorder_window_ns: Option<u64>,
    coarse_time: &str,
    profile: Option<&str>,
    profile_toml: Option<&str>,
    profile_overrides: Vec<String>,
    requests: Option<Bound<'py, PyDict>>,
    progress: Option<Py<PyAny>>,
    requests_parquet: Option<PathBuf>,
) -> PyResult<RunOutput<'py>> {
    let mut cfg = config::parse(config)?;
    let synthetic = profile.is_some() || profile_toml.is_some();
    let source = match (trace, synthetic, requests) {
        (Some(path), false, None) => {
            let mut opts = trace_options(format, skip_malformed, volume, clamp_backwards_time, false)?;
            if let Some(ns) = reorder_window_ns {
                opts.reorder_window_ns = ns;
            }
            opts.coarse_time = coarse_time_from(coarse_time)?;
            opts.spread_seed = cfg.run.seed;
            Source::Trace { path, opts }
        }
        (None, true, None) => {
            let (name, spec) = resolve_spec(profile, profile_toml, &profile_overrides)?;
            Source::Profile { name, spec: Box::new(spec) }
        }
        (None, false, Some(d)) => Source::Requests(requests_from_dict(&d)?),
        _ => return Err(PyValueError::new_err("give exactly one workload: trace, profile (or profile_toml) or requests")),
    };
    // An auto RR-SSD period (scheme.dedup.period_s = 0) follows the
    // workload's span. Finding a profile's span means generating it once
    // more, a trace's reading it once more: only when the scheme works in
    // periods and the period is automatic.
    let mut scanned = None;
    let mut span = || match &source {
        Source::Profile { spec, .. } => detour_core::workload::generator::span_s(spec),
        Source::Requests(v) => Ok(detour_core::sim::span_s(v)),
        Source::Trace { path, opts } => Ok(trace_extent(py, path, opts, &mut scanned)?.span_s),
    };
    registry::on_span(&mut cfg, &mut span).map_err(to_py)?;
    let mut prog = PyProgress { callback: progress, error: None };
    let in_memory = matches!(source, Source::Requests(_));
    // What `ftl.precondition.span = "footprint"` preconditions: a profile's
    // footprint, or the highest address a request array or trace touches
    // (a trace read once more for it, only when that span is asked for).
    let pre = &cfg.ftl.precondition;
    let footprint = match &source {
        Source::Profile { spec, .. } => Some(spec.footprint_bytes),
        Source::Requests(v) => v.iter().map(|r| r.offset + r.size as u64).max(),
        Source::Trace { path, opts } if pre.span == PreconditionSpan::Footprint && pre.valid > 0.0 => {
            Some(trace_extent(py, path, opts, &mut scanned).map_err(to_py)?.end_bytes)
        }
        Source::Trace { .. } => None,
    };
    let kept = requests_parquet.is_none() && cfg.run.record_requests;
    let replay = (pre.steady_writes > 0.0).then(|| source.replay());
    let again = pre.reads_workload_before_run().then(|| source.again());
    let outcome = py.allow_threads(|| {
        let mut src = source.open()?;
        let mut sim = Simulation::new(cfg)?;
        if let Some(b) = footprint {
            sim.set_footprint(b);
        }
        if let Some(r) = replay {
            sim.set_replay(r);
        }
        if let Some(a) = again {
            sim.set_again(a);
        }
        let name = src.name();
        let sink = match &requests_parquet {
            Some(path) => RequestSink::Parquet(ParquetSink::create(path)?),
            None if sim.config().run.record_requests => RequestSink::Memory,
            None => RequestSink::Discard,
        };
        if in_memory {
            let result = sim.run_with_sink(&mut src, &name, &mut prog, sink)?;
            return Ok::<_, detour_core::Error>((result, src.info()));
        }
        let mut ahead = ReadAhead::spawn(src)?;
        let result = sim.run_with_sink(&mut ahead, &name, &mut prog, sink);
        let src = ahead.finish().ok_or_else(|| detour_core::Error::Sim(format!("reading {name} failed")))?;
        Ok((result?, src.info()))
    });
    let (result, info) = match outcome {
        Ok(v) => v,
        Err(e) if e.kind() == ErrorKind::Interrupted && prog.error.is_some() => return Err(prog.error.take().unwrap_or_else(|| to_py(e))),
        Err(e) => return Err(to_py(e)),
    };
    Ok((
        metrics::summary_json(&result.summary)?,
        metrics::columns(py, result.requests, kept)?,
        metrics::to_json(&result.verify_failures)?,
        metrics::to_json(&info)?,
        metrics::pairs(py, &result.collision_pairs)?,
        metrics::timeseries(py, result.timeseries)?,
    ))
}
