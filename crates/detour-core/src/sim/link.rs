//! The host link (`host.link_gbps`): the PCIe transfer of a request's data,
//! first come first served in each direction, as MQSim's PCIe_Link queues
//! its messages. A write's data crosses before the write is planned; a
//! read's after its last flash operation, before the request completes.

use crate::types::Time;

pub(super) struct HostLink {
    ns_per_byte: f64,
    /// When each direction is free again: to the device, to the host.
    down_free: Time,
    up_free: Time,
}

impl HostLink {
    pub(super) fn new(gbps: f64) -> Option<HostLink> {
        (gbps > 0.0).then(|| HostLink { ns_per_byte: 1.0 / gbps, down_free: 0, up_free: 0 })
    }

    fn take(free: &mut Time, now: Time, ns: Time) -> Time {
        let end = (*free).max(now) + ns;
        *free = end;
        end - now
    }

    fn ns(&self, bytes: u32) -> Time {
        (bytes as f64 * self.ns_per_byte).round() as Time
    }

    /// How long until a write's `bytes` have reached the device.
    // `to_` names the direction of the transfer here, not a conversion.
    #[allow(clippy::wrong_self_convention)]
    pub(super) fn to_device(&mut self, now: Time, bytes: u32) -> Time {
        let ns = self.ns(bytes);
        Self::take(&mut self.down_free, now, ns)
    }

    /// How long until a read's `bytes` have reached the host.
    #[allow(clippy::wrong_self_convention)] // as `to_device` above
    pub(super) fn to_host(&mut self, now: Time, bytes: u32) -> Time {
        let ns = self.ns(bytes);
        Self::take(&mut self.up_free, now, ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_direction_is_one_fifo() {
        let mut l = HostLink::new(2.0).unwrap(); // 0.5 ns per byte
        assert_eq!(l.to_device(0, 4096), 2048);
        assert_eq!(l.to_device(1000, 4096), 1048 + 2048, "waits for the first");
        assert_eq!(l.to_host(1000, 4096), 2048, "the other direction is free");
        assert!(HostLink::new(0.0).is_none());
    }
}
