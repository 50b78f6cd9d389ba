//! Raw bit error rate and the read-retry steps it costs.
//!
//! RBER(c, t, r) = e + a·c^k + b·c^m·t^n + g·c^p·r^q with c the block's P/E
//! cycles, t the data's retention age and r its read-disturb count: wear,
//! retention loss and read disturb as power laws, the form of Liu et al.,
//! "Optimizing NAND flash-based SSDs via retention relaxation", FAST'12
//! (its first three terms) with a read-disturb term of the same shape.
//! The fitted parameters per chip are in [`Fit`]; docs/nand.md lists them
//! with their sources and limits.

use crate::config::RberFit;

/// One fit of the power law, with the units its time and read count are in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub e: f64,
    pub a: f64,
    pub k: f64,
    pub b: f64,
    pub m: f64,
    pub n: f64,
    pub g: f64,
    pub p: f64,
    pub q: f64,
    /// Nanoseconds per unit of `t` (a day, or an hour).
    pub time_unit_ns: f64,
    /// `r` is the block's reads since erase divided by this (1: the
    /// block's count; pages per block: the mean per page).
    pub reads_per_page: bool,
}

const NS_PER_HOUR: f64 = 3600.0 * 1e9;

impl Fit {
    pub fn of(which: RberFit) -> Fit {
        match which {
            // 2y-nm MLC: SimpleSSD (CAMELab), src/ftl/read_reclaim/
            // abstract_read_reclaim.cc, AbstractReadReclaim::estimateBitError
            // ("2y-nm MLC"); t in days, r the block's reads since erase.
            RberFit::Mlc2y => Fit {
                e: 8.34e-5,
                a: 3.30e-11,
                k: 1.71,
                b: 5.56e-19,
                m: 2.49,
                n: 3.33,
                g: 6.26e-13,
                p: 1.76,
                q: 0.47,
                time_unit_ns: 24.0 * NS_PER_HOUR,
                reads_per_page: false,
            },
            // 72-layer 3D TLC: an MQSim fork's lib/rber_model_example.py,
            // calculate_rber_72_layer_tlc (its primary source is not named
            // there: docs/nand.md); t in hours, r the mean reads per page.
            RberFit::Tlc3d72 => Fit {
                e: 1.48e-3,
                a: 3.90e-10,
                k: 2.05,
                b: 6.28e-5,
                m: 0.14,
                n: 0.54,
                g: 3.73e-9,
                p: 0.33,
                q: 1.71,
                time_unit_ns: NS_PER_HOUR,
                reads_per_page: true,
            },
        }
    }

    /// The RBER after `pe` cycles, `age_ns` of retention and `reads` reads
    /// of the block since its erase (`pages` per block).
    pub fn rber(&self, pe: f64, age_ns: f64, reads: f64, pages: f64) -> f64 {
        self.of_block(pe).rber(self, age_ns, reads, pages)
    }

    /// The factors of a block's RBER that depend on its P/E count alone,
    /// worked out once per erase instead of once per read.
    pub fn of_block(&self, pe: f64) -> BlockFactors {
        BlockFactors { wear: self.e + self.a * pe.powf(self.k), retention: self.b * pe.powf(self.m), disturb: self.g * pe.powf(self.p) }
    }
}

/// e + a·c^k, b·c^m and g·c^p of one block (see [`Fit`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlockFactors {
    pub wear: f64,
    pub retention: f64,
    pub disturb: f64,
}

impl BlockFactors {
    /// The RBER with `age_ns` of retention and `reads` reads since erase.
    /// A fresh block's retention and disturb factors are 0 (c^m at c = 0):
    /// its reads cost no power at all.
    #[inline]
    pub fn rber(&self, fit: &Fit, age_ns: f64, reads: f64, pages: f64) -> f64 {
        let mut r = self.wear;
        if self.retention > 0.0 {
            r += self.retention * (age_ns / fit.time_unit_ns).powf(fit.n);
        }
        if self.disturb > 0.0 {
            let reads = if fit.reads_per_page { reads / pages } else { reads };
            r += self.disturb * reads.powf(fit.q);
        }
        r
    }
}

/// The ECC's side: how many retry steps a read of a given RBER needs.
#[derive(Clone, Copy, Debug)]
pub struct Ecc {
    pub codeword_bits: f64,
    /// Bits one decode corrects per codeword.
    pub t: f64,
    pub max_retries: u32,
}

impl Ecc {
    /// Retry steps for a codeword whose expected errors are `rber` x its
    /// bits, and whether even the last step failed. The first read decodes
    /// up to t errors; each retry step (a re-read at shifted reference
    /// voltages whose extra sensing the decoder uses as soft information)
    /// is taken to correct t more: steps = ceil(errors / t) - 1. A linear
    /// stand-in for the vendor's retry table (docs/nand.md, limits).
    pub fn steps(&self, rber: f64) -> (u32, bool) {
        let errors = rber * self.codeword_bits;
        if errors <= self.t {
            return (0, false);
        }
        capped((errors / self.t).ceil() - 1.0, self.max_retries)
    }
}

/// `need` retry steps against a table of `max` entries: the steps taken,
/// and whether the read stays uncorrectable past the table's end.
pub(super) fn capped(need: f64, max: u32) -> (u32, bool) {
    if need > max as f64 {
        (max, true)
    } else {
        (need as u32, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_is_base_rate() {
        for f in [RberFit::Mlc2y, RberFit::Tlc3d72] {
            let fit = Fit::of(f);
            assert_eq!(fit.rber(0.0, 0.0, 0.0, 256.0), fit.e);
        }
    }

    #[test]
    fn mlc_matches_simplessd_formula_by_hand() {
        // 3000 cycles, 30 days, 1000 reads (SimpleSSD's units).
        let f = Fit::of(RberFit::Mlc2y);
        let want = 8.34e-5
            + 3.30e-11 * 3000f64.powf(1.71)
            + 5.56e-19 * 3000f64.powf(2.49) * 30f64.powf(3.33)
            + 6.26e-13 * 3000f64.powf(1.76) * 1000f64.powf(0.47);
        let got = f.rber(3000.0, 30.0 * 86400.0 * 1e9, 1000.0, 256.0);
        assert!((got - want).abs() < 1e-15 * want.max(1.0), "{got} vs {want}");
    }

    #[test]
    fn steps_grow_with_errors() {
        let ecc = Ecc { codeword_bits: 8192.0, t: 40.0, max_retries: 15 };
        assert_eq!(ecc.steps(40.0 / 8192.0), (0, false));
        assert_eq!(ecc.steps(41.0 / 8192.0), (1, false));
        assert_eq!(ecc.steps(120.0 / 8192.0), (2, false));
        assert_eq!(ecc.steps(0.5), (15, true));
    }
}
