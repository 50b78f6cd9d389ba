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
    /// `onoff`: whether the current period is on, and when it ends (ns).
    on: bool,
    period_end: f64,
}

impl Arrivals {
    pub(crate) fn new(kind: &Arrival, scale: f64) -> Self {
        Arrivals { kind: kind.clone(), scale, t: 0.0, n: 0, on: true, period_end: f64::NAN }
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
            Arrival::Bursty { rate_per_s, on_s, off_s, off_rate_per_s } => {
                self.t = self.bursty(rng, rate_per_s, on_s, off_s, off_rate_per_s);
            }
            Arrival::Onoff { rate_per_s, mean_on_s, mean_off_s, off_rate_per_s } => {
                let rates = (rate_per_s, off_rate_per_s);
                self.t = self.onoff(rng, rates, mean_on_s, mean_off_s);
            }
        }
        self.t
    }

    /// Like `bursty`, with period lengths drawn as they are crossed; they
    /// come from the same stream as the gaps, so a seed fixes both.
    fn onoff(&mut self, rng: &mut ChaCha8Rng, (on_rate, off_rate): (f64, f64), mean_on: f64, mean_off: f64) -> f64 {
        if self.period_end.is_nan() {
            self.period_end = exp_len(rng, mean_on);
        }
        let mut t = self.t;
        loop {
            let rate = if self.on { on_rate } else { off_rate };
            if rate > 0.0 {
                let gap = exp_gap(rng, rate * self.scale);
                if t + gap < self.period_end {
                    return t + gap;
                }
            }
            t = self.period_end;
            self.on = !self.on;
            let mean = if self.on { mean_on } else { mean_off };
            // An off period of mean 0 has length 0; nudge so time advances.
            self.period_end = t + exp_len(rng, mean).max(1.0);
        }
    }

    /// Piecewise-constant-rate Poisson: an exponential gap that crosses a
    /// period boundary is discarded and redrawn from the boundary with the
    /// new rate, which is exact because the exponential is memoryless.
    fn bursty(&self, rng: &mut ChaCha8Rng, on_rate: f64, on_s: f64, off_s: f64, off_rate: f64) -> f64 {
        let (on, period) = (on_s * NS_PER_S, (on_s + off_s) * NS_PER_S);
        let mut t = self.t;
        loop {
            let phase = t % period;
            let (rate, end) = if phase < on { (on_rate, t - phase + on) } else { (off_rate, t - phase + period) };
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

fn exp_len(rng: &mut ChaCha8Rng, mean_s: f64) -> f64 {
    let e: f64 = Exp1.sample(rng);
    e * mean_s * NS_PER_S
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
        let kind = Arrival::Bursty { rate_per_s: 10_000.0, on_s: 0.1, off_s: 0.3, off_rate_per_s: 0.0 };
        let t = times(kind, 100_000);
        let rate = t.len() as f64 / (t[t.len() - 1] / NS_PER_S);
        assert!((rate / 2500.0 - 1.0).abs() < 0.03, "mean rate {rate}");
        assert!(t.iter().all(|&x| (x % 4e8) < 1e8), "arrival inside an off period");
    }

    #[test]
    fn onoff_mean_rate_and_idle_gaps() {
        let kind = Arrival::Onoff { rate_per_s: 10_000.0, mean_on_s: 0.05, mean_off_s: 0.15, off_rate_per_s: 0.0 };
        let t = times(kind, 200_000);
        let rate = t.len() as f64 / (t[t.len() - 1] / NS_PER_S);
        assert!((rate / 2500.0 - 1.0).abs() < 0.05, "mean rate {rate}");
        // Idle gaps of random length: gaps far above the 0.1 ms in-burst
        // mean, and not all the same length (fixed periods would be).
        let gaps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).filter(|&g| g > 5e6).collect();
        assert!(gaps.len() > 50, "{} idle gaps", gaps.len());
        let (lo, hi) = gaps.iter().fold((f64::MAX, 0.0f64), |(a, b), &g| (a.min(g), b.max(g)));
        assert!(hi > 5.0 * lo, "idle gaps {lo}..{hi} ns");
    }
}
