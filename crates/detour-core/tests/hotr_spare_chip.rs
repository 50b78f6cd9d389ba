//! HotR's dedicated spare chip (`scheme.hotr.staging = "spare-chip"` with
//! `device.spare_chips = 1`): the staging chip the paper adds beside the
//! device's chips ("a dedicated spare flash chip", abstract and Sec. I),
//! on a channel of its own. The host keeps the baseline's logical space and
//! chips; a read blocked by a program is served from the spare copy.
//! Timing on the `small` preset as in tests/timing_model.rs (MLC: read
//! 50 µs, program 600 µs; 100 ns command; 12.3 µs per 4 KiB transfer).

mod common;
use common::*;
use detour_core::config::{Config, ConfigBuilder};
use detour_core::sim::{self, Simulation};
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const T_READ: u64 = 50_000;
const T_PROG: u64 = 600_000;

/// One channel, one chip, one die, one plane: every host page shares the
/// die, so any host program blocks every read.
const ONE_DIE: [&str; 6] = [
    "device.channels=1",
    "device.chips_per_channel=1",
    "device.dies_per_chip=1",
    "device.planes_per_die=1",
    "host.write_ack=transfer",
    "scheduler.multiplane=false",
];

fn spare(extra: &[&str]) -> Config {
    let mut o = ONE_DIE.to_vec();
    o.extend_from_slice(&["scheme.name=hotr", "device.spare_chips=1", "scheme.hotr.staging=spare-chip"]);
    o.extend_from_slice(extra);
    small(&o)
}

/// Read page 5 (listed), block a read of it behind a program (it is copied
/// to the spare chip after), then block it again: the second blocked read
/// goes to the spare chip's idle die and channel and takes command + tR +
/// transfer, where the baseline waits for the program to end.
#[test]
fn a_blocked_read_is_served_from_the_spare_chip_in_command_read_transfer() {
    let (t1, t3) = (1_000_000, 5_000_000);
    let (t2, t4) = (t1 + CMD + XFER + 1_000, t3 + CMD + XFER + 1_000);
    let reqs = [
        req(0, 5, 1, IoKind::Read),
        req(t1, 7, 1, IoKind::Write),
        req(t2, 5, 1, IoKind::Read),
        req(t3, 9, 1, IoKind::Write),
        req(t4, 5, 1, IoKind::Read),
    ];
    // migrate_share 1: one page read so far may be staged (the default 10% of one page is none).
    let r = sim::run_requests(spare(&["scheme.hotr.migrate_share=1", "run.verify=true"]), &reqs).unwrap();
    let s = &r.summary;
    assert_eq!(s.verify_errors, 0);
    let lat = &r.requests.latency_ns;
    assert_eq!(lat[0], CMD + T_READ + XFER, "a lone read");
    let waited = |t_write: u64, t_read: u64| t_write + CMD + XFER + T_PROG - t_read + CMD + T_READ + XFER;
    assert_eq!(lat[2], waited(t1, t2), "not staged yet: it waits for the program, then is copied");
    assert_eq!(lat[4], CMD + T_READ + XFER, "staged: served by the spare chip");
    assert_eq!(counter(s, "hotr.migrations"), 1.0, "{:?}", s.scheme_counters);
    assert_eq!(counter(s, "hotr.reads_blocked"), 2.0);
    assert_eq!(counter(s, "hotr.reads_redirected_staging"), 1.0);
    // The baseline on the same device (no spare chip) waits for the second program too.
    let mut o = ONE_DIE.to_vec();
    o.push("scheme.name=conventional");
    let b = sim::run_requests(small(&o), &reqs).unwrap();
    assert_eq!(b.requests.latency_ns[4], waited(t3, t4));
    assert_eq!(b.requests.latency_ns[..4], lat[..4], "the same up to the redirected read");
}

fn geometry(cfg: Config) -> detour_core::device::Geometry {
    Simulation::new(cfg).unwrap().geometry().clone()
}

/// The spare chip adds a chip (and a channel) and no logical page; taking
/// one of the device's chips (`staging = "chip"`) costs the host a chip's
/// share of the logical space.
#[test]
fn the_host_keeps_the_baselines_logical_space_and_chips() {
    let base = geometry(small(&[]));
    let sp = geometry(small(&["scheme.name=hotr", "device.spare_chips=1", "scheme.hotr.staging=spare-chip"]));
    let chip = geometry(small(&["scheme.name=hotr", "scheme.hotr.staging=chip"]));
    assert_eq!(sp.logical_pages, base.logical_pages);
    assert_eq!((sp.host_chips(), sp.chips(), sp.buses()), (base.chips(), base.chips() + 1, base.channels + 1));
    assert_eq!(sp.host_pages(), base.total_pages());
    assert_eq!(sp.channel_of_die(sp.host_dies()), base.channels, "the spare chip is on a channel of its own");
    assert_eq!(chip.logical_pages as u64, base.logical_pages as u64 * 7 / 8, "8 chips, one taken");
}

/// With nothing migrated the spare chip is idle, and the run is the
/// baseline's to the nanosecond: the host never places a page on it, under
/// static or dynamic allocation, on a device collecting garbage.
#[test]
fn an_idle_spare_chip_leaves_the_baseline_unchanged() {
    for alloc in ["static", "dynamic"] {
        let a = format!("ftl.allocation={alloc}");
        let mut o = TINY.to_vec();
        o.extend_from_slice(&[a.as_str(), "scheme.name=conventional"]);
        let base = sim::run_requests(small(&o), &stress(3, 6500)).unwrap().summary;
        o.pop();
        o.extend_from_slice(&["scheme.name=hotr", "scheme.hotr.migrate_share=0", "device.spare_chips=1", "scheme.hotr.staging=spare-chip"]);
        let h = sim::run_requests(small(&o), &stress(3, 6500)).unwrap().summary;
        assert!(base.gc.runs > 0, "{alloc}: GC runs");
        assert_eq!(base.latency_us, h.latency_us, "{alloc}");
        assert_eq!((base.gc.runs, base.gc.moves, base.gc.erases), (h.gc.runs, h.gc.moves, h.gc.erases), "{alloc}");
    }
}

/// Under GC pressure on both the host dies and the spare chip, with writes
/// to staged pages, nothing stale is served.
#[test]
fn the_spare_chip_verifies_clean_under_gc_pressure() {
    for variant in ["ftl.allocation=static", "ftl.allocation=dynamic"] {
        let mut o = TINY.to_vec();
        o.extend_from_slice(&["scheme.name=hotr", "device.spare_chips=1", "scheme.hotr.staging=spare-chip"]);
        o.extend_from_slice(&["scheme.hotr.migrate_share=0.5", "scheme.hotr.replace=true", variant]);
        let r = sim::run_requests(small(&o), &stress(5, 6500)).unwrap_or_else(|e| panic!("{variant}: {e}"));
        let s = &r.summary;
        assert_eq!(s.verify_errors, 0, "{variant}: {:?}", r.verify_failures);
        assert!(s.gc.runs > 0 && counter(s, "hotr.migrations") > 0.0, "{variant}: {:?}", s.scheme_counters);
    }
}

#[test]
fn spare_chips_and_spare_chip_staging_go_together() {
    let err =
        |kv: &[&str]| ConfigBuilder::from_preset("small").unwrap().set_all(kv.iter().copied()).unwrap().build().unwrap_err().to_string();
    let e = err(&["device.spare_chips=1"]);
    assert!(e.contains("device.spare_chips") && e.contains("conventional"), "{e}");
    let e = err(&["scheme.name=hotr", "scheme.hotr.staging=spare-chip"]);
    assert!(e.contains("scheme.hotr.staging") && e.contains("device.spare_chips"), "{e}");
    let e = err(&["scheme.name=hotr", "device.spare_chips=1"]);
    assert!(e.contains("device.spare_chips"), "{e}");
    let e = err(&["scheme.name=hotr", "scheme.hotr.staging=spare-chip", "device.spare_chips=3"]);
    assert!(e.contains("device.spare_chips"), "more than a channel's chips: {e}");
}
