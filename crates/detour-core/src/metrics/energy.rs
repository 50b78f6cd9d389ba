//! The run's energy (`energy` in summary.json): operation counts the
//! scheduler keeps anyway, priced once at the end (`config/energy.rs` has
//! the prices and their source), so the simulation path pays nothing.

use crate::config::EnergyCosts;
use crate::scheduler::DieCounts;

/// Joules by what spent them, and the average power over the run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct EnergySummary {
    /// Everything below, J.
    pub joules: f64,
    /// `joules` over `sim_time_s` (time 0 to the last completion), W.
    pub average_w: f64,
    /// Page reads, page programs and block erases, every die (host, GC,
    /// mapping and scheme operations alike), J.
    pub read_j: f64,
    pub program_j: f64,
    pub erase_j: f64,
    /// Pages moved over the flash channels (one per read and per program), J.
    pub transfer_j: f64,
    /// Dies doing nothing, J.
    pub idle_j: f64,
    /// The bytes `transfer_j` prices.
    pub transfer_bytes: u64,
}

/// Price a run: `counts` per die, `busy_ns` per die, over `duration_ns`.
pub fn energy(c: &EnergyCosts, counts: &[DieCounts], busy_ns: &[u64], duration_ns: u64, page_size: u32) -> EnergySummary {
    let sum = |f: fn(&DieCounts) -> u64| counts.iter().map(f).sum::<u64>();
    let (reads, programs, erases) = (sum(|d| d.reads), sum(|d| d.programs), sum(|d| d.erases));
    let transfer_bytes = (reads + programs).saturating_mul(page_size as u64);
    // In u128: a run whose last request arrives centuries in (a corrupt
    // timestamp, refused later) overflows u64 over a few hundred dies.
    let idle_ns: u128 = busy_ns.iter().map(|&b| u128::from(duration_ns.saturating_sub(b))).sum();
    let read_j = reads as f64 * c.read_uj * 1e-6;
    let program_j = programs as f64 * c.program_uj * 1e-6;
    let erase_j = erases as f64 * c.erase_uj * 1e-6;
    let transfer_j = transfer_bytes as f64 * c.transfer_nj_per_byte * 1e-9;
    // mW × ns = pJ.
    let idle_j = c.idle_mw_per_die * idle_ns as f64 * 1e-12;
    let joules = read_j + program_j + erase_j + transfer_j + idle_j;
    let average_w = if duration_ns > 0 { joules / (duration_ns as f64 * 1e-9) } else { 0.0 };
    EnergySummary { joules, average_w, read_j, program_j, erase_j, transfer_j, idle_j, transfer_bytes }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_is_its_count_times_its_price() {
        let c = EnergyCosts { read_uj: 2.0, program_uj: 10.0, erase_uj: 100.0, transfer_nj_per_byte: 0.5, idle_mw_per_die: 1000.0 };
        let counts = [DieCounts { reads: 3, programs: 2, erases: 1, suspensions: 0 }, DieCounts { reads: 1, ..DieCounts::default() }];
        // Die 0 busy 1 ms of 2 ms, die 1 all of it: 1 ms idle at 1 W = 1 mJ.
        let e = energy(&c, &counts, &[1_000_000, 2_000_000], 2_000_000, 4096);
        // count x price x 1e-6, in that order (what the sum is exactly).
        assert_eq!((e.read_j, e.program_j, e.erase_j), (4.0 * 2.0 * 1e-6, 2.0 * 10.0 * 1e-6, 100.0 * 1e-6));
        assert_eq!(e.transfer_bytes, 6 * 4096);
        assert_eq!(e.transfer_j, 6.0 * 4096.0 * 0.5e-9);
        assert!((e.idle_j - 1e-3).abs() < 1e-15, "{e:?}");
        assert_eq!(e.joules, e.read_j + e.program_j + e.erase_j + e.transfer_j + e.idle_j);
        assert_eq!(e.average_w, e.joules / 2e-3);
    }
}
