//! # Detour core
//!
//! (guided tour written with the engine; see docs/architecture.md)

pub mod error;
pub mod types;
pub mod workload;

pub use error::{Error, ErrorKind, Result};
pub use types::*;
pub use workload::Request;
