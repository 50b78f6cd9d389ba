//! The synthetic workload generator: a streaming, seeded [`Iterator`] of
//! [`Request`]s built from a [`SyntheticSpec`].
//!
//! ```text
//!  Arrivals ──► main request ──► kind ─┬─ pair read? ──► a now, b within gap ─┐
//!  (poisson,     (time)          size  ├─ content read ─► ContentModel        ├─► merge by time ─► Request
//!   constant,                    addr  └─ address model ─► AddressModel        │   (pending heap)   line = 1, 2, ...
//!   bursty)                                                                    ┘
//! ```
//!
//! Memory is O(1) for address-only workloads (permutations are computed, not
//! stored), O(footprint pages) with a content model, O(pairs) with pairs;
//! never O(requests). Each concern draws from its own ChaCha8 stream, so e.g.
//! turning on sequentiality does not shift arrival times.

mod address;
mod arrival;
mod check;
mod content;
mod pairs;
mod perm;
mod pool;
mod spec;
mod stats;

pub use address::PageClass;
pub use check::CONTENT_MAX_FOOTPRINT;
pub use spec::{Arrival, ClassSpec, ContentSpec, PairSpec, SizeDist, SyntheticSpec, WriteRegion, GIB, KIB, MIB};
pub use stats::{content_stats, initial_token, page_class_stats, ContentStats, PageClassStats, CONTENT_PAGE_BYTES};

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use self::address::AddressModel;
use self::arrival::{uniform, Arrivals};
use self::content::ContentModel;
use self::pairs::PairModel;
use super::Request;
use crate::error::Result;
use crate::types::{mix64, IoKind};

/// Retries before a write lands on a page holding a popular read value.
const PIN_RETRIES: usize = 4;

/// A streaming synthetic workload. Same spec and seed give the same sequence.
pub struct Generator {
    spec: SyntheticSpec,
    arrivals: Arrivals,
    arrival_rng: ChaCha8Rng,
    rng: ChaCha8Rng,
    pair_rng: ChaCha8Rng,
    addr: AddressModel,
    content: Option<ContentModel>,
    pairs: Option<PairModel>,
    /// Cumulative size weights (`sizes[i].1` = sum of weights up to i).
    sizes: Vec<(u32, f64)>,
    /// Read probability of a main arrival (below the spec's with pairs on).
    read_p: f64,
    limit_ns: Option<f64>,
    emitted: u64,
    next_main: Option<Request>,
    main_done: bool,
    /// Pair partners waiting for their time: (time, seq, offset).
    pending: BinaryHeap<Reverse<(u64, u64, u64)>>,
    pending_seq: u64,
    write_salt: u64,
}

fn stream(seed: u64, id: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(id);
    r
}

impl Generator {
    /// Validate `spec` and set up the generator.
    pub fn new(spec: &SyntheticSpec) -> Result<Self> {
        spec.validate()?;
        let seed = spec.seed;
        let mut setup = stream(seed, 0);
        let pairs = spec.pairs.as_ref().map(|p| PairModel::new(spec, p, &mut setup));
        let start_p = pairs.as_ref().map_or(0.0, |p| p.start_p);
        let (read_p, rate_scale) = pairs::main_process(spec.read_ratio, start_p);
        let content = spec.content.as_ref().map(|c| ContentModel::new(c, spec.footprint_pages(), seed, stream(seed, 4)));
        Ok(Generator {
            arrivals: Arrivals::new(&spec.arrival, rate_scale),
            arrival_rng: stream(seed, 1),
            rng: stream(seed, 2),
            pair_rng: stream(seed, 3),
            addr: AddressModel::new(spec)?,
            content,
            pairs,
            sizes: cumulative_sizes(&spec.size),
            read_p,
            limit_ns: (spec.duration_s > 0.0).then_some(spec.duration_s * 1e9),
            emitted: 0,
            next_main: None,
            main_done: false,
            pending: BinaryHeap::new(),
            pending_seq: 0,
            write_salt: mix64(seed ^ 0x5A17),
            spec: spec.clone(),
        })
    }

    /// The same workload drawn again: the spec's layout (which pages are
    /// hot, the planted pairs, the content values) with other draws of
    /// times, kinds, sizes and addresses, one sequence per `draw`. What
    /// `ftl.precondition.steady_writes` replays: another seed would move
    /// the hot pages elsewhere.
    pub fn redrawn(spec: &SyntheticSpec, draw: u64) -> Result<Self> {
        let mut g = Self::new(spec)?;
        let s = mix64(spec.seed ^ mix64(draw ^ 0x7E_D2A5));
        (g.arrival_rng, g.rng, g.pair_rng) = (stream(s, 1), stream(s, 2), stream(s, 3));
        Ok(g)
    }

    /// The (validated) spec this generator runs.
    pub fn spec(&self) -> &SyntheticSpec {
        &self.spec
    }

    /// The planted pairs as byte offsets `(a, b)`, most popular first (empty
    /// without `pairs`).
    pub fn pairs(&self) -> &[(u64, u64)] {
        self.pairs.as_ref().map_or(&[], |p| p.pairs())
    }

    /// The page class of byte `offset` (`Mixed` everywhere without classes;
    /// `None` outside the addressable footprint).
    pub fn page_class(&self, offset: u64) -> Option<PageClass> {
        self.addr.class_of(offset / self.spec.alignment)
    }

    fn draw_size(&mut self) -> u32 {
        let total = self.sizes.last().expect("validated non-empty").1;
        let x = uniform(&mut self.rng) * total;
        let i = self.sizes.partition_point(|e| e.1 <= x).min(self.sizes.len() - 1);
        self.sizes[i].0
    }

    /// The next request of the arrival process, `None` past the duration.
    fn make_main(&mut self) -> Option<Request> {
        let t = self.arrivals.next(&mut self.arrival_rng);
        if self.limit_ns.is_some_and(|l| t >= l) {
            return None;
        }
        let mut kind = if uniform(&mut self.rng) < self.read_p { IoKind::Read } else { IoKind::Write };
        // Drawn only when asked for, so profiles without discards keep their streams.
        if kind == IoKind::Write && self.spec.discard_ratio > 0.0 && uniform(&mut self.rng) < self.spec.discard_ratio {
            kind = IoKind::Discard;
        }
        let mut req = Request { time_ns: t as u64, offset: 0, size: 0, kind, content: 0, volume: 0, line: 0 };
        if let Some(cm) = self.content.as_mut() {
            cm.advance(t);
        }
        if kind == IoKind::Read && self.try_pair(&mut req, t) {
            return Some(req);
        }
        if self.content.is_some() {
            self.content_request(&mut req);
        } else {
            req.size = self.draw_size();
            let pages = (req.size as u64).div_ceil(self.spec.alignment);
            req.offset = self.addr.pick(kind, pages, &mut self.rng) * self.spec.alignment;
        }
        Some(req)
    }

    /// Maybe turn a main read into the first half of a pair, queueing the
    /// second half.
    fn try_pair(&mut self, req: &mut Request, t: f64) -> bool {
        let Some(pm) = self.pairs.as_ref() else {
            return false;
        };
        if uniform(&mut self.pair_rng) >= pm.start_p {
            return false;
        }
        let ((a, b), delay) = pm.pick(&mut self.pair_rng);
        req.offset = a;
        req.size = pm.size;
        let tb = t + delay;
        if self.limit_ns.is_none_or(|l| tb < l) {
            self.pending.push(Reverse((tb as u64, self.pending_seq, b)));
            self.pending_seq += 1;
        }
        true
    }

    fn content_request(&mut self, req: &mut Request) {
        let cm = self.content.as_mut().expect("content model");
        let page = self.spec.alignment;
        req.size = page as u32;
        if req.kind == IoKind::Read {
            req.offset = cm.read() * page;
            return;
        }
        let mut lpn = self.addr.pick(IoKind::Write, 1, &mut self.rng);
        for _ in 0..PIN_RETRIES {
            if !cm.is_pinned(lpn) {
                break;
            }
            lpn = self.addr.pick(IoKind::Write, 1, &mut self.rng);
        }
        let (value, new) = cm.write_value();
        cm.record_write(lpn, value, new);
        req.offset = lpn * page;
        req.content = value;
    }

    fn partner(&mut self) -> Request {
        let Reverse((t, _, offset)) = self.pending.pop().expect("peeked");
        let size = self.pairs.as_ref().expect("pairs on").size;
        Request { time_ns: t, offset, size, kind: IoKind::Read, content: 0, volume: 0, line: 0 }
    }
}

/// Seconds from the first arrival to the last (trace time) of the workload
/// `spec` generates, by generating it (arrivals only matter, and a bursty
/// profile's mean rate says little about a short one's span); None if it
/// has no request.
pub fn span_s(spec: &SyntheticSpec) -> Result<Option<f64>> {
    let mut it = Generator::new(spec)?;
    let Some(first) = it.next() else { return Ok(None) };
    let last = it.last().map_or(first.time_ns, |r| r.time_ns);
    Ok(Some(last.saturating_sub(first.time_ns) as f64 / 1e9))
}

impl Iterator for Generator {
    type Item = Request;

    fn next(&mut self) -> Option<Request> {
        if self.spec.requests > 0 && self.emitted >= self.spec.requests {
            return None;
        }
        if self.next_main.is_none() && !self.main_done {
            self.next_main = self.make_main();
            self.main_done = self.next_main.is_none();
        }
        let partner_first = match (self.pending.peek(), &self.next_main) {
            (Some(Reverse(p)), Some(m)) => p.0 <= m.time_ns,
            (Some(_), None) => true,
            (None, _) => false,
        };
        let mut req = if partner_first { self.partner() } else { self.next_main.take()? };
        self.emitted += 1;
        req.line = self.emitted;
        if req.kind == IoKind::Write && req.content == 0 {
            // Without a content model every write carries a value of its own.
            let v = mix64(self.write_salt ^ req.line);
            req.content = if v == 0 { 1 } else { v };
        }
        Some(req)
    }
}

fn cumulative_sizes(d: &SizeDist) -> Vec<(u32, f64)> {
    match d {
        SizeDist::Fixed(s) => vec![(*s, 1.0)],
        SizeDist::Weighted(v) => {
            let mut acc = 0.0;
            v.iter()
                .filter(|e| e.1 > 0.0)
                .map(|&(s, w)| {
                    acc += w;
                    (s, acc)
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests;
