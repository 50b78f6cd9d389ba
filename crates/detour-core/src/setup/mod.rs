//! Setup: the step between the configuration (plain data, config/) and the
//! components built from it. It resolves the names a config holds against
//! the registries (the scheme, `ftl.gc_policy`, `ftl.mapping`,
//! `scheduler.order`), makes the checks that need the device's geometry
//! (`geometry.rs`), and hands each scheme section to the schemes' registry,
//! which reads, checks and completes it. Every error names its key.
//!
//! `ConfigBuilder::build`, `Config::preset` and `Config::from_toml_str` are
//! defined here, since building a config means all of this; config/ keeps
//! the merging of layers, deserialising and range checks.

mod geometry;

use crate::config::{Config, ConfigBuilder};
use crate::error::Result;
use crate::ftl::{mapping::Mappings, victim::Victims};
use crate::policy::Choice;
use crate::scheduler::Orders;
use crate::schemes::{registry, SchemeEntry};

/// The variants a config's names chose, one per policy family.
#[derive(Clone, Copy, Debug)]
pub struct Chosen {
    pub gc: Choice<Victims>,
    pub mapping: Choice<Mappings>,
    pub order: Choice<Orders>,
}

/// Resolve the policy names; an unknown one is refused naming its key and
/// the registered names.
pub fn choose(cfg: &Config) -> Result<Chosen> {
    Ok(Chosen {
        gc: Choice::named(&cfg.ftl.gc_policy)?,
        mapping: Choice::named(&cfg.ftl.mapping)?,
        order: Choice::named(&cfg.scheduler.order)?,
    })
}

/// Everything a complete config must pass besides its scheme's section:
/// the names, the ranges, the relations the geometry decides, and the
/// chosen mapping's own settings.
pub fn check(cfg: &Config) -> Result<Chosen> {
    let chosen = choose(cfg)?;
    cfg.validate()?;
    geometry::relations(cfg)?;
    let geo = crate::device::Geometry::from_config(&cfg.device)?;
    (chosen.mapping.variant().check)(&cfg.ftl, &geo)?;
    Ok(chosen)
}

impl ConfigBuilder {
    /// Deserialise (rejecting unknown keys, naming their path), check
    /// ([`check`]) and complete the scheme's section.
    pub fn build(self) -> Result<Config> {
        self.build_with(&[])
    }

    /// [`build`](Self::build) knowing the schemes `extra` (out of tree)
    /// besides the registered ones, with their config sections.
    pub fn build_with(self, extra: &[SchemeEntry]) -> Result<Config> {
        let mut cfg = self.deserialize()?;
        check(&cfg)?;
        // The scheme sections belong to the schemes layer (its registry).
        registry::resolve_with(&mut cfg, extra)?;
        Ok(cfg)
    }
}

impl Config {
    /// Parse a complete TOML document (on top of the defaults).
    pub fn from_toml_str(text: &str) -> Result<Config> {
        ConfigBuilder::new().merge_toml_str(text)?.build()
    }

    /// A named preset, validated.
    pub fn preset(name: &str) -> Result<Config> {
        ConfigBuilder::from_preset(name)?.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The config's defaults name registered variants (config/ cannot ask
    /// the registries itself).
    #[test]
    fn the_default_names_are_registered() {
        let chosen = choose(&Config::default()).unwrap();
        assert_eq!((chosen.gc.name(), chosen.mapping.name(), chosen.order.name()), ("greedy", "dram", "priority"));
        assert!(registry::find(&Config::default().scheme.name).is_ok());
    }

    /// An unknown name is refused as serde refused it when the config held
    /// the variant: naming the key and the registered names.
    #[test]
    fn unknown_names_name_their_key() {
        for (key, known) in [("ftl.gc_policy", "cost-benefit"), ("ftl.mapping", "cmt"), ("scheduler.order", "fcfs")] {
            let e = ConfigBuilder::new().set(key, "nope").unwrap().build().unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("unknown variant `nope`") && e.contains(known), "{e}");
        }
    }
}
