//! `[[flows]]`: closed-loop tenants sharing the device, in fio's vocabulary.
//!
//! What: each entry is one fio-like job: `numjobs` streams, each keeping
//! `iodepth` requests outstanding; a stream issues its next request when
//! one of its own completes (plus `think_us`), so the load is whatever the
//! device can take, not a trace's arrival times.
//! Why: latency-at-load and saturation questions (IOPS at QD N, a read
//! tenant's latency beside a write tenant) are asked of real drives with
//! fio; an open-loop trace cannot ask them (MQSim's multi-queue host keeps a
//! queue depth per flow for the same reason).
//! How it runs: `sim/closed.rs`; the requests of a stream come from
//! `workload::job::JobStream`. Documented in docs/workloads.md ("Closed
//! loop"), the per-flow results in docs/results.md (`flows`).

use crate::ensure_config;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// fio's `rw`: direction and address pattern of a job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Uniformly random reads.
    #[default]
    RandRead,
    /// Uniformly random writes.
    RandWrite,
    /// Sequential, mixed by `rwmixread` (fio's `rw` or `readwrite`).
    #[serde(alias = "readwrite")]
    Rw,
    /// Uniformly random, mixed by `rwmixread`.
    RandRw,
}

impl RwMode {
    /// Whether addresses are drawn at random (else each stream walks on).
    pub fn random(self) -> bool {
        matches!(self, RwMode::RandRead | RwMode::RandWrite | RwMode::RandRw)
    }

    /// Probability that a request reads, given `rwmixread` (percent).
    pub fn read_share(self, rwmixread: f64) -> f64 {
        match self {
            RwMode::Read | RwMode::RandRead => 1.0,
            RwMode::Write | RwMode::RandWrite => 0.0,
            RwMode::Rw | RwMode::RandRw => rwmixread / 100.0,
        }
    }
}

/// One closed-loop flow (a fio job). Defaults are fio's where it has one.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlowConfig {
    /// Names the flow in the summary; default `flowN` (N from 1, by position).
    pub name: String,
    /// Direction and pattern. Default `randread`.
    pub rw: RwMode,
    /// Block size in bytes, a multiple of 512. Default 4096.
    pub bs: u32,
    /// Requests each stream keeps outstanding. Default 1.
    pub iodepth: u32,
    /// Streams (fio's jobs), each with its own `iodepth`. Default 1.
    pub numjobs: u32,
    /// Percent of reads in `rw` / `randrw`. Default 50.
    pub rwmixread: f64,
    /// Seconds of measured issue after the ramp; 0 = no limit (then `ios`
    /// limits). Default 0.
    pub runtime_s: f64,
    /// Requests each stream issues, ramp included (fio's `number_ios`);
    /// 0 = no limit. Default 0.
    pub ios: u64,
    /// Seconds at the start whose requests are left out of every
    /// statistic (fio's `ramp_time`). Default 0.
    pub ramp_s: f64,
    /// Wait between a completion and the stream's next issue, µs (fio's
    /// `thinktime`). Default 0.
    pub think_us: f64,
    /// First byte of the region the flow addresses (multiple of `bs`). Default 0.
    pub offset_bytes: u64,
    /// Bytes of that region; 0 = to the end of the logical space. Default 0.
    pub size_bytes: u64,
    /// An open-loop flow instead: this trace file (format detected), its
    /// requests at their own times (times `host.time_scale`). Default "".
    pub trace: String,
    /// An open-loop flow instead: this synthetic profile (`detour
    /// profiles`), with `profile_set` overrides (`"key=value"`). Default "".
    pub profile: String,
    pub profile_set: Vec<String>,
    /// NVMe priority class of the flow's submission queue: `urgent`,
    /// `high` (default), `medium` or `low`; read under
    /// `scheduler.arbitration = "nvme_wrr"` (MQSim's Priority_Class).
    pub priority: super::arbitration::PriorityClass,
}

impl Default for FlowConfig {
    fn default() -> Self {
        FlowConfig {
            name: String::new(),
            rw: RwMode::RandRead,
            bs: 4096,
            iodepth: 1,
            numjobs: 1,
            rwmixread: 50.0,
            runtime_s: 0.0,
            ios: 0,
            ramp_s: 0.0,
            think_us: 0.0,
            offset_bytes: 0,
            size_bytes: 0,
            trace: String::new(),
            profile: String::new(),
            profile_set: Vec::new(),
            priority: super::arbitration::PriorityClass::High,
        }
    }
}

impl FlowConfig {
    /// Ranges of one flow, `i` its position (keys read `flows[i].bs`).
    pub fn validate(&self, i: usize) -> Result<()> {
        let key = |k: &str| format!("flows[{i}].{k}");
        ensure_config!(
            (512..=1 << 24).contains(&self.bs) && self.bs % 512 == 0,
            key("bs"),
            "{} is out of range; valid: a multiple of 512 in 512..=16777216",
            self.bs
        );
        ensure_config!((1..=65536).contains(&self.iodepth), key("iodepth"), "{} is out of range; valid: 1..=65536", self.iodepth);
        ensure_config!((1..=4096).contains(&self.numjobs), key("numjobs"), "{} is out of range; valid: 1..=4096", self.numjobs);
        let f = |v: f64, hi: f64| v.is_finite() && (0.0..=hi).contains(&v);
        ensure_config!(f(self.rwmixread, 100.0), key("rwmixread"), "{} is out of range; valid: 0..=100", self.rwmixread);
        ensure_config!(f(self.runtime_s, 1e6), key("runtime_s"), "{} is out of range; valid: 0..=1e6", self.runtime_s);
        ensure_config!(f(self.ramp_s, 1e6), key("ramp_s"), "{} is out of range; valid: 0..=1e6", self.ramp_s);
        ensure_config!(f(self.think_us, 1e9), key("think_us"), "{} is out of range; valid: 0..=1e9", self.think_us);
        ensure_config!(self.trace.is_empty() || self.profile.is_empty(), key("profile"), "give a flow a trace or a profile, not both");
        ensure_config!(self.profile_set.is_empty() || !self.profile.is_empty(), key("profile_set"), "needs a profile");
        // Without a limit a closed loop never ends.
        ensure_config!(
            self.is_open() || self.runtime_s > 0.0 || self.ios > 0,
            key("runtime_s"),
            "a flow needs runtime_s > 0 or ios > 0 (a closed loop without either never ends)"
        );
        ensure_config!(
            self.offset_bytes % self.bs as u64 == 0,
            key("offset_bytes"),
            "{} is not a multiple of bs ({})",
            self.offset_bytes,
            self.bs
        );
        ensure_config!(
            self.size_bytes == 0 || self.size_bytes >= self.bs as u64,
            key("size_bytes"),
            "{} is smaller than bs ({}); 0 = to the end of the logical space",
            self.size_bytes,
            self.bs
        );
        Ok(())
    }

    /// The addressed region `(first byte, blocks of bs)` on a logical space
    /// of `logical` bytes, or an error naming the key that does not fit.
    pub fn region(&self, i: usize, logical: u64) -> Result<(u64, u64)> {
        let bs = self.bs as u64;
        ensure_config!(
            self.offset_bytes + bs <= logical,
            format!("flows[{i}].offset_bytes"),
            "{} leaves no block of {bs} bytes in the logical space ({logical} bytes)",
            self.offset_bytes
        );
        let size = if self.size_bytes == 0 { logical - self.offset_bytes } else { self.size_bytes };
        ensure_config!(
            self.offset_bytes + size <= logical,
            format!("flows[{i}].size_bytes"),
            "{size} bytes from offset {} run past the logical space ({logical} bytes)",
            self.offset_bytes
        );
        Ok((self.offset_bytes, size / bs))
    }

    /// Whether the flow replays a trace or profile at its own times
    /// (then only `name`, `ramp_s` and the source keys apply).
    pub fn is_open(&self) -> bool {
        !self.trace.is_empty() || !self.profile.is_empty()
    }

    /// The name in the summary.
    pub fn label(&self, i: usize) -> String {
        if self.name.is_empty() {
            format!("flow{}", i + 1)
        } else {
            self.name.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_names_parse_and_bad_values_name_their_key() {
        let f: FlowConfig = toml::from_str("rw = \"readwrite\"\nios = 5").unwrap();
        assert_eq!(f.rw, RwMode::Rw);
        assert!(toml::from_str::<FlowConfig>("rw = \"sideways\"").is_err());
        let bad = FlowConfig { bs: 1000, ios: 1, ..FlowConfig::default() };
        assert!(bad.validate(2).unwrap_err().to_string().contains("flows[2].bs"));
        let endless = FlowConfig::default();
        assert!(endless.validate(0).unwrap_err().to_string().contains("flows[0].runtime_s"));
    }

    #[test]
    fn the_region_must_fit_the_logical_space() {
        let f = FlowConfig { ios: 1, offset_bytes: 8192, size_bytes: 4096 * 4, ..FlowConfig::default() };
        assert_eq!(f.region(0, 1 << 20).unwrap(), (8192, 4));
        assert!(f.region(0, 16384).unwrap_err().to_string().contains("flows[0].size_bytes"));
        let whole = FlowConfig { ios: 1, ..FlowConfig::default() };
        assert_eq!(whole.region(0, 40960).unwrap(), (0, 10));
    }
}
