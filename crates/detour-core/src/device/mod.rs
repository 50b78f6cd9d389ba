//! The flash device: geometry (channels > chips > dies > planes > blocks >
//! pages), addressing, operation timing, and the per-die and per-channel
//! state machines that the scheduler drives.

mod flash;
mod geometry;
pub mod nand;
mod timing;

pub use crate::config::AllocOrder;
pub use flash::{ChannelState, DieState, Phase, Suspended};
pub use geometry::{Divisor, Geometry};
pub use timing::Timing;

/// Planes per die the multi-plane batches are sized for.
pub const MAX_PLANES: usize = 16;

/// The kind of a flash array operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Read,
    Program,
    Erase,
}
