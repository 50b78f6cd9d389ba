//! The registry: every scheme Detour knows, one line each.
//!
//! A scheme's file holds its [`SchemeEntry`] (name, description, config
//! section, activity counters, idle reason, colour, baseline, constructor);
//! the one other place that names it is its line in the `crate::registry!`
//! block of `schemes/mod.rs` (the mechanism the policy families use too),
//! which declares the module and lists its entries in [`SCHEMES`].
//! `detour schemes`, the Python side's colours and demo baselines, the
//! config fuzz test and the scheme test table all read [`SCHEMES`]; the
//! simulator takes a scheme's name from its entry, never from the scheme.
//!
//! A scheme's parameters are its own section, `[scheme.<key>]`: a serde
//! struct with the default on each field and its own range checks (the
//! [`SchemeSection`] trait), in the scheme's file. A family shares one
//! section (the channel-RAID schemes `[scheme.raid]`, the deduplicating
//! ones `[scheme.dedup]`). The config keeps the sections as TOML until
//! [`resolve`] reads each one into its struct, checks it and writes it
//! back complete, so a written config shows every default.

use super::{Scheme, SCHEMES};
use crate::config::{Config, DeviceConfig, FtlConfig, SchemeConfig};
use crate::device::{Geometry, Timing};
use crate::error::{Error, Result};
use crate::metrics::warnings::IdleReason;
use serde::de::DeserializeOwned;
use serde::Serialize;
use toml::Value;

/// One registered scheme.
pub struct SchemeEntry {
    /// The name `scheme.name` takes.
    pub name: &'static str,
    /// One line for `detour schemes` and the README.
    pub about: &'static str,
    /// The config section it reads, if it has parameters.
    pub section: Option<Section>,
    /// Counters (of `Scheme::counters`) that show the scheme acting; all 0
    /// at the end is the `scheme_idle` warning. Empty for a scheme whose
    /// work is every request's.
    pub activity: &'static [&'static str],
    /// Why the scheme stayed idle (every `activity` counter 0), where its
    /// configuration shows it: the `scheme_idle` warning's reason.
    pub why_idle: Option<IdleReason>,
    /// Build the scheme from its section and the device.
    pub build: fn(&Env) -> Result<Box<dyn Scheme>>,
    /// Settle parameters that follow the workload's span (dedup's automatic
    /// period), given a way to find the span (s of trace time, None when
    /// unknown) and `host.time_scale`; None for a scheme with none.
    pub on_span: Option<OnSpan>,
    /// What the device must offer (cr1: an even number of channels),
    /// checked when the config is built; its sections are complete then.
    pub requires: Option<fn(&Config) -> Result<()>>,
    /// Bytes per logical page of the page-indexed tables it reserves when
    /// built (sim/memory.rs checks them against the address space).
    pub table_bytes_per_lpn: u64,
    /// Its colour in every figure ("#rrggbb"); None for one derived from
    /// the name (python/detour/plots.py), so a new scheme needs none.
    pub colour: Option<&'static str>,
    /// The scheme it is measured against (the demo's baseline; cr5m's is
    /// cr5): None for `conventional`, the baseline of everything else.
    pub baseline: Option<&'static str>,
    /// It can use chips the host never addresses (`device.spare_chips`);
    /// every other scheme refuses them, as they would sit idle.
    pub spare_chips: bool,
}

impl crate::registry::Entry for SchemeEntry {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        self.about
    }
}

impl SchemeEntry {
    /// An entry with no section, activity counters or hooks; the methods
    /// below add them (all `const`, for `pub const ENTRY`).
    pub const fn new(name: &'static str, about: &'static str, build: fn(&Env) -> Result<Box<dyn Scheme>>) -> SchemeEntry {
        SchemeEntry {
            name,
            about,
            section: None,
            activity: &[],
            why_idle: None,
            build,
            on_span: None,
            requires: None,
            table_bytes_per_lpn: 0,
            colour: None,
            baseline: None,
            spare_chips: false,
        }
    }

    pub const fn colour(mut self, rgb: &'static str) -> SchemeEntry {
        self.colour = Some(rgb);
        self
    }

    pub const fn baseline(mut self, scheme: &'static str) -> SchemeEntry {
        self.baseline = Some(scheme);
        self
    }

    /// The scheme it is measured against: its own `baseline`, else
    /// `conventional` (None for `conventional` itself).
    pub fn measured_against(&self) -> Option<&'static str> {
        self.baseline.or((self.name != "conventional").then_some("conventional"))
    }

    /// Its parameters are `[scheme.<T::KEY>]`.
    pub const fn section<T: SchemeSection>(mut self) -> SchemeEntry {
        self.section = Some(Section::of::<T>());
        self
    }

    pub const fn tables(mut self, bytes_per_lpn: u64) -> SchemeEntry {
        self.table_bytes_per_lpn = bytes_per_lpn;
        self
    }

    pub const fn activity(mut self, counters: &'static [&'static str]) -> SchemeEntry {
        self.activity = counters;
        self
    }

    pub const fn why_idle(mut self, reason: IdleReason) -> SchemeEntry {
        self.why_idle = Some(reason);
        self
    }

    pub const fn on_span(mut self, hook: OnSpan) -> SchemeEntry {
        self.on_span = Some(hook);
        self
    }

    pub const fn requires(mut self, check: fn(&Config) -> Result<()>) -> SchemeEntry {
        self.requires = Some(check);
        self
    }

    pub const fn spare_chips(mut self) -> SchemeEntry {
        self.spare_chips = true;
        self
    }
}

/// Finding a workload's span may mean generating it, so a hook asks only
/// when it needs it.
pub type SpanOf<'a> = &'a mut dyn FnMut() -> Result<Option<f64>>;
pub type OnSpan = fn(&mut SchemeConfig, SpanOf, f64) -> Result<()>;

/// A scheme's parameters: `[scheme.<KEY>]`, every field defaulted.
pub trait SchemeSection: Serialize + DeserializeOwned + Default {
    const KEY: &'static str;

    /// Range checks, each error naming its dotted key; `device` for the
    /// checks that depend on the geometry.
    fn validate(&self, _device: &DeviceConfig) -> Result<()> {
        Ok(())
    }
}

/// A config section as the registry handles it: its key and how to read,
/// check and complete it.
#[derive(Clone, Copy)]
pub struct Section {
    pub key: &'static str,
    complete: fn(Option<&Value>, &DeviceConfig) -> Result<Value>,
}

impl Section {
    pub const fn of<T: SchemeSection>() -> Section {
        Section { key: T::KEY, complete: complete::<T> }
    }
}

/// Read a section (missing keys take their defaults), check it, and give
/// it back with every key.
fn complete<T: SchemeSection>(given: Option<&Value>, device: &DeviceConfig) -> Result<Value> {
    let typed: T = read(T::KEY, given)?;
    typed.validate(device)?;
    Value::try_from(&typed).map_err(|e| Error::config(format!("scheme.{}", T::KEY), e))
}

fn read<T: SchemeSection>(key: &str, given: Option<&Value>) -> Result<T> {
    let Some(v) = given else { return Ok(T::default()) };
    serde_path_to_error::deserialize(v.clone()).map_err(|e| {
        let path = e.path().to_string();
        let key = if path == "." { format!("scheme.{key}") } else { format!("scheme.{key}.{path}") };
        Error::config(key, e.into_inner())
    })
}

/// The section `T` of `scheme` (its defaults where it is not given).
pub fn section<T: SchemeSection>(scheme: &SchemeConfig) -> Result<T> {
    read(T::KEY, scheme.sections.get(T::KEY))
}

/// Write `value` back as section `T` (after a scheme settled a parameter).
pub fn set_section<T: SchemeSection>(scheme: &mut SchemeConfig, value: &T) -> Result<()> {
    let v = Value::try_from(value).map_err(|e| Error::config(format!("scheme.{}", T::KEY), e))?;
    scheme.sections.insert(T::KEY.into(), v);
    Ok(())
}

/// The entry named `name`, or an error listing the known names.
pub fn find(name: &str) -> Result<&'static SchemeEntry> {
    find_in(name, &[])
}

/// The entry named `name` among the registered ones and `extra` (schemes
/// out of tree).
fn find_in<'a>(name: &str, extra: &'a [SchemeEntry]) -> Result<&'a SchemeEntry> {
    SCHEMES.iter().chain(extra).find(|e| e.name == name).ok_or_else(|| {
        let known: Vec<&str> = SCHEMES.iter().chain(extra).map(|e| e.name).collect();
        Error::config("scheme.name", format!("unknown scheme `{name}`; known: {}", known.join(", ")))
    })
}

/// The distinct sections of the registered schemes, in registry order.
pub fn sections() -> Vec<Section> {
    sections_in(&[])
}

fn sections_in(extra: &[SchemeEntry]) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for s in SCHEMES.iter().chain(extra).filter_map(|e| e.section) {
        if !out.iter().any(|o| o.key == s.key) {
            out.push(s);
        }
    }
    out
}

/// Check the scheme's name and every section (unknown sections refused,
/// each known one read, range-checked and completed with its defaults).
/// Sections renamed since a release, so an old config's error says where
/// its keys went.
const RENAMED: &[(&str, &str)] = &[("rrssd", "dedup")];

/// Run by the config builder and again when a simulation is built.
pub fn resolve(cfg: &mut Config) -> Result<()> {
    resolve_with(cfg, &[])
}

/// [`resolve`] knowing the schemes `extra` too (schemes out of tree).
pub fn resolve_with(cfg: &mut Config, extra: &[SchemeEntry]) -> Result<()> {
    find_in(&cfg.scheme.name, extra)?;
    let known = sections_in(extra);
    if let Some(k) = cfg.scheme.sections.keys().find(|k| !known.iter().any(|s| s.key == k.as_str())) {
        let names: Vec<&str> = known.iter().map(|s| s.key).collect();
        let renamed = RENAMED.iter().find(|(old, _)| old == k).map(|(_, new)| format!(" ([scheme.{k}] is now [scheme.{new}])"));
        return Err(Error::config(
            format!("scheme.{k}"),
            format!("unknown key; [scheme] holds name, tick_us and the sections {}{}", names.join(", "), renamed.unwrap_or_default()),
        ));
    }
    for s in known {
        let full = (s.complete)(cfg.scheme.sections.get(s.key), &cfg.device)?;
        cfg.scheme.sections.insert(s.key.into(), full);
    }
    requires(cfg, &cfg.scheme.name, extra)
}

/// The configured scheme and, for a layer, the schemes under it (each
/// section's `base`), outermost first.
fn chain(cfg: &Config) -> Vec<&'static SchemeEntry> {
    let mut out: Vec<&'static SchemeEntry> = Vec::new();
    let mut name = cfg.scheme.name.clone();
    while let Ok(e) = find(&name) {
        if out.iter().any(|o| o.name == e.name) {
            break;
        }
        out.push(e);
        let base = e.section.and_then(|s| cfg.scheme.sections.get(s.key)).and_then(|v| v.get("base")).and_then(Value::as_str);
        match base {
            Some(b) => name = b.into(),
            None => break,
        }
    }
    out
}

/// Bytes per logical page the configured scheme's tables reserve (with
/// the schemes under a layer).
pub fn table_bytes_per_lpn(cfg: &Config) -> u64 {
    chain(cfg).iter().map(|e| e.table_bytes_per_lpn).sum()
}

/// Keys of scheme sections set away from their defaults that the
/// configured scheme never reads (`scheme.raid.fail_unit` under
/// `conventional`: no failure happens), dotted. A scheme reads its own
/// section and, for a layer, its `base` scheme's.
pub fn inert_keys(cfg: &Config) -> Vec<String> {
    let read: Vec<&str> = chain(cfg).iter().filter_map(|e| e.section.map(|s| s.key)).collect();
    let mut out = Vec::new();
    for s in sections().into_iter().filter(|s| !read.contains(&s.key)) {
        let (Some(Value::Table(set)), Ok(Value::Table(default))) = (cfg.scheme.sections.get(s.key), (s.complete)(None, &cfg.device)) else {
            continue;
        };
        out.extend(set.iter().filter(|(k, v)| default.get(*k) != Some(*v)).map(|(k, _)| format!("scheme.{}.{k}", s.key)));
    }
    out
}

/// Check what scheme `name` needs of the device.
pub fn requires(cfg: &Config, name: &str, extra: &[SchemeEntry]) -> Result<()> {
    let entry = find_in(name, extra)?;
    if cfg.device.spare_chips > 0 && !entry.spare_chips {
        return Err(Error::config(
            "device.spare_chips",
            format!("scheme {name} does not use spare chips (hotr does, with scheme.hotr.staging = \"spare-chip\"); set it to 0"),
        ));
    }
    match entry.requires {
        Some(check) => check(cfg),
        None => Ok(()),
    }
}

/// Settle what follows the workload's span for the configured scheme;
/// `span_s` is called only if the scheme needs it.
pub fn on_span(cfg: &mut Config, span_s: SpanOf) -> Result<()> {
    let name = cfg.scheme.name.clone();
    span_of(&name, &mut cfg.scheme, span_s, cfg.host.time_scale)
}

/// [`on_span`] for scheme `name` (a layer passes its base's name).
pub fn span_of(name: &str, scheme: &mut SchemeConfig, span_s: SpanOf, time_scale: f64) -> Result<()> {
    match find(name)?.on_span {
        Some(f) => f(scheme, span_s, time_scale),
        None => Ok(()),
    }
}

/// What a scheme's constructor gets: the device and its own section.
pub struct Env<'a> {
    pub geometry: &'a Geometry,
    pub timing: &'a Timing,
    pub device: &'a DeviceConfig,
    /// For the allocation policy and the GC threshold.
    pub ftl: &'a FtlConfig,
    scheme: &'a SchemeConfig,
    extra: &'a [SchemeEntry],
}

impl<'a> Env<'a> {
    /// The scheme's own section.
    pub fn section<T: SchemeSection>(&self) -> Result<T> {
        section(self.scheme)
    }

    /// `ftl.allocation = "dynamic"`: writes go to the least-loaded die.
    pub fn dynamic_allocation(&self) -> bool {
        self.ftl.allocation == crate::config::Allocation::Dynamic
    }

    /// Build another registered scheme on the same device (a layer's base).
    pub fn build_named(&self, name: &str) -> Result<Box<dyn Scheme>> {
        (find_in(name, self.extra)?.build)(self)
    }
}

/// Build the configured scheme.
pub fn build(cfg: &Config) -> Result<Box<dyn Scheme>> {
    build_with(cfg, &[])
}

/// [`build`] knowing the schemes `extra` too: a scheme out of tree runs
/// with `Simulation::with_scheme(cfg, build_with(&cfg, &[MY_ENTRY])?)`,
/// its config built by `ConfigBuilder::build_with(&[MY_ENTRY])`.
pub fn build_with(cfg: &Config, extra: &[SchemeEntry]) -> Result<Box<dyn Scheme>> {
    let geometry = Geometry::from_config(&cfg.device)?;
    let timing = Timing::from_config(cfg);
    let (device, ftl, scheme) = (&cfg.device, &cfg.ftl, &cfg.scheme);
    let env = Env { geometry: &geometry, timing: &timing, device, ftl, scheme, extra };
    env.build_named(&cfg.scheme.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;

    #[test]
    fn names_are_unique_kebab_case_and_described() {
        for (i, e) in SCHEMES.iter().enumerate() {
            assert!(SCHEMES[..i].iter().all(|o| o.name != e.name), "{} twice", e.name);
            assert!(e.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", e.name);
            assert!(!e.about.is_empty() && !e.about.ends_with('.'), "{}", e.name);
        }
    }

    #[test]
    fn every_scheme_builds_on_the_defaults() {
        for e in SCHEMES {
            let cfg = ConfigBuilder::from_preset("small").and_then(|b| b.set("scheme.name", e.name)).and_then(|b| b.build());
            let cfg = cfg.unwrap_or_else(|err| panic!("{}: {err}", e.name));
            build(&cfg).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        }
    }

    #[test]
    fn resolve_completes_sections_and_refuses_unknown_ones() {
        let cfg = ConfigBuilder::new().set("scheme.hotr.min_hits", "3").and_then(|b| b.build()).unwrap();
        let hotr = cfg.scheme.sections.get("hotr").and_then(Value::as_table).unwrap();
        assert_eq!(hotr.get("min_hits").and_then(Value::as_integer), Some(3));
        assert!(hotr.contains_key("staging_share"), "defaults written back: {hotr:?}");
        for s in sections() {
            assert!(cfg.scheme.sections.contains_key(s.key), "{} missing", s.key);
        }
        let err = ConfigBuilder::new().set("scheme.hotrr.min_hits", "3").and_then(|b| b.build()).unwrap_err().to_string();
        assert!(err.contains("scheme.hotrr") && err.contains("hotr"), "{err}");
        let err = ConfigBuilder::new().set("scheme.hotr.min_hit", "3").and_then(|b| b.build()).unwrap_err().to_string();
        assert!(err.contains("scheme.hotr.min_hit"), "{err}");
        let err = ConfigBuilder::new().set("scheme.rrssd.alpha_pct", "3").and_then(|b| b.build()).unwrap_err().to_string();
        assert!(err.contains("[scheme.dedup]"), "{err}");
        let err = ConfigBuilder::new().set("scheme.name", "nope").and_then(|b| b.build()).unwrap_err().to_string();
        assert!(err.contains("scheme.name") && err.contains("conventional"), "{err}");
    }
}
