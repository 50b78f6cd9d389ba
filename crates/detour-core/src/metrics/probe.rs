//! The `[probes]` sampler: every `interval_us` of simulated time, each
//! die's and each chip's outstanding commands (queued + running) and busy
//! state, for plots of load over time (RR-SSD's Fig. 2: max / min / mean
//! per-chip queue length); each die's free blocks (the sum over its
//! planes: GC's fuel), and the write buffer's occupancy when there is one.
//!
//! Off by default. When off the event loop pays one comparison per event
//! against `Time::MAX` (`due`). A sample at time t is the state after every
//! event at or before t (the device does not change between events), taken
//! when the first event after t is about to run; samples stop with the last
//! event. Memory: 9 bytes per die and 9 per chip per sample, 4 for the buffer.

use crate::device::{DieState, Phase};
use crate::types::Time;
use serde::Serialize;

/// The sampled series, flattened sample-major: entry `s * dies + d` is die
/// `d` at `t_ns[s]` (chips likewise).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProbeSeries {
    pub interval_ns: Time,
    pub dies: u32,
    pub chips: u32,
    pub t_ns: Vec<u64>,
    pub die_queue: Vec<u32>,
    /// 1 when the die (its service unit) is doing anything: moving data,
    /// running an array operation, suspending.
    pub die_busy: Vec<u8>,
    pub chip_queue: Vec<u32>,
    /// Of `chip_queue`, the host's reads and writes (no GC, no scheme's
    /// background copies): RR-SSD's "requests in the queue of each chip".
    pub chip_host_queue: Vec<u32>,
    /// Busy dies of the chip.
    pub chip_busy: Vec<u8>,
    /// Free blocks of the die (over its planes), per die like `die_queue`.
    pub die_free_blocks: Vec<u32>,
    /// Pages held by the write buffer, one per sample; None without a buffer.
    pub buffer_pages: Option<Vec<u32>>,
}

/// What a sample reads: the service units' states, each die's free blocks
/// and the write buffer's pages (None: no buffer).
pub struct ProbeInput<'a> {
    pub units: &'a [DieState],
    pub die_free_blocks: &'a dyn Fn(u32) -> u32,
    pub buffer_pages: Option<u32>,
}

/// The summary's `probe` section: what the series show at a glance.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ProbeSummary {
    pub interval_us: f64,
    pub samples: u64,
    /// Mean over samples of the longest / shortest / mean chip queue.
    pub chip_queue_max_mean: f64,
    pub chip_queue_min_mean: f64,
    pub chip_queue_mean: f64,
    /// Largest chip queue seen.
    pub chip_queue_peak: u32,
    /// Largest ratio longest / shortest chip queue over the samples where
    /// the shortest is at least 1 (0 if there is none).
    pub chip_max_over_min: f64,
    /// Share of samples where some chip had an empty queue while another
    /// had at least 2 commands.
    pub imbalanced_share: f64,
    /// `chip_max_over_min` and `chip_queue_peak` over host requests only.
    pub chip_host_max_over_min: f64,
    pub chip_host_queue_peak: u32,
}

pub struct Probe {
    next: Time,
    s: ProbeSeries,
    unit_dies: u32,
    dies_per_chip: u32,
}

impl Probe {
    /// A sampler for `dies` dies in chips of `dies_per_chip`, whose states
    /// are kept per service unit of `unit_dies` dies; `interval_us` 0 = off.
    pub fn new(interval_us: f64, dies: u32, dies_per_chip: u32, unit_dies: u32) -> Probe {
        let interval_ns = (interval_us * 1e3).round() as Time;
        Probe {
            next: if interval_ns == 0 { Time::MAX } else { 0 },
            s: ProbeSeries { interval_ns, dies, chips: dies / dies_per_chip.max(1), ..ProbeSeries::default() },
            unit_dies: unit_dies.max(1),
            dies_per_chip: dies_per_chip.max(1),
        }
    }

    pub fn is_on(&self) -> bool {
        self.s.interval_ns > 0
    }

    /// A sample falls before `now` (an event at `now` is about to run;
    /// everything earlier has): call `record_until`.
    #[inline(always)]
    pub fn due(&self, now: Time) -> bool {
        now > self.next
    }

    /// Record every sample time before `now`.
    #[cold]
    pub fn record_until(&mut self, now: Time, input: &ProbeInput<'_>) {
        while self.next < now {
            self.record(self.next, input);
            self.next += self.s.interval_ns;
        }
    }

    fn record(&mut self, t: Time, input: &ProbeInput<'_>) {
        let units = input.units;
        let s = &mut self.s;
        s.t_ns.push(t);
        let unit = |d: u32| &units[(d / self.unit_dies) as usize];
        for d in 0..s.dies {
            let u = unit(d);
            s.die_queue.push(u.occ);
            s.die_busy.push((u.phase != Phase::Idle) as u8);
            s.die_free_blocks.push((input.die_free_blocks)(d));
        }
        if let Some(pages) = input.buffer_pages {
            s.buffer_pages.get_or_insert_with(Vec::new).push(pages);
        }
        let base = s.die_queue.len() - s.dies as usize;
        for c in 0..s.chips as usize {
            let dies = base + c * self.dies_per_chip as usize..base + (c + 1) * self.dies_per_chip as usize;
            // With the chip as service unit every die carries the chip's state.
            let q = if self.unit_dies > 1 { s.die_queue[dies.start] } else { s.die_queue[dies.clone()].iter().sum() };
            let first = c as u32 * self.dies_per_chip;
            let host =
                if self.unit_dies > 1 { unit(first).host_occ } else { (first..first + self.dies_per_chip).map(|d| unit(d).host_occ).sum() };
            s.chip_host_queue.push(host);
            let busy = s.die_busy[dies].iter().map(|&b| b as u32).sum::<u32>();
            s.chip_queue.push(q);
            s.chip_busy.push(busy.min(u8::MAX as u32) as u8);
        }
    }

    /// The series and their summary (None when off).
    pub fn finish(self) -> Option<(ProbeSeries, ProbeSummary)> {
        if !self.is_on() {
            return None;
        }
        let sum = summarise(&self.s);
        Some((self.s, sum))
    }
}

fn summarise(s: &ProbeSeries) -> ProbeSummary {
    let n = s.t_ns.len();
    let mut out = ProbeSummary { interval_us: s.interval_ns as f64 / 1e3, samples: n as u64, ..ProbeSummary::default() };
    if n == 0 || s.chips == 0 {
        return out;
    }
    let chips = s.chips as usize;
    let (mut hi, mut lo, mut avg, mut imb) = (0.0, 0.0, 0.0, 0u64);
    for row in s.chip_queue.chunks(chips) {
        let (mx, mn) = extremes(row);
        hi += mx as f64;
        lo += mn as f64;
        avg += row.iter().map(|&q| q as f64).sum::<f64>() / row.len() as f64;
        imb += (mn == 0 && mx >= 2) as u64;
    }
    (out.chip_queue_peak, out.chip_max_over_min) = peak_and_spread(&s.chip_queue, chips);
    (out.chip_host_queue_peak, out.chip_host_max_over_min) = peak_and_spread(&s.chip_host_queue, chips);
    out.chip_queue_max_mean = hi / n as f64;
    out.chip_queue_min_mean = lo / n as f64;
    out.chip_queue_mean = avg / n as f64;
    out.imbalanced_share = imb as f64 / n as f64;
    out
}

fn extremes(row: &[u32]) -> (u32, u32) {
    (*row.iter().max().unwrap_or(&0), *row.iter().min().unwrap_or(&0))
}

/// The longest queue of a per-chip series, and the largest longest /
/// shortest over the samples whose shortest is at least 1 (0 if none).
fn peak_and_spread(series: &[u32], chips: usize) -> (u32, f64) {
    let (mut peak, mut spread) = (0, 0.0f64);
    for row in series.chunks(chips) {
        let (mx, mn) = extremes(row);
        peak = peak.max(mx);
        if mn >= 1 {
            spread = spread.max(mx as f64 / mn as f64);
        }
    }
    (peak, spread)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn die(occ: u32, phase: Phase) -> DieState {
        DieState { occ, host_occ: occ, phase, ..DieState::default() }
    }

    /// Sample before `now` with die d holding 10 + d free blocks, no buffer.
    fn sample(p: &mut Probe, now: Time, units: &[DieState]) {
        if p.due(now) {
            p.record_until(now, &ProbeInput { units, die_free_blocks: &|d| 10 + d, buffer_pages: None });
        }
    }

    #[test]
    fn off_records_nothing() {
        let mut p = Probe::new(0.0, 4, 2, 1);
        sample(&mut p, 1_000_000, &vec![die(3, Phase::Array); 4]);
        assert!(p.finish().is_none());
    }

    #[test]
    fn samples_every_interval_before_the_event() {
        // 2 chips x 2 dies, 10 us interval; state set at t=0, next event at 35 us.
        let mut p = Probe::new(10.0, 4, 2, 1);
        let units = [die(1, Phase::Array), die(0, Phase::Idle), die(4, Phase::Transfer), die(2, Phase::Array)];
        sample(&mut p, 35_000, &units);
        // An event exactly on a sample time does not record that sample yet.
        sample(&mut p, 40_000, &units);
        let (s, sum) = p.finish().expect("on");
        assert_eq!(s.t_ns, vec![0, 10_000, 20_000, 30_000]);
        assert_eq!(&s.die_queue[..4], &[1, 0, 4, 2]);
        assert_eq!(&s.die_busy[..4], &[1, 0, 1, 1]);
        assert_eq!(&s.chip_queue[..2], &[1, 6]);
        assert_eq!(&s.chip_busy[..2], &[1, 2]);
        assert_eq!(&s.die_free_blocks[..4], &[10, 11, 12, 13]);
        assert!(s.buffer_pages.is_none(), "no buffer, no series");
        assert_eq!(s.chip_queue.len(), 8);
        assert_eq!(sum.samples, 4);
        assert_eq!(sum.chip_queue_peak, 6);
        assert!((sum.chip_max_over_min - 6.0).abs() < 1e-12);
        assert!((sum.chip_queue_mean - 3.5).abs() < 1e-12);
    }

    #[test]
    fn host_queues_leave_background_work_out() {
        // Chip 0 holds 1 host request beside 40 GC commands, chip 1 holds 2.
        let mut p = Probe::new(1.0, 4, 2, 1);
        let gc = DieState { occ: 41, host_occ: 1, phase: Phase::Array, ..DieState::default() };
        sample(&mut p, 500, &[gc, die(0, Phase::Idle), die(2, Phase::Array), die(0, Phase::Idle)]);
        let (s, sum) = p.finish().expect("on");
        assert_eq!((&s.chip_queue[..], &s.chip_host_queue[..]), (&[41, 2][..], &[1, 2][..]));
        assert!((sum.chip_max_over_min - 20.5).abs() < 1e-12);
        assert!((sum.chip_host_max_over_min - 2.0).abs() < 1e-12);
        assert_eq!((sum.chip_queue_peak, sum.chip_host_queue_peak), (41, 2));
    }

    #[test]
    fn chip_unit_counts_the_chip_once() {
        // scheduler.unit = chip: one state per chip of 2 dies.
        let mut p = Probe::new(1.0, 4, 2, 2);
        sample(&mut p, 1_500, &[die(3, Phase::Array), die(0, Phase::Idle)]);
        let (s, sum) = p.finish().expect("on");
        assert_eq!(s.t_ns, vec![0, 1_000]);
        assert_eq!(&s.chip_queue[..2], &[3, 0]);
        assert_eq!(&s.chip_host_queue[..2], &[3, 0]);
        assert_eq!(&s.die_queue[..4], &[3, 3, 0, 0]);
        assert_eq!(sum.chip_max_over_min, 0.0, "min is 0 in every sample");
        assert_eq!(sum.imbalanced_share, 1.0);
    }
}
