//! Where requests go: zipf popularity over the footprint, scattered by a
//! seeded permutation; optional page classes; sequential streams.
//!
//! Layout. The footprint is `chunks` chunks of `chunk` pages (chunk = 1 page
//! unless classes are on). Chunks are ordered into class positions
//! `[read-only | mixed | write-only]`, and `place` maps a position to a
//! physical chunk, so every class is scattered over the whole footprint. Inside
//! a class, a second permutation maps popularity rank to position, so the
//! hottest chunks of a class are not neighbours either.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Zipf};

use super::arrival::uniform;
use super::perm::Perm;
use super::spec::SyntheticSpec;
use crate::error::{Error, Result};
use crate::types::{mix64, IoKind};

/// The class of a page (HotR's read-intensive / write-intensive / mixed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PageClass {
    ReadOnly,
    WriteOnly,
    Mixed,
}

/// Pages of one class, drawn by zipf rank.
struct Region {
    /// First class position of the region.
    start: u64,
    /// Chunks in the region.
    len: u64,
    perm: Option<Perm>,
    zipf: Option<Zipf<f64>>,
}

impl Region {
    fn new(start: u64, len: u64, chunk: u64, theta: f64, key: u64) -> Self {
        let pages = len * chunk;
        let perm = (len > 0).then(|| Perm::new(len, key));
        let zipf = (pages > 0 && theta > 0.0).then(|| Zipf::new(pages as f64, theta).expect("theta checked"));
        Region { start, len, perm, zipf }
    }

    /// A page rank in `0..len*chunk` (0 = hottest).
    fn rank(&self, rng: &mut ChaCha8Rng, chunk: u64) -> u64 {
        let pages = self.len * chunk;
        match &self.zipf {
            Some(z) => (z.sample(rng) as u64).clamp(1, pages) - 1,
            None => rng.random_range(0..pages),
        }
    }
}

pub(crate) struct AddressModel {
    /// Footprint in alignment units.
    slots: u64,
    chunk: u64,
    chunks: u64,
    classes_on: bool,
    place: Perm,
    ro: Region,
    mix: Region,
    wo: Region,
    read_mix_p: f64,
    write_mix_p: f64,
    sequential: f64,
    /// `writes = apart`: the written slots `start..start+len`, past the read
    /// part, drawn by zipf rank through their own permutation.
    apart: Option<Region>,
    /// End (exclusive slot) of the last request of each stream.
    streams: Vec<Option<u64>>,
}

impl AddressModel {
    pub(crate) fn new(spec: &SyntheticSpec) -> Result<Self> {
        let slots = spec.read_footprint_pages();
        let chunk = spec.chunk_pages();
        let chunks = slots / chunk;
        let (fro, fwo) = spec.classes.as_ref().map_or((0.0, 0.0), |c| (c.read_only, c.write_only));
        let n_ro = ((fro * chunks as f64).round() as u64).min(chunks);
        let n_wo = ((fwo * chunks as f64).round() as u64).min(chunks - n_ro);
        let n_mix = chunks - n_ro - n_wo;
        if spec.read_ratio > 0.0 && n_ro + n_mix == 0 {
            return Err(Error::config("classes.write_only", "leaves no chunk that reads may target"));
        }
        if spec.read_ratio < 1.0 && n_wo + n_mix == 0 {
            return Err(Error::config("classes.read_only", "leaves no chunk that writes may target"));
        }
        let key = mix64(spec.seed ^ 0x0ADD_2E55);
        let theta = spec.zipf_theta;
        let share = |a: u64, b: u64| {
            if a + b == 0 {
                0.0
            } else {
                a as f64 / (a + b) as f64
            }
        };
        Ok(AddressModel {
            slots,
            chunk,
            chunks,
            classes_on: spec.classes.is_some(),
            place: Perm::new(chunks, key),
            ro: Region::new(0, n_ro, chunk, theta, key ^ 1),
            mix: Region::new(n_ro, n_mix, chunk, theta, key ^ 2),
            wo: Region::new(n_ro + n_mix, n_wo, chunk, theta, key ^ 3),
            read_mix_p: share(n_mix, n_ro),
            write_mix_p: share(n_mix, n_wo),
            sequential: spec.sequential,
            apart: (slots < spec.footprint_pages()).then(|| Region::new(slots, spec.footprint_pages() - slots, 1, theta, key ^ 4)),
            streams: vec![None; spec.streams as usize],
        })
    }

    /// First slot of a `pages`-long request of direction `kind`.
    pub(crate) fn pick(&mut self, kind: IoKind, pages: u64, rng: &mut ChaCha8Rng) -> u64 {
        let s = if self.streams.len() > 1 { rng.random_range(0..self.streams.len()) } else { 0 };
        if self.sequential > 0.0 && uniform(rng) < self.sequential {
            if let Some(end) = self.streams[s] {
                if self.fits(end, pages, kind) {
                    self.streams[s] = Some(end + pages);
                    return end;
                }
            }
        }
        let slot = self.random_slot(kind, pages, rng);
        self.streams[s] = Some(slot + pages);
        slot
    }

    fn random_slot(&self, kind: IoKind, pages: u64, rng: &mut ChaCha8Rng) -> u64 {
        if let (Some(w), IoKind::Write | IoKind::Discard) = (&self.apart, kind) {
            let k = w.rank(rng, 1);
            let slot = w.start + w.perm.as_ref().expect("validated non-empty").fwd(k);
            return slot.min(w.start + w.len - pages);
        }
        let (own, mix_p) = match kind {
            IoKind::Read => (&self.ro, self.read_mix_p),
            // A discard names pages a write could have written.
            IoKind::Write | IoKind::Discard => (&self.wo, self.write_mix_p),
        };
        let region = if own.len == 0 || (self.mix.len > 0 && uniform(rng) < mix_p) { &self.mix } else { own };
        let k = region.rank(rng, self.chunk);
        let (kc, offset) = (k / self.chunk, k % self.chunk);
        let q = region.start + region.perm.as_ref().expect("non-empty region").fwd(kc);
        let first = self.place.fwd(q) * self.chunk;
        if self.classes_on {
            // Stay inside the chunk so the request keeps its class.
            first + offset.min(self.chunk - pages)
        } else {
            // Like bench/gen_trace.py: pull a request back inside the space.
            (first + offset).min(self.slots - pages)
        }
    }

    /// Whether `pages` slots from `start` exist and all accept `kind`.
    fn fits(&self, start: u64, pages: u64, kind: IoKind) -> bool {
        let end = start + pages;
        if let Some(w) = &self.apart {
            // A stream continues only inside the part its direction uses.
            return match kind {
                IoKind::Read => end <= self.slots,
                IoKind::Write | IoKind::Discard => start >= w.start && end <= w.start + w.len,
            };
        }
        if end > self.chunks * self.chunk {
            return false;
        }
        if !self.classes_on {
            return true;
        }
        (start / self.chunk..=(end - 1) / self.chunk).all(|c| match (self.class_of_chunk(c), kind) {
            (PageClass::Mixed, _) => true,
            (PageClass::ReadOnly, k) => k == IoKind::Read,
            (PageClass::WriteOnly, k) => k == IoKind::Write,
        })
    }

    fn class_of_chunk(&self, chunk: u64) -> PageClass {
        let q = self.place.inv(chunk);
        if q < self.mix.start {
            PageClass::ReadOnly
        } else if q < self.wo.start {
            PageClass::Mixed
        } else {
            PageClass::WriteOnly
        }
    }

    /// Class of the alignment unit `slot`; `None` past the last whole chunk.
    pub(crate) fn class_of(&self, slot: u64) -> Option<PageClass> {
        if self.apart.as_ref().is_some_and(|w| (w.start..w.start + w.len).contains(&slot)) {
            return Some(PageClass::Mixed);
        }
        if slot >= self.chunks * self.chunk {
            return None;
        }
        Some(if self.classes_on { self.class_of_chunk(slot / self.chunk) } else { PageClass::Mixed })
    }
}
