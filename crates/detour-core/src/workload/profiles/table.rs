//! The numbers of every named profile, one row per paper table row. Where a
//! paper does not give a number, the assumed value is marked `assumed` and
//! explained in docs/workloads.md.

use crate::workload::generator::{Arrival, ClassSpec, ContentSpec, PairSpec, SizeDist, SyntheticSpec, WriteRegion, GIB, KIB, MIB};

/// Sizes with a given mean: the two powers of two (>= 512 B) around it, mixed
/// so the mean is exact. The papers give only means.
pub(crate) fn sizes_with_mean(mean_kib: f64) -> SizeDist {
    let mean = mean_kib * KIB as f64;
    let mut lo = 512u32;
    while (lo as f64) * 2.0 <= mean {
        lo *= 2;
    }
    let w_hi = (mean - lo as f64) / lo as f64;
    if w_hi <= 0.0 {
        return SizeDist::Fixed(lo);
    }
    SizeDist::Weighted(vec![(lo, 1.0 - w_hi), (2 * lo, w_hi)])
}

fn poisson(rate_per_s: f64) -> Arrival {
    Arrival::Poisson { rate_per_s }
}

/// One row of HotR Table III plus the assumed numbers it does not give.
struct HotrRow {
    name: &'static str,
    write_ratio: f64,
    ios: u64,
    mean_kib: f64,
    // Assumed (docs/workloads.md):
    rate_per_s: f64,
    theta: f64,
    sequential: f64,
    streams: u32,
}

#[rustfmt::skip]
const HOTR: [HotrRow; 4] = [
    HotrRow { name: "fin2", write_ratio: 0.176, ios: 450_068, mean_kib: 4.6, rate_per_s: 10_000.0, theta: 0.9, sequential: 0.05, streams: 1 },
    HotrRow { name: "hm", write_ratio: 0.729, ios: 999_997, mean_kib: 8.3, rate_per_s: 1_350.0, theta: 0.9, sequential: 0.2, streams: 1 },
    HotrRow { name: "hpc46", write_ratio: 0.600, ios: 499_999, mean_kib: 6.3, rate_per_s: 2_100.0, theta: 0.8, sequential: 0.3, streams: 4 },
    HotrRow { name: "hpc28", write_ratio: 0.800, ios: 999_997, mean_kib: 6.3, rate_per_s: 1_600.0, theta: 0.8, sequential: 0.3, streams: 4 },
];

/// Share of mixed pages, HotR section II-B (Fig. 1c average).
const HOTR_MIXED: f64 = 0.096;

pub(crate) fn hotr(name: &str) -> Option<SyntheticSpec> {
    let r = HOTR.iter().find(|r| r.name == name)?;
    let read_ratio = 1.0 - r.write_ratio;
    Some(SyntheticSpec {
        requests: r.ios,
        arrival: poisson(r.rate_per_s),
        read_ratio,
        size: sizes_with_mean(r.mean_kib),
        // Assumed, calibrated so the >90% rule finds ~9.6% mixed pages (a
        // larger footprint leaves most pages touched once, hence unmixed).
        footprint_bytes: 256 * MIB,
        zipf_theta: r.theta,
        sequential: r.sequential,
        streams: r.streams,
        // Non-mixed pages split between read-only and write-only in the
        // proportion of reads to writes (assumed).
        classes: Some(ClassSpec {
            read_only: (1.0 - HOTR_MIXED) * read_ratio,
            write_only: (1.0 - HOTR_MIXED) * r.write_ratio,
            chunk_bytes: None,
        }),
        ..SyntheticSpec::default()
    })
}

/// One row of CR5M Table I plus the assumed numbers it does not give.
struct Cr5mRow {
    name: &'static str,
    write_pct: f64,
    mean_kib: f64,
    rate_per_s: f64,
    minutes: f64,
    // Assumed (docs/workloads.md):
    footprint: u64,
    theta: f64,
    sequential: f64,
}

#[rustfmt::skip]
const CR5M: [Cr5mRow; 5] = [
    Cr5mRow { name: "financial1", write_pct: 77.88, mean_kib: 3.46, rate_per_s: 129.0, minutes: 515.0, footprint: 8 * GIB, theta: 0.9, sequential: 0.05 },
    Cr5mRow { name: "radius9", write_pct: 88.46, mean_kib: 6.8, rate_per_s: 57.0, minutes: 35.2, footprint: 8 * GIB, theta: 0.8, sequential: 0.1 },
    Cr5mRow { name: "atto", write_pct: 47.45, mean_kib: 23.1, rate_per_s: 792.4, minutes: 2.5, footprint: 256 * MIB, theta: 0.0, sequential: 0.5 },
    Cr5mRow { name: "build", write_pct: 45.71, mean_kib: 6.5, rate_per_s: 372.0, minutes: 15.0, footprint: 16 * GIB, theta: 0.8, sequential: 0.2 },
    Cr5mRow { name: "exchange", write_pct: 46.43, mean_kib: 12.5, rate_per_s: 166.0, minutes: 15.0, footprint: 16 * GIB, theta: 0.8, sequential: 0.2 },
];

pub(crate) fn cr5m(name: &str) -> Option<SyntheticSpec> {
    let r = CR5M.iter().find(|r| r.name == name)?;
    Some(SyntheticSpec {
        requests: 0,
        duration_s: r.minutes * 60.0,
        arrival: poisson(r.rate_per_s),
        read_ratio: 1.0 - r.write_pct / 100.0,
        size: sizes_with_mean(r.mean_kib),
        // CR5M's flash pages are 2 KiB (Table II).
        alignment: 2 * KIB,
        footprint_bytes: r.footprint,
        zipf_theta: r.theta,
        sequential: r.sequential,
        ..SyntheticSpec::default()
    })
}

/// One row of RR-SSD Table III plus the assumed numbers it does not give.
struct RrRow {
    name: &'static str,
    write_pct: f64,
    unique_write_pct: f64,
    unique_read_pct: f64,
    // Assumed (docs/workloads.md):
    read_theta: f64,
    drift_per_day: f64,
}

#[rustfmt::skip]
const RR: [RrRow; 6] = [
    RrRow { name: "webvm", write_pct: 77.0, unique_write_pct: 42.0, unique_read_pct: 32.0, read_theta: 1.2, drift_per_day: 0.05 },
    RrRow { name: "homes", write_pct: 96.0, unique_write_pct: 66.0, unique_read_pct: 80.0, read_theta: 1.0, drift_per_day: 0.3 },
    RrRow { name: "mail", write_pct: 77.0, unique_write_pct: 8.0, unique_read_pct: 80.0, read_theta: 1.0, drift_per_day: 0.1 },
    RrRow { name: "hadoop", write_pct: 30.0, unique_write_pct: 63.9, unique_read_pct: 17.5, read_theta: 1.0, drift_per_day: 0.1 },
    RrRow { name: "trans", write_pct: 55.0, unique_write_pct: 77.4, unique_read_pct: 13.8, read_theta: 1.0, drift_per_day: 0.1 },
    RrRow { name: "desktop", write_pct: 42.0, unique_write_pct: 74.7, unique_read_pct: 49.7, read_theta: 1.0, drift_per_day: 0.5 },
];

/// Scaled day: 7 days of the paper's traces fit 7 minutes of trace time.
pub(crate) const RR_DAY_S: f64 = 60.0;
pub(crate) const RR_DAYS: f64 = 7.0;

pub(crate) fn rr(name: &str) -> Option<SyntheticSpec> {
    let r = RR.iter().find(|r| r.name == name)?;
    Some(SyntheticSpec {
        requests: 0,
        duration_s: RR_DAYS * RR_DAY_S,
        // Bursty (assumed): 20k req/s for 1 s in every 10 s, mean 2000 req/s.
        arrival: Arrival::Bursty { rate_per_s: 20_000.0, on_s: 1.0, off_s: 9.0, off_rate_per_s: 0.0 },
        read_ratio: 1.0 - r.write_pct / 100.0,
        size: SizeDist::Fixed(4096),
        footprint_bytes: 4 * GIB,
        zipf_theta: 0.8,
        content: Some(ContentSpec {
            write_unique: r.unique_write_pct / 100.0,
            read_unique: r.unique_read_pct / 100.0,
            write_theta: 1.0,
            read_theta: r.read_theta,
            // Below a scaled day's newcomers (>= 3.8k fresh reads, >= 7.4k new
            // writes), so drift can replace its full fraction every day.
            write_pool: 4096,
            read_pool: 4096,
            drift_per_day: r.drift_per_day,
            day_s: RR_DAY_S,
            ..ContentSpec::default()
        }),
        ..SyntheticSpec::default()
    })
}

/// One traced MSR volume of the collision paper's Tables 2 and 3: what the
/// paper measured on the original FTL (the targets), and the generator's
/// knobs calibrated to reach them on the `collisions` device under MQSim's
/// rules with Table 4's P/E suspension (scripts/calibrate_volumes.py; the
/// table of knob, target and reached value is in
/// docs/schemes/collisions.md, "Calibration").
pub struct VolumeRow {
    pub name: &'static str,
    /// Read proportion, Table 2.
    pub read_ratio: f64,
    /// Targets: average OCC, mean repetition of pairs (Table 2), the share
    /// of pair occurrences from the most repeated pairs as (fraction of
    /// pairs, share) where the paper gives one (Sec. II-C), RSD of reads
    /// per die (Table 3).
    pub occ: f64,
    pub repetition: f64,
    pub top_share: Option<(f64, f64)>,
    pub rsd: f64,
    // The knobs (scripts/calibrate_volumes.py says which is calibrated to
    // which target per volume; the others are its fixed settings):
    /// Arrival rate while a burst is on (req/s) -> OCC.
    pub rate_per_s: f64,
    /// Pages of 16 KiB the volume reads and writes (two thirds read, one
    /// third written: `VOLUME_WRITE_PAGES`) -> mean repetition of
    /// the hot volumes (fewer pages, the same pairs collide again); 4 GiB
    /// for the cold ones.
    pub footprint_pages: u64,
    /// Planted pairs -> top-5% share (fewer pairs, each repeated more);
    /// 4096 for the cold volumes.
    pub pair_count: u32,
    /// Share of reads in planted pairs -> mean repetition of the cold
    /// volumes, PROJ3's top-29% share; 0.5 for the other sequential
    /// (`runs`) ones: "most" of their reads are sequential runs (Sec. II-C).
    pub pair_share: f64,
    /// Zipf exponent of pair popularity -> RSD (hotter pairs pile reads on
    /// their die even when placed evenly).
    pub pair_theta: f64,
    /// The paper's access pattern, not a knob: "All seven workloads, except
    /// PROJ3, showed fewer collisions than their random-read counterparts.
    /// Most of their read requests showed a certain degree of
    /// sequentiality" (Sec. II-C). Those volumes' other requests are 64 KiB
    /// sequential runs (four pages, striped over four dies by CWDP) and at
    /// most half their reads are pair reads ("most" are sequential).
    pub runs: bool,
}

/// Bursts last 20 ms and idle gaps 80 ms on average (assumed: the paper
/// gives no arrival times; MSR volumes are idle most of the time and busy
/// in bursts).
const VOLUME_ON_S: f64 = 0.02;
const VOLUME_OFF_S: f64 = 0.08;
/// Requests per volume: the length the knobs are calibrated at (mean
/// repetition grows with length).
pub const VOLUME_REQUESTS: u64 = 200_000;
const TOP5_80: Option<(f64, f64)> = Some((0.05, 0.80));
/// Written pages per read page, in a part of the footprint reads do not
/// use. Measured on the MSR slice (shared/traces, hm_0, 1,000 requests):
/// 227 16-KiB pages written against 458 read, 4 of them both (1.8% of the
/// written), so writes go apart at 227 / 458 = 0.5. One rule for all eight
/// volumes (docs/reproduce.md, "Collisions, session 38").
const VOLUME_WRITE_PAGES: f64 = 0.5;

#[rustfmt::skip]
pub const VOLUMES: [VolumeRow; 8] = [
    VolumeRow { name: "msr-hm1", read_ratio: 0.9534, occ: 14.2, repetition: 37.89, top_share: TOP5_80, rsd: 0.168, rate_per_s: 19_408.4, footprint_pages: 576, pair_count: 8, pair_share: 0.5, pair_theta: 0.0, runs: true },
    VolumeRow { name: "msr-proj3", read_ratio: 0.9482, occ: 19.8, repetition: 24.69, top_share: Some((50_000.0 / 170_431.0, 0.62)), rsd: 0.121, rate_per_s: 43_838.9, footprint_pages: 704, pair_count: 160, pair_share: 0.291314, pair_theta: 1.05831, runs: false },
    VolumeRow { name: "msr-usr1", read_ratio: 0.9148, occ: 5.1, repetition: 12.47, top_share: TOP5_80, rsd: 0.086, rate_per_s: 5_634.59, footprint_pages: 720, pair_count: 13, pair_share: 0.5, pair_theta: 0.379249, runs: true },
    VolumeRow { name: "msr-web2", read_ratio: 0.9925, occ: 3.7, repetition: 9.20, top_share: TOP5_80, rsd: 0.047, rate_per_s: 5_861.47, footprint_pages: 880, pair_count: 57, pair_share: 0.5, pair_theta: 0.741592, runs: true },
    VolumeRow { name: "msr-proj4", read_ratio: 0.9852, occ: 12.5, repetition: 4.56, top_share: None, rsd: 0.021, rate_per_s: 24_253.8, footprint_pages: 1_984, pair_count: 472, pair_share: 0.5, pair_theta: 0.83671, runs: true },
    VolumeRow { name: "msr-src2-1", read_ratio: 0.9786, occ: 4.8, repetition: 1.73, top_share: None, rsd: 0.016, rate_per_s: 7_375.8, footprint_pages: 262_144, pair_count: 4096, pair_share: 0.354078, pair_theta: 0.952215, runs: true },
    VolumeRow { name: "msr-src1-1", read_ratio: 0.9526, occ: 2.4, repetition: 1.51, top_share: None, rsd: 0.023, rate_per_s: 823.045, footprint_pages: 262_144, pair_count: 4096, pair_share: 0.0376767, pair_theta: 2.14453, runs: true },
    VolumeRow { name: "msr-mds1", read_ratio: 0.9288, occ: 4.0, repetition: 1.54, top_share: None, rsd: 0.018, rate_per_s: 3_020.98, footprint_pages: 262_144, pair_count: 4096, pair_share: 0.13032, pair_theta: 1.14788, runs: true },
];

/// A traced MSR volume of the collision paper: bursts and idle gaps, uniform
/// page popularity, and planted same-die pairs, placed so hot pairs spread
/// over dies (`balanced`). The volumes the paper calls sequential (`runs`)
/// read in 64 KiB runs, half of them continuing the previous one (MSR
/// requests are 4-64 KiB); PROJ3 reads 16-64 KiB, 10% sequential.
pub(crate) fn volume(name: &str) -> Option<SyntheticSpec> {
    let v = VOLUMES.iter().find(|v| v.name == name)?;
    let page = 16 * KIB;
    Some(SyntheticSpec {
        requests: VOLUME_REQUESTS,
        arrival: Arrival::Onoff { rate_per_s: v.rate_per_s, mean_on_s: VOLUME_ON_S, mean_off_s: VOLUME_OFF_S, off_rate_per_s: 0.0 },
        read_ratio: v.read_ratio,
        size: if v.runs { SizeDist::Fixed(65536) } else { SizeDist::Weighted(vec![(16384, 70.0), (32768, 15.0), (65536, 15.0)]) },
        alignment: page,
        footprint_bytes: v.footprint_pages * page,
        sequential: if v.runs { 0.5 } else { 0.1 },
        pairs: Some(PairSpec {
            count: v.pair_count,
            stride: 16,
            page_bytes: Some(page),
            read_share: v.pair_share,
            gap_us: 50.0,
            theta: v.pair_theta,
            die_skew: 0.0,
            balanced: true,
        }),
        writes: WriteRegion::Apart { write_pages: VOLUME_WRITE_PAGES },
        ..SyntheticSpec::default()
    })
}

pub(crate) fn msr(name: &str) -> Option<SyntheticSpec> {
    match name {
        "msr-patterned" => Some(SyntheticSpec {
            requests: 500_000,
            arrival: poisson(20_000.0),
            read_ratio: 0.95,
            size: SizeDist::Weighted(vec![(4096, 60.0), (8192, 15.0), (16384, 10.0), (32768, 10.0), (65536, 5.0)]),
            footprint_bytes: 16 * GIB,
            zipf_theta: 0.8,
            sequential: 0.2,
            pairs: Some(PairSpec {
                count: 2000,
                stride: 16,
                page_bytes: Some(16 * KIB),
                read_share: 0.3,
                gap_us: 50.0,
                theta: 1.2,
                die_skew: 0.0,
                balanced: false,
            }),
            ..SyntheticSpec::default()
        }),
        "msr-random" => Some(SyntheticSpec {
            requests: 200_000,
            arrival: poisson(80_000.0),
            read_ratio: 1.0,
            size: SizeDist::Fixed(4096),
            footprint_bytes: 64 * GIB,
            ..SyntheticSpec::default()
        }),
        _ => None,
    }
}

/// The distribution of shared/bench/gen_trace.py.
pub(crate) fn bench_like() -> SyntheticSpec {
    SyntheticSpec {
        seed: 42,
        requests: 200_000,
        arrival: poisson(20_000.0),
        read_ratio: 0.7,
        size: SizeDist::Weighted([4u32, 8, 16, 32, 64].iter().map(|k| (k * 1024, 1.0)).collect()),
        footprint_bytes: 16 * GIB,
        zipf_theta: 0.9,
        ..SyntheticSpec::default()
    }
}
