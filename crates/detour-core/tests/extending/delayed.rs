//! # Delayed
//!
//! **What:** the conventional FTL, plus a fixed controller latency on the
//! path of every write, before its first flash operation.
//!
//! **Why:** the cost of inline work a controller does per write
//! (hashing, encryption, compression) on a plain SSD.
//!
//! **References:** the recipe of docs/extending.md.

use super::prelude::*;

/// The registry's entry: name, description, constructor, config section,
/// and the counters that show the scheme acting.
pub const ENTRY: SchemeEntry = SchemeEntry::new("delayed", "Conventional FTL with a fixed controller latency on every write", build)
    .section::<DelayedConfig>()
    .activity(&["delayed.writes"]);

fn build(env: &Env) -> Result<Box<dyn Scheme>> {
    let cfg: DelayedConfig = env.section()?;
    Ok(Box::new(Delayed { delay_ns: (cfg.write_us * 1e3).round() as u64, writes: 0 }))
}

/// `[scheme.delayed]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DelayedConfig {
    /// Latency added to every write, µs. Default 10; 0..=1000.
    pub write_us: f64,
}

impl Default for DelayedConfig {
    fn default() -> Self {
        DelayedConfig { write_us: 10.0 }
    }
}

impl SchemeSection for DelayedConfig {
    const KEY: &'static str = "delayed";

    fn validate(&self, _: &DeviceConfig) -> Result<()> {
        if !(0.0..=1000.0).contains(&self.write_us) {
            let reason = format!("{} is out of range; valid: 0..=1000", self.write_us);
            return Err(Error::config("scheme.delayed.write_us", reason));
        }
        Ok(())
    }
}

pub struct Delayed {
    delay_ns: u64,
    writes: u64,
}

impl Scheme for Delayed {
    fn plan_read(&mut self, lpns: Range<Lpn>, ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for lpn in lpns {
            ctx.read_mapped(lpn, Class::HostRead, plan);
        }
        Ok(())
    }

    fn plan_write(&mut self, lpns: Range<Lpn>, tokens: &[Token], ctx: &mut Ctx, plan: &mut Plan) -> Result<(), Stall> {
        for (i, lpn) in lpns.enumerate() {
            ctx.write_mapped(lpn, tokens[i], plan, i as u32)?;
        }
        plan.delay_ns = self.delay_ns;
        self.writes += 1;
        Ok(())
    }

    fn on_gc_move(&mut self, from: Ppn, to: Ppn, owner: Owner, ctx: &mut Ctx) {
        ctx.remap_moved(owner.index(), from, to);
    }

    fn uses_shared_map(&self) -> bool {
        true
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        vec![("delayed.writes", self.writes as f64)]
    }
}
