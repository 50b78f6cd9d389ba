//! The timing-model settings: write acknowledgement, the service unit, and
//! the DRAM write buffer, each checked against its analytic value on the
//! `small` preset (MLC: read 50 µs, program 600 µs; 100 ns command; a 4 KiB
//! page takes 12.3 µs on its 8-bit 333 MT/s channel; DRAM access 1 µs).

mod common;
use common::*;
use detour_core::config::Config;
use detour_core::sim::{self, RunResult};
use detour_core::IoKind;

const CMD: u64 = 100;
const XFER: u64 = 12_300;
const T_READ: u64 = 50_000;
const T_PROG: u64 = 600_000;
const DRAM: u64 = 1_000;

fn run(cfg: Config, reqs: &[detour_core::workload::Request]) -> RunResult {
    let r = sim::run_requests(cfg, reqs).unwrap();
    assert_eq!(r.summary.requests as usize, reqs.len(), "every request completes");
    r
}

#[test]
fn a_lone_write_takes_its_acknowledgement_rule() {
    let w = [req(0, 3, 1, IoKind::Write)];
    let cases: [(&[&str], u64); 5] = [
        (&["host.write_ack=program"], CMD + XFER + T_PROG),
        (&["host.write_ack=transfer"], CMD + XFER),
        (&["host.write_ack=buffer", "write_buffer.pages=16"], DRAM),
        // the ssdsim bundle's buffer admission acknowledges at transfer only
        // when there is a buffer; without one the key given stands
        (&["compat=ssdsim"], CMD + XFER),
        (&["compat=ssdsim", "host.write_ack=program"], CMD + XFER + T_PROG),
    ];
    for (kv, want) in cases {
        let r = run(small(kv), &w);
        assert_eq!(r.requests.latency_ns[0], want, "{kv:?}");
    }
}

#[test]
fn under_transfer_acknowledgement_a_read_waits_for_the_program() {
    // Page 0 and page 8 share die 0 on `small` (8 dies, channel first).
    let dies = small(&[]).device.channels * 2 * 2;
    let read_at = CMD + XFER + 1_000;
    let reqs = [req(0, 0, 1, IoKind::Write), req(read_at, dies as u64, 1, IoKind::Read)];
    let mut kv = vec!["host.write_ack=transfer", "scheduler.multiplane=false"];
    let r = run(small(&kv), &reqs);
    assert_eq!(r.requests.latency_ns[0], CMD + XFER, "the write is done at transfer");
    let program_end = CMD + XFER + T_PROG;
    assert_eq!(r.requests.latency_ns[1], program_end - read_at + CMD + T_READ + XFER, "the read waited for tPROG");
    // Suspension lets it in early: proof the die (not the model) was busy.
    kv.push("scheduler.suspension=true");
    let r = run(small(&kv), &reqs);
    assert!(r.requests.latency_ns[1] < T_PROG / 2, "{}", r.requests.latency_ns[1]);
}

#[test]
fn a_chip_unit_makes_the_dies_of_a_chip_wait_for_each_other() {
    // Channel first (CWDP): LPN channels x chips is the second die of chip 0.
    let cfg = small(&[]);
    let other_die = (cfg.device.channels * cfg.device.chips_per_channel) as u64;
    let reqs = [req(0, 0, 1, IoKind::Write), req(CMD + XFER + 1_000, other_die, 1, IoKind::Read)];
    let die = run(small(&["scheduler.unit=die"]), &reqs);
    let chip = run(small(&["scheduler.unit=chip"]), &reqs);
    assert_eq!(die.requests.latency_ns[1], CMD + T_READ + XFER, "dies overlap");
    assert!(chip.requests.latency_ns[1] > T_PROG / 2, "the chip is busy programming: {}", chip.requests.latency_ns[1]);
}

#[test]
fn fcfs_puts_a_read_behind_queued_writes() {
    let reqs: Vec<_> = (0..4).map(|i| req(i, 8 * i, 1, IoKind::Write)).chain([req(10, 16 * 8, 1, IoKind::Read)]).collect();
    let kv = ["scheduler.multiplane=false", "device.channels=1", "device.chips_per_channel=1", "device.dies_per_chip=1"];
    let prio = run(small(&kv), &reqs);
    let mut f = kv.to_vec();
    f.push("scheduler.order=fcfs");
    let fcfs = run(small(&f), &reqs);
    let (p, q) = (prio.requests.latency_ns[4], fcfs.requests.latency_ns[4]);
    assert!(p < 2 * T_PROG, "priority: behind the running program only ({p})");
    assert!(q > 3 * T_PROG, "fcfs: behind all four programs ({q})");
}

/// Writes of `pages` distinct pages, then reads of all of them.
fn write_then_read(pages: u64, gap: u64) -> Vec<detour_core::workload::Request> {
    let w = (0..pages).map(|p| req(p * gap, p, 1, IoKind::Write));
    let t = pages * gap;
    w.chain((0..pages).map(|p| req(t + p * gap, p, 1, IoKind::Read))).collect()
}

#[test]
fn a_full_buffer_holds_writes_back_and_loses_nothing() {
    let reqs = write_then_read(400, 200);
    let kv = ["run.verify=true", "host.write_ack=buffer", "write_buffer.pages=8", "write_buffer.flush_at=0.5"];
    let r = run(small(&kv), &reqs);
    let b = r.summary.write_buffer.clone().expect("buffer summary");
    assert_eq!(r.summary.verify_errors, 0);
    assert!(b.writes_waited > 300, "writes arriving every 200 ns outrun 600 µs flushes: {b:?}");
    assert!(b.wait_us_mean > 10.0, "{b:?}");
    assert_eq!(b.occupancy_max, 8);
    assert_eq!(b.flushes, 400, "every page reaches the flash once");
    assert_eq!(r.summary.gc.programs_host, 400);
    // The last writes were still in the buffer when the reads came.
    assert!(b.read_hits > 0 && b.read_hits < 400, "{b:?}");
    let read_lat = &r.requests.latency_ns[400..];
    assert!(read_lat.iter().filter(|&&l| l == DRAM).count() as u64 == b.read_hits, "hits take the DRAM time");
}

#[test]
fn rewrites_are_absorbed_and_the_rest_drained_at_the_end() {
    // 20 writes of 4 pages: each page rewritten 5 times while it lingers.
    let reqs: Vec<_> = (0..20).map(|i| req(i * 1_000, i % 4, 1, IoKind::Write)).collect();
    let kv = ["run.verify=true", "host.write_ack=buffer", "write_buffer.pages=64"];
    let r = run(small(&kv), &reqs);
    let b = r.summary.write_buffer.clone().unwrap();
    assert_eq!((b.write_pages, b.write_hits), (20, 16));
    assert_eq!((b.flushes, b.drained), (4, 4), "below flush_at until the end, then drained");
    assert!(r.requests.latency_ns.iter().all(|&l| l == DRAM));
}

#[test]
fn lru_keeps_pages_that_are_read_and_fifo_does_not() {
    // Page 0 is written first and read over and over while new pages come.
    let mut reqs = vec![req(0, 0, 1, IoKind::Write)];
    for i in 1..40u64 {
        reqs.push(req(i * 2_000_000, i, 1, IoKind::Write));
        reqs.push(req(i * 2_000_000 + 1_000, 0, 1, IoKind::Read));
    }
    let hits = |policy: &str| {
        let kv = ["run.verify=true", "host.write_ack=buffer", "write_buffer.pages=8", "write_buffer.flush_at=0.5"];
        let mut kv = kv.to_vec();
        let p = format!("write_buffer.policy={policy}");
        kv.push(&p);
        let r = run(small(&kv), &reqs);
        assert_eq!(r.summary.verify_errors, 0);
        r.summary.write_buffer.unwrap().read_hits
    };
    let (lru, fifo) = (hits("lru"), hits("fifo"));
    assert_eq!(lru, 39, "LRU keeps the page every read touches");
    assert!(fifo < 10, "FIFO flushes it soon after it came: {fifo}");
}

#[test]
fn buffered_runs_are_deterministic_and_verify_clean_with_every_scheme_family() {
    let reqs = poisson(3_000, 40_000.0, 0.5, 2_000, 7);
    for scheme in ["conventional", "hotr", "cr5", "rails"] {
        let s = format!("scheme.name={scheme}");
        let kv = ["run.verify=true", "host.write_ack=buffer", "write_buffer.pages=32", &s];
        let a = run(small(&kv), &reqs);
        let b = run(small(&kv), &reqs);
        assert_eq!(a.summary.verify_errors, 0, "{scheme}");
        assert_eq!(a.requests.latency_ns, b.requests.latency_ns, "{scheme}");
        let w = a.summary.write_buffer.unwrap();
        // A rewrite of a page still waiting is absorbed; one of a page being
        // flushed is flushed again.
        assert!(w.flushes >= w.write_pages - w.write_hits && w.flushes <= w.write_pages, "{scheme}: {w:?}");
    }
}

#[test]
fn the_host_link_adds_each_direction_in_order() {
    // 2 GB/s: a 4 KiB page crosses in 2048 ns.
    let link = ["host.link_gbps=2"];
    let r = run(small(&link), &[req(0, 3, 1, IoKind::Write)]);
    assert_eq!(r.requests.latency_ns[0], 2_048 + CMD + XFER + T_PROG, "the data comes first");
    let reads = [req(0, 0, 1, IoKind::Read), req(0, 1, 1, IoKind::Read)];
    let r = run(small(&link), &reads);
    let flash = CMD + T_READ + XFER;
    assert_eq!(r.requests.latency_ns[0], flash + 2_048, "then goes out");
    assert_eq!(r.requests.latency_ns[1], flash + 2 * 2_048, "behind the first on the link");
    let kv = ["host.link_gbps=2", "host.write_ack=buffer", "write_buffer.pages=4"];
    let r = run(small(&kv), &[req(0, 3, 1, IoKind::Write)]);
    assert_eq!(r.requests.latency_ns[0], 2_048 + DRAM, "into the buffer after the link");
}

#[test]
fn reads_can_be_kept_out_of_multi_plane_batches() {
    // LPNs 0 and 16 are planes 0 and 1 of die 0 on `small` (channel first).
    let reqs = [req(0, 0, 1, IoKind::Read), req(0, 16, 1, IoKind::Read)];
    let both = run(small(&[]), &reqs);
    let apart = run(small(&["scheduler.multiplane_reads=false"]), &reqs);
    let end = |r: &RunResult| *r.requests.latency_ns.iter().max().unwrap();
    assert!(end(&both) < CMD * 2 + T_READ + 2 * XFER + 1, "one tR for both: {}", end(&both));
    assert!(end(&apart) > 2 * T_READ, "two tR in turn: {}", end(&apart));
}

#[test]
fn same_page_multi_plane_batches_only_planes_at_the_same_page() {
    // LPNs 32, 0 and 16 are planes 0, 0 and 1 of die 0 on `small`. Writing
    // 32 first puts 0 at page 1 of plane 0's block and 16 at page 0 of
    // plane 1's: MQSim's rule (TSU_Base::issue_command_to_chip) programs
    // them one after the other, Detour's default together.
    let ms = 1_000_000;
    let reqs = [req(0, 32, 1, IoKind::Write), req(ms, 0, 1, IoKind::Write), req(ms, 16, 1, IoKind::Write)];
    let later = |r: &RunResult| r.requests.latency_ns[1].max(r.requests.latency_ns[2]);
    let any = run(small(&[]), &reqs);
    assert_eq!(later(&any), 2 * CMD + 2 * XFER + T_PROG, "one program of both planes");
    let same = run(small(&["scheduler.multiplane_same_page=true"]), &reqs);
    assert_eq!(later(&same), 2 * (CMD + XFER + T_PROG), "two programs in turn");
    // Reads of those pages split the same way; pages at equal offsets still pair.
    let reads = [&reqs[..], &[req(3 * ms, 0, 1, IoKind::Read), req(3 * ms, 16, 1, IoKind::Read)]].concat();
    let r = run(small(&["scheduler.multiplane_same_page=true"]), &reads);
    assert_eq!(r.requests.latency_ns[3].max(r.requests.latency_ns[4]), 2 * (CMD + T_READ + XFER), "two reads in turn");
    let pair = [req(0, 0, 1, IoKind::Write), req(0, 16, 1, IoKind::Write)];
    let r = run(small(&["scheduler.multiplane_same_page=true"]), &pair);
    assert_eq!(r.requests.latency_ns[1], 2 * CMD + 2 * XFER + T_PROG, "both at page 0: one program");
}

#[test]
fn a_read_of_a_page_being_programmed_can_go_to_the_flash() {
    // A read 1 µs after a write of the same page: Detour serves it from the
    // write buffer; MQSim with its cache off reads the flash, which (no
    // suspension) waits for the program on the die first.
    let reqs = [req(0, 3, 1, IoKind::Write), req(1_000, 3, 1, IoKind::Read)];
    let r = run(small(&[]), &reqs);
    assert_eq!(r.requests.latency_ns[1], DRAM, "from the buffer");
    let r = run(small(&["ftl.pending_reads_from_flash=true"]), &reqs);
    assert_eq!(r.requests.latency_ns[1], CMD + XFER + T_PROG - 1_000 + CMD + T_READ + XFER, "behind the program");
}

#[test]
fn mqsims_destage_buffer_writes_cold_pages_through_and_holds_writes_at_one_write_back_per_plane() {
    // One die of two planes: MQSim admits a write's pages while fewer than
    // 2 (one per plane) write-backs are in flight, and writes back at once
    // every page not written since its last once-a-second reset
    // (write_to_destage_buffer). No multi-plane, so write-backs go one
    // after the other: each takes command + transfer + tPROG.
    let one = CMD + XFER + T_PROG;
    let dev = ["device.channels=1", "device.chips_per_channel=1", "device.dies_per_chip=1", "scheduler.multiplane=false"];
    let buf = ["host.write_ack=buffer", "write_buffer.pages=16", "run.verify=true"];
    let s = 1_000_000_000;
    let reqs = [
        req(0, 0, 3, IoKind::Write),
        // the first admission after t = 0 (page 2's, at `one`) reset the
        // seen set: page 0 is cold again
        req(3_000_000, 0, 1, IoKind::Write),
        // seen in this window: hot, stays in DRAM
        req(5_000_000, 0, 1, IoKind::Write),
        // the window closes after this admission: still hot here...
        req(s + one + 1_000, 0, 1, IoKind::Write),
        // ...and cold from then on
        req(s + one + 2_000_000, 0, 1, IoKind::Write),
    ];
    let flushes = |r: &RunResult| r.summary.write_buffer.as_ref().unwrap().flushes;
    let kv: Vec<&str> = dev.iter().chain(&buf).copied().collect();
    let room = run(small(&kv), &reqs);
    assert_eq!(room.requests.latency_ns[0], DRAM, "room: the three pages enter at once");
    let mut d = kv.clone();
    d.push("write_buffer.admission=destage");
    let r = run(small(&d), &reqs);
    assert_eq!(r.requests.latency_ns[0], one + DRAM, "page 2 waits for page 0's write-back to end");
    assert_eq!(&r.requests.latency_ns[1..], &[DRAM; 4], "no write-back in flight");
    assert_eq!(flushes(&r), 3 + 1 + 1, "pages 0-2, then page 0 in each new window; none at the end");
    assert_eq!(r.summary.verify_errors, 0);
    let m = run(small(&[&["compat=mqsim", "host.link_gbps=0"], &kv[..]].concat()), &reqs);
    assert_eq!(m.requests.latency_ns[0], r.requests.latency_ns[0], "the mqsim bundle sets it");
}

#[test]
fn mqsims_destage_back_pressure_counts_sectors_so_partial_pages_leave_room() {
    // One die of two planes, 4 KiB pages of 8 sectors: MQSim's limit is 2 x
    // 8 = 16 sectors in flight (back_pressure_buffer_max_depth), and each
    // write-back adds the sectors its page holds (write_to_destage_buffer).
    // 8 KiB from byte 2048 spans pages 0-2 with 4 + 8 + 4 sectors: before
    // page 2 the depth is 12 < 16, so all three enter at once; three whole
    // pages (from byte 0, 12 KiB) reach 16 after two and the third waits
    // for a write-back to end.
    let one = CMD + XFER + T_PROG;
    let kv = [
        "device.channels=1",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "scheduler.multiplane=false",
        "host.write_ack=buffer",
        "write_buffer.pages=16",
        "write_buffer.admission=destage",
    ];
    let at = |offset: u64, size: u32| detour_core::workload::Request {
        time_ns: 0,
        offset,
        size,
        kind: IoKind::Write,
        content: 0,
        volume: 0,
        line: 0,
    };
    assert_eq!(run(small(&kv), &[at(2048, 8192)]).requests.latency_ns[0], DRAM, "4 + 8 + 4 sectors fit under 16");
    assert_eq!(run(small(&kv), &[at(0, 12288)]).requests.latency_ns[0], one + DRAM, "8 + 8 fill it: the third page waits");
}

#[test]
fn ssdsims_chip_wide_program_batch_takes_one_transfer_and_one_program() {
    // One chip of 2 dies x 2 planes, channel first: LPNs 0..4 land on
    // (die, plane) = (0,0), (1,0), (0,1), (1,1). SSDSim issues a chip's
    // waiting writes as one INTERLEAVE_TWO_PLANE command: every transfer
    // starts at once (one page time on the channel), then one tPROG
    // (compute_serve_time). Detour's per-die batches take each die in turn.
    let dev =
        ["device.channels=1", "device.chips_per_channel=1", "device.dies_per_chip=2", "device.planes_per_die=2", "scheduler.unit=chip"];
    let four = [req(0, 0, 4, IoKind::Write)];
    let two_dies = [req(0, 0, 2, IoKind::Write)];
    let per_die = run(small(&dev), &four);
    assert_eq!(per_die.requests.latency_ns[0], 2 * (2 * CMD + 2 * XFER + T_PROG), "two dies, one after the other");
    let mut kv = dev.to_vec();
    kv.push("scheduler.chip_program_batches=true");
    let r = run(small(&kv), &four);
    assert_eq!(r.requests.latency_ns[0], CMD + XFER + T_PROG, "one command: transfers at once, one tPROG");
    // No die with two planes (SSDSim's INTERLEAVE): transfers in turn, one tPROG.
    let r = run(small(&kv), &two_dies);
    assert_eq!(r.requests.latency_ns[0], 2 * CMD + 2 * XFER + T_PROG);
    assert_eq!(run(small(&dev), &two_dies).requests.latency_ns[0], 2 * (CMD + XFER + T_PROG));
    // the ssdsim bundle sets it (it acknowledges at transfer: the batch's channel time)
    let s = run(small(&[&["compat=ssdsim"], &dev[..]].concat()), &four);
    assert_eq!(s.requests.latency_ns[0], CMD + XFER);
}

#[test]
fn mqsims_reads_move_only_the_sectors_asked_for() {
    // `scheduler.read_transfer = "requested"`: the data-out is the
    // request's part of each page, in 512-byte sectors, at the page's rate
    // (12.3 µs per 4 KiB); a translation-page read moves one sector.
    let part = |bytes: u64| (2 * XFER * bytes + 4096) / 8192;
    assert_eq!((part(2048), part(1024), part(512)), (6_150, 3_075, 1_538));
    let at = |offset: u64, size: u32| detour_core::workload::Request { offset, size, ..req(0, 0, 1, IoKind::Read) };
    // Half a page; the last 1 KiB of page 0 and the first of page 1 (two
    // channels, in parallel); 1000 bytes from byte 1000 (sectors 1-3).
    let cases = [(at(0, 2048), part(2048)), (at(3072, 2048), part(1024)), (at(1000, 1000), part(1536))];
    for (r, xfer) in cases {
        let page = run(small(&[]), &[r]);
        assert_eq!(page.requests.latency_ns[0], CMD + T_READ + XFER, "whole page by default: {r:?}");
        let bundle = run(small(&["compat=mqsim"]), &[r]);
        let sectors = run(small(&["scheduler.read_transfer=requested"]), &[r]);
        assert_eq!(sectors.requests.latency_ns[0], CMD + T_READ + xfer, "{r:?}");
        // The bundle sets it (and adds its host link, the same both ways).
        let link = run(small(&["compat=mqsim", "scheduler.read_transfer=page"]), &[r]);
        assert_eq!(link.requests.latency_ns[0] - bundle.requests.latency_ns[0], XFER - xfer, "{r:?}");
    }
    // A one-page mapping table misses on the first read: the translation
    // read (one sector) and then the data read (half a page), in turn.
    let kv = ["scheduler.read_transfer=requested", "ftl.mapping=cmt", "ftl.cmt_size_kib=4", "ftl.precondition.valid=1.0"];
    let r = run(small(&kv), &[at(0, 2048)]);
    assert_eq!(r.requests.latency_ns[0], (CMD + T_READ + part(512)) + (CMD + T_READ + part(2048)));
}

#[test]
fn mqsims_programs_move_only_the_sectors_written() {
    // `scheduler.write_transfer = "written"`: a program's data-in is the
    // sectors its write holds, at the page's rate (6.15 µs for 2 KiB of a
    // 4 KiB page), as MQSim's NVDDR2DataInTransferTime of the
    // transaction's Data_and_metadata_size_in_byte.
    let part = |bytes: u64| (2 * XFER * bytes + 4096) / 8192;
    let at = |offset: u64, size: u32| detour_core::workload::Request { offset, size, ..req(0, 0, 1, IoKind::Write) };
    let w = run(small(&["scheduler.write_transfer=written"]), &[at(0, 2048)]);
    assert_eq!(run(small(&[]), &[at(0, 2048)]).requests.latency_ns[0], CMD + XFER + T_PROG, "whole page by default");
    assert_eq!(w.requests.latency_ns[0], CMD + part(2048) + T_PROG);
    assert_eq!(run(small(&["scheduler.write_transfer=written"]), &[at(0, 4096)]).requests.latency_ns[0], CMD + XFER + T_PROG);
    // The bundle sets it (its host link is the same both ways).
    let bundle = run(small(&["compat=mqsim"]), &[at(0, 2048)]).requests.latency_ns[0];
    let page = run(small(&["compat=mqsim", "scheduler.write_transfer=page"]), &[at(0, 2048)]).requests.latency_ns[0];
    assert_eq!(page - bundle, XFER - part(2048));
    // A destage write-back of a partial page moves its sectors too. One
    // die of one plane: the limit is 8 sectors in flight. A (6 KiB from
    // byte 2048) writes back page 0 (4 sectors) and page 1 (8): depth 12.
    // B waits for both write-backs (after the first the depth is 8, not
    // under 8), one after the other on the die, then its DRAM access.
    let kv = |t: &'static str| {
        vec![
            "device.channels=1",
            "device.chips_per_channel=1",
            "device.dies_per_chip=1",
            "device.planes_per_die=1",
            "host.write_ack=buffer",
            "write_buffer.pages=16",
            "write_buffer.admission=destage",
            t,
        ]
    };
    let reqs = [at(2048, 6144), at(8192, 4096)];
    let b = |t| run(small(&kv(t)), &reqs).requests.latency_ns[1];
    assert_eq!(b("scheduler.write_transfer=page"), 2 * (CMD + XFER + T_PROG) + DRAM);
    assert_eq!(b("scheduler.write_transfer=written"), 2 * (CMD + T_PROG) + part(2048) + XFER + DRAM);
}

#[test]
fn ssdsims_idle_channel_serves_read_commands_then_data_outs_then_writes() {
    // One channel of three one-die, one-plane chips: LPN k is on chip k.
    // SSDSim's process() (flash.c) serves an idle channel with
    // services_2_r_wait, else services_2_r_data_trans, else
    // services_2_write; Detour's default channel is first come, first served.
    let dev =
        ["device.channels=1", "device.chips_per_channel=3", "device.dies_per_chip=1", "device.planes_per_die=1", "scheduler.unit=chip"];
    let with = |extra: &[&str]| small(&[&dev[..], extra].concat());
    let rf = ["scheduler.channel_order=reads_first"];
    // A write holds the channel [0, 12.4 µs]; a second write (1 µs) and a
    // read (2 µs) wait for it. FCFS: the read's command after the second
    // write's transfer, at 24.8 µs. Reads first: its command at 12.4 µs,
    // the second write's transfer after it, and its data-out when its
    // array time ends (the channel is free again by then).
    let a = [req(0, 0, 1, IoKind::Write), req(1_000, 1, 1, IoKind::Write), req(2_000, 2, 1, IoKind::Read)];
    let fcfs = run(with(&[]), &a);
    assert_eq!(fcfs.requests.latency_ns[2], 2 * (CMD + XFER) + CMD + T_READ + XFER - 2_000);
    assert_eq!(fcfs.requests.latency_ns[1], 2 * (CMD + XFER) + T_PROG - 1_000);
    let r = run(with(&rf), &a);
    assert_eq!(r.requests.latency_ns[2], (CMD + XFER) + CMD + T_READ + XFER - 2_000);
    assert_eq!(r.requests.latency_ns[1], (CMD + XFER) + CMD + (CMD + XFER) + T_PROG - 1_000);
    assert_eq!(r.requests.latency_ns[0], CMD + XFER + T_PROG);
    // A read's data-out goes before a write that asked first: the read's
    // array ends at 50.1 µs while a write holds the channel [45, 57.4 µs]
    // and another write waits from 50 µs; at 57.4 µs the data-out goes first.
    let b = [req(0, 0, 1, IoKind::Read), req(45_000, 1, 1, IoKind::Write), req(50_000, 2, 1, IoKind::Write)];
    let busy = 45_000 + CMD + XFER;
    let fcfs = run(with(&[]), &b);
    assert_eq!(fcfs.requests.latency_ns[0], busy + (CMD + XFER) + XFER);
    assert_eq!(fcfs.requests.latency_ns[2], busy + (CMD + XFER) + T_PROG - 50_000);
    let r = run(with(&rf), &b);
    assert_eq!(r.requests.latency_ns[0], busy + XFER);
    assert_eq!(r.requests.latency_ns[2], busy + XFER + (CMD + XFER) + T_PROG - 50_000);
    // The ssdsim bundle sets it (writes acknowledged at transfer there).
    let s = run(with(&["compat=ssdsim"]), &a);
    assert_eq!(s.requests.latency_ns[2], (CMD + XFER) + CMD + T_READ + XFER - 2_000);
    assert_eq!(s.requests.latency_ns[1], (CMD + XFER) + CMD + (CMD + XFER) - 1_000);
}

#[test]
fn mqsims_multi_plane_batch_is_filled_from_the_whole_queue() {
    // One die of two planes: LPN k is on plane k % 2. A write of plane 0
    // runs; five more of plane 0 and then one of plane 1 queue behind it.
    // Detour's priority policy fills a batch from the head's queue 2 x
    // planes = 4 deep, so the plane-1 write joins the second batch after;
    // MQSim's issue_command_to_chip (TSU_Base.cpp) walks the whole queue
    // and pairs it with the next one.
    let dev = ["device.channels=1", "device.chips_per_channel=1", "device.dies_per_chip=1", "device.planes_per_die=2"];
    let lpns = [0u64, 2, 4, 6, 8, 10, 1];
    let reqs: Vec<_> = lpns.iter().enumerate().map(|(i, &l)| req(i as u64 * 1_000, l, 1, IoKind::Write)).collect();
    let one = CMD + XFER + T_PROG;
    let (first_end, t1) = (one, 6_000);
    let near = run(small(&dev), &reqs);
    assert_eq!(near.requests.latency_ns[1], first_end + one - 1_000, "the head goes alone");
    assert_eq!(near.requests.latency_ns[6], first_end + one + 2 * (CMD + XFER) + T_PROG - t1, "joins the third batch");
    let mut kv = dev.to_vec();
    kv.push("scheduler.multiplane_scan=queue");
    let whole = run(small(&kv), &reqs);
    assert_eq!(whole.requests.latency_ns[1], first_end + 2 * (CMD + XFER) + T_PROG - 1_000, "paired with the plane-1 write");
    assert_eq!(whole.requests.latency_ns[6], first_end + 2 * (CMD + XFER) + T_PROG - t1);
    // The mqsim bundle sets it.
    let b = small(&["compat=mqsim"]);
    assert_eq!(b.scheduler.multiplane_scan, detour_core::config::MultiplaneScan::Queue);
    assert_eq!(small(&[]).scheduler.multiplane_scan, detour_core::config::MultiplaneScan::Near);
}

#[test]
fn mqsims_data_cache_dram_serves_one_access_at_a_time() {
    // `[write_buffer.dram]` as MQSim's example times its data cache: 100
    // MT/s, 1-byte bursts, 13 ns tRCD and tCL: a 4 KiB write holds the DRAM
    // 26 + 4096 / 2 x 10 ns, one access at a time in arrival order
    // (service_dram_access_request); untimed, each costs a flat 1 µs.
    let kv = ["host.write_ack=buffer", "write_buffer.pages=64"];
    let reqs = [req(0, 0, 1, IoKind::Write), req(0, 1, 1, IoKind::Write), req(0, 2, 2, IoKind::Write)];
    let flat = run(small(&kv), &reqs);
    assert_eq!(flat.requests.latency_ns, vec![DRAM, DRAM, DRAM]);
    let mut timed = kv.to_vec();
    timed.push("write_buffer.dram.rate_mts=100");
    let r = run(small(&timed), &reqs);
    let page = 26 + 20_480;
    assert_eq!(r.requests.latency_ns, vec![page, 2 * page, 2 * page + 26 + 40_960]);
}

#[test]
fn ssdsims_buffer_evicts_at_once_and_a_write_waits_only_for_its_evictions_transfer() {
    // One die, a buffer of 2 pages. SSDSim's insert2buffer (flash.c) frees
    // the least recently used slot at once for a write that finds the
    // buffer full, making that page's flash write a sub-request of the
    // write; trace_output (ssd.c) ends the write when its sub-requests'
    // data is on the chip (SR_W_TRANSFER), with no DRAM time added.
    let kv = [
        "device.channels=1",
        "device.chips_per_channel=1",
        "device.dies_per_chip=1",
        "scheduler.multiplane=false",
        "host.write_ack=buffer",
        "write_buffer.pages=2",
        "write_buffer.policy=lru",
        "write_buffer.flush_at=1.0",
        "run.verify=true",
    ];
    let reqs = [
        req(0, 0, 1, IoKind::Write),
        req(1_000, 1, 1, IoKind::Write),
        // full: evicts page 0, whose write starts now
        req(2_000, 2, 1, IoKind::Write),
        // full: evicts page 1, whose write waits for page 0's program
        req(3_000, 3, 1, IoKind::Write),
        // a hit: DRAM only
        req(4_000, 3, 1, IoKind::Write),
    ];
    let mut e = kv.to_vec();
    e.push("write_buffer.admission=evict");
    let r = run(small(&e), &reqs);
    let second_in = 2_000 + CMD + XFER + T_PROG + CMD + XFER;
    assert_eq!(r.requests.latency_ns, vec![DRAM, DRAM, CMD + XFER, second_in - 3_000, DRAM]);
    let b = r.summary.write_buffer.as_ref().unwrap();
    assert_eq!(b.flushes, 2, "the two evictions; nothing is flushed at the end");
    assert_eq!(r.summary.verify_errors, 0);
    // Detour's default admission: the write waits for room, i.e. until the
    // flush of pages 0 and 1 (one run of consecutive pages, programmed in
    // turn on the one die) has ended, then its DRAM access.
    let room = run(small(&kv), &reqs);
    assert_eq!(room.requests.latency_ns[2], 2 * (CMD + XFER + T_PROG) + DRAM);
    // the ssdsim bundle sets it
    let s = run(small(&[&["compat=ssdsim"], &kv[..]].concat()), &reqs);
    assert_eq!(s.requests.latency_ns[2], CMD + XFER);
}

#[test]
fn under_dynamic_allocation_pages_a_read_finds_unwritten_are_placed_channel_first() {
    // SSDSim writes every page its trace reads before the run
    // (pre_process_page, pagemap.c), taking the channel, then the chip,
    // die and plane by round-robin tokens (get_ppn_for_pre_process): two
    // consecutive pages land on two channels. Detour places them when
    // first read, ties in ftl.order's (CWDP) order of the dies, so the
    // 2-page read runs on two channels at once: command + tR + transfer.
    // (The lowest die number first would put both on chip 0 of channel 0:
    // the second page's data-out after the first's, one more transfer.)
    let r = run(small(&["ftl.allocation=dynamic"]), &[req(0, 0, 2, IoKind::Read)]);
    assert_eq!(r.requests.latency_ns[0], CMD + T_READ + XFER);
}
