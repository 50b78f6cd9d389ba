//! Read-collision accounting (patterned-read-collisions paper, Sec. II):
//! which host reads were queued behind another host read on their die,
//! whether the die was overloaded when they were (balanced vs imbalanced),
//! the collision pairs, and the collision ratio a workload with the same
//! outstanding reads but uniformly random dies would have had.
//!
//! Fed by two hooks of the simulator (a host read joins its die's queue; it
//! finishes), only when `metrics.collisions = true`. Every definition is in
//! docs/schemes/collisions.md; every field in docs/results.md.

use super::percentile::rsd;
use crate::device::DieState;
use crate::types::{Lpn, Time};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::HashMap;

/// A host read outstanding (queued or in service) on a die.
#[derive(Clone, Copy, Debug)]
struct Slot {
    op: u32,
    lpn: Lpn,
    /// Its pairs with the reads queued before it were already recorded
    /// (a pair is recorded once per stay together on the die).
    paired: bool,
}

/// The `collisions` section of the summary.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct CollisionSummary {
    /// Host flash reads queued on a die (the paper's die read operations).
    pub reads: u64,
    /// Reads that joined a die already holding an outstanding host read.
    pub collisions: u64,
    /// Collisions on a die whose outstanding commands (the read included)
    /// exceeded the minimum over dies by two or more.
    pub imbalanced: u64,
    pub collision_ratio: f64,
    /// imbalanced / collisions.
    pub imbalanced_share: f64,
    /// Mean outstanding commands in the SSD (all kinds, all dies) seen by an
    /// arriving host read, the read included.
    pub mean_occ: f64,
    /// Mean host reads outstanding in the SSD seen by an arriving read, itself included.
    pub mean_read_occ: f64,
    /// Host reads outstanding averaged over time, from the run's start to
    /// the last read's completion, idle time included: the paper's OCC,
    /// "monitored every 10 µs" (Sec. II-C), taken exactly. Per-arrival means
    /// (`mean_occ`, `mean_read_occ`) weigh busy moments by their arrivals.
    pub time_mean_read_occ: f64,
    /// Host reads outstanding averaged over the time some host read is
    /// outstanding (idle time left out): the paper's 10 µs samples averaged
    /// over the busy ones. Table 2's OCCs (HM1 14.2 over 1.0 M die
    /// operations in a one-week trace) cannot be averages over idle samples
    /// too (docs/reproduce.md, Readings).
    pub busy_mean_read_occ: f64,
    /// Expected ratio with the same outstanding reads at each arrival but
    /// uniformly random dies, analytically: the mean over arrivals of
    /// 1-(1-1/D)^n for n other reads outstanding on D dies.
    pub expected_ratio: f64,
    /// The same random placement simulated (Monte Carlo, seeded): agrees
    /// with `expected_ratio` within sampling error.
    pub expected_ratio_simulated: f64,
    /// collisions / expected collisions (the paper's Fig. 3).
    pub measured_to_expected: f64,
    /// Share of the time with a host read outstanding during which some die
    /// held two or more (the paper's 10 µs sampling, taken exactly).
    pub time_share_colliding: f64,
    /// The same for uniformly random dies (birthday probability of the
    /// outstanding reads, time-weighted).
    pub expected_time_share: f64,
    /// Distinct collision pairs recorded at imbalanced collisions.
    pub imbalanced_pairs: u64,
    /// Times those pairs were recorded.
    pub pair_occurrences: u64,
    /// pair_occurrences / imbalanced_pairs.
    pub mean_repetition: f64,
    /// Share of occurrences due to the most repeated 5% of pairs.
    pub top5pct_pair_share: f64,
    /// Host reads per die, and their relative standard deviation (Table 3).
    pub reads_per_die: Vec<u64>,
    pub reads_rsd: f64,
}

/// One collision pair and how often it was recorded (`RunResult::collision_pairs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PairCount {
    pub lpn_a: Lpn,
    pub lpn_b: Lpn,
    pub count: u32,
}

pub struct CollisionTracker {
    out: Vec<Vec<Slot>>,
    reads_per_die: Vec<u64>,
    /// Dies holding two or more outstanding host reads, and all of them.
    multi: u32,
    reads_out: u32,
    last_t: Time,
    t_reads: u128,
    /// Integral of the outstanding host reads over time (read-ns).
    read_occ_time: u128,
    t_colliding: u128,
    t_expected: f64,
    /// birthday[n]: some die holds two of n reads placed at random.
    birthday: Vec<f64>,
    reads: u64,
    collisions: u64,
    imbalanced: u64,
    occ_sum: u64,
    read_occ_sum: u64,
    exp_indep: f64,
    exp_sim: u64,
    rng: ChaCha8Rng,
    pairs: HashMap<(Lpn, Lpn), u32>,
    scratch: Vec<Slot>,
}

impl CollisionTracker {
    pub fn new(dies: u32, seed: u64) -> Self {
        let d = dies.max(1) as usize;
        let mut birthday = Vec::with_capacity(d + 2);
        let mut none = 1.0;
        for n in 0..=d + 1 {
            birthday.push(1.0 - none);
            none *= (d as f64 - n as f64).max(0.0) / d as f64;
        }
        CollisionTracker {
            out: (0..d).map(|_| Vec::with_capacity(8)).collect(),
            reads_per_die: vec![0; d],
            multi: 0,
            reads_out: 0,
            last_t: 0,
            t_reads: 0,
            read_occ_time: 0,
            t_colliding: 0,
            t_expected: 0.0,
            birthday,
            reads: 0,
            collisions: 0,
            imbalanced: 0,
            occ_sum: 0,
            read_occ_sum: 0,
            exp_indep: 0.0,
            exp_sim: 0,
            // Its own stream: turning the metric on never changes the run.
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0xC011_1510_4E5D_0001),
            pairs: HashMap::new(),
            scratch: Vec::with_capacity(8),
        }
    }

    /// Credit the time since the last change to the current state.
    fn advance(&mut self, now: Time) {
        let dt = now.saturating_sub(self.last_t);
        self.last_t = now;
        if dt == 0 || self.reads_out == 0 {
            return;
        }
        self.read_occ_time += dt as u128 * self.reads_out as u128;
        self.t_reads += dt as u128;
        if self.multi > 0 {
            self.t_colliding += dt as u128;
        }
        let n = (self.reads_out as usize).min(self.birthday.len() - 1);
        self.t_expected += dt as f64 * self.birthday[n];
    }

    /// A host read (`op`, of `lpn`) joined `die`'s queue; `dies` is the
    /// scheduler's state with the read already counted: one per service
    /// unit, so with `scheduler.unit = "chip"` (MQSim's rules) a die's OCC
    /// is its chip's.
    pub fn on_read_enqueued(&mut self, now: Time, die: u32, op: u32, lpn: Lpn, dies: &[DieState]) {
        self.advance(now);
        let d = die as usize;
        let n_dies = self.out.len();
        let others = self.reads_out as u64;
        self.reads += 1;
        self.reads_per_die[d] += 1;
        let (mut total, mut min) = (0u64, u32::MAX);
        for s in dies.iter().filter(|s| !s.failed) {
            total += s.occ as u64;
            min = min.min(s.occ);
        }
        self.occ_sum += total;
        self.read_occ_sum += others + 1;
        self.expect(others, n_dies);
        let queued = self.out[d].len();
        let per_unit = (n_dies / dies.len().max(1)).max(1);
        let imbalanced = queued > 0 && dies[d / per_unit].occ >= min.saturating_add(2);
        self.collisions += (queued > 0) as u64;
        if imbalanced {
            self.imbalanced += 1;
            self.record_pairs(d, lpn);
        }
        self.out[d].push(Slot { op, lpn, paired: imbalanced });
        if queued == 1 {
            self.multi += 1;
        }
        self.reads_out += 1;
    }

    /// The expected-collision terms for an arrival that finds `others`
    /// host reads outstanding on `d` dies.
    fn expect(&mut self, others: u64, d: usize) {
        self.exp_indep += 1.0 - (1.0 - 1.0 / d as f64).powf(others as f64);
        // Throw the other reads on random dies until one lands on the new
        // read's die (a hit is expected within about d throws).
        let target = self.rng.random_range(0..d);
        for _ in 0..others {
            if self.rng.random_range(0..d) == target {
                self.exp_sim += 1;
                break;
            }
        }
    }

    /// An imbalanced collision of `lpn` on die `d`: the pairs it forms with
    /// every queued read, and the queued reads' own pairs not yet recorded.
    fn record_pairs(&mut self, d: usize, lpn: Lpn) {
        let mut slots = std::mem::take(&mut self.scratch);
        slots.clear();
        slots.extend_from_slice(&self.out[d]);
        for i in 0..slots.len() {
            if !slots[i].paired {
                for j in 0..i {
                    self.bump(slots[j].lpn, slots[i].lpn);
                }
            }
            self.bump(slots[i].lpn, lpn);
        }
        for s in &mut self.out[d] {
            s.paired = true;
        }
        self.scratch = slots;
    }

    fn bump(&mut self, a: Lpn, b: Lpn) {
        let key = if a <= b { (a, b) } else { (b, a) };
        *self.pairs.entry(key).or_insert(0) += 1;
    }

    /// Host read `op` on `die` finished (or failed).
    pub fn on_read_done(&mut self, now: Time, die: u32, op: u32) {
        let Some(q) = self.out.get(die as usize) else { return };
        let Some(i) = q.iter().position(|s| s.op == op) else { return };
        self.advance(now);
        let q = &mut self.out[die as usize];
        q.remove(i);
        if q.len() == 1 {
            self.multi -= 1;
        }
        self.reads_out -= 1;
    }

    /// Every pair with its count, most repeated first (ties by LPNs).
    pub fn pair_counts(&self) -> Vec<PairCount> {
        // Sorted just below by count, then LPNs: the map's order never reaches a result.
        #[allow(clippy::disallowed_methods)]
        let mut v: Vec<PairCount> = self.pairs.iter().map(|(&(a, b), &count)| PairCount { lpn_a: a, lpn_b: b, count }).collect();
        v.sort_unstable_by(|x, y| y.count.cmp(&x.count).then((x.lpn_a, x.lpn_b).cmp(&(y.lpn_a, y.lpn_b))));
        v
    }

    pub fn summary(&self, pairs: &[PairCount]) -> CollisionSummary {
        let div = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let reads = self.reads as f64;
        let occurrences: u64 = pairs.iter().map(|p| p.count as u64).sum();
        let top = pairs.len().div_ceil(20);
        let top_sum: u64 = pairs[..top].iter().map(|p| p.count as u64).sum();
        CollisionSummary {
            reads: self.reads,
            collisions: self.collisions,
            imbalanced: self.imbalanced,
            collision_ratio: div(self.collisions as f64, reads),
            imbalanced_share: div(self.imbalanced as f64, self.collisions as f64),
            mean_occ: div(self.occ_sum as f64, reads),
            mean_read_occ: div(self.read_occ_sum as f64, reads),
            time_mean_read_occ: div(self.read_occ_time as f64, self.last_t as f64),
            busy_mean_read_occ: div(self.read_occ_time as f64, self.t_reads as f64),
            expected_ratio: div(self.exp_indep, reads),
            expected_ratio_simulated: div(self.exp_sim as f64, reads),
            measured_to_expected: div(self.collisions as f64, self.exp_indep),
            time_share_colliding: div(self.t_colliding as f64, self.t_reads as f64),
            expected_time_share: div(self.t_expected, self.t_reads as f64),
            imbalanced_pairs: pairs.len() as u64,
            pair_occurrences: occurrences,
            mean_repetition: div(occurrences as f64, pairs.len() as f64),
            top5pct_pair_share: div(top_sum as f64, occurrences as f64),
            reads_per_die: self.reads_per_die.clone(),
            reads_rsd: rsd(&self.reads_per_die).1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dies(occ: &[u32]) -> Vec<DieState> {
        occ.iter().map(|&o| DieState { occ: o, ..DieState::default() }).collect()
    }

    /// With the chip as the service unit (MQSim's rules) the scheduler
    /// keeps one state per chip: a read on die 3 of 4 dies in 2 chips
    /// reads chip 1's OCC (it indexed die 3 into the 2 states and panicked).
    #[test]
    fn chip_units_give_a_die_its_chips_occ() {
        let mut t = CollisionTracker::new(4, 1);
        t.on_read_enqueued(0, 3, 0, 10, &dies(&[0, 1]));
        t.on_read_enqueued(1, 3, 1, 11, &dies(&[0, 2]));
        assert_eq!((t.collisions, t.imbalanced), (1, 1));
    }

    /// Fig. 2b: A and B queued on die 0 while die 2 and 3 are idle; C joins
    /// die 0: one imbalanced collision, pairs <A,C>, <B,C> and <A,B>.
    #[test]
    fn fig2b_pairs_include_the_queued_pair() {
        let mut t = CollisionTracker::new(4, 1);
        t.on_read_enqueued(0, 0, 1, 10, &dies(&[1, 0, 0, 0]));
        // B: occ 2 vs min 0: imbalanced, pair <A,B> recorded now.
        t.on_read_enqueued(0, 0, 2, 11, &dies(&[2, 1, 0, 0]));
        t.on_read_enqueued(0, 0, 3, 12, &dies(&[3, 1, 0, 0]));
        let p = t.pair_counts();
        let s = t.summary(&p);
        assert_eq!((s.reads, s.collisions, s.imbalanced), (3, 2, 2));
        let got: Vec<(u32, u32, u32)> = p.iter().map(|p| (p.lpn_a, p.lpn_b, p.count)).collect();
        // <A,B> once (not again when C came), <A,C>, <B,C>.
        assert_eq!(got, vec![(10, 11, 1), (10, 12, 1), (11, 12, 1)]);
    }

    /// A balanced collision records no pair; when the die later becomes
    /// imbalanced, the earlier pair is recorded with the new ones.
    #[test]
    fn balanced_then_imbalanced() {
        let mut t = CollisionTracker::new(2, 1);
        t.on_read_enqueued(0, 0, 1, 5, &dies(&[1, 1]));
        t.on_read_enqueued(0, 0, 2, 6, &dies(&[2, 1])); // 2 - 1 < 2: balanced
        assert_eq!((t.collisions, t.imbalanced, t.pairs.len()), (1, 0, 0));
        t.on_read_enqueued(0, 0, 3, 7, &dies(&[3, 1])); // imbalanced
        let got: Vec<(u32, u32)> = t.pair_counts().iter().map(|p| (p.lpn_a, p.lpn_b)).collect();
        assert_eq!(got, vec![(5, 6), (5, 7), (6, 7)]);
    }

    #[test]
    fn repeated_pair_counts_and_time_shares() {
        let mut t = CollisionTracker::new(4, 1);
        for k in 0..3u64 {
            let at = k * 1000;
            t.on_read_enqueued(at, 1, 1, 40, &dies(&[0, 1, 0, 0]));
            t.on_read_enqueued(at, 1, 2, 44, &dies(&[0, 2, 0, 0]));
            t.on_read_done(at + 100, 1, 1);
            t.on_read_done(at + 200, 1, 2);
        }
        let p = t.pair_counts();
        assert_eq!(p, vec![PairCount { lpn_a: 40, lpn_b: 44, count: 3 }]);
        let s = t.summary(&p);
        assert_eq!(s.collision_ratio, 0.5);
        assert_eq!(s.mean_repetition, 3.0);
        // Each round: 100 ns with two reads on die 1, 100 ns with one.
        assert!((s.time_share_colliding - 0.5).abs() < 1e-12);
        // Birthday for 2 reads on 4 dies is 1/4, for 1 read 0.
        assert!((s.expected_time_share - 0.125).abs() < 1e-12);
        assert_eq!(s.reads_per_die, vec![0, 6, 0, 0]);
        // Over time, idle included: 300 read-ns a round, the last read done at 2,200 ns.
        assert!((s.time_mean_read_occ - 900.0 / 2200.0).abs() < 1e-12, "{}", s.time_mean_read_occ);
        // Per arrival: 1 and 2 outstanding, so 1.5, where the time average sees the idle gaps.
        assert_eq!(s.mean_read_occ, 1.5);
        // Over busy time only: 300 read-ns over 200 ns with a read outstanding, each round.
        assert!((s.busy_mean_read_occ - 900.0 / 600.0).abs() < 1e-12, "{}", s.busy_mean_read_occ);
    }

    #[test]
    fn expected_ratios_for_known_loads() {
        let mut t = CollisionTracker::new(16, 3);
        for _ in 0..200_000 {
            t.expect(7, 16);
        }
        let indep = 1.0 - (15.0f64 / 16.0).powi(7);
        assert!((t.exp_indep / 200_000.0 - indep).abs() < 1e-12);
        assert!((t.exp_sim as f64 / 200_000.0 - indep).abs() < 0.005, "{}", t.exp_sim);
    }
}
