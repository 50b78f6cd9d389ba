//! The layers of the core crate import only downward: a file of one layer
//! may name (`crate::...`) only modules of the layers below it. Sibling
//! layers on one row know nothing of each other. docs/architecture.md
//! draws the same order; a new top-level module must be given its row here.

use std::path::{Path, PathBuf};

/// Bottom first. `error` and `types` are the leaves every layer uses;
/// configuration is data, so it sits just above them; `setup` resolves
/// names against the registries and checks the geometry; `workload` is
/// read by the host interface alone, so the schemes never see a trace's
/// request.
const LAYERS: &[&[&str]] = &[
    &["error", "types"],
    &["registry"],
    &["config"],
    &["engine", "device", "policy"],
    &["scheduler"],
    &["ftl"],
    &["metrics"],
    &["schemes"],
    &["setup", "workload"],
    &["sim"],
];

/// Items of the crate root that are not modules, and where they live.
const ROOT_ITEMS: &[(&str, &str)] =
    &[("Error", "error"), ("ErrorKind", "error"), ("Result", "error"), ("ensure_config", "error"), ("Request", "workload")];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn level(module: &str) -> Option<usize> {
    LAYERS.iter().position(|row| row.contains(&module))
}

/// The module a root-level name belongs to: a module itself, a re-exported
/// item of `types.rs` (`pub use types::*`), or one of [`ROOT_ITEMS`].
fn owner(name: &str, types_items: &[String]) -> Option<String> {
    if level(name).is_some() {
        return Some(name.to_string());
    }
    if types_items.iter().any(|t| t == name) {
        return Some("types".into());
    }
    ROOT_ITEMS.iter().find(|(n, _)| *n == name).map(|(_, m)| m.to_string())
}

/// The public items `types.rs` defines.
fn types_items() -> Vec<String> {
    let text = std::fs::read_to_string(src().join("types.rs")).expect("src/types.rs");
    let kinds = ["pub const fn ", "pub fn ", "pub type ", "pub const ", "pub struct ", "pub enum "];
    text.lines()
        .filter_map(|l| kinds.iter().find_map(|k| l.strip_prefix(k)))
        .map(|rest| rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
        .collect()
}

/// A line with its `//` comment cut and its string literals blanked, so
/// that a path in a message or a comment is not taken for an import.
fn code(line: &str) -> String {
    let (mut out, mut in_str, mut prev) = (String::new(), false, ' ');
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if prev != '\\' => in_str = !in_str,
            '/' if !in_str && chars.peek() == Some(&'/') => break,
            _ if in_str => out.push(' '),
            _ => out.push(c),
        }
        prev = if prev == '\\' && c == '\\' { ' ' } else { c };
    }
    out
}

/// The root-level names after each `crate::` in `text` (both of
/// `crate::{a, b::c}`), with their line numbers.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = code(line);
        let mut rest = line.as_str();
        while let Some(i) = rest.find("crate::") {
            let before = rest[..i].chars().last();
            rest = &rest[i + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `detour_crate::`, not this crate
            }
            let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
            if let Some(group) = rest.strip_prefix('{') {
                for part in split_top(group) {
                    let name = ident(part.trim_start());
                    if !name.is_empty() {
                        out.push((n + 1, name));
                    }
                }
            } else {
                let name = ident(rest);
                if !name.is_empty() {
                    out.push((n + 1, name));
                }
            }
        }
    }
    out
}

/// The comma-separated parts of a `{...}` group at its top level.
fn split_top(group: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut from) = (Vec::new(), 0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                parts.push(&group[from..i]);
                return parts;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&group[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&group[from..]);
    parts
}

/// Every `.rs` file under `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("a readable dir").map(|e| e.expect("an entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

/// The upward imports in `text`, a file of `module`, as messages.
fn upward(module: &str, file: &str, text: &str, types: &[String]) -> Vec<String> {
    let mine = level(module).unwrap_or_else(|| panic!("module `{module}` has no row in LAYERS (tests/layers.rs)"));
    let mut out = Vec::new();
    for (line, name) in crate_paths(text) {
        let Some(target) = owner(&name, types) else {
            out.push(format!("{file}:{line}: crate::{name} is neither a module nor a known root item (tests/layers.rs)"));
            continue;
        };
        if target != module && level(&target).is_some_and(|l| l >= mine) {
            out.push(format!(
                "{file}:{line}: {module} (layer {mine}) imports crate::{name} ({target}, layer {})",
                level(&target).unwrap_or(0)
            ));
        }
    }
    out
}

/// The top-level module of a file of src/ (None for lib.rs).
fn module_of(path: &Path) -> Option<String> {
    let rel = path.strip_prefix(src()).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib").then(|| name.to_string())
}

#[test]
fn no_layer_imports_one_above_it() {
    let types = types_items();
    let mut bad = Vec::new();
    let mut seen = Vec::new();
    for path in files(&src()) {
        let Some(module) = module_of(&path) else { continue };
        let text = std::fs::read_to_string(&path).expect("a readable source file");
        let file = path.strip_prefix(src()).unwrap_or(&path).display().to_string();
        bad.extend(upward(&module, &file, &text, &types));
        if !seen.contains(&module) {
            seen.push(module);
        }
    }
    assert!(bad.is_empty(), "upward imports (layers bottom first: {LAYERS:?}):\n{}", bad.join("\n"));
    for row in LAYERS {
        for m in *row {
            assert!(seen.iter().any(|s| s == m), "LAYERS names `{m}`, which src/ does not have");
        }
    }
}

/// The check itself: it sees an upward path however it is written, and
/// lets downward and same-module paths pass.
#[test]
fn the_check_sees_upward_paths() {
    let types = types_items();
    let up = "use crate::schemes::registry;\nlet x = crate::ftl::GC_RESERVE; // crate::sim in a comment\n\
              use crate::{error::Result, setup::check};\nlet r: crate::Request;";
    let found = upward("config", "config/x.rs", up, &types);
    assert_eq!(found.len(), 4, "{found:#?}");
    for (want, line) in [("schemes", 1), ("ftl", 2), ("setup", 3), ("workload", 4)] {
        assert!(found.iter().any(|m| m.contains(&format!(":{line}:")) && m.contains(want)), "{want}: {found:#?}");
    }
    let fine = "use crate::config::Config;\nuse crate::error::{Error, Result};\nuse crate::types::Lpn;\n\
                let s = \"crate::sim\";\nuse crate::scheduler::Class;";
    assert_eq!(upward("ftl", "ftl/x.rs", fine, &types), Vec::<String>::new());
    assert_eq!(upward("device", "device/x.rs", "use crate::policy::Choice;", &types).len(), 1, "siblings are refused");
    assert_eq!(upward("types", "types.rs", "use crate::Lpn;", &types).len(), 0, "a module may name itself");
    assert_eq!(upward("workload", "workload/x.rs", "crate::ensure_config!(x); crate::Token", &types).len(), 0);
}
