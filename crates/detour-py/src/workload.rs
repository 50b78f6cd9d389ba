//! Workloads: where a run's requests come from (a trace file, a synthetic
//! profile, or arrays handed over from Python), and trace utilities.

use detour_core::workload::Request;
use detour_core::IoKind;
use numpy::{Element, PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A workload, fully resolved while the GIL is held, to be opened without it.
pub enum Source {
    Requests(Vec<Request>),
}

/// An opened workload: a request stream plus what it counted.
pub enum Opened {
    Requests(std::vec::IntoIter<Request>),
}

impl Source {
    pub fn open(self) -> detour_core::Result<Opened> {
        Ok(match self {
            Source::Requests(v) => Opened::Requests(v.into_iter()),
        })
    }
}

impl Opened {
    /// The name errors and `summary.workload.source` use.
    pub fn name(&self) -> String {
        match self {
            Opened::Requests(_) => "<requests>".into(),
        }
    }

    /// `summary.workload`: source, format and the reader's counters.
    pub fn info(&self) -> serde_json::Value {
        match self {
            Opened::Requests(_) => serde_json::json!({
                "source": self.name(),
                "format": null,
                "skipped_malformed": 0,
                "clamped": 0,
                "filtered_out": 0,
            }),
        }
    }
}

impl Iterator for Opened {
    type Item = detour_core::Result<Request>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Opened::Requests(it) => it.next().map(Ok),
        }
    }
}

fn column<'py, T: Element + Copy>(d: &Bound<'py, PyDict>, key: &str, n: Option<usize>) -> PyResult<Option<Vec<T>>> {
    let Some(obj) = d.get_item(key)? else { return Ok(None) };
    let arr = obj.downcast::<PyArray1<T>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "requests[{key:?}] must be a 1-D numpy array of {}",
            std::any::type_name::<T>()
        ))
    })?;
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
