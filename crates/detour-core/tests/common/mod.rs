//! Helpers shared by the integration tests: small devices and request streams.
#![allow(dead_code)]

use detour_core::config::{Config, ConfigBuilder};
use detour_core::workload::Request;
use detour_core::IoKind;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};

/// A 2-channel device of 4 dies with 64 blocks of 32 pages per plane, in
/// verify mode: small enough that the stress workloads drive GC.
pub const TINY: [&str; 8] = [
    "run.verify=true",
    "device.channels=2",
    "device.chips_per_channel=1",
    "device.dies_per_chip=2",
    "device.planes_per_die=2",
    "device.blocks_per_plane=64",
    "device.pages_per_block=32",
    "device.overprovisioning=0.2",
];

/// `TINY` with half its blocks (32 per plane): the stress workloads'
/// writes then keep GC running all the time.
pub const STRESS_DEVICE: [&str; 8] = [
    "run.verify=true",
    "device.channels=2",
    "device.chips_per_channel=1",
    "device.dies_per_chip=2",
    "device.planes_per_die=2",
    "device.blocks_per_plane=32",
    "device.pages_per_block=32",
    "device.overprovisioning=0.2",
];

/// One die of one plane: 16 blocks of 4 pages, a quarter spare, GC below
/// a tenth free (the GC timing and priority tests' hand-worked device).
pub const ONE_PLANE: [&str; 9] = [
    "device.channels=1",
    "device.chips_per_channel=1",
    "device.dies_per_chip=1",
    "device.planes_per_die=1",
    "device.blocks_per_plane=16",
    "device.pages_per_block=4",
    "device.overprovisioning=0.25",
    "ftl.gc_threshold=0.1",
    "scheduler.multiplane=false",
];

/// A scheme counter of the summary, 0 when the scheme does not report it.
pub fn counter(s: &detour_core::metrics::Summary, key: &str) -> f64 {
    s.scheme_counters.get(key).copied().unwrap_or(0.0)
}

/// A config from the `small` preset with `key=value` overrides.
pub fn small(overrides: &[&str]) -> Config {
    ConfigBuilder::from_preset("small").unwrap().set_all(overrides.iter().copied()).unwrap().build().unwrap()
}

pub fn req(time_ns: u64, page: u64, pages: u32, kind: IoKind) -> Request {
    Request { time_ns, offset: page * 4096, size: pages * 4096, kind, content: 0, volume: 0, line: 0 }
}

/// `size` bytes at byte `offset` (sector-granular tests).
pub fn at(time_ns: u64, offset: u64, size: u32, kind: IoKind) -> Request {
    Request { time_ns, offset, size, kind, content: 0, volume: 0, line: 0 }
}

/// Poisson arrivals at `rate` per second of single-page requests; a share
/// `read_ratio` are reads over pages [0, span), the rest writes over
/// [span, 2 span) so reads never hit a pending write.
pub fn poisson(n: usize, rate: f64, read_ratio: f64, span: u64, seed: u64) -> Vec<Request> {
    poisson_iter(n, rate, read_ratio, span, seed).collect()
}

/// The same stream as `poisson`, generated lazily.
pub fn poisson_iter(n: usize, rate: f64, read_ratio: f64, span: u64, seed: u64) -> impl Iterator<Item = Request> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let exp = Exp::new(rate / 1e9).unwrap();
    let mut t = 0.0f64;
    (0..n).map(move |i| {
        t += exp.sample(&mut rng);
        let read = rng.random::<f64>() < read_ratio;
        let page = rng.random_range(0..span) + if read { 0 } else { span };
        let mut r = req(t as u64, page, 1, if read { IoKind::Read } else { IoKind::Write });
        r.line = i as u64 + 1;
        r
    })
}

/// The scheme-table stress workload: 12,000 requests of 1-8 pages, half of
/// them on a 300-page hot set (so reads often hit pending writes), half
/// reads, arrivals up to `gap_ns` apart, over `logical_pages` pages.
pub fn stress_gap(seed: u64, logical_pages: u64, gap_ns: u64) -> Vec<Request> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = 0;
    (0..12_000)
        .map(|i| {
            t += rng.random_range(0..gap_ns);
            let pages = [1, 1, 1, 2, 4, 8][rng.random_range(0..6)];
            let page = if rng.random::<bool>() { rng.random_range(0..300) } else { rng.random_range(0..logical_pages - 8) };
            let kind = if rng.random::<f64>() < 0.5 { IoKind::Read } else { IoKind::Write };
            let mut r = req(t, page, pages, kind);
            r.line = i + 1;
            r
        })
        .collect()
}

/// `stress_gap` with arrivals up to 40 µs apart.
pub fn stress(seed: u64, logical_pages: u64) -> Vec<Request> {
    stress_gap(seed, logical_pages, 40_000)
}
