//! The registry, and docs/extending.md's recipe: its example variant is
//! `tests/first.rs`, registered here as the doc says.

use super::*;
use crate::policy::tests::{check_registry, check_registry_line, recipe};

crate::registry! {
    /// The doc's example, registered as a real variant is.
    const EXAMPLES: &[Variant] = [
        first,
    ];
}

#[test]
fn registry_is_sound_and_holds_the_shipped_policies() {
    check_registry::<Victims>();
    // The names configs already use; more may follow (one file, one line).
    let names: Vec<&str> = list().into_iter().map(|(n, _)| n).collect();
    assert!(["greedy", "cost-benefit", "random", "fifo"].iter().all(|n| names.contains(n)), "{names:?}");
}

#[test]
fn the_docs_recipe_is_the_example_compiled_here() {
    let (file, registry) = recipe("## A GC victim policy");
    assert_eq!(file, include_str!("tests/first.rs"), "docs/extending.md's example differs from ftl/gc/victim/tests/first.rs");
    check_registry_line(registry, include_str!("mod.rs"), include_str!("tests.rs"));
}

#[test]
fn the_docs_example_takes_the_first_candidate() {
    let v = crate::policy::find(EXAMPLES, "ftl.gc_policy", "first").unwrap();
    assert!(
        REGISTRY.iter().all(|r| r.name != v.name),
        "the example's name is registered for real: rename the example in docs/extending.md and its copy here"
    );
    let mut p = (v.build)(&crate::config::FtlConfig::default(), 0, 8);
    assert_eq!(p.pick(&[(5, 60), (2, 1)], 64), Some(5));
}
