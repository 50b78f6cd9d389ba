//! Named synthetic workloads set from the four papers' published workload
//! characteristics, and the two ways to change them.
//!
//! A profile is a plain [`SyntheticSpec`]: change its pub fields directly, or
//! start a TOML file with `profile = "mail"` and override keys below it
//! ([`SyntheticSpec::from_toml`]), or apply `key = value` pairs from a command
//! line ([`apply_overrides`], dotted keys such as `arrival.rate_per_s`).
//! Every number and its source is in docs/workloads.md.
//!
//! ```
//! use detour_core::workload::generator::{content_stats, Generator, SyntheticSpec};
//! use detour_core::workload::profiles::{apply_overrides, profile};
//!
//! let spec = apply_overrides(&profile("hadoop")?, &[("requests", "20000")])?;
//! let stats = content_stats(Generator::new(&spec)?);
//! assert!((stats.read_unique_share() - 0.175).abs() < 0.03);
//!
//! let same = SyntheticSpec::from_toml("profile = \"hadoop\"\nrequests = 20000")?;
//! assert_eq!(same, spec);
//! # Ok::<(), detour_core::Error>(())
//! ```

mod table;

pub use table::{VolumeRow, VOLUMES, VOLUME_REQUESTS};

use crate::error::{Error, Result};
use crate::workload::generator::SyntheticSpec;

const NAMES: &[(&str, &str)] = &[
    ("fin2", "Financial2 (OLTP): 17.6% writes, 450,068 I/Os, 4.6 KiB mean; HotR Table III"),
    ("hm", "MSR hm: 72.9% writes, 999,997 I/Os, 8.3 KiB mean; HotR Table III"),
    ("hpc46", "synthetic HPC 46: 60% writes, 499,999 I/Os, 6.3 KiB mean; HotR Table III"),
    ("hpc28", "synthetic HPC 28: 80% writes, 999,997 I/Os, 6.3 KiB mean; HotR Table III"),
    ("financial1", "Financial1: 77.88% writes, 3.46 KiB, 129 req/s, 515 min; CR5M Table I"),
    ("radius9", "Radius9: 88.46% writes, 6.8 KiB, 57 req/s, 35.2 min; CR5M Table I"),
    ("atto", "ATTO benchmark: 47.45% writes, 23.1 KiB, 792.4 req/s, 2.5 min; CR5M Table I"),
    ("build", "MS Build server: 45.71% writes, 6.5 KiB, 372 req/s, 15 min; CR5M Table I"),
    ("exchange", "MS Exchange: 46.43% writes, 12.5 KiB, 166 req/s, 15 min; CR5M Table I"),
    ("webvm", "FIU webvm: 77% writes, unique values 42% W / 32% R, 4 KiB; RR-SSD Table III"),
    ("homes", "FIU homes: 96% writes, unique values 66% W / 80% R, 4 KiB; RR-SSD Table III"),
    ("mail", "FIU mail: 77% writes, unique values 8% W / 80% R, 4 KiB; RR-SSD Table III"),
    ("hadoop", "OSU hadoop: 30% writes, unique values 63.9% W / 17.5% R, 4 KiB; RR-SSD Table III"),
    ("trans", "OSU trans: 55% writes, unique values 77.4% W / 13.8% R, 4 KiB; RR-SSD Table III"),
    ("desktop", "FIU desktop: 42% writes, unique values 74.7% W / 49.7% R, 4 KiB; RR-SSD Table III"),
    ("msr-patterned", "MSR-like read-dominant volume with planted same-die read pairs; read-collision paper Sec. II-C"),
    ("msr-random", "uniform random 4 KiB reads, no pairs (the paper's RR8 baseline); read-collision paper Table 2"),
    ("msr-hm1", "MSR hm_1 volume: OCC 14.2, mean pair repetition 37.89, top-5% pairs 80%, die RSD 0.168; read-collision paper Tables 2-3"),
    ("msr-proj3", "MSR proj_3 volume: OCC 19.8, mean pair repetition 24.69, die RSD 0.121; read-collision paper Tables 2-3"),
    ("msr-usr1", "MSR usr_1 volume: OCC 5.1, mean pair repetition 12.47, top-5% pairs 80%, die RSD 0.086; read-collision paper Tables 2-3"),
    ("msr-web2", "MSR web_2 volume: OCC 3.7, mean pair repetition 9.20, top-5% pairs 80%, die RSD 0.047; read-collision paper Tables 2-3"),
    ("msr-proj4", "MSR proj_4 volume: OCC 12.5, mean pair repetition 4.56, die RSD 0.021; read-collision paper Tables 2-3"),
    ("msr-src2-1", "MSR src2_1 volume: OCC 4.8, mean pair repetition 1.73, die RSD 0.016; read-collision paper Tables 2-3"),
    ("msr-src1-1", "MSR src1_1 volume: OCC 2.4, mean pair repetition 1.51, die RSD 0.023; read-collision paper Tables 2-3"),
    ("msr-mds1", "MSR mds_1 volume: OCC 4.0, mean pair repetition 1.54, die RSD 0.018; read-collision paper Tables 2-3"),
    ("bench-like", "70% reads, Poisson 20k IOPS, 4..64 KiB, zipf 0.9 over 16 GiB: the standard speed benchmark's trace"),
];

/// Every profile name with a one-line description naming its source.
pub fn profile_names() -> &'static [(&'static str, &'static str)] {
    NAMES
}

/// The spec of the named profile.
pub fn profile(name: &str) -> Result<SyntheticSpec> {
    let spec = table::hotr(name)
        .or_else(|| table::cr5m(name))
        .or_else(|| table::rr(name))
        .or_else(|| table::msr(name))
        .or_else(|| table::volume(name))
        .or_else(|| (name == "bench-like").then(table::bench_like));
    spec.ok_or_else(|| {
        let known: Vec<&str> = NAMES.iter().map(|n| n.0).collect();
        Error::config("profile", format!("unknown profile `{name}`; known: {}", known.join(", ")))
    })
}

impl SyntheticSpec {
    /// Read a spec from TOML. A top-level `profile = "name"` starts from that
    /// profile and the other keys override it (tables merge key by key, except
    /// `[arrival]`, which is replaced whole when it names a `process`).
    /// Without `profile`, unset keys take the defaults. The result is validated.
    pub fn from_toml(text: &str) -> Result<Self> {
        let mut user: toml::Table = text.parse().map_err(|e: toml::de::Error| parse_error(&e))?;
        let base = match user.remove("profile") {
            None => toml::Table::new(),
            Some(toml::Value::String(name)) => to_table(&profile(&name)?)?,
            Some(other) => return Err(Error::config("profile", format!("must be a string, got {other}"))),
        };
        finish(merge(base, user))
    }
}

/// `spec` with each `(dotted.key, value)` set; a value parses as TOML
/// (`5000`, `0.3`, `"bursty"`, `[[4096, 1]]`) and otherwise counts as a string.
pub fn apply_overrides(spec: &SyntheticSpec, overrides: &[(&str, &str)]) -> Result<SyntheticSpec> {
    let mut table = to_table(spec)?;
    for &(key, raw) in overrides {
        let value = parse_value(raw);
        set_path(&mut table, key, value)?;
    }
    finish(table)
}

fn parse_error(e: &toml::de::Error) -> Error {
    Error::config("spec", e.message())
}

fn to_table(spec: &SyntheticSpec) -> Result<toml::Table> {
    match toml::Value::try_from(spec) {
        Ok(toml::Value::Table(t)) => Ok(t),
        Ok(_) => Err(Error::config("spec", "does not serialise to a table")),
        Err(e) => Err(Error::config("spec", e)),
    }
}

fn finish(table: toml::Table) -> Result<SyntheticSpec> {
    let spec: SyntheticSpec = toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| parse_error(&e))?;
    spec.validate()?;
    Ok(spec)
}

fn parse_value(raw: &str) -> toml::Value {
    match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").expect("just parsed"),
        Err(_) => toml::Value::String(raw.to_string()),
    }
}

fn set_path(table: &mut toml::Table, key: &str, value: toml::Value) -> Result<()> {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().filter(|s| !s.is_empty()).ok_or_else(|| Error::config(key, "empty key"))?;
    let mut t = table;
    for p in parts {
        let entry = t.entry(p).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry.as_table_mut().ok_or_else(|| Error::config(key, format!("`{p}` is not a table")))?;
    }
    t.insert(last.to_string(), value);
    Ok(())
}

/// `over` on top of `base`: tables merge recursively, other values replace.
/// A table with a `process` key (the tagged arrival) replaces, because the
/// fields of one process are unknown to another.
fn merge(mut base: toml::Table, over: toml::Table) -> toml::Table {
    for (k, v) in over {
        match (base.remove(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) if !o.contains_key("process") => {
                base.insert(k, toml::Value::Table(merge(b, o)));
            }
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
    base
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_builds_and_validates() {
        for (name, _) in profile_names() {
            let spec = profile(name).unwrap();
            spec.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert!(profile("nope").is_err());
    }

    #[test]
    fn sizes_with_mean_is_exact() {
        for kib in [3.46, 4.6, 6.3, 8.3, 12.5, 23.1, 4.0] {
            let d = table::sizes_with_mean(kib);
            assert!((d.mean() / 1024.0 - kib).abs() < 1e-9, "{kib}: {d:?}");
        }
    }
}
