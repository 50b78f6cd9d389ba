//! A bounded popularity pool: items ranked by slot, drawn by zipf rank, with a
//! ring of recent newcomers that take over a fraction of the ranks at each day
//! boundary (day-to-day popularity drift).
//!
//! While the pool fills, newcomers are appended at the coldest ranks; drift
//! then swaps them into random ranks, so even a filling pool drifts.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Zipf};

use super::perm::Perm;

pub(crate) struct Pool<T> {
    items: Vec<T>,
    cap: usize,
    theta: f64,
    /// Zipf over `items.len()`, rebuilt only while the pool fills.
    zipf: Option<(usize, Zipf<f64>)>,
    /// Last `cap` newcomers (oldest overwritten first) with the slot they were
    /// appended at (`NOT_IN_POOL` if the pool was full), and how many arrived
    /// since the last drift.
    recent: Vec<(T, usize)>,
    recent_head: usize,
    recent_today: usize,
}

const NOT_IN_POOL: usize = usize::MAX;

impl<T: Copy + PartialEq> Pool<T> {
    pub(crate) fn new(cap: usize, theta: f64) -> Self {
        Pool { items: Vec::new(), cap, theta, zipf: None, recent: Vec::new(), recent_head: 0, recent_today: 0 }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn get(&self, rank: usize) -> T {
        self.items[rank]
    }

    /// Offer a newcomer: it takes a free slot while the pool fills (returns
    /// true), and is remembered for the next drift either way.
    pub(crate) fn offer(&mut self, x: T) -> bool {
        let inserted = self.items.len() < self.cap;
        if inserted {
            self.items.push(x);
        }
        self.remember((x, if inserted { self.items.len() - 1 } else { NOT_IN_POOL }));
        inserted
    }

    fn remember(&mut self, x: (T, usize)) {
        if self.recent.len() < self.cap {
            self.recent.push(x);
        } else {
            self.recent[self.recent_head] = x;
        }
        self.recent_head = (self.recent_head + 1) % self.cap;
        self.recent_today += 1;
    }

    /// A zipf-distributed rank (0 = most popular), `None` when empty.
    pub(crate) fn draw(&mut self, rng: &mut ChaCha8Rng) -> Option<usize> {
        let n = self.items.len();
        if n == 0 {
            return None;
        }
        if self.theta == 0.0 {
            return Some(rng.random_range(0..n));
        }
        if self.zipf.as_ref().is_none_or(|z| z.0 != n) {
            self.zipf = Some((n, Zipf::new(n as f64, self.theta).expect("theta checked")));
        }
        let x: f64 = self.zipf.as_ref().expect("just built").1.sample(rng);
        Some((x as usize).clamp(1, n) - 1)
    }

    /// The `i`-th most recent newcomer (0 = newest), if remembered.
    fn recent_nth(&self, i: usize) -> Option<(T, usize)> {
        if i >= self.recent.len() {
            return None;
        }
        let len = self.recent.len();
        Some(self.recent[(self.recent_head + len - 1 - i) % len])
    }

    /// Whether newcomer `(x, pos)` still sits at its appended slot.
    fn in_pool(&self, (x, pos): (T, usize)) -> bool {
        pos != NOT_IN_POOL && self.items.get(pos) == Some(&x)
    }

    /// Put a random recent newcomer accepted by `ok` (and not already in the
    /// pool) into slot `rank`; returns `(old, new)` when replaced.
    pub(crate) fn refresh(&mut self, rank: usize, rng: &mut ChaCha8Rng, ok: impl Fn(T) -> bool) -> Option<(T, T)> {
        if self.recent.is_empty() {
            return None;
        }
        let n = self.recent_nth(rng.random_range(0..self.recent.len()))?;
        if self.in_pool(n) || !ok(n.0) {
            return None;
        }
        Some((std::mem::replace(&mut self.items[rank], n.0), n.0))
    }

    /// Day boundary: hand `frac` of the ranks, chosen at random, to the
    /// newest newcomers of the day that ended (those accepted by `ok`). A
    /// newcomer already in the pool swaps ranks with the loser; one outside
    /// replaces it. Returns the `(old, new)` replacements (not the swaps).
    pub(crate) fn drift(&mut self, frac: f64, rng: &mut ChaCha8Rng, ok: impl Fn(T) -> bool) -> Vec<(T, T)> {
        let want = (frac * self.items.len() as f64).round() as usize;
        let fresh = self.recent_today.min(self.recent.len());
        self.recent_today = 0;
        let mut out = Vec::new();
        if self.items.is_empty() {
            return out;
        }
        // Distinct ranks, so a full drift replaces every one of them.
        let ranks = Perm::new(self.items.len() as u64, rng.random());
        let (mut moved, mut i) = (0, 0);
        while moved < want && i < fresh {
            let n = self.recent_nth(i).expect("i < recent.len()");
            i += 1;
            if !ok(n.0) {
                continue;
            }
            let rank = ranks.fwd(moved as u64) as usize;
            if self.in_pool(n) {
                self.items.swap(rank, n.1);
            } else {
                out.push((std::mem::replace(&mut self.items[rank], n.0), n.0));
            }
            moved += 1;
        }
        out
    }
}
