//! The one registry mechanism, for schemes and every policy family (GC
//! victim, scheduling order, mapping): a list of modules, one a line, each
//! exporting an `ENTRY` (or, for a folder of several, the entries it
//! names), and an [`Entry`] telling each one's name and description.
//!
//! Everything else about a scheme or a policy (its config section, its
//! counters, its constructor) lives on its entry, in its own file, so
//! adding one is that file and one line here (docs/extending.md; the test
//! `python/tests/test_recipe.py` follows that page in a copy of the repo
//! and counts the files it touched).

use crate::error::{Error, Result};

/// What every registered scheme or policy tells about itself.
pub trait Entry: Sync + 'static {
    /// The value its config key takes (`scheme.name`, `ftl.gc_policy`, ...):
    /// the one place its name is spelled.
    fn name(&self) -> &'static str;
    /// One line for listings (`detour schemes`, `detour policies`).
    fn about(&self) -> &'static str;
}

/// Declare a registry: each listed module (a file or folder beside the
/// invoking mod.rs) and the slice of their entries, in that order. A line
/// `module,` contributes `module::ENTRY`; a line `module::{A, B},` (a
/// folder of several, sharing a config section) contributes `module::A`
/// and `module::B`. One module a line, so adding one adds one line.
macro_rules! registry {
    ($(#[$attr:meta])* $vis:vis const $name:ident: &[$ty:ty] = [$($m:ident $(::{$($item:ident),+ $(,)?})?,)*];) => {
        $(mod $m;)*
        $crate::registry!(@collect [$(#[$attr])* $vis const $name: &[$ty]] [] $($m $({$($item),+})?,)*);
    };
    (@collect [$($head:tt)*] [$($acc:tt)*] $m:ident {$($item:ident),+}, $($rest:tt)*) => {
        $crate::registry!(@collect [$($head)*] [$($acc)* $($m::$item,)+] $($rest)*);
    };
    (@collect [$($head:tt)*] [$($acc:tt)*] $m:ident, $($rest:tt)*) => {
        $crate::registry!(@collect [$($head)*] [$($acc)* $m::ENTRY,] $($rest)*);
    };
    (@collect [$($head:tt)*] [$($acc:tt)*]) => {
        $($head)* = &[$($acc)*];
    };
}
pub(crate) use registry;

/// The entry of `all` named `name`, or an error naming `key` and listing
/// the known names.
pub fn find<V: Entry>(all: &'static [V], key: &str, name: &str) -> Result<&'static V> {
    all.iter().find(|v| v.name() == name).ok_or_else(|| Error::config(key, unknown(all, name)))
}

/// Worded as serde words an unknown enum variant, as the other settings
/// with a fixed set of values are refused.
pub fn unknown<V: Entry>(all: &[V], name: &str) -> String {
    let known: Vec<String> = all.iter().map(|v| format!("`{}`", v.name())).collect();
    format!("unknown variant `{name}`, expected one of {}", known.join(", "))
}

/// (name, description) of every entry of `all`, in registry order.
pub fn list<V: Entry>(all: &[V]) -> Vec<(&'static str, &'static str)> {
    all.iter().map(|v| (v.name(), v.about())).collect()
}
