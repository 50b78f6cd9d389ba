//! # DRAM mapping
//!
//! **What:** the whole page-level map in the controller's DRAM: every
//! lookup hits and costs no flash operation (`ftl.mapping = "dram"`). It
//! builds no cache, so the simulator skips translation altogether.
//!
//! **Why:** the default, as MQSim's `Ideal_Mapping_Table` and SSDSim; the
//! baseline the cached table is measured against.

use super::Variant;

pub(super) const ENTRY: Variant = Variant {
    name: "dram",
    about: "the whole map in DRAM: every lookup free (default)",
    check: |_cfg, _geo| Ok(()),
    build: |_cfg, _geo, _pages| None,
};
