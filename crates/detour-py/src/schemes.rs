//! The catalogues: schemes and the policy families.

use detour_core::schemes::SCHEMES;
use pyo3::prelude::*;

/// What Python reads of a scheme's registry entry.
type SchemeFacts = (&'static str, &'static str, &'static str, Vec<&'static str>, Option<&'static str>, Option<&'static str>);

/// `(name, description, config section, activity counters, colour,
/// baseline)` of every registered scheme, in the registry's order: the
/// section is "" for a scheme without one, the colour None for one the
/// plots derive from the name, the baseline None for `conventional`.
#[pyfunction]
pub fn schemes() -> Vec<SchemeFacts> {
    let facts = |e: &'static detour_core::schemes::SchemeEntry| {
        (e.name, e.about, e.section.map_or("", |s| s.key), e.activity.to_vec(), e.colour, e.measured_against())
    };
    SCHEMES.iter().map(facts).collect()
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
