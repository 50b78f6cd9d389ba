//! The one place where core errors become Python exceptions: each
//! [`ErrorKind`] has its own class, all deriving from `DetourError`.
//!
//! | core kind     | Python class                                   |
//! |---------------|------------------------------------------------|
//! | `Trace`       | `TraceError(DetourError)`                      |
//! | `Config`      | `ConfigError(DetourError)`                     |
//! | `Geometry`    | `GeometryError(DetourError)`                   |
//! | `Io`          | `DetourIOError(DetourError, OSError)`          |
//! | `Sim`         | `SimulationError(DetourError)`                 |
//! | `Interrupted` | the built-in `KeyboardInterrupt`               |

use detour_core::{Error, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyOSError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyTuple, PyType};

create_exception!(detour, DetourError, PyException, "Base class of every error Detour raises.");
create_exception!(detour, TraceError, DetourError, "A trace line could not be parsed, or an address is outside the device.");
create_exception!(detour, ConfigError, DetourError, "A configuration key is unknown, of the wrong type or out of range.");
create_exception!(detour, GeometryError, DetourError, "The device geometry cannot be built.");
create_exception!(detour, SimulationError, DetourError, "The simulation cannot go on (for example the device is full).");

/// `DetourIOError` derives from both `DetourError` and `OSError`, which
/// `create_exception!` cannot express, so it is made once with `type()`.
static IO_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

pub fn io_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    IO_ERROR
        .get_or_try_init(py, || {
            let bases = PyTuple::new(py, [py.get_type::<DetourError>(), py.get_type::<PyOSError>()])?;
            let ns = PyDict::new(py);
            ns.set_item("__module__", "detour")?;
            ns.set_item("__doc__", "A file could not be opened, read or written (also an OSError).")?;
            let ty = py.get_type::<PyType>().call1(("DetourIOError", bases, ns))?;
            Ok(ty.downcast_into::<PyType>()?.unbind())
        })
        .map(|t| t.bind(py))
}

/// Convert a core error to the Python exception of its kind.
pub fn to_py(err: Error) -> PyErr {
    let msg = err.to_string();
    match err.kind() {
        ErrorKind::Trace => TraceError::new_err(msg),
        ErrorKind::Config => ConfigError::new_err(msg),
        ErrorKind::Geometry => GeometryError::new_err(msg),
        ErrorKind::Sim => SimulationError::new_err(msg),
        ErrorKind::Interrupted => PyKeyboardInterrupt::new_err(msg),
        ErrorKind::Io => Python::with_gil(|py| {
            let ty = match io_error_type(py) {
                Ok(t) => t.clone(),
                Err(e) => return e,
            };
            match &err {
                // OSError(errno, strerror, filename) sets .errno, .strerror and .filename.
                Error::Io { path, source } => match source.raw_os_error() {
                    Some(errno) => {
                        let text = source.to_string();
                        let strerror = text.split(" (os error").next().unwrap_or(&text).to_string();
                        PyErr::from_type(ty, (errno, strerror, path.clone()))
                    }
                    None => PyErr::from_type(ty, (msg,)),
                },
                _ => PyErr::from_type(ty, (msg,)),
            }
        }),
    }
}

/// `.py()?` turns a core `Result` into a `PyResult`.
pub trait ToPyResult<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> ToPyResult<T> for detour_core::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("DetourError", py.get_type::<DetourError>())?;
    m.add("TraceError", py.get_type::<TraceError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("GeometryError", py.get_type::<GeometryError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("DetourIOError", io_error_type(py)?)?;
    Ok(())
}
