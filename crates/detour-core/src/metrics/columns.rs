//! Per-request results as columns, in arrival order.

/// One row per host request. Queueing time is derived:
/// `latency - delay - bus - array` (see docs/results.md).
#[derive(Clone, Debug, Default)]
pub struct RequestColumns {
    /// Arrival time (after time scaling), ns.
    pub arrival_ns: Vec<u64>,
    /// Completion minus arrival, ns.
    pub latency_ns: Vec<u64>,
    pub offset: Vec<u64>,
    pub size: Vec<u32>,
    pub is_write: Vec<bool>,
    /// Bus (command + data transfer) time on the critical path, ns.
    pub bus_ns: Vec<u32>,
    /// Array (tR / tPROG / tBERS) time on the critical path, ns.
    pub array_ns: Vec<u32>,
    /// Time on the request path before flash (e.g. hashing), ns.
    pub delay_ns: Vec<u32>,
    /// Left out of the statistics as warm-up.
    pub warmup: Vec<bool>,
}

impl RequestColumns {
    pub fn push_arrival(&mut self, arrival: u64, offset: u64, size: u32, is_write: bool, warmup: bool) -> u32 {
        self.arrival_ns.push(arrival);
        self.latency_ns.push(0);
        self.offset.push(offset);
        self.size.push(size);
        self.is_write.push(is_write);
        self.bus_ns.push(0);
        self.array_ns.push(0);
        self.delay_ns.push(0);
        self.warmup.push(warmup);
        (self.arrival_ns.len() - 1) as u32
    }

    pub fn complete(&mut self, i: u32, latency: u64, bus: u64, array: u64, delay: u64) {
        let i = i as usize;
        let sat = |v: u64| v.min(u32::MAX as u64) as u32;
        self.latency_ns[i] = latency;
        self.bus_ns[i] = sat(bus);
        self.array_ns[i] = sat(array);
        self.delay_ns[i] = sat(delay);
    }

    pub fn len(&self) -> usize {
        self.arrival_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.arrival_ns.is_empty()
    }

    /// Drop rows' storage (when the caller asked not to keep them).
    pub fn clear(&mut self) {
        *self = RequestColumns::default();
    }
}
