//! Range checks. Each failure names the dotted key and the valid range.

use super::Config;
use crate::ensure_config;
use crate::error::Result;

pub(crate) fn in_range_u(key: &str, v: u64, lo: u64, hi: u64) -> Result<()> {
    ensure_config!(v >= lo && v <= hi, key, "{v} is out of range; valid: {lo}..={hi}");
    Ok(())
}

pub(crate) fn in_range_f(key: &str, v: f64, lo: f64, hi: f64) -> Result<()> {
    ensure_config!(v.is_finite() && v >= lo && v <= hi, key, "{v} is out of range; valid: {lo}..={hi}");
    Ok(())
}

/// A duration that must take time: a zero (or negative) latency would make
/// the flash operation free, and every result built on it meaningless.
pub(crate) fn positive_f(key: &str, v: f64, hi: f64) -> Result<()> {
    ensure_config!(v.is_finite() && v > 0.0 && v <= hi, key, "{v} is out of range; valid: more than 0, at most {hi}");
    Ok(())
}

pub(crate) fn one_of(key: &str, v: &str, allowed: &[&str]) -> Result<()> {
    ensure_config!(allowed.contains(&v), key, "`{v}` is not one of: {}", allowed.join(", "));
    Ok(())
}

impl Config {
    fn validate_probes(&self) -> Result<()> {
        let p = self.probes.interval_us;
        ensure_config!(p == 0.0 || (1.0..=1e9).contains(&p), "probes.interval_us", "{p} is out of range; valid: 0 (off) or 1..=1e9");
        Ok(())
    }

    /// Check every value's range. The checks that need the device's
    /// geometry or a registry are setup/'s.
    pub fn validate(&self) -> Result<()> {
        let d = &self.device;
        in_range_u("device.channels", d.channels as u64, 1, 1024)?;
        in_range_u("device.chips_per_channel", d.chips_per_channel as u64, 1, 256)?;
        in_range_u("device.dies_per_chip", d.dies_per_chip as u64, 1, 64)?;
        in_range_u("device.blocks_per_plane", d.blocks_per_plane as u64, 4, 1 << 20)?;
        in_range_u("device.pages_per_block", d.pages_per_block as u64, 1, 65535)?;
        in_range_u("device.page_size", d.page_size as u64, 512, 1 << 20)?;
        // Pages hold whole sectors and flash pages come in powers of two;
        // 3000 B would split sectors across pages.
        ensure_config!(
            d.page_size.is_power_of_two(),
            "device.page_size",
            "{} is not a power of two (512, 1024, ..., 1048576)",
            d.page_size
        );
        in_range_f("device.overprovisioning", d.overprovisioning, 0.0, 0.9)?;
        in_range_u("device.spare_chips", d.spare_chips as u64, 0, d.chips_per_channel as u64)?;
        positive_f("device.flash.read_us", d.flash.read_us, 1e6)?;
        positive_f("device.flash.program_us", d.flash.program_us, 1e6)?;
        positive_f("device.flash.erase_us", d.flash.erase_us, 1e7)?;
        one_of("device.channel.width_bits", &d.channel.width_bits.to_string(), &["8", "16", "32"])?;
        in_range_f("device.channel.rate_mts", d.channel.rate_mts, 1.0, 100_000.0)?;
        in_range_u("device.channel.command_ns", d.channel.command_ns, 0, 1_000_000)?;

        let s = &self.scheduler;
        in_range_f("scheduler.suspend_us", s.suspend_us, 0.0, 1e5)?;
        in_range_f("scheduler.resume_us", s.resume_us, 0.0, 1e5)?;
        in_range_f("scheduler.suspend_min_remaining_us", s.suspend_min_remaining_us, 0.0, 1e7)?;
        in_range_u("scheduler.max_suspends", s.max_suspends as u64, 0, 1000)?;
        super::arbitration::validate_weights(&s.wrr_weights)?;

        let f = &self.ftl;
        in_range_f("ftl.gc_threshold", f.gc_threshold, 0.0, 0.5)?;
        in_range_u("ftl.gc_choices", f.gc_choices as u64, 1, 1 << 20)?;
        in_range_u("ftl.wear_threshold", f.wear_threshold as u64, 1, 1 << 24)?;
        in_range_u("ftl.buffer_read_ns", f.buffer_read_ns, 0, 1_000_000_000)?;
        in_range_f("ftl.precondition.valid", f.precondition.valid, 0.0, 1.0)?;
        in_range_f("ftl.precondition.invalid", f.precondition.invalid, 0.0, 0.95)?;
        in_range_f("ftl.precondition.wear", f.precondition.wear, 0.0, 100.0)?;
        in_range_f("ftl.precondition.steady_writes", f.precondition.steady_writes, 0.0, 100.0)?;
        // Host writes count their GC requests only where they check the
        // trigger, which they do only in pages: else GC would never start.
        let (start, trigger) = (f.gc_start, f.gc_trigger);
        ensure_config!(
            start != super::GcStart::HostWrites || trigger == super::GcTrigger::FreePages,
            "ftl.gc_start",
            "`host_writes` needs ftl.gc_trigger = \"free_pages\" (host writes check the trigger only in pages)"
        );

        let h = &self.host;
        in_range_f("host.time_scale", h.time_scale, 1e-9, 1e9)?;
        in_range_f("scheme.tick_us", self.scheme.tick_us, 0.0, 1e15)?;
        // A sub-microsecond tick is no controller's timer, and it would run
        // billions of ticks over a trace of seconds: in effect a hang.
        let tick = self.scheme.tick_us;
        ensure_config!(tick == 0.0 || tick >= 1.0, "scheme.tick_us", "{tick} is out of range; valid: 0 (the scheme's own) or at least 1");
        self.validate_probes()?;
        self.nand.validate()?;
        self.validate_model()?;
        self.validate_read_cache()?;
        self.validate_energy()?;
        ensure_config!(self.flows.len() < u16::MAX as usize, "flows", "{} flows; at most {}", self.flows.len(), u16::MAX - 1);
        for (i, fl) in self.flows.iter().enumerate() {
            fl.validate(i)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigBuilder;

    /// The error of building the `small` preset with one key set.
    fn refused(key: &str, value: &str) -> String {
        let built = ConfigBuilder::from_preset("small").and_then(|b| b.set(key, value)).and_then(|b| b.build());
        match built {
            Ok(_) => panic!("{key}={value} was accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn page_sizes_that_are_not_powers_of_two_are_refused() {
        for size in ["3000", "5000", "4097"] {
            let err = refused("device.page_size", size);
            assert!(err.contains("device.page_size") && err.contains("power of two"), "{err}");
        }
        for size in ["512", "4096", "16384"] {
            let b = ConfigBuilder::from_preset("small").and_then(|b| b.set("device.page_size", size));
            assert!(b.and_then(|b| b.build()).is_ok(), "{size}");
        }
    }

    #[test]
    fn gc_requests_per_host_write_need_the_trigger_in_pages() {
        let err = refused("ftl.gc_start", "host_writes");
        assert!(err.contains("ftl.gc_start") && err.contains("free_pages"), "{err}");
        let b = ConfigBuilder::from_preset("small").and_then(|b| b.set_all(["ftl.gc_start=host_writes", "ftl.gc_trigger=free_pages"]));
        assert!(b.and_then(|b| b.build()).is_ok());
    }

    #[test]
    fn a_sub_microsecond_tick_is_refused() {
        let err = refused("scheme.tick_us", "0.001");
        assert!(err.contains("scheme.tick_us") && err.contains("at least 1"), "{err}");
    }

    #[test]
    fn zero_or_negative_flash_latencies_are_refused() {
        for key in ["device.flash.read_us", "device.flash.program_us", "device.flash.erase_us"] {
            for v in ["0", "-1", "0.0"] {
                let err = refused(key, v);
                assert!(err.contains(key) && err.contains("more than 0"), "{err}");
            }
        }
    }
}
