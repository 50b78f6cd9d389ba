//! The one error type of the core. Every variant names where the problem is
//! (file and line, config key, request) and why; nothing in the core panics on
//! user input. The Python bindings map each [`ErrorKind`] to its own exception.

use std::fmt;

/// Result alias used across the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A trace line could not be parsed, or an address falls outside the
    /// device's logical space.
    /// Line 0 stands for the file as a whole (empty, or no line to blame):
    /// it is left out of the message rather than printed as `:0:`.
    #[error("{file}{}: {reason}", line_suffix(*line))]
    Trace { file: String, line: u64, reason: String },

    /// A configuration key is unknown, missing, of the wrong type or out of range.
    #[error("config key `{key}`: {reason}")]
    Config { key: String, reason: String },

    /// The device geometry cannot be built (zero counts, address space overflow,
    /// over-provisioning leaving no logical space, ...).
    #[error("impossible geometry: {0}")]
    Geometry(String),

    /// A file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },

    /// The simulation itself cannot go on: an event scheduled in the past,
    /// requests that can never complete (device full), time going backwards.
    #[error("simulation: {0}")]
    Sim(String),

    /// The run was stopped by its caller (Ctrl-C through the progress hook).
    #[error("interrupted after {done} of the workload's requests")]
    Interrupted { done: u64 },
}

/// The category of an [`Error`], stable for bindings to dispatch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Trace,
    Config,
    Geometry,
    Io,
    Sim,
    Interrupted,
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Trace { .. } => ErrorKind::Trace,
            Error::Config { .. } => ErrorKind::Config,
            Error::Geometry(_) => ErrorKind::Geometry,
            Error::Io { .. } => ErrorKind::Io,
            Error::Sim(_) => ErrorKind::Sim,
            Error::Interrupted { .. } => ErrorKind::Interrupted,
        }
    }

    pub fn config(key: impl Into<String>, reason: impl fmt::Display) -> Self {
        Error::Config { key: key.into(), reason: reason.to_string() }
    }

    pub fn trace(file: impl Into<String>, line: u64, reason: impl fmt::Display) -> Self {
        Error::Trace { file: file.into(), line, reason: reason.to_string() }
    }

    pub fn io(path: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

/// `:N` for a real line, nothing for line 0 (the file as a whole).
fn line_suffix(line: u64) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}

/// Return early with an [`Error::Config`] unless `cond` holds.
#[macro_export]
macro_rules! ensure_config {
    ($cond:expr, $key:expr, $($fmt:tt)+) => {
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !$cond {
            return Err($crate::error::Error::config($key, format!($($fmt)+)));
        }
    };
}
