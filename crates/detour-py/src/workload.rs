//! Workloads: where a run's requests come from (a trace file, a synthetic
//! profile, or arrays handed over from Python), and the trace utilities
//! (`formats`, `inspect_trace`, `convert_trace`).

use crate::error::{to_py, ToPyResult};
use crate::metrics::to_json;
use detour_core::sim::{Replay, Requests};
use detour_core::workload::generator::{Generator, SyntheticSpec};
use detour_core::workload::profiles::{apply_overrides, profile_names};
use detour_core::workload::reader::CoarseTime;
use detour_core::workload::{self as core_workload, profiles as core_profiles, Extent, Request, TraceFormat, TraceOptions, TraceStream};
use detour_core::{Error, IoKind};
use numpy::{Element, PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};

/// A workload, fully resolved while the GIL is held, to be opened without it.
pub enum Source {
    Trace { path: PathBuf, opts: TraceOptions },
    Profile { name: String, spec: Box<SyntheticSpec> },
    Requests(Vec<Request>),
}

/// An opened workload: a request stream plus what it counted.
// One per run: boxing the trace stream would save nothing worth an indirection.
#[allow(clippy::large_enum_variant)]
pub enum Opened {
    Trace(TraceStream),
    Profile { name: String, gen: Box<Generator>, n: u64 },
    Requests { it: std::vec::IntoIter<Request>, n: usize },
}

/// A trace's [`Extent`], read in one more pass (without the GIL) the first
/// time a setting needs it, then kept in `cache`.
pub fn trace_extent(py: Python<'_>, path: &Path, opts: &TraceOptions, cache: &mut Option<Extent>) -> detour_core::Result<Extent> {
    if let Some(e) = cache {
        return Ok(*e);
    }
    let e = py.allow_threads(|| core_workload::extent(core_workload::open_trace(path, opts)?))?;
    *cache = Some(e);
    Ok(e)
}

impl Source {
    /// The workload again, pass after pass, for
    /// `ftl.precondition.steady_writes`: a trace read again, a profile
    /// drawn again over its layout (without end), a request table as it is.
    pub fn replay(&self) -> Replay {
        match self {
            Source::Trace { path, opts } => {
                let (path, opts) = (path.clone(), opts.clone());
                Box::new(move |_| Ok(Box::new(core_workload::open_trace(&path, &opts)?) as Requests))
            }
            Source::Profile { spec, .. } => {
                // Drawn for as long as the replay reads (one pass), unless
                // it never writes: its own length then ends the pass, and
                // the replay says there is nothing to replay.
                let mut spec = spec.clone();
                if spec.read_ratio < 1.0 {
                    (spec.requests, spec.duration_s) = (u64::MAX, 0.0);
                }
                Box::new(move |pass| Ok(Box::new(Generator::redrawn(&spec, pass)?.map(Ok)) as Requests))
            }
            Source::Requests(v) => detour_core::sim::replay_of(v.clone()),
        }
    }

    /// The workload again, request for request as `open` gives it, for
    /// `ftl.precondition.place_reads = "before_run"`: a trace read again,
    /// a profile drawn again from its seed, a request table as it is.
    pub fn again(&self) -> Replay {
        match self {
            Source::Trace { .. } | Source::Requests(_) => self.replay(),
            Source::Profile { spec, .. } => {
                let spec = spec.clone();
                Box::new(move |_| Ok(Box::new(Generator::new(&spec)?.map(Ok)) as Requests))
            }
        }
    }

    pub fn open(self) -> detour_core::Result<Opened> {
        Ok(match self {
            Source::Trace { path, opts } => Opened::Trace(core_workload::open_trace(&path, &opts)?),
            Source::Profile { name, spec } => Opened::Profile { name, gen: Box::new(Generator::new(&spec)?), n: 0 },
            Source::Requests(v) => Opened::Requests { n: v.len(), it: v.into_iter() },
        })
    }
}

impl Opened {
    /// The name errors and `summary.workload.source` use.
    pub fn name(&self) -> String {
        match self {
            Opened::Trace(t) => t.path().display().to_string(),
            Opened::Profile { name, .. } => format!("profile:{name}"),
            Opened::Requests { .. } => "<requests>".into(),
        }
    }

    /// `summary.workload` of requests no reader parsed: nothing skipped.
    fn generated_info(&self, kind: &str, n: u64) -> serde_json::Value {
        serde_json::json!({
            "source": self.name(),
            "kind": kind,
            "format": null,
            "requests": n,
            "skipped_malformed": 0,
            "clamped": 0,
            "filtered_out": 0,
            "ignored": 0,
            "backwards": 0,
            "max_step_back_ns": 0,
            "reordered": 0,
            "reorder_window_ns": 0,
            "time_resolution_ns": 0,
            "spread": 0,
        })
    }

    /// `summary.workload`: source, format and the reader's counters.
    pub fn info(&self) -> serde_json::Value {
        match self {
            Opened::Trace(t) => stream_info(t),
            Opened::Profile { gen, n, .. } => {
                let mut v = self.generated_info("profile", *n);
                v["spec"] = serde_json::to_value(gen.spec()).unwrap_or(serde_json::Value::Null);
                v
            }
            Opened::Requests { n, .. } => self.generated_info("requests", *n as u64),
        }
    }
}

fn stream_info(t: &TraceStream) -> serde_json::Value {
    serde_json::json!({
        "source": t.path().display().to_string(),
        "kind": "trace",
        "format": t.format().name(),
        "requests": t.requests(),
        "skipped_malformed": t.skipped_malformed(),
        "clamped": t.clamped(),
        "filtered_out": t.filtered_out(),
        "ignored": t.ignored(),
        "backwards": t.backwards(),
        "max_step_back_ns": t.max_step_back_ns(),
        "reordered": t.reordered(),
        "reorder_window_ns": t.reorder_window_ns(),
        "time_resolution_ns": t.time_resolution_ns(),
        "spread": t.spread(),
    })
}

impl Iterator for Opened {
    type Item = detour_core::Result<Request>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Opened::Trace(t) => t.next(),
            Opened::Profile { gen, n, .. } => {
                let r = gen.next()?;
                *n += 1;
                Some(Ok(r))
            }
            Opened::Requests { it, .. } => it.next().map(Ok),
        }
    }
}

/// Reader options from the Python keyword arguments.
pub fn trace_options(
    format: Option<&str>,
    skip_malformed: bool,
    volume: Option<u32>,
    clamp_backwards_time: bool,
    keep_absolute_time: bool,
) -> PyResult<TraceOptions> {
    let format = format.map(|f| f.parse::<TraceFormat>()).transpose().py()?;
    Ok(TraceOptions { format, volume, skip_malformed, keep_absolute_time, clamp_backwards_time, ..Default::default() })
}

/// `coarse_time` from its Python name: "spread" or "keep".
pub fn coarse_time_from(name: &str) -> PyResult<CoarseTime> {
    match name {
        "spread" => Ok(CoarseTime::Spread),
        "keep" => Ok(CoarseTime::Keep),
        other => Err(PyValueError::new_err(format!("coarse_time: expected \"spread\" or \"keep\", not {other:?}"))),
    }
}

/// Names of every trace format, in auto-detection priority order.
#[pyfunction]
pub fn formats() -> Vec<&'static str> {
    TraceFormat::ALL.iter().map(|f| f.name()).collect()
}

/// Read a whole trace and return its statistics as JSON.
#[pyfunction]
#[pyo3(signature = (path, *, format=None, skip_malformed=false, volume=None, clamp_backwards_time=false))]
pub fn inspect_trace(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    skip_malformed: bool,
    volume: Option<u32>,
    clamp_backwards_time: bool,
) -> PyResult<String> {
    let mut opts = trace_options(format, skip_malformed, volume, clamp_backwards_time, false)?;
    // Report disorder instead of refusing it (unless asked to clamp);
    // absolute times keep requests before the first line's time exact.
    opts.keep_disorder = !clamp_backwards_time;
    opts.keep_absolute_time = opts.keep_disorder;
    let stats = py.allow_threads(|| core_workload::inspect(core_workload::open_trace(&path, &opts)?)).py()?;
    to_json(&stats)
}

/// Value popularity (RR-SSD rr-4) of a trace or a synthetic profile, as
/// JSON: read/write CDFs, the share of values serving 80% of reads, and per
/// day new values and persistence. Give `path` or one of `profile` / `spec_toml`.
#[pyfunction]
#[pyo3(signature = (path=None, profile=None, *, spec_toml=None, overrides=Vec::new(), format=None, skip_malformed=false, volume=None, clamp_backwards_time=false, day_s=86_400.0, points=100))]
#[allow(clippy::too_many_arguments)]
pub fn value_popularity(
    py: Python<'_>,
    path: Option<PathBuf>,
    profile: Option<&str>,
    spec_toml: Option<&str>,
    overrides: Vec<String>,
    format: Option<&str>,
    skip_malformed: bool,
    volume: Option<u32>,
    clamp_backwards_time: bool,
    day_s: f64,
    points: usize,
) -> PyResult<String> {
    if !(day_s.is_finite() && day_s > 0.0) {
        return Err(to_py(Error::config("day_s", format!("{day_s} must be > 0"))));
    }
    let source = match path {
        Some(path) => Source::Trace { path, opts: trace_options(format, skip_malformed, volume, clamp_backwards_time, false)? },
        None => {
            let (name, spec) = resolve_spec(profile, spec_toml, &overrides)?;
            Source::Profile { name, spec: Box::new(spec) }
        }
    };
    let mut error = None;
    let outcome = py.allow_threads(|| {
        let mut it = Interruptible { inner: source.open()?, n: 0, error: None };
        let mut failed = None;
        let requests = std::iter::from_fn(|| match it.next()? {
            Ok(r) => Some(r),
            Err(e) => {
                failed = Some(e);
                None
            }
        });
        let p = core_workload::popularity(requests, day_s, points);
        error = it.error.take();
        failed.map_or(Ok(p), Err)
    });
    match outcome {
        Ok(p) => to_json(&p),
        Err(e) => Err(error.unwrap_or_else(|| to_py(e))),
    }
}

/// Stop a stream with `Error::Interrupted` when Ctrl-C is pressed (checked
/// every 65,536 requests), remembering the Python exception to re-raise.
struct Interruptible<I> {
    inner: I,
    n: u64,
    error: Option<PyErr>,
}

impl<I: Iterator<Item = detour_core::Result<Request>>> Iterator for Interruptible<I> {
    type Item = detour_core::Result<Request>;
    fn next(&mut self) -> Option<Self::Item> {
        self.n += 1;
        if self.n & 0xFFFF == 0 {
            if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                self.error = Some(e);
                return Some(Err(Error::Interrupted { done: self.n - 1 }));
            }
        }
        self.inner.next()
    }
}

/// Convert `src` to format `to`, written to `dst` (replaced if it exists).
/// Returns `(requests_written, workload_json)`.
#[pyfunction]
#[pyo3(signature = (src, dst, to, *, format=None, skip_malformed=false, volume=None, clamp_backwards_time=false, keep_absolute_time=false))]
#[allow(clippy::too_many_arguments)]
pub fn convert_trace(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    to: &str,
    format: Option<&str>,
    skip_malformed: bool,
    volume: Option<u32>,
    clamp_backwards_time: bool,
    keep_absolute_time: bool,
) -> PyResult<(u64, String)> {
    let to: TraceFormat = to.parse().py()?;
    let mut opts = trace_options(format, skip_malformed, volume, clamp_backwards_time, keep_absolute_time)?;
    // A conversion writes the times the trace gives; a run spreads them.
    opts.coarse_time = CoarseTime::Keep;
    let mut error = None;
    let outcome = py.allow_threads(|| {
        let stream = core_workload::open_trace(&src, &opts)?;
        let out = std::fs::File::create(&dst).map_err(|e| Error::io(dst.display().to_string(), e))?;
        let mut it = Interruptible { inner: stream, n: 0, error: None };
        let written = core_workload::write_trace(to, &mut it, out);
        error = it.error.take();
        Ok::<_, Error>((written?, stream_info(&it.inner)))
    });
    match outcome {
        Ok((n, info)) => Ok((n, to_json(&info)?)),
        Err(e) => Err(error.unwrap_or_else(|| to_py(e))),
    }
}

/// A synthetic spec: the named profile, or a TOML spec (which may start
/// with `profile = "name"`), then `"key=value"` overrides.
pub fn resolve_spec(profile: Option<&str>, spec_toml: Option<&str>, overrides: &[String]) -> PyResult<(String, SyntheticSpec)> {
    let (name, spec) = match (profile, spec_toml) {
        (Some(name), None) => (name.to_string(), core_profiles::profile(name).py()?),
        (None, Some(text)) => {
            let name = text
                .parse::<toml::Table>()
                .ok()
                .and_then(|t| t.get("profile").and_then(|v| v.as_str().map(str::to_string)))
                .unwrap_or_else(|| "custom".into());
            (name, SyntheticSpec::from_toml(text).py()?)
        }
        _ => return Err(PyValueError::new_err("give exactly one of profile and spec_toml")),
    };
    if overrides.is_empty() {
        return Ok((name, spec));
    }
    let mut pairs = Vec::with_capacity(overrides.len());
    for o in overrides {
        let (k, v) = o.split_once('=').ok_or_else(|| to_py(Error::config(o.as_str(), "a profile override must look like key=value")))?;
        pairs.push((k.trim(), v.trim()));
    }
    Ok((name, apply_overrides(&spec, &pairs).py()?))
}

/// `(name, description)` of every synthetic workload profile.
#[pyfunction]
pub fn profiles() -> Vec<(&'static str, &'static str)> {
    profile_names().to_vec()
}

/// The resolved synthetic spec as a TOML document (what `spec_toml` accepts).
#[pyfunction]
#[pyo3(signature = (profile=None, *, spec_toml=None, overrides=Vec::new()))]
pub fn profile_spec(profile: Option<&str>, spec_toml: Option<&str>, overrides: Vec<String>) -> PyResult<String> {
    let (_, spec) = resolve_spec(profile, spec_toml, &overrides)?;
    toml::to_string(&spec).map_err(|e| PyValueError::new_err(format!("cannot write the spec as TOML: {e}")))
}

/// Write a synthetic workload to `path` as trace format `to`. Returns the
/// number of requests written.
#[pyfunction]
#[pyo3(signature = (path, to, profile=None, *, spec_toml=None, overrides=Vec::new()))]
pub fn generate(
    py: Python<'_>,
    path: PathBuf,
    to: &str,
    profile: Option<&str>,
    spec_toml: Option<&str>,
    overrides: Vec<String>,
) -> PyResult<u64> {
    let to: TraceFormat = to.parse().py()?;
    let (_, spec) = resolve_spec(profile, spec_toml, &overrides)?;
    let mut error = None;
    let outcome = py.allow_threads(|| {
        let gen = Generator::new(&spec)?;
        let out = std::fs::File::create(&path).map_err(|e| Error::io(path.display().to_string(), e))?;
        let mut it = Interruptible { inner: gen.map(Ok), n: 0, error: None };
        let written = core_workload::write_trace(to, &mut it, out);
        error = it.error.take();
        written
    });
    outcome.map_err(|e| error.unwrap_or_else(|| to_py(e)))
}

fn column<'py, T: Element + Copy>(d: &Bound<'py, PyDict>, key: &str, n: Option<usize>) -> PyResult<Option<Vec<T>>> {
    let Some(obj) = d.get_item(key)? else { return Ok(None) };
    let arr = obj
        .downcast::<PyArray1<T>>()
        .map_err(|_| PyTypeError::new_err(format!("requests[{key:?}] must be a 1-D numpy array of {}", std::any::type_name::<T>())))?;
    let v: Vec<T> = arr.readonly().as_array().iter().copied().collect();
    if let Some(n) = n {
        if v.len() != n {
            return Err(PyValueError::new_err(format!("requests[{key:?}] has {} rows, time_ns has {n}", v.len())));
        }
    }
    Ok(Some(v))
}

/// Requests from a dict of equal-length 1-D arrays: `time_ns` (uint64),
/// `offset` (uint64, bytes), `size` (uint32, bytes), `is_write` (bool), and
/// optionally `content` (uint64) and `volume` (uint32).
pub fn requests_from_dict(d: &Bound<'_, PyDict>) -> PyResult<Vec<Request>> {
    for key in d.keys() {
        let k: String = key.extract()?;
        if !["time_ns", "offset", "size", "is_write", "content", "volume"].contains(&k.as_str()) {
            return Err(PyValueError::new_err(format!(
                "requests has an unknown column {k:?}; expected time_ns, offset, size, is_write, content, volume"
            )));
        }
    }
    let missing = |k: &str| PyValueError::new_err(format!("requests needs a {k:?} column"));
    let time: Vec<u64> = column(d, "time_ns", None)?.ok_or_else(|| missing("time_ns"))?;
    let n = Some(time.len());
    let offset: Vec<u64> = column(d, "offset", n)?.ok_or_else(|| missing("offset"))?;
    let size: Vec<u32> = column(d, "size", n)?.ok_or_else(|| missing("size"))?;
    let write: Vec<bool> = column(d, "is_write", n)?.ok_or_else(|| missing("is_write"))?;
    let content: Option<Vec<u64>> = column(d, "content", n)?;
    let volume: Option<Vec<u32>> = column(d, "volume", n)?;
    Ok((0..time.len())
        .map(|i| Request {
            time_ns: time[i],
            offset: offset[i],
            size: size[i],
            kind: if write[i] { IoKind::Write } else { IoKind::Read },
            content: content.as_ref().map_or(0, |c| c[i]),
            volume: volume.as_ref().map_or(0, |v| v[i]),
            line: i as u64 + 1,
        })
        .collect())
}
