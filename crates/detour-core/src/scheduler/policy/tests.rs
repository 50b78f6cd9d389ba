//! The registry, and docs/extending.md's recipe: its example variant is
//! `tests/background_first.rs`, registered here as the doc says.

use super::*;
use crate::device::OpKind;
use crate::policy::tests::{check_registry, check_registry_line, recipe};

crate::registry! {
    /// The doc's example, registered as a real variant is.
    const EXAMPLES: &[Variant] = [
        background_first,
    ];
}

#[test]
fn registry_is_sound_and_holds_the_shipped_policies() {
    check_registry::<Orders>();
    // The names configs already use; more may follow (one file, one line).
    let names: Vec<&str> = list().into_iter().map(|(n, _)| n).collect();
    assert!(["priority", "fcfs", "out-of-order"].iter().all(|n| names.contains(n)), "{names:?}");
}

#[test]
fn the_docs_recipe_is_the_example_compiled_here() {
    let (file, registry) = recipe("## A scheduling policy");
    assert_eq!(
        file,
        include_str!("tests/background_first.rs"),
        "docs/extending.md's example differs from scheduler/policy/tests/background_first.rs"
    );
    check_registry_line(registry, include_str!("mod.rs"), include_str!("tests.rs"));
}

#[test]
fn the_docs_example_serves_background_work_first() {
    let v = crate::policy::find(EXAMPLES, "scheduler.order", "background-first").unwrap();
    assert!(
        REGISTRY.iter().all(|r| r.name != v.name),
        "the example's name is registered for real: rename the example in docs/extending.md and its copy here"
    );
    let p = Policy::of(v, true, 2);
    let mut ops = OpSlab::default();
    let mut qs: Queues = Default::default();
    for class in [Class::HostRead, Class::Background] {
        let id = ops.insert(crate::scheduler::tests::op(OpKind::Read, class, 0));
        qs[p.queue_of(class)].push_back(id, &mut ops);
    }
    assert_eq!(p.pick(&qs, &ops, false).map(|k| k.queue), Some(2));
    assert_eq!(p.batch_scan(2), BatchScan { queues: [2, 0, 0], n: 1, depth: 4 });
}
