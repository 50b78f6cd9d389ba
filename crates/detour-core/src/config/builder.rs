//! Layered configuration: preset, then files, then `key=value` overrides,
//! merged as TOML values and deserialised once at the end.

use super::{presets, CellType, Config};
use crate::error::{Error, Result};
use toml::{Table, Value};

/// Builds a [`Config`] from layers; later layers win key by key.
#[derive(Clone, Debug)]
pub struct ConfigBuilder {
    table: Table,
}

impl Default for ConfigBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ConfigBuilder {
    /// Start from the built-in defaults.
    pub fn new() -> Self {
        ConfigBuilder { table: to_table(&Config::default()) }
    }

    /// Start from a named preset (`presets::names()`).
    pub fn from_preset(name: &str) -> Result<Self> {
        let cfg = presets::get(name)?;
        Ok(ConfigBuilder { table: to_table(&cfg) })
    }

    /// Merge a TOML document. A top-level `preset = "name"` first replaces
    /// everything so far with that preset.
    pub fn merge_toml_str(mut self, text: &str) -> Result<Self> {
        let mut layer: Table =
            text.parse().map_err(|e: toml::de::Error| Error::config("<toml>", e.message().to_string() + &span_note(text, &e)))?;
        if let Some(p) = layer.remove("preset") {
            let name = p.as_str().ok_or_else(|| Error::config("preset", "must be a string"))?;
            self = Self::from_preset(name)?;
        }
        if let Some(c) = layer.get("compat") {
            let name = c.as_str().ok_or_else(|| Error::config("compat", "must be a string"))?;
            self = self.compat(name)?;
        }
        merge_layer(&mut self.table, layer);
        Ok(self)
    }

    /// Apply a peer simulator's timing rules (`compat::Compat`): its bundle
    /// of keys, merged now, so that later layers still override them.
    pub fn compat(mut self, name: &str) -> Result<Self> {
        let peer = super::Compat::parse(name)?;
        for st in peer.settings() {
            self = self.set_one(st.key, parse_value(st.value));
        }
        Ok(self.set_one("compat", Value::String(peer.name().into())))
    }

    /// Read and merge a TOML file; errors name the file.
    pub fn merge_file(self, path: &std::path::Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path.display().to_string(), e))?;
        self.merge_toml_str(&text).map_err(|e| match e {
            Error::Config { key, reason } => Error::config(key, format!("{reason} (in {})", path.display())),
            other => other,
        })
    }

    /// Set one dotted key, e.g. `("ftl.gc_threshold", "0.1")`. The value is
    /// read as TOML (numbers, booleans, quoted or bare strings).
    pub fn set(self, key: &str, value: &str) -> Result<Self> {
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return Err(Error::config(key, "is not a dotted key"));
        }
        if key == "compat" {
            return self.compat(value.trim_matches('"'));
        }
        Ok(self.set_one(key, parse_value(value)))
    }

    fn set_one(mut self, key: &str, v: Value) -> Self {
        let mut layer = Table::new();
        let mut cur = &mut layer;
        let parts: Vec<&str> = key.split('.').collect();
        for part in &parts[..parts.len() - 1] {
            cur = cur.entry(part.to_string()).or_insert_with(|| Value::Table(Table::new())).as_table_mut().expect("just inserted a table");
        }
        cur.insert(parts[parts.len() - 1].to_string(), v);
        merge_layer(&mut self.table, layer);
        self
    }

    /// Apply `key=value` strings as given on a command line.
    pub fn set_all<'a>(mut self, pairs: impl IntoIterator<Item = &'a str>) -> Result<Self> {
        for pair in pairs {
            let (k, v) = pair.split_once('=').ok_or_else(|| Error::config(pair, "an override must look like key=value"))?;
            self = self.set(k.trim(), v.trim())?;
        }
        Ok(self)
    }

    /// Deserialise the merged layers, rejecting unknown keys and naming
    /// their path. Ranges are [`Config::validate`]'s; `build` (setup/)
    /// does both, then resolves names and checks what needs the geometry.
    pub fn deserialize(self) -> Result<Config> {
        let de = Value::Table(self.table);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            Error::config(if key == "." { "<root>".into() } else { key }, e.into_inner().to_string())
        })
    }
}

fn to_table(cfg: &Config) -> Table {
    match Value::try_from(cfg) {
        Ok(Value::Table(t)) => t,
        _ => Table::new(),
    }
}

fn parse_value(text: &str) -> Value {
    let doc = format!("v = {text}");
    match doc.parse::<Table>() {
        Ok(mut t) => t.remove("v").unwrap_or(Value::String(text.to_string())),
        Err(_) => Value::String(text.to_string()),
    }
}

/// Merge `layer` into `base`, recursing into tables. A layer that names
/// `device.flash.cell` resets the array times to that cell's preset first,
/// unless the same layer also gives them.
fn merge_layer(base: &mut Table, layer: Table) {
    for (k, v) in layer {
        match (base.get_mut(&k), v) {
            (Some(Value::Table(b)), Value::Table(l)) => {
                if k == "flash" {
                    reset_cell_times(b, &l);
                }
                merge_layer(b, l);
            }
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

fn reset_cell_times(base: &mut Table, layer: &Table) {
    // A misspelt cell resets nothing; deserialising the merged table then
    // refuses it, naming the key and the valid cells.
    let Some(Ok(cell)) = layer.get("cell").cloned().map(Value::try_into::<CellType>) else { return };
    let Some(t) = presets::cell_timing(cell) else { return };
    for (key, val) in [("read_us", t.read_us), ("program_us", t.program_us), ("erase_us", t.erase_us)] {
        if !layer.contains_key(key) {
            base.insert(key.into(), Value::Float(val));
        }
    }
}

fn span_note(text: &str, e: &toml::de::Error) -> String {
    match e.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            format!(" (line {line})")
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_is_named() {
        let err = ConfigBuilder::new().merge_toml_str("[device]\nchanels = 4\n").unwrap().build().unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("device.chanels"), "{msg}");
    }

    #[test]
    fn set_overrides_and_types() {
        let cfg = ConfigBuilder::new().set("device.channels", "4").unwrap().set("ftl.allocation", "dynamic").unwrap().build().unwrap();
        assert_eq!(cfg.device.channels, 4);
        assert_eq!(cfg.ftl.allocation, crate::config::Allocation::Dynamic);
    }

    #[test]
    fn wrong_type_names_key() {
        let err = ConfigBuilder::new().set("device.channels", "\"many\"").unwrap().build().unwrap_err();
        assert!(err.to_string().contains("device.channels"), "{err}");
    }

    #[test]
    fn cell_resets_times_unless_given() {
        let cfg = ConfigBuilder::new().set("device.flash.cell", "qlc").unwrap().build().unwrap();
        let qlc = presets::cell_timing(CellType::Qlc).unwrap();
        assert_eq!(cfg.device.flash.program_us, qlc.program_us);
        let cfg = ConfigBuilder::new().merge_toml_str("[device.flash]\ncell = \"slc\"\nread_us = 99.0\n").unwrap().build().unwrap();
        assert_eq!(cfg.device.flash.read_us, 99.0);
        assert_eq!(cfg.device.flash.program_us, presets::cell_timing(CellType::Slc).unwrap().program_us);
    }

    #[test]
    fn preset_key_starts_from_preset() {
        let cfg = ConfigBuilder::new().merge_toml_str("preset = \"bench-matched\"\n[host]\nqueue_depth = 8\n").unwrap().build().unwrap();
        assert_eq!(cfg.host.queue_depth, 8);
        assert_eq!(cfg.device.channels, 8);
    }

    #[test]
    fn bad_override_syntax() {
        assert!(ConfigBuilder::new().set_all(["nokey"]).is_err());
        assert!(ConfigBuilder::new().set("a..b", "1").is_err());
    }
}
