//! Operation timing in ns, derived once from the configuration.

use crate::config::{Config, DeviceConfig, NandConfig, SchedulerConfig};
use crate::types::{Time, NS_PER_US};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    pub read: Time,
    pub program: Time,
    pub erase: Time,
    /// One page over the channel: page_size / (rate x width).
    pub transfer: Time,
    /// Command and address cycles of one operation.
    pub command: Time,
    pub suspend: Time,
    pub resume: Time,
    /// Array time a program or erase must have left to be suspended.
    pub suspend_min_remaining: Time,
    /// One read-retry step: a tR and a decode (`[nand]`); 0 with the
    /// error model off, when no read retries.
    pub retry: Time,
}

fn us(x: f64) -> Time {
    (x * NS_PER_US as f64).round() as Time
}

impl Timing {
    /// The times of a whole config's `[device]`, `[scheduler]` and `[nand]`.
    pub fn from_config(c: &Config) -> Timing {
        Timing::new(&c.device, &c.scheduler, &c.nand)
    }

    /// The flash and channel times of `[device]`, the suspension times of
    /// `[scheduler]`, and a read retry's time under `[nand]`'s error model.
    pub fn new(d: &DeviceConfig, s: &SchedulerConfig, n: &NandConfig) -> Timing {
        let bytes_per_us = d.channel.rate_mts * d.channel.width_bits as f64 / 8.0;
        let transfer = (d.page_size as f64 / bytes_per_us * NS_PER_US as f64).round() as Time;
        Timing {
            read: us(d.flash.read_us),
            program: us(d.flash.program_us),
            erase: us(d.flash.erase_us),
            transfer,
            command: d.channel.command_ns,
            suspend: us(s.suspend_us),
            resume: us(s.resume_us),
            suspend_min_remaining: us(s.suspend_min_remaining_us),
            retry: match n.error_model {
                crate::config::ErrorModel::Off => 0,
                crate::config::ErrorModel::PowerLaw | crate::config::ErrorModel::VthDrift => us(d.flash.read_us) + us(n.decode_us),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_transfer() {
        let t = Timing::from_config(&crate::config::Config::preset("bench-matched").unwrap());
        // 4096 B at 333 MT/s x 1 B = 12.3 µs.
        assert_eq!(t.transfer, 12_300);
        assert_eq!(t.read, 75_000);
    }
}
