//! docs/extending.md stays true: its example scheme is the file compiled
//! here (`extending/delayed.rs`, built out of tree against the public
//! prelude), it runs and acts, its config section is read and checked, and
//! its registry line has the shape of the registry's own lines.

use detour_core::config::ConfigBuilder;
use detour_core::schemes::{prelude, registry, SCHEMES};
use detour_core::sim::{NoProgress, Simulation};
use detour_core::workload::generator::Generator;
use detour_core::workload::profiles::profile;
use detour_core::workload::Request;
use detour_core::IoKind;

#[path = "extending/delayed.rs"]
mod delayed;

const DOC: &str = include_str!("../../../docs/extending.md");
const REGISTRY: &str = include_str!("../src/schemes/mod.rs");

/// The first ```rust block after `heading`.
fn block_after(heading: &str) -> &'static str {
    let at = DOC.find(heading).unwrap_or_else(|| panic!("docs/extending.md has no `{heading}`"));
    let start = DOC[at..].find("```rust\n").expect("a rust block") + at + "```rust\n".len();
    let end = DOC[start..].find("```").expect("the block ends") + start;
    &DOC[start..end]
}

#[test]
fn the_doc_shows_the_example_file_exactly() {
    let file = include_str!("extending/delayed.rs");
    assert_eq!(block_after("### 1. The file"), file, "docs/extending.md and tests/extending/delayed.rs differ");
}

#[test]
fn the_docs_registry_block_is_the_registry_with_one_line_added() {
    // The doc shows the block as it reads after the edit: the registry's
    // head, its first line, `// ...`, the new line, and its close.
    let doc: Vec<&str> = block_after("### 2. The registry line").lines().collect();
    let at = REGISTRY.find("crate::registry! {\n").expect("the registry block");
    let real: Vec<&str> = REGISTRY[at..].lines().take_while(|l| *l != "}").collect();
    let open = real.iter().position(|l| l.ends_with("= [")).expect("the list opens with `= [`") + 1;
    assert_eq!(doc[..=open], real[..=open], "the doc's registry block opens differently from schemes/mod.rs's");
    assert_eq!(doc[open + 1..], ["        // ...", "        delayed,", "    ];", "}"], "the doc's registry block ends differently");
    assert_eq!(real.last(), Some(&"    ];"));
    for e in SCHEMES {
        assert_ne!(e.name, delayed::ENTRY.name, "the example is not registered");
    }
}

fn config(sets: &[&str]) -> detour_core::Result<detour_core::config::Config> {
    ConfigBuilder::from_preset("small")?
        .set_all(["scheme.name=delayed", "run.verify=true", "host.address=fold"])?
        .set_all(sets.iter().copied())?
        .build_with(&[delayed::ENTRY])
}

fn run(sets: &[&str], reqs: Vec<Request>) -> detour_core::sim::RunResult {
    let cfg = config(sets).expect("config");
    let scheme = registry::build_with(&cfg, &[delayed::ENTRY]).expect("build");
    let mut reqs = reqs.into_iter().map(Ok);
    Simulation::with_scheme(cfg, scheme).and_then(|s| s.run(&mut reqs, "requests", &mut NoProgress)).expect("run")
}

#[test]
fn the_example_runs_and_acts_under_load() {
    let mut p = profile("bench-like").expect("profile");
    p.requests = 3000;
    let reqs: Vec<Request> = Generator::new(&p).expect("generator").collect();
    let s = run(&[], reqs).summary;
    assert_eq!((s.verify_errors, s.requests), (0, 3000));
    assert!(s.scheme_counters["delayed.writes"] > 0.0);
    assert!(s.warnings.iter().all(|w| w.kind != "scheme_idle"), "{:?}", s.warnings);
}

#[test]
fn each_write_pays_the_delay_and_each_read_nothing() {
    // One request at a time (5 ms apart): no queueing to blur the difference.
    let kind = |i: u64| if i % 3 == 0 { IoKind::Read } else { IoKind::Write };
    let reqs: Vec<Request> = (0..60)
        .map(|i| Request { time_ns: i * 5_000_000, offset: (i % 20) * 4096, size: 4096, kind: kind(i), content: 0, volume: 0, line: i + 1 })
        .collect();
    let slow = run(&["scheme.delayed.write_us=200"], reqs.clone());
    let none = run(&["scheme.delayed.write_us=0"], reqs);
    for (i, (a, b)) in slow.requests.latency_ns.iter().zip(&none.requests.latency_ns).enumerate() {
        let extra = if kind(i as u64) == IoKind::Write { 200_000 } else { 0 };
        assert_eq!(*a, b + extra, "request {i}");
    }
}

#[test]
fn the_examples_section_is_completed_and_checked() {
    let cfg = config(&[]).expect("defaults");
    let section = cfg.scheme.sections.get("delayed").and_then(|v| v.as_table()).expect("written back");
    assert_eq!(section.get("write_us").and_then(|v| v.as_float()), Some(10.0));
    let err = config(&["scheme.delayed.write_us=5000"]).unwrap_err().to_string();
    assert!(err.contains("scheme.delayed.write_us") && err.contains("0..=1000"), "{err}");
    let err = config(&["scheme.delayed.write_ms=1"]).unwrap_err().to_string();
    assert!(err.contains("scheme.delayed.write_ms"), "{err}");
    // Unknown to the registry alone: the section and the name are refused.
    let err = ConfigBuilder::new().set("scheme.name", "delayed").and_then(|b| b.build()).unwrap_err().to_string();
    assert!(err.contains("scheme.name") && err.contains("conventional"), "{err}");
    let _ = prelude::NO_PAGE;
}

#[test]
fn the_readmes_schemes_are_registered_in_registry_order() {
    // The README names the shipped schemes; `detour schemes` is the full
    // list, so a new scheme needs no README edit.
    let readme = include_str!("../../../README.md");
    let at = readme.find("Schemes (`detour schemes` lists").expect("the README's list of schemes");
    let para = &readme[at..at + readme[at..].find("\n\n").unwrap_or(readme.len() - at)];
    let list = &para[para.find("):").expect("the list after the note") + 2..para.find(". How each").expect("its end")];
    let listed: Vec<&str> = list.split('`').skip(1).step_by(2).collect();
    let registered: Vec<&str> = SCHEMES.iter().map(|e| e.name).collect();
    let in_order: Vec<&str> = registered.iter().copied().filter(|n| listed.contains(n)).collect();
    assert_eq!(listed, in_order, "README.md names a scheme the registry does not hold, or out of its order (schemes/mod.rs)");
}
