//! Built-in device presets: the devices of the four papers, the standard
//! benchmark device, and flash cell timings.

use super::*;
use crate::error::{Error, Result};

/// The flash cell type (`device.flash.cell`): it only picks the array
/// times a layer starts from (`presets::cell_timing`); the simulation reads
/// the times, never the type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    /// One bit per cell: the fastest times.
    Slc,
    /// Two bits per cell: the default device's times.
    #[default]
    Mlc,
    /// Three bits per cell.
    Tlc,
    /// Four bits per cell: programs several times slower than TLC.
    Qlc,
    /// Times given by hand (a paper's table), no cell type's preset.
    Custom,
}

/// Typical array times per cell type. These are order-of-magnitude values
/// from the literature, not one part's datasheet:
/// - SLC 25 / 200 / 1500 µs and MLC 50 / 600 / 3000 µs: Grupp et al.,
///   "Characterizing Flash Memory: Anomalies, Observations, and
///   Applications", MICRO 2009 (measured SLC and MLC parts), and the ranges
///   in Cai et al., "Error Characterization, Mitigation, and Recovery in
///   Flash-Memory-Based Solid-State Drives", Proc. IEEE 2017.
/// - TLC 75 / 1000 / 3500 µs: within the TLC ranges of Cai et al. 2017 and
///   near the TLC part of the collision paper (60 / 700 / 3500 µs, Table 4).
/// - QLC 140 / 3000 / 10000 µs: within the ranges reported for 64/96-layer
///   QLC in ISSCC papers (e.g. Shibata et al., ISSCC 2019; Lee et al.,
///   ISSCC 2018), where program is several times TLC's.
///
/// `custom` has no times of its own: None.
pub fn cell_timing(cell: CellType) -> Option<FlashConfig> {
    let (r, p, e) = match cell {
        CellType::Slc => (25.0, 200.0, 1500.0),
        CellType::Mlc => (50.0, 600.0, 3000.0),
        CellType::Tlc => (75.0, 1000.0, 3500.0),
        CellType::Qlc => (140.0, 3000.0, 10000.0),
        CellType::Custom => return None,
    };
    Some(FlashConfig { cell, read_us: r, program_us: p, erase_us: e })
}

/// (name, one-line description) of every preset.
pub fn names() -> &'static [(&'static str, &'static str)] {
    &[
        ("bench-matched", "The standard speed benchmark's device (compared with MQSim and SSDSim): 8ch x 8 chips x 2 dies x 2 planes, 32 GiB raw, 75/400/3800 us, 333 MT/s"),
        ("small", "A 2 GiB MLC device for demos and tests: 4ch x 2 chips x 2 dies x 2 planes"),
        ("rr-ssd", "RR-SSD Table II: 8ch x 8 chips x 4 dies x 2 planes, 256 pages/block, 16 GiB chips, 75/400/3800 us, 533 MT/s"),
        ("hotr", "HotR Table II: 80 GiB TLC, 8 planes per package, 2048 blocks/plane, 64 pages, 15% reserved, GC at 5%"),
        ("collisions", "Collision paper Table 4: 1 TB TLC, 8 channels x 2 dies, 16 KiB pages, 60/700/3500 us, 50 us suspend, OP 7%"),
        ("cr5m-ssd1", "CR5M Table II/III SSD1 pure SSD: 4ch x 6 chips, 4 dies x 4 planes, 2 KiB pages, 20/200/1500 us, 25 ns/B"),
        ("cr5m-ssd2", "CR5M SSD2 pure SSD: 6ch x 4 chips"),
        ("cr5m-ssd3", "CR5M SSD3 pure SSD: 8ch x 3 chips"),
        ("cr5m-ssd1-cr1", "CR5M Table III SSD1, CR1: 8ch x 6 chips, channel mirroring"),
        ("cr5m-ssd1-cr4", "CR5M Table III SSD1, CR4: 4ch x 6 chips, dedicated parity channel"),
        ("cr5m-ssd1-cr5", "CR5M Table III SSD1, CR5: 4ch x 6 chips, rotating parity"),
        ("cr5m-ssd1-cr5m", "CR5M Table III SSD1, CR5M: 4ch x 7 chips (one hidden mirror chip per channel)"),
        ("cr5m-ssd2-cr1", "CR5M SSD2, CR1: 12ch x 4 chips"),
        ("cr5m-ssd2-cr4", "CR5M SSD2, CR4: 6ch x 4 chips"),
        ("cr5m-ssd2-cr5", "CR5M SSD2, CR5: 6ch x 4 chips"),
        ("cr5m-ssd2-cr5m", "CR5M SSD2, CR5M: 6ch x 5 chips"),
        ("cr5m-ssd3-cr1", "CR5M SSD3, CR1: 16ch x 3 chips"),
        ("cr5m-ssd3-cr4", "CR5M SSD3, CR4: 8ch x 3 chips"),
        ("cr5m-ssd3-cr5", "CR5M SSD3, CR5: 8ch x 3 chips"),
        ("cr5m-ssd3-cr5m", "CR5M SSD3, CR5M: 8ch x 4 chips"),
    ]
}

/// The preset called `name`.
pub fn get(name: &str) -> Result<Config> {
    let cfg = match name {
        "bench-matched" => bench_matched(),
        "small" => small(),
        "rr-ssd" => rr_ssd(),
        "hotr" => hotr(),
        "collisions" => collisions(),
        "cr5m-ssd1" => cr5m(4, 6),
        "cr5m-ssd2" => cr5m(6, 4),
        "cr5m-ssd3" => cr5m(8, 3),
        other => match CR5M_RAID.iter().find(|r| r.0 == other) {
            Some(&(_, channels, chips, scheme)) => cr5m_raid(channels, chips, scheme),
            None => {
                let known: Vec<&str> = names().iter().map(|(n, _)| *n).collect();
                return Err(Error::config("preset", format!("unknown preset `{name}`; known: {}", known.join(", "))));
            }
        },
    };
    Ok(Config { name: name.to_string(), ..cfg })
}

fn device(geo: [u32; 7], op: f64, flash: FlashConfig, channel: ChannelConfig) -> DeviceConfig {
    let [channels, chips_per_channel, dies_per_chip, planes_per_die, blocks_per_plane, pages_per_block, page_size] = geo;
    DeviceConfig {
        channels,
        chips_per_channel,
        dies_per_chip,
        planes_per_die,
        blocks_per_plane,
        pages_per_block,
        page_size,
        overprovisioning: op,
        spare_chips: 0,
        flash,
        channel,
    }
}

fn custom(read_us: f64, program_us: f64, erase_us: f64) -> FlashConfig {
    FlashConfig { cell: CellType::Custom, read_us, program_us, erase_us }
}

fn base(device: DeviceConfig) -> Config {
    Config {
        name: String::new(),
        compat: Compat::None,
        device,
        write_buffer: WriteBufferConfig::default(),
        scheduler: SchedulerConfig::default(),
        ftl: FtlConfig::default(),
        host: HostConfig::default(),
        scheme: SchemeConfig::default(),
        run: RunConfig::default(),
        metrics: MetricsConfig::default(),
        probes: Default::default(),
        nand: Default::default(),
        flows: Vec::new(),
        read_cache: Default::default(),
        energy: Default::default(),
        trim: Default::default(),
    }
}

/// ../shared/bench/README.md: greedy GC at 5% free, CWDP, queue depth 1024, fresh.
pub fn bench_matched() -> Config {
    let ch = ChannelConfig { width_bits: 8, rate_mts: 333.0, command_ns: 100 };
    let mut c = base(device([8, 8, 2, 2, 512, 64, 4096], 0.10, custom(75.0, 400.0, 3800.0), ch));
    c.host.queue_depth = 1024;
    c
}

fn small() -> Config {
    let mlc = cell_timing(CellType::Mlc).unwrap_or_else(|| custom(50.0, 600.0, 3000.0));
    base(device([4, 2, 2, 2, 256, 64, 4096], 0.10, mlc, ChannelConfig::default()))
}

/// RR-SSD Table II. 16 GiB chips: 4 dies x 2 planes x 2048 blocks x 256 pages x 4 KiB.
/// Over-provisioning is not given in the paper; 7% is assumed.
fn rr_ssd() -> Config {
    let ch = ChannelConfig { width_bits: 8, rate_mts: 533.0, command_ns: 100 };
    base(device([8, 8, 4, 2, 2048, 256, 4096], 0.07, custom(75.0, 400.0, 3800.0), ch))
}

/// HotR Table II: 80 GiB = 20 packages x 8 planes x 2048 blocks x 64 pages x
/// 4 KiB. The channel count is not given; 5 channels x 4 packages is assumed
/// (it lets TTFlash's 4+1 stripe span channels). 15% reserved = OP.
fn hotr() -> Config {
    let tlc = cell_timing(CellType::Tlc).unwrap_or_else(|| custom(75.0, 1000.0, 3500.0));
    base(device([5, 4, 1, 8, 2048, 64, 4096], 0.15, tlc, ChannelConfig::default()))
}

/// Collision paper Table 4: 16 dies, 1 TB. Planes and block size are not
/// given: 4 planes x 4096 blocks x 256 pages x 16 KiB per die is assumed.
/// "Channel speed 1 Gbps" is read as 1 Gb/s per data pin on an 8-bit bus,
/// i.e. 1000 MT/s (a 16 KiB page moves in about 16 µs).
fn collisions() -> Config {
    let ch = ChannelConfig { width_bits: 8, rate_mts: 1000.0, command_ns: 100 };
    let mut flash = custom(60.0, 700.0, 3500.0);
    flash.cell = CellType::Custom;
    let mut c = base(device([8, 1, 2, 4, 4096, 256, 16384], 0.07, flash, ch));
    c.scheduler.suspension = true;
    c.scheduler.suspend_us = 50.0;
    c
}

/// CR5M Table II: 25 ns per byte = 40 MT/s on an 8-bit bus; 5% OP.
/// The pure SSD (scheme `pure`: conventional placement that also takes the
/// failure injection); the RAID presets change the scheme.
fn cr5m(channels: u32, chips: u32) -> Config {
    let ch = ChannelConfig { width_bits: 8, rate_mts: 40.0, command_ns: 100 };
    let mut c = base(device([channels, chips, 4, 4, 2048, 64, 2048], 0.05, custom(20.0, 200.0, 1500.0), ch));
    c.scheme.name = "pure".into();
    c
}

/// The channel-RAID columns of CR5M Table III (equal usable capacity), as
/// data: preset, channels, chips per channel, scheme. CR1 has twice the
/// pure SSD's channels, CR4 and CR5 its geometry, CR5M one more chip per
/// channel (hidden).
const CR5M_RAID: [(&str, u32, u32, &str); 12] = [
    ("cr5m-ssd1-cr1", 8, 6, "cr1"),
    ("cr5m-ssd1-cr4", 4, 6, "cr4"),
    ("cr5m-ssd1-cr5", 4, 6, "cr5"),
    ("cr5m-ssd1-cr5m", 4, 7, "cr5m"),
    ("cr5m-ssd2-cr1", 12, 4, "cr1"),
    ("cr5m-ssd2-cr4", 6, 4, "cr4"),
    ("cr5m-ssd2-cr5", 6, 4, "cr5"),
    ("cr5m-ssd2-cr5m", 6, 5, "cr5m"),
    ("cr5m-ssd3-cr1", 16, 3, "cr1"),
    ("cr5m-ssd3-cr4", 8, 3, "cr4"),
    ("cr5m-ssd3-cr5", 8, 3, "cr5"),
    ("cr5m-ssd3-cr5m", 8, 4, "cr5m"),
];

/// A row of [`CR5M_RAID`]: the pure SSD's device with its counts.
fn cr5m_raid(channels: u32, chips: u32, scheme: &str) -> Config {
    let mut c = cr5m(channels, chips);
    c.scheme.name = scheme.to_string();
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_validates() {
        for (name, _) in names() {
            let cfg = Config::preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(&cfg.name, name);
        }
    }

    #[test]
    fn cr5m_raid_presets_follow_table_iii() {
        let c = get("cr5m-ssd1-cr5m").unwrap();
        assert_eq!((c.device.channels, c.device.chips_per_channel, c.scheme.name.as_str()), (4, 7, "cr5m"));
        let c = get("cr5m-ssd3-cr1").unwrap();
        assert_eq!((c.device.channels, c.device.chips_per_channel), (16, 3));
        assert!(get("cr5m-ssd4-cr5").is_err() && get("cr5m-ssd1-cr9").is_err());
        // Every row is listed, and the listing names no RAID preset without a row.
        let listed: Vec<&str> = names().iter().map(|n| n.0).filter(|n| n.matches('-').count() == 2).collect();
        assert_eq!(listed, CR5M_RAID.map(|r| r.0));
    }

    #[test]
    fn unknown_preset_lists_known() {
        let e = get("nope").unwrap_err().to_string();
        assert!(e.contains("bench-matched"), "{e}");
    }
}
