//! The run's energy is the sum of its operations' prices (`[energy]`).

mod common;
use common::*;
use detour_core::{sim, IoKind};

/// Prices that are exact in binary, so the sums below are exact too.
const PRICES: [&str; 5] =
    ["energy.read_uj=2", "energy.program_uj=16", "energy.erase_uj=128", "energy.transfer_nj_per_byte=0.5", "energy.idle_mw_per_die=0"];

fn tiny(extra: &[&str]) -> detour_core::config::Config {
    let kv: Vec<&str> = TINY.iter().chain(PRICES.iter()).chain(extra.iter()).copied().collect();
    small(&kv)
}

#[test]
fn a_hand_counted_run_costs_the_sum_of_its_operations() {
    // Three one-page writes, then two reads of written pages: 3 programs,
    // 2 reads, no erase; 5 pages of 4 KiB over the channels.
    let reqs = [
        req(0, 1, 1, IoKind::Write),
        req(1_000_000, 2, 1, IoKind::Write),
        req(2_000_000, 3, 1, IoKind::Write),
        req(3_000_000, 1, 1, IoKind::Read),
        req(4_000_000, 2, 1, IoKind::Read),
    ];
    let s = sim::run_requests(tiny(&[]), &reqs).unwrap().summary;
    let e = &s.energy;
    assert_eq!((e.read_j, e.program_j, e.erase_j, e.idle_j), (2.0 * 2e-6, 3.0 * 16e-6, 0.0, 0.0));
    assert_eq!(e.transfer_bytes, 5 * 4096);
    assert_eq!(e.transfer_j, 5.0 * 4096.0 * 0.5e-9);
    assert_eq!(e.joules, 4e-6 + 48e-6 + 0.0 + 5.0 * 4096.0 * 0.5e-9 + 0.0);
    assert!(e.average_w > 0.0);
}

#[test]
fn gc_erases_are_priced_too() {
    // Overwrites of a few pages fill the tiny device and make GC erase.
    let reqs: Vec<_> = (0..24_000u64).map(|i| req(i * 200_000, i % 64, 1, IoKind::Write)).collect();
    let s = sim::run_requests(tiny(&[]), &reqs).unwrap().summary;
    let (reads, programs, erases) =
        (s.dies.reads.iter().sum::<u64>(), s.dies.programs.iter().sum::<u64>(), s.dies.erases.iter().sum::<u64>());
    assert!(erases > 0 && programs >= 24_000, "GC ran: {erases} erases, {programs} programs");
    let e = &s.energy;
    assert_eq!(e.erase_j, erases as f64 * 128e-6);
    assert_eq!(e.program_j, programs as f64 * 16e-6);
    assert_eq!(e.read_j, reads as f64 * 2e-6);
    assert_eq!(e.joules, e.read_j + e.program_j + e.erase_j + e.transfer_j + e.idle_j);
}

#[test]
fn idle_dies_cost_their_power_over_the_idle_time() {
    let reqs = [req(0, 1, 1, IoKind::Write), req(10_000_000, 1, 1, IoKind::Read)];
    let s = sim::run_requests(tiny(&["energy.idle_mw_per_die=1000"]), &reqs).unwrap().summary;
    // 4 dies over about 10 ms, nearly all of it idle: about 40 mJ at 1 W.
    let idle = s.energy.idle_j;
    assert!(idle > 0.039 && idle < 0.041, "{idle}");
}
