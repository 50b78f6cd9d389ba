//! # Detour core
//!
//! A trace-driven NAND-flash SSD simulator for studying how reads can be
//! routed around busy flash dies. This crate has no Python in it; the
//! `detour-py` crate wraps it and the `detour` Python package drives it.
//!
//! ## Layers, and how a request flows
//!
//! ```text
//! workload ──► sim (host interface) ──► schemes (+ ftl) ──► scheduler ──► device
//! (readers,     arrivals, pages,          plan flash ops:     die queues,    channels, dies,
//!  generator)   queue depth               where, which copy   priorities,    planes, timing
//!                   ▲                                         suspension        │
//!                   └────────────── completions ──► metrics ◄────────────────────┘
//! ```
//!
//! - [`engine`]: integer-ns time and the (time, sequence)-ordered event queue.
//! - [`device`]: geometry, addressing, timing, die and channel state.
//! - [`scheduler`]: per-die priority queues, multi-plane batches,
//!   program/erase suspension, channel arbitration.
//! - [`ftl`]: page state, allocation, GC, the shared page map.
//! - [`registry`]: the one registry mechanism, for schemes and every policy
//!   family; [`policy`]: the families (GC victim, scheduling order,
//!   mapping) and their config values: docs/extending.md.
//! - [`schemes`]: the [`schemes::Scheme`] trait and every scheme; a scheme
//!   only plans, it never touches the event queue.
//! - [`sim`]: the event loop joining them; [`sim::run`] is the entry point.
//! - [`metrics`]: exact latency statistics and per-request columns.
//! - [`workload`]: trace readers (one per format) and the synthetic generator.
//! - [`config`]: presets, TOML layers, range checks: plain data, importing
//!   nothing above it; [`setup`]: resolves its names against the registries
//!   and checks what needs the geometry; [`error`]: the error type.
//!
//! ```no_run
//! use detour_core::{config::Config, sim, workload::Request, IoKind};
//! let cfg = Config::preset("small").unwrap();
//! let reqs = vec![Request { time_ns: 0, offset: 0, size: 4096, kind: IoKind::Write, content: 0, volume: 0, line: 1 }];
//! let result = sim::run_requests(cfg, &reqs).unwrap();
//! println!("{}", serde_json::to_string_pretty(&result.summary).unwrap());
//! ```

pub mod config;
pub mod device;
pub mod engine;
pub mod error;
pub mod ftl;
pub mod metrics;
pub mod policy;
pub mod registry;
pub mod scheduler;
pub mod schemes;
pub mod setup;
pub mod sim;
pub mod types;
pub mod workload;

pub use error::{Error, ErrorKind, Result};
/// `crate::registry!`: the one registry macro (schemes and policies).
pub(crate) use registry::registry;
pub use types::*;
pub use workload::Request;
