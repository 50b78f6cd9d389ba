//! # DRAM mapping
//!
//! **What:** the whole page-level map in the controller's DRAM: every
//! lookup hits and costs no flash operation (`ftl.mapping = "dram"`).
//!
//! **Why:** the default, as MQSim's `Ideal_Mapping_Table` and SSDSim; the
//! baseline the cached table is measured against.

use super::Access;

#[derive(Clone, Copy, Debug, Default)]
pub struct Dram;

impl Dram {
    /// Every translation page is in DRAM.
    #[inline]
    pub fn access(&mut self, _tvpn: u32, _write: bool) -> Access {
        Access { hit: true, write_back: None }
    }
}
