//! The channel-RAID counters reported in `summary.scheme_counters`.

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Host page reads served by flash (not the write buffer).
    pub flash_reads: u64,
    /// ... of which served by a mirror copy (CR1 partner channel, CR5M mirror chip).
    pub mirror_reads: u64,
    /// ... of which by the mirror copy because the data copy's die failed.
    pub mirror_only_reads: u64,
    /// ... of which rebuilt from the stripe (degraded mode).
    pub degraded_reads: u64,
    /// Reads of pages no copy or stripe could rebuild.
    pub lost_reads: u64,
    /// Host write requests planned (preconditioning excluded).
    pub write_requests: u64,
    pub full_stripe: u64,
    pub rmw: u64,
    pub rcw: u64,
    pub mw: u64,
    /// Stripe writes that could not update a parity (its channel failed).
    pub unprotected: u64,
    pub prereads_rmw: u64,
    pub prereads_rcw: u64,
    /// Background expired-data reclaims (mirror chip over its threshold) and their pre-reads.
    pub reclaims: u64,
    pub prereads_reclaim: u64,
    /// `reclaim = "drain"`: times a full mirror chip turned its channel's mirroring off.
    pub drains: u64,
    /// Programs planned per channel on its data chips (host data, CR1
    /// copies, parity; not GC, not CR5M's mirror chips).
    pub chan_writes: Vec<u64>,
    /// Programs on CR5M's mirror chips.
    pub mirror_writes: u64,
}

impl Stats {
    pub fn new(channels: u32) -> Stats {
        Stats { chan_writes: vec![0; channels as usize], ..Stats::default() }
    }

    pub fn to_vec(&self) -> Vec<(&'static str, f64)> {
        let reads = self.flash_reads.max(1) as f64;
        let writes = self.write_requests.max(1) as f64;
        let n = self.chan_writes.len().max(1) as f64;
        let sum: u64 = self.chan_writes.iter().sum();
        let pre = self.prereads_rmw + self.prereads_rcw;
        vec![
            ("flash_reads", self.flash_reads as f64),
            ("mirror_reads", self.mirror_reads as f64),
            ("mirror_read_share", self.mirror_reads as f64 / reads),
            ("mirror_only_reads", self.mirror_only_reads as f64),
            ("degraded_reads", self.degraded_reads as f64),
            ("lost_reads", self.lost_reads as f64),
            ("write_requests", self.write_requests as f64),
            ("stripe_writes_full", self.full_stripe as f64),
            ("stripe_writes_rmw", self.rmw as f64),
            ("stripe_writes_rcw", self.rcw as f64),
            ("stripe_writes_mw", self.mw as f64),
            ("stripe_writes_unprotected", self.unprotected as f64),
            ("prereads_rmw", self.prereads_rmw as f64),
            ("prereads_rcw", self.prereads_rcw as f64),
            ("prereads_per_write", pre as f64 / writes),
            ("prereads_per_write_with_reclaim", (pre + self.prereads_reclaim) as f64 / writes),
            ("reclaims_background", self.reclaims as f64),
            ("prereads_reclaim", self.prereads_reclaim as f64),
            ("channel_writes_mean", sum as f64 / n),
            ("channel_writes_min", self.chan_writes.iter().copied().min().unwrap_or(0) as f64),
            ("channel_writes_max", self.chan_writes.iter().copied().max().unwrap_or(0) as f64),
            ("mirror_chip_writes", self.mirror_writes as f64),
            ("channel_writes_with_mirror_mean", (sum + self.mirror_writes) as f64 / n),
        ]
    }
}
