//! The read-reference drift model (`error_model = "vth_drift"`): the
//! read-retry steps a read needs are the retry-table entries between the
//! default read reference and the one that reads the page right.
//!
//! ```text
//! D(c, t) = (a + b·c) · ln(t / t_ref)   for t > t_ref, else 0
//! steps   = max(0, ceil(D − 1/2))      at most max_retries
//! ```
//!
//! with c the block's P/E cycles and t its data's retention age. The shape:
//! retention loss logarithmic in time from the first hours on, at any wear
//! (Luo et al., SIGMETRICS'18, 3D NAND's early retention loss: state means
//! V = A·log(t) + B), faster on worn cells (a + b·c, linear our choice); a
//! retry walks the table one entry per step until the errors are within the
//! ECC's reach (Park et al., ASPLOS'21), which for the coarsest gapless
//! table is the entry nearest D. The one fit, `tlc3d48`, is fitted to two of
//! Park et al.'s points by scripts/nand_drift_fit.py (docs/nand.md says
//! which, and judges the others as held out).

use crate::config::DriftFit;

const NS_PER_HOUR: f64 = 3600.0 * 1e9;

/// One fit of the drift model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drift {
    /// Drift rate of an unworn block, table steps per e-fold of age.
    pub a: f64,
    /// Its growth per P/E cycle.
    pub b: f64,
    /// The age at which the default read reference is right, ns.
    pub t_ref_ns: f64,
    pub max_retries: u32,
}

impl Drift {
    pub fn of(which: DriftFit, max_retries: u32) -> Drift {
        match which {
            // 48-layer 3D TLC (Park et al., ASPLOS'21, arXiv:2104.09611):
            // a and b are scripts/nand_drift_fit.py's output for t_ref = 1 h,
            // fitted to 0 P/E at 90 days (at least 4 steps) and 2000 P/E at
            // 365 days (mean 19.9 steps).
            DriftFit::Tlc3d48 => Drift { a: 0.520978, b: 0.000835573, t_ref_ns: NS_PER_HOUR, max_retries },
        }
    }

    /// A block's drift rate (a + b·c), worked out once per erase.
    #[inline]
    pub fn rate(&self, pe: f64) -> f64 {
        self.a + self.b * pe
    }

    /// Retry steps of a read of data `age_ns` old on a block of drift rate
    /// `rate`, and whether the table ran out first.
    #[inline]
    pub fn steps(&self, rate: f64, age_ns: f64) -> (u32, bool) {
        if age_ns <= self.t_ref_ns {
            return (0, false);
        }
        let d = rate * (age_ns / self.t_ref_ns).ln();
        // The first read's window reaches half a step past the default.
        if d <= 0.5 {
            return (0, false);
        }
        super::rber::capped((d - 0.5).ceil(), self.max_retries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY_NS: f64 = 24.0 * NS_PER_HOUR;

    #[test]
    fn steps_by_hand() {
        // a = 1, b = 0.001, t_ref = 1 h: at 1000 P/E the rate is 2.
        let d = Drift { a: 1.0, b: 0.001, t_ref_ns: NS_PER_HOUR, max_retries: 15 };
        assert_eq!(d.rate(1000.0), 2.0);
        // Younger than t_ref: no drift.
        assert_eq!(d.steps(2.0, 0.5 * NS_PER_HOUR), (0, false));
        // e hours: D = 2·1 = 2, nearest entry 2 (ceil(1.5)).
        assert_eq!(d.steps(2.0, std::f64::consts::E * NS_PER_HOUR), (2, false));
        // 1 day at rate 1: D = ln 24 = 3.178, entry 3.
        assert_eq!(d.steps(1.0, DAY_NS), (3, false));
        // D = 0.5 exactly is still within the default read's window.
        assert_eq!(d.steps(0.5, std::f64::consts::E * NS_PER_HOUR), (0, false));
        // 1 year at rate 3: D = 3·ln 8760 = 27.2 > 15: the table runs out.
        assert_eq!(d.steps(3.0, 365.0 * DAY_NS), (15, true));
    }

    #[test]
    fn tlc3d48_reproduces_its_fit_inputs() {
        // The two points the fit was made on (docs/nand.md): 0 P/E at 90
        // days gives 4 steps, 2000 P/E at 365 days 20 (mean 19.9).
        let d = Drift::of(DriftFit::Tlc3d48, 40);
        assert_eq!(d.steps(d.rate(0.0), 90.0 * DAY_NS), (4, false));
        let at = d.rate(2000.0) * (365.0 * DAY_NS / NS_PER_HOUR).ln();
        assert!((at - 19.9).abs() < 1e-3, "{at}");
        assert_eq!(d.steps(d.rate(2000.0), 365.0 * DAY_NS), (20, false));
        // Fresh data never retries, worn or not.
        assert_eq!(d.steps(d.rate(3000.0), 0.0), (0, false));
    }
}
