//! The synthetic workload specification: plain data with pub fields, read from
//! TOML (unknown keys rejected), checked by [`SyntheticSpec::validate`] (see
//! `check.rs`). Defaults are given in brackets on every field.

use serde::{Deserialize, Serialize};

pub const KIB: u64 = 1 << 10;
pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;

/// A synthetic workload. Start from [`Default`] or a named profile
/// (`profiles::profile`) and change fields; `Generator::new` validates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyntheticSpec {
    /// Seed of every random draw [1], 0..=2^63-1. Same spec and seed give the
    /// same requests, byte for byte.
    pub seed: u64,
    /// Stop after this many requests [100000]; 0 = no count limit. At least
    /// one of `requests` and `duration_s` must be non-zero; the first limit
    /// reached ends the workload.
    pub requests: u64,
    /// Stop before the first request arriving at or after this many seconds of
    /// trace time [0 = no time limit], 0..=1e9.
    pub duration_s: f64,
    /// Arrival process [poisson at 1000 req/s]. TOML: `[arrival]` with
    /// `process = "poisson" | "constant" | "bursty" | "onoff"`.
    pub arrival: Arrival,
    /// Probability that a request is a read [0.7], 0..=1. The papers' "read
    /// access probability" of synthetic HPC workloads is this number.
    pub read_ratio: f64,
    /// Request size in bytes [4096]: one integer, or `[[bytes, weight], ...]`.
    pub size: SizeDist,
    /// Start offsets are multiples of this many bytes [4096]: a power of two
    /// in 512..=1 MiB. Also the unit of `footprint_bytes` and of the zipf.
    pub alignment: u64,
    /// Bytes of logical space the workload touches [1 GiB], a multiple of
    /// `alignment` holding at least the largest request.
    pub footprint_bytes: u64,
    /// Zipf exponent of the address popularity [0 = uniform], 0..=10. Ranks
    /// are scattered over the footprint by a seeded permutation, so hot pages
    /// are not adjacent.
    pub zipf_theta: f64,
    /// Probability that a request starts where the previous request of its
    /// stream ended [0], 0..=1.
    pub sequential: f64,
    /// Number of interleaved sequential streams [1], 1..=4096; each request
    /// belongs to one drawn uniformly.
    pub streams: u32,
    /// Read-only / write-only / mixed page classes (HotR) [none: all mixed].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classes: Option<ClassSpec>,
    /// Content value model: dedup and value popularity (RR-SSD) [none: every
    /// write carries a fresh value].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<ContentSpec>,
    /// Planted patterned read pairs (read collisions) [none].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pairs: Option<PairSpec>,
    /// Share of the non-read requests issued as discards (TRIM) of the
    /// range a write would have written [0], 0..=1; not with `content`.
    #[serde(skip_serializing_if = "is_zero")]
    pub discard_ratio: f64,
    /// Where writes go [shared: the pages reads use]. TOML: `[writes]` with
    /// `region = "shared" | "apart"`.
    #[serde(skip_serializing_if = "WriteRegion::is_shared")]
    pub writes: WriteRegion,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        SyntheticSpec {
            seed: 1,
            requests: 100_000,
            duration_s: 0.0,
            arrival: Arrival::Poisson { rate_per_s: 1000.0 },
            read_ratio: 0.7,
            size: SizeDist::Fixed(4096),
            alignment: 4096,
            footprint_bytes: GIB,
            zipf_theta: 0.0,
            sequential: 0.0,
            streams: 1,
            classes: None,
            content: None,
            pairs: None,
            discard_ratio: 0.0,
            writes: WriteRegion::Shared,
        }
    }
}

/// The pages writes (and discards) target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "region", rename_all = "lowercase", deny_unknown_fields)]
pub enum WriteRegion {
    /// Reads and writes draw from the whole footprint.
    #[default]
    Shared,
    /// The footprint is cut in two: reads (and planted pairs) use the first
    /// `1 / (1 + write_pages)` of it, writes the rest, so no page is both
    /// read and written. `write_pages` is the written region's size per
    /// read page, > 0 and <= 16. Real MSR-like slices read and write nearly
    /// disjoint page sets (docs/reproduce.md, "Collisions, session 38").
    Apart { write_pages: f64 },
}

impl WriteRegion {
    fn is_shared(&self) -> bool {
        *self == WriteRegion::Shared
    }
}

/// How requests arrive. Rates count every request, pair partners included.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "process", rename_all = "lowercase", deny_unknown_fields)]
pub enum Arrival {
    /// Exponential inter-arrival times with mean 1/rate.
    Poisson { rate_per_s: f64 },
    /// One request every 1/rate seconds exactly.
    Constant { rate_per_s: f64 },
    /// Fixed on/off periods (on first, starting at 0): Poisson at
    /// `rate_per_s` for `on_s` seconds, then at `off_rate_per_s` [0] for
    /// `off_s` seconds. Mean rate = (rate*on + off_rate*off) / (on + off).
    Bursty {
        rate_per_s: f64,
        on_s: f64,
        off_s: f64,
        #[serde(default)]
        off_rate_per_s: f64,
    },
    /// Bursts and idle gaps of random length, as real volumes have them (an
    /// interrupted Poisson process): on periods last Exp(`mean_on_s`), off
    /// periods Exp(`mean_off_s`), on first, starting at 0; Poisson at
    /// `rate_per_s` when on and `off_rate_per_s` [0] when off. Mean rate =
    /// (rate*mean_on + off_rate*mean_off) / (mean_on + mean_off).
    Onoff {
        rate_per_s: f64,
        mean_on_s: f64,
        mean_off_s: f64,
        #[serde(default)]
        off_rate_per_s: f64,
    },
}

/// Request sizes in bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SizeDist {
    /// Every request has this size.
    Fixed(u32),
    /// `[bytes, weight]` pairs; a size is drawn with probability weight/sum.
    Weighted(Vec<(u32, f64)>),
}

impl SizeDist {
    /// Expected size in bytes.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(s) => *s as f64,
            SizeDist::Weighted(v) => {
                let total: f64 = v.iter().map(|e| e.1).sum();
                v.iter().map(|&(s, w)| s as f64 * w).sum::<f64>() / total
            }
        }
    }

    /// Largest size that can be drawn (weight > 0).
    pub fn max(&self) -> u32 {
        match self {
            SizeDist::Fixed(s) => *s,
            SizeDist::Weighted(v) => v.iter().filter(|e| e.1 > 0.0).map(|e| e.0).max().unwrap_or(0),
        }
    }
}

/// Page classes (HotR section II-B): the footprint is cut into chunks, each
/// read-only (only reads target it), write-only (only writes) or mixed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClassSpec {
    /// Fraction of chunks only read [0], 0..=1.
    pub read_only: f64,
    /// Fraction of chunks only written [0], 0..=1, `read_only + write_only <= 1`;
    /// the rest are mixed. A read goes to a mixed chunk with probability
    /// mixed/(read_only+mixed), a write with mixed/(write_only+mixed), so mixed
    /// pages are as hot as the others for each direction.
    pub write_only: f64,
    /// Class granularity in bytes [largest request size rounded up to
    /// `alignment`]: a multiple of `alignment` holding the largest request, so
    /// a request never straddles two classes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk_bytes: Option<u64>,
}

impl Default for ClassSpec {
    fn default() -> Self {
        ClassSpec { read_only: 0.0, write_only: 0.0, chunk_bytes: None }
    }
}

/// Content value model (see docs/workloads.md). Needs single-page requests
/// (`size = alignment = 4096`) because the paper's traces are 4 KiB records
/// with one hash each, and excludes `classes` and `pairs`. Writes still pick
/// pages with `zipf_theta` / `sequential`; reads pick pages by value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ContentSpec {
    /// Share of written pages carrying a value never written before [1], 0..=1.
    pub write_unique: f64,
    /// Share of read pages returning a value never read before [1], 0..=1.
    pub read_unique: f64,
    /// Zipf exponent of duplicate writes over the write value pool [1], 0..=10.
    pub write_theta: f64,
    /// Zipf exponent of repeated reads over the read value pool [1], 0..=10.
    pub read_theta: f64,
    /// Values duplicate writes choose from [16384], 1..=2^24.
    pub write_pool: u32,
    /// Values repeated reads choose from [16384], 1..=2^24.
    pub read_pool: u32,
    /// Fraction of each pool replaced at every day boundary by values first
    /// seen during the day that ended [0], 0..=1.
    pub drift_per_day: f64,
    /// Length of a "day" in seconds of trace time [86400], > 0.
    pub day_s: f64,
    /// Share of first-time reads served from freshly written, never-read
    /// values; the rest read pages never touched before (pre-existing data)
    /// [0.5], 0..=1. Either source stands in when the other runs dry.
    pub fresh_from_written: f64,
}

impl Default for ContentSpec {
    fn default() -> Self {
        ContentSpec {
            write_unique: 1.0,
            read_unique: 1.0,
            write_theta: 1.0,
            read_theta: 1.0,
            write_pool: 16384,
            read_pool: 16384,
            drift_per_day: 0.0,
            day_s: 86400.0,
            fresh_from_written: 0.5,
        }
    }
}

/// Patterned read pairs (patterned-read-collisions paper): page pairs
/// `(a, b)` with `b - a` a multiple of `stride` pages, read back to back
/// (the second within `gap_us`), never written together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PairSpec {
    /// Number of pairs [1000], 1..=2^20.
    pub count: u32,
    /// `b - a` is a multiple of this many pages [16 = dies of the paper's
    /// SSD], so a static `lpn % stride` mapping puts both on one die; 1..=2^20.
    pub stride: u32,
    /// Page size of the pairs, and size of each pair read [`alignment`]: a
    /// multiple of `alignment`. Set it to the simulated device's page size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_bytes: Option<u64>,
    /// Share of all reads that are pair reads (both halves counted) [0.2], 0..=1.
    pub read_share: f64,
    /// The second read arrives uniformly within this many microseconds after
    /// the first [50], > 0.
    pub gap_us: f64,
    /// Zipf exponent of pair popularity [1]: a few pairs repeat most, 0..=10.
    pub theta: f64,
    /// Zipf exponent over the `stride` residues (the dies of a static
    /// mapping) that pairs sit on [0 = uniform], 0..=10: the bias of reads
    /// over dies that the paper's Table 3 measures (its RSD).
    #[serde(skip_serializing_if = "is_zero")]
    pub die_skew: f64,
    /// Place pairs, hottest first, each on the residue with the fewest
    /// expected pair reads so far [false]: hot pairs spread evenly over
    /// dies (overrides `die_skew`).
    #[serde(skip_serializing_if = "is_false")]
    pub balanced: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Default for PairSpec {
    fn default() -> Self {
        PairSpec { count: 1000, stride: 16, page_bytes: None, read_share: 0.2, gap_us: 50.0, theta: 1.0, die_skew: 0.0, balanced: false }
    }
}

impl SyntheticSpec {
    /// Footprint in `alignment` units.
    pub fn footprint_pages(&self) -> u64 {
        self.footprint_bytes / self.alignment.max(1)
    }

    /// Class chunk in `alignment` units (1 when classes are off).
    pub(crate) fn chunk_pages(&self) -> u64 {
        let Some(c) = &self.classes else { return 1 };
        let a = self.alignment.max(1);
        match c.chunk_bytes {
            Some(b) => b / a,
            None => (self.size.max() as u64).div_ceil(a).max(1),
        }
    }

    /// Alignment units reads (and pairs) use: the whole footprint, or its
    /// read part with `writes = apart`.
    pub fn read_footprint_pages(&self) -> u64 {
        let all = self.footprint_pages();
        match self.writes {
            WriteRegion::Shared => all,
            WriteRegion::Apart { write_pages } => ((all as f64 / (1.0 + write_pages)).round() as u64).clamp(1, all),
        }
    }

    /// Pair page size in bytes (`alignment` unless set).
    pub(crate) fn pair_page_bytes(&self) -> u64 {
        self.pairs.as_ref().and_then(|p| p.page_bytes).unwrap_or(self.alignment)
    }
}
