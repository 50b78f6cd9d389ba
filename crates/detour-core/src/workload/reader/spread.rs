//! Coarse timestamps spread over their resolution (`TraceOptions::coarse_time`).
//!
//! Some traces stamp requests with whole seconds (Tencent CBS, CloudPhysics):
//! replayed as written, every request of one second arrives at the same
//! instant and the device sees a burst that the workload never made (the
//! Tencent sample's 50,000 requests would arrive in two instants). A request
//! stamped `T` at resolution `R` happened somewhere in `[T, T + R)`; this
//! stage puts it there.
//!
//! Detection: the first requests (up to [`PROBE_REQUESTS`], or until
//! [`PROBE_INSTANTS`] distinct times) are held; the resolution is the
//! coarsest of [`RESOLUTIONS`] that divides every time among them, if two
//! of them share an instant (a trace whose times never tie needs nothing)
//! and at least two instants are seen (one instant says nothing about the
//! resolution), else the format's own (`TraceFormat::time_resolution_ns`).
//! Traces stamped in µs or ns are never touched.
//!
//! Spreading: the `n` requests sharing instant `T` (in the order they
//! leave the reorder window, which keeps file order among equal times) get
//! `T + floor((i + u_i) * w / n)`, `u_i` uniform in `[0, 1)` from a seeded
//! ChaCha8 stream and `w = min(R, next instant - T)`: stratified, so file
//! order is kept, no two share an instant while `w >= n` ns, and nothing
//! passes the next instant. Same seed, same times. Memory: one instant's
//! requests, at most [`MAX_GROUP`]; a larger instant is spread in chunks,
//! each over half the width still left.

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::Result;
use crate::workload::Request;

/// What becomes of timestamps coarser than the trace's real arrivals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CoarseTime {
    /// Requests sharing a coarse instant are spread over its resolution.
    #[default]
    Spread,
    /// Times are kept as written (requests of one instant arrive together).
    Keep,
}

/// Candidate resolutions, coarsest first: 1 s, 100 ms, 10 ms, 1 ms.
pub const RESOLUTIONS: [u64; 4] = [1_000_000_000, 100_000_000, 10_000_000, 1_000_000];
/// Requests held to detect the resolution, at most.
pub const PROBE_REQUESTS: usize = 1 << 16;
/// Distinct instants that end the probe early.
pub const PROBE_INSTANTS: usize = 16;
/// Requests of one instant held at once, at most.
pub const MAX_GROUP: usize = 1 << 20;

pub(super) struct Spread {
    rng: ChaCha8Rng,
    /// None until the probe decided; Some(0): not coarse, times pass through.
    resolution: Option<u64>,
    /// The format's own resolution, used when the probe cannot tell.
    fallback: u64,
    /// Requests read but not yet returned (the probe, or one instant), and
    /// the first request (or error) after them.
    held: VecDeque<Result<Request>>,
    ready: VecDeque<Result<Request>>,
    /// Of the instant being spread: offset already used of its width.
    used: u64,
    /// False under `CoarseTime::Keep`: the resolution is detected, to be
    /// reported, and no time moves.
    moving: bool,
    pub(super) moved: u64,
}

impl Spread {
    pub(super) fn new(seed: u64, fallback: u64, mode: CoarseTime) -> Spread {
        Spread {
            rng: ChaCha8Rng::seed_from_u64(seed),
            resolution: None,
            fallback,
            held: VecDeque::new(),
            ready: VecDeque::new(),
            used: 0,
            moving: mode == CoarseTime::Spread,
            moved: 0,
        }
    }

    /// The detected resolution in ns (0: fine, or not decided yet).
    pub(super) fn resolution_ns(&self) -> u64 {
        self.resolution.unwrap_or(0)
    }

    /// The next request, drawing ordered ones from `pull`.
    pub(super) fn next(&mut self, pull: &mut dyn FnMut() -> Option<Result<Request>>) -> Option<Result<Request>> {
        if self.resolution.is_none() {
            self.probe(pull);
        }
        if let Some(r) = self.ready.pop_front() {
            return Some(r);
        }
        if self.resolution == Some(0) || !self.moving {
            return self.held.pop_front().or_else(pull);
        }
        self.fill_instant(pull);
        self.ready.pop_front()
    }

    fn probe(&mut self, pull: &mut dyn FnMut() -> Option<Result<Request>>) {
        let mut instants = 0;
        let mut last = None;
        while self.held.len() < PROBE_REQUESTS && instants < PROBE_INSTANTS {
            let Some(r) = pull() else { break };
            if let Ok(req) = &r {
                if last != Some(req.time_ns) {
                    instants += 1;
                    last = Some(req.time_ns);
                }
            }
            self.held.push_back(r);
        }
        self.resolution = Some(detect(self.held.iter().filter_map(|r| r.as_ref().ok()), self.fallback));
    }

    /// Move the next instant's requests (or an error) to `ready`, spread.
    fn fill_instant(&mut self, pull: &mut dyn FnMut() -> Option<Result<Request>>) {
        let first = match self.held.pop_front().or_else(&mut *pull) {
            Some(Ok(r)) => r,
            other => return self.ready.extend(other),
        };
        let t = first.time_ns;
        let mut group = vec![first];
        let next = loop {
            match self.held.pop_front().or_else(&mut *pull) {
                Some(Ok(r)) if r.time_ns == t && group.len() < MAX_GROUP => group.push(r),
                Some(Ok(r)) if r.time_ns == t => {
                    self.held.push_front(Ok(r));
                    break None;
                }
                Some(other) => {
                    let next_t = other.as_ref().ok().map(|r| r.time_ns);
                    self.held.push_front(other);
                    break Some(next_t);
                }
                None => break Some(None),
            }
        };
        let r = self.resolution_ns();
        let left = r.saturating_sub(self.used);
        let width = match next {
            // The instant goes on past the cap: half of what is left.
            None => left / 2,
            Some(Some(n)) if n > t => left.min(n - t - self.used.min(n - t)),
            Some(_) => left,
        };
        self.spread(&mut group, t + self.used, width);
        self.used = if next.is_none() { self.used + width } else { 0 };
        self.ready.extend(group.into_iter().map(Ok));
    }

    /// Stratified times over `[start, start + width)`, file order kept.
    fn spread(&mut self, group: &mut [Request], start: u64, width: u64) {
        let n = group.len() as u128;
        for (i, req) in group.iter_mut().enumerate() {
            let u = if width == 0 { 0 } else { self.rng.random_range(0..width) } as u128;
            let offset = ((i as u128 * width as u128 + u) / n) as u64;
            let time = start + offset;
            self.moved += u64::from(time != req.time_ns);
            req.time_ns = time;
        }
    }
}

/// The coarsest candidate dividing every time, if some instant is shared and
/// two instants are seen; the format's `fallback` if only one is; else 0.
fn detect<'a>(reqs: impl Iterator<Item = &'a Request>, fallback: u64) -> u64 {
    let mut times: Vec<u64> = reqs.map(|r| r.time_ns).collect();
    times.sort_unstable();
    let n = times.len();
    times.dedup();
    if n == times.len() {
        return 0;
    }
    if times.len() < 2 {
        return fallback;
    }
    let base = times[0];
    RESOLUTIONS.into_iter().find(|&r| times.iter().all(|&t| (t - base) % r == 0)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::reader::{open_trace_reader, TraceOptions};

    fn times(text: &str, opts: &TraceOptions) -> (Vec<(u64, u64)>, u64, u64) {
        let mut s = open_trace_reader("mem.csv", std::io::Cursor::new(text.as_bytes().to_vec()), opts).unwrap();
        let got = s.by_ref().map(|r| r.map(|r| (r.time_ns, r.line)).unwrap()).collect();
        (got, s.time_resolution_ns(), s.spread())
    }

    /// Tencent lines: 5 requests in second 0, 3 in second 1, 1 in second 3.
    const WHOLE_SECONDS: &str = "100,8,8,0,1\n100,16,8,1,1\n100,24,8,0,2\n100,32,8,0,1\n100,40,8,1,1\n\
                                 101,8,8,0,1\n101,16,8,0,1\n101,24,8,0,1\n103,8,8,1,1\n";

    #[test]
    fn whole_seconds_are_spread_in_file_order_within_their_second() {
        let (got, res, moved) = times(WHOLE_SECONDS, &TraceOptions::default());
        assert_eq!(res, 1_000_000_000);
        let lines: Vec<u64> = got.iter().map(|g| g.1).collect();
        assert_eq!(lines, (1..=9).collect::<Vec<_>>(), "file order kept");
        assert!(got.windows(2).all(|w| w[0].0 < w[1].0), "no two share an instant: {got:?}");
        let second = |i: usize| got[i].0 / 1_000_000_000;
        assert_eq!((0..9).map(second).collect::<Vec<_>>(), vec![0, 0, 0, 0, 0, 1, 1, 1, 3]);
        // The first request of each second falls in its first fifth (or third).
        assert!(got[0].0 < 200_000_000 && got[5].0 - 1_000_000_000 < 333_333_334);
        assert!(moved >= 8, "{moved}");
    }

    #[test]
    fn the_spread_is_seeded() {
        let seeded = |seed| TraceOptions { spread_seed: seed, ..Default::default() };
        assert_eq!(times(WHOLE_SECONDS, &seeded(7)).0, times(WHOLE_SECONDS, &seeded(7)).0);
        assert_ne!(times(WHOLE_SECONDS, &seeded(7)).0, times(WHOLE_SECONDS, &seeded(8)).0);
    }

    #[test]
    fn keep_leaves_coarse_times_and_fine_traces_are_untouched() {
        let keep = TraceOptions { coarse_time: CoarseTime::Keep, ..Default::default() };
        let (got, res, moved) = times(WHOLE_SECONDS, &keep);
        assert_eq!((got[4].0, got[5].0, res, moved), (0, 1_000_000_000, 1_000_000_000, 0));
        // MQSim lines in ns sharing an instant: the trace says so.
        let fine = "1000 0 8 8 1\n1000 0 16 8 1\n2500 0 24 8 0\n";
        let (got, res, moved) = times(fine, &TraceOptions::default());
        assert_eq!((got, res, moved), (vec![(0, 1), (0, 2), (1500, 3)], 0, 0));
    }

    #[test]
    fn a_spread_never_passes_the_next_instant() {
        // Whole 100 ms, but the last step is 100 ms: the spread of the
        // second instant stays below the third.
        let text = "0 0 8 8 1\n0 0 16 8 1\n100000000 0 8 8 1\n100000000 0 16 8 1\n200000000 0 8 8 1\n";
        let (got, res, _) = times(text, &TraceOptions::default());
        assert_eq!(res, 100_000_000);
        assert!(got.windows(2).all(|w| w[0].0 < w[1].0) && got[3].0 < 200_000_000, "{got:?}");
    }
}
