//! Arrival times. Kept in f64 nanoseconds so that rounding never accumulates;
//! the first request arrives at 0 like every reader's first request.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp1};

use super::spec::Arrival;

const NS_PER_S: f64 = 1e9;

pub(crate) struct Arrivals {
    kind: Arrival,
    /// Rates are multiplied by this (pair partners are extra requests, so
    /// the main process runs slower to keep the spec's total rate).
    scale: f64,
    t: f64,
    n: u64,
}

impl Arrivals {
    pub(crate) fn new(kind: &Arrival, scale: f64) -> Self {
        Arrivals {
            kind: kind.clone(),
            scale,
            t: 0.0,
            n: 0,
        }
    }

    /// Arrival time of the next request, in ns.
    pub(crate) fn next(&mut self, rng: &mut ChaCha8Rng) -> f64 {
        let n = self.n;
        self.n += 1;
        if n == 0 {
            return 0.0;
        }
        match self.kind {
            Arrival::Poisson { rate_per_s } => {
                self.t += exp_gap(rng, rate_per_s * self.scale);
            }
            Arrival::Constant { rate_per_s } => {
                // Multiply rather than add so 1e6 requests do not drift.
                self.t = n as f64 * NS_PER_S / (rate_per_s * self.scale);
            }
            Arrival::Bursty {
                rate_per_s,
                on_s,
                off_s,
                off_rate_per_s,
            } => {
                self.t = self.bursty(rng, rate_per_s, on_s, off_s, off_rate_per_s);
            }
        }
        self.t
    }

    /// Piecewise-constant-rate Poisson: an exponential gap that crosses a
    /// period boundary is discarded and redrawn from the boundary with the
    /// new rate, which is exact because the exponential is memoryless.
    fn bursty(
        &self,
        rng: &mut ChaCha8Rng,
        on_rate: f64,
        on_s: f64,
        off_s: f64,
        off_rate: f64,
    ) -> f64 {
        let (on, period) = (on_s * NS_PER_S, (on_s + off_s) * NS_PER_S);
        let mut t = self.t;
        loop {
            let phase = t % period;
            let (rate, end) = if phase < on {
                (on_rate, t - phase + on)
            } else {
                (off_rate, t - phase + period)
            };
            if rate > 0.0 {
                let gap = exp_gap(rng, rate * self.scale);
                if t + gap < end {
                    return t + gap;
                }
            }
            // Step to the boundary; nudge past it if float rounding stalls.
            t = if end > t { end } else { t + 1.0 };
        }
    }
}

fn exp_gap(rng: &mut ChaCha8Rng, rate_per_s: f64) -> f64 {
    let e: f64 = Exp1.sample(rng);
    e * NS_PER_S / rate_per_s
}

/// A uniform draw in [0, 1) — one place so every module draws the same way.
pub(crate) fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    rng.random::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn times(kind: Arrival, n: usize) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut a = Arrivals::new(&kind, 1.0);
        (0..n).map(|_| a.next(&mut rng)).collect()
    }

    #[test]
    fn constant_is_exact() {
        let t = times(Arrival::Constant { rate_per_s: 1000.0 }, 1001);
        assert_eq!(t[0], 0.0);
        assert_eq!(t[1000], 1e9);
    }

    #[test]
    fn bursty_mean_rate_and_silence() {
        let kind = Arrival::Bursty {
            rate_per_s: 10_000.0,
            on_s: 0.1,
            off_s: 0.3,
            off_rate_per_s: 0.0,
        };
        let t = times(kind, 100_000);
        let rate = t.len() as f64 / (t[t.len() - 1] / NS_PER_S);
        assert!((rate / 2500.0 - 1.0).abs() < 0.03, "mean rate {rate}");
        assert!(
            t.iter().all(|&x| (x % 4e8) < 1e8),
            "arrival inside an off period"
        );
    }
}
