//! Failure injection: a die, a chip or a whole channel stops working at a
//! chosen time (`scheme.raid.fail_*`). The scheme applies it the first time
//! it plans at or after that time: from then on it never reads or allocates
//! on the failed dies, serves their pages by reconstruction (degraded mode)
//! and counts the logical pages no surviving copy or stripe can rebuild.

use super::config::{FailUnit, RaidConfig};
use crate::config::DeviceConfig;
use crate::types::Time;

#[derive(Clone, Debug, Default)]
pub struct Failure {
    /// First and one-past-last failed die; empty when nothing fails.
    dies: (u32, u32),
    at_ns: Time,
    pub active: bool,
    /// Logical pages lost at the failure (set by the scheme when it applies it).
    pub lost: u64,
    /// Rebuild onto the channel's surviving dies (die and chip failures).
    pub rebuild: bool,
}

impl Failure {
    pub fn new(r: &RaidConfig, d: &DeviceConfig) -> Failure {
        let span = r.fail_unit.dies(d);
        let first = r.fail_index * span;
        let rebuild = r.rebuild && r.fail_unit != FailUnit::Channel;
        Failure { dies: (first, first + span), at_ns: (r.fail_at_us * 1e3).round() as Time, active: false, lost: 0, rebuild }
    }

    /// The failure is configured and its time has come, but not yet applied.
    pub fn due(&self, now: Time) -> bool {
        !self.active && self.dies.1 > self.dies.0 && now >= self.at_ns
    }

    /// The die has failed (and the failure is in effect).
    #[inline]
    pub fn dead(&self, die: u32) -> bool {
        self.active && die >= self.dies.0 && die < self.dies.1
    }

    /// Simulated time of the failure in µs, or -1 when none happened.
    pub fn at_us(&self) -> f64 {
        if self.active {
            self.at_ns as f64 / 1e3
        } else {
            -1.0
        }
    }
}
