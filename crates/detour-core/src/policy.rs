//! Policy families: the scheduling order (`scheduler.order`), the GC victim
//! (`ftl.gc_policy`) and the mapping (`ftl.mapping`). Each family is a
//! folder whose mod.rs holds its interface and its registry
//! (`crate::registry!`, the schemes' mechanism too), one line per variant,
//! and each variant is a file of its own exporting `ENTRY`: its name, a
//! one-line description and what it runs (docs/extending.md).
//!
//! The config holds a variant's name as plain text (config/ knows no
//! registry). A [`Choice`] can only hold a registered name: setup/ makes
//! one of each family's key when the config is built (the error names the
//! key and lists the known names), and a component makes its own when it
//! is built, so a config built by hand is refused the same way.

use crate::error::{Error, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

use crate::registry::unknown;
pub use crate::registry::{find, Entry};

/// A policy family: the key that names its variant, and its registry. The
/// key's default is the config's (config/), like every other default.
pub trait Family: 'static {
    type Variant: Entry;
    const KEY: &'static str;
    const ALL: &'static [Self::Variant];
}

/// (name, description) of every variant of `F`, in registry order.
pub fn list<F: Family>() -> Vec<(&'static str, &'static str)> {
    crate::registry::list(F::ALL)
}

/// A registered variant of family `F`, as a config value: written and read
/// as its name.
pub struct Choice<F: Family> {
    variant: &'static F::Variant,
    family: PhantomData<fn() -> F>,
}

impl<F: Family> Choice<F> {
    /// The variant `name`, or an error naming `F::KEY` and the known names.
    pub fn named(name: &str) -> Result<Self> {
        find(F::ALL, F::KEY, name).map(|variant| Choice { variant, family: PhantomData })
    }

    pub fn name(self) -> &'static str {
        self.variant.name()
    }

    pub fn variant(self) -> &'static F::Variant {
        self.variant
    }
}

impl<F: Family> Clone for Choice<F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F: Family> Copy for Choice<F> {}

impl<F: Family> PartialEq for Choice<F> {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl<F: Family> Eq for Choice<F> {}

impl<F: Family> fmt::Debug for Choice<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.name(), f)
    }
}

impl<F: Family> fmt::Display for Choice<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl<F: Family> std::str::FromStr for Choice<F> {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        Self::named(name)
    }
}

impl<F: Family> Serialize for Choice<F> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de, F: Family> Deserialize<'de> for Choice<F> {
    /// The key is left out of the message: the config builder names the
    /// path it was read at.
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        match F::ALL.iter().find(|v| v.name() == name) {
            Some(variant) => Ok(Choice { variant, family: PhantomData }),
            None => Err(serde::de::Error::custom(unknown(F::ALL, &name))),
        }
    }
}

/// What every family's tests check: of its registry, and of its recipe in
/// docs/extending.md against the code it describes.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// docs/extending.md, whose recipes the families' tests hold to the code.
    pub const DOC: &str = include_str!("../../../docs/extending.md");

    /// Names are unique and non-empty, each has a description, and a name
    /// reads back as itself through serde. (That the config's default is
    /// registered, setup/'s tests check.)
    pub fn check_registry<F: Family>() {
        let names: Vec<&str> = F::ALL.iter().map(Entry::name).collect();
        for (i, v) in F::ALL.iter().enumerate() {
            assert!(!v.name().is_empty() && !v.about().is_empty(), "{}: variant {i} lacks a name or description", F::KEY);
            assert!(!names[..i].contains(&v.name()), "{}: `{}` registered twice", F::KEY, v.name());
            let c: Choice<F> = serde_json::from_str(&format!("\"{}\"", v.name())).unwrap();
            assert_eq!((c.name(), serde_json::to_string(&c).unwrap()), (v.name(), format!("\"{}\"", v.name())));
        }
        let e = Choice::<F>::named("no-such-policy").unwrap_err().to_string();
        assert!(e.contains(F::KEY) && names.iter().all(|n| e.contains(n)), "{e}");
    }

    /// The two code blocks under `heading` in docs/extending.md: the
    /// variant's file, and the registry with its line added.
    pub fn recipe(heading: &str) -> (&'static str, &'static str) {
        let start = DOC.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("docs/extending.md has no `{heading}`"));
        let section = &DOC[start + heading.len() + 2..];
        let section = &section[..section.find("\n## ").unwrap_or(section.len())];
        let mut blocks = section.split("```rust\n").skip(1).map(|b| &b[..b.find("```").expect("a closed code block")]);
        let (Some(file), Some(registry)) = (blocks.next(), blocks.next()) else {
            panic!("`{heading}` wants two rust blocks: the variant's file, then the registry")
        };
        (file, registry)
    }

    /// The doc's registry block is the family's registry (`mod_rs`, the
    /// family's mod.rs) as it reads after the recipe: the same opening and
    /// closing lines, the first variant, `// ...` for the rest, and the new
    /// line, which `examples` (the test registry the example is compiled
    /// in) holds too.
    pub fn check_registry_line(doc_block: &str, mod_rs: &str, examples: &str) {
        let start = mod_rs.find("crate::registry! {\n").expect("mod.rs invokes crate::registry!");
        let real: Vec<&str> = mod_rs[start..].lines().take_while(|l| *l != "}").collect();
        let open = real.iter().position(|l| l.ends_with("= [")).expect("the registry's list opens with `= [`") + 1;
        let doc: Vec<&str> = doc_block.lines().collect();
        assert!(
            doc.len() == open + 5 && doc.last() == Some(&"}"),
            "the doc's registry block should be the registry's head, two variants and `// ...`, then `];` and `}}`:\n{doc_block}"
        );
        assert_eq!(doc[..open], real[..open], "the doc's registry opens differently from mod.rs's");
        let new = doc[open + 2];
        assert_eq!([doc[open], doc[open + 1], doc[open + 3]], [real[open], "        // ...", real[real.len() - 1]]);
        let is_entry = |l: &str| {
            l.strip_prefix("        ")
                .and_then(|l| l.strip_suffix(','))
                .is_some_and(|m| !m.is_empty() && m.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
        };
        assert!(
            real[open..real.len() - 1].iter().all(|l| is_entry(l)) && is_entry(new),
            "a registry line is 8 spaces, a module name and a comma: `{new}`"
        );
        assert!(examples.lines().any(|l| l == new), "the test registry does not hold the doc's line `{new}`");
    }
}
