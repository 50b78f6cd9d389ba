//! The catalogues: schemes and the policy families.

use detour_core::schemes::SCHEMES;
use pyo3::prelude::*;

/// `(name, description, config section)` of every registered scheme, in
/// the registry's order (the section is "" for a scheme without one).
#[pyfunction]
pub fn schemes() -> Vec<(&'static str, &'static str, &'static str)> {
    SCHEMES.iter().map(|e| (e.name, e.about, e.section.map_or("", |s| s.key))).collect()
}

/// `(config key, name, description)` of every registered policy of the
/// three families (GC victim, scheduling, mapping), each in its registry's order.
#[pyfunction]
pub fn policies() -> Vec<(&'static str, &'static str, &'static str)> {
    let families = [
        ("ftl.gc_policy", detour_core::ftl::victim::list()),
        ("scheduler.order", detour_core::scheduler::orders()),
        ("ftl.mapping", detour_core::ftl::mapping::list()),
    ];
    families.into_iter().flat_map(|(key, list)| list.into_iter().map(move |(name, about)| (key, name, about))).collect()
}
