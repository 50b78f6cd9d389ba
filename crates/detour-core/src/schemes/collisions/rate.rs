//! The read rate r of the cost term r x t_PROG^2 / 2 (equations (3)-(4)):
//! how many reads per second the destination die will see while the
//! replica is programmed there.
//!
//! The paper does not say over what time r is taken. Over the whole run
//! (`lifetime`, the default and what Detour did first), idle gaps pull r
//! down, so a bursty volume looks quiet and replicas are cheap even when
//! the burst that made the collisions keeps the destination busy. Over the
//! last `rate_window_ms` (`recent`), r is the rate of the burst the
//! decision is made in: a replica is programmed now, so the reads it delays
//! are today's, not the average day's.

use crate::types::Time;
use serde::{Deserialize, Serialize};

/// Over what time the cost term's read rate is measured
/// (`scheme.collisions.rate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateWindow {
    /// Reads sent to the die since the start / elapsed time.
    #[default]
    Lifetime,
    /// Reads sent to the die in the last `rate_window_ms` / that window.
    Recent,
}

/// Buckets a window is cut into: the window slides by 1/BUCKETS of itself.
const BUCKETS: usize = 8;
/// Shortest time a rate is divided by, so the first instants of a run (or
/// window) do not divide by ~0 and price every replica at zero.
const MIN_SPAN_NS: f64 = 1e6;

pub(super) struct RateMeter {
    mode: RateWindow,
    bucket_ns: Time,
    /// Reads per die per bucket (ring); `cur` is the bucket `now` is in.
    counts: Vec<[u32; BUCKETS]>,
    cur: u64,
}

impl RateMeter {
    pub(super) fn new(mode: RateWindow, window_ms: f64, dies: usize) -> Self {
        let bucket_ns = ((window_ms * 1e6) / BUCKETS as f64).max(1.0) as Time;
        RateMeter { mode, bucket_ns, counts: vec![[0; BUCKETS]; dies], cur: 0 }
    }

    /// Zero the buckets that fell out of the window since the last call.
    fn roll(&mut self, now: Time) {
        let b = now / self.bucket_ns;
        if b == self.cur {
            return;
        }
        let stale = (b - self.cur).min(BUCKETS as u64);
        for k in 0..stale {
            let slot = ((b - k) % BUCKETS as u64) as usize;
            self.counts.iter_mut().for_each(|c| c[slot] = 0);
        }
        self.cur = b;
    }

    /// A read was sent to `die` at `now`.
    pub(super) fn record(&mut self, die: usize, now: Time) {
        if self.mode == RateWindow::Recent {
            self.roll(now);
            let slot = (self.cur % BUCKETS as u64) as usize;
            self.counts[die][slot] = self.counts[die][slot].saturating_add(1);
        }
    }

    /// Reads per second on `die`; `lifetime_reads` are all it was sent.
    pub(super) fn rate(&mut self, die: usize, now: Time, lifetime_reads: u64) -> f64 {
        match self.mode {
            RateWindow::Lifetime => lifetime_reads as f64 / (now as f64).max(MIN_SPAN_NS) * 1e9,
            RateWindow::Recent => {
                self.roll(now);
                let n: u64 = self.counts[die].iter().map(|&c| c as u64).sum();
                // The window: the full buckets before this one, and this one so far.
                let span = (BUCKETS as u64 - 1) * self.bucket_ns + now % self.bucket_ns;
                n as f64 / (span.min(now) as f64).max(MIN_SPAN_NS) * 1e9
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn lifetime_averages_over_idle_gaps_and_recent_does_not() {
        let mut life = RateMeter::new(RateWindow::Lifetime, 10.0, 2);
        let mut recent = RateMeter::new(RateWindow::Recent, 10.0, 2);
        // 100 ms idle, then 1000 reads in 10 ms on die 0 (100,000/s).
        let mut n = 0;
        for i in 0..1000u64 {
            let t = 100 * MS + i * 10 * MS / 1000;
            life.record(0, t);
            recent.record(0, t);
            n += 1;
        }
        let now = 110 * MS;
        let l = life.rate(0, now, n);
        let r = recent.rate(0, now, n);
        assert!((l - 1000.0 / 0.11).abs() < 1.0, "lifetime {l}");
        assert!((r / 100_000.0 - 1.0).abs() < 0.15, "recent {r}");
        assert_eq!(recent.rate(1, now, 0), 0.0);
        // A window later with no reads, the recent rate has fallen to 0.
        assert_eq!(recent.rate(0, now + 20 * MS, n), 0.0);
    }
}
