//! The registry, the directory, and docs/extending.md's recipe: its
//! example variant is `tests/direct.rs`, registered here as the doc says.

use super::*;
use crate::config::Config;
use crate::policy::tests::{check_registry, check_registry_line, recipe};

crate::registry! {
    /// The doc's example, registered as a real variant is.
    const EXAMPLES: &[Variant] = [
        direct,
    ];
}

#[test]
fn registry_is_sound_and_holds_the_shipped_mappings() {
    check_registry::<Mappings>();
    // The names configs already use; more may follow (one file, one line).
    let names: Vec<&str> = list().into_iter().map(|(n, _)| n).collect();
    assert!(["dram", "cmt"].iter().all(|n| names.contains(n)), "{names:?}");
}

/// A mapping of `name` on the small preset with 8 KiB of table.
fn mapping(name: &str) -> Mapping {
    let mut cfg = Config::preset("small").unwrap();
    (cfg.ftl.mapping, cfg.ftl.cmt_size_kib) = (name.parse().unwrap(), 8);
    Mapping::new(&cfg.ftl, &Geometry::from_config(&cfg.device).unwrap()).unwrap()
}

#[test]
fn dram_looks_nothing_up_and_reports_nothing() {
    let mut m = mapping("dram");
    let mut out = Vec::new();
    m.lookup(0, 4, |_| true, &mut out);
    assert!(m.is_dram() && out.is_empty() && m.stats().is_none());
    assert_eq!((m.pages_on_flash(), m.location(0)), (0, NO_PAGE));
}

#[test]
fn lookups_are_counted_per_translation_page() {
    let mut m = mapping("cmt");
    let (e, mut out) = (m.entries_per_page, Vec::new());
    m.lookup(e - 10, 20, |_| false, &mut out); // translation pages 0 and 1
    m.lookup(e - 10, 1, |_| true, &mut out);
    assert_eq!(out.iter().map(|&(t, a)| (t, a.hit)).collect::<Vec<_>>(), [(0, false), (1, false), (0, true)]);
    let s = m.stats().unwrap();
    assert_eq!((s.lookups, s.hits, s.cmt_pages), (3, 1, 8192 / (4 * e as u64)));
    assert!((s.hit_ratio - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn gc_move_follows_only_the_current_copy() {
    let mut m = mapping("cmt");
    m.relocate(2, 100);
    m.moved(2, 99, 7);
    assert_eq!(m.location(2), 100);
    m.moved(2, 100, 7);
    assert_eq!((m.location(2), m.stats().unwrap().gc_moves), (7, 1));
}

#[test]
fn the_docs_recipe_is_the_example_compiled_here() {
    let (file, registry) = recipe("## A mapping");
    assert_eq!(file, include_str!("tests/direct.rs"), "docs/extending.md's example differs from ftl/mapping/tests/direct.rs");
    check_registry_line(registry, include_str!("mod.rs"), include_str!("tests.rs"));
}

#[test]
fn the_docs_example_holds_a_page_in_its_slot_only() {
    let v = crate::policy::find(EXAMPLES, "ftl.mapping", "direct").unwrap();
    assert!(
        REGISTRY.iter().all(|r| r.name != v.name),
        "the example's name is registered for real: rename the example in docs/extending.md and its copy here"
    );
    let mut cfg = Config::preset("small").unwrap();
    (cfg.device.page_size, cfg.ftl.cmt_size_kib) = (4096, 8);
    let geo = crate::device::Geometry::from_config(&cfg.device).unwrap();
    (v.check)(&cfg.ftl, &geo).unwrap();
    let mut c = (v.build)(&cfg.ftl, &geo, 10).expect("a cache");
    assert_eq!(c.capacity(), 2);
    assert_eq!(c.access(0, true), Access { hit: false, write_back: None });
    assert_eq!(c.access(1, false), Access { hit: false, write_back: None });
    assert!(c.access(0, false).hit);
    assert_eq!(c.access(2, false), Access { hit: false, write_back: Some(0) }, "2 takes 0's slot");
}
