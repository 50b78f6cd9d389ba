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
    /// Failed: a page it reads was lost (left out of the latency figures).
    pub lost: Vec<bool>,
    /// Read-retry steps of its flash reads, summed (`[nand]`; else 0).
    pub retry_steps: Vec<u32>,
}

impl RequestColumns {
    pub(crate) fn push(&mut self, r: &super::stream::Row) {
        self.arrival_ns.push(r.arrival_ns);
        self.latency_ns.push(r.latency_ns);
        self.offset.push(r.offset);
        self.size.push(r.size);
        self.is_write.push(r.is_write);
        self.bus_ns.push(r.bus_ns);
        self.array_ns.push(r.array_ns);
        self.delay_ns.push(r.delay_ns);
        self.warmup.push(r.warmup);
        self.lost.push(r.lost);
        self.retry_steps.push(r.retry_steps);
    }

    pub fn len(&self) -> usize {
        self.arrival_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.arrival_ns.is_empty()
    }
}
