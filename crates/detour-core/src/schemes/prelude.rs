//! What a scheme's file needs, in one import: `use super::prelude::*;`.
//! Everything here is public, so a scheme written against it also
//! compiles out of tree (docs/extending.md; tests/extending.rs does).

pub use super::registry::{Env, SchemeEntry, SchemeSection, Section};
pub use super::{Ctx, OpDone, Plan, Scheme, Stall};
pub use crate::config::DeviceConfig;
pub use crate::device::{Geometry, OpKind};
pub use crate::error::{Error, Result};
pub use crate::ftl::Stream;
pub use crate::scheduler::Class;
pub use crate::types::{Lpn, Owner, Ppn, Time, Token, NO_PAGE};
pub use serde::{Deserialize, Serialize};
pub use std::ops::Range;
