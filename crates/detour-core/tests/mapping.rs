//! The mapping policies (`ftl.mapping`, ftl/mapping/): a cached mapping
//! table as large as the map is the DRAM map; a one-page table pays a
//! translation read per lookup of another page; dirty evictions are
//! written back and GC moves translation pages with verify mode clean; the
//! hit ratio rises with the table's size.

mod common;
use common::*;
use detour_core::config::{Config, ConfigBuilder};
use detour_core::ftl::mapping::MappingStats;
use detour_core::sim::{run_requests, RunResult};
use detour_core::workload::generator::Generator;
use detour_core::workload::profiles::profile;
use detour_core::IoKind;

fn run(cfg: Config, reqs: &[detour_core::workload::Request]) -> RunResult {
    run_requests(cfg, reqs).unwrap()
}

fn stats(r: &RunResult) -> &MappingStats {
    r.summary.mapping.as_ref().expect("a mapping section with ftl.mapping = cmt")
}

/// The summary as JSON without its `mapping` section (which DRAM lacks).
/// The summary without what only the mapping table adds: its section and
/// the warning that a covering table is the DRAM map.
fn json_without_mapping(r: &RunResult) -> String {
    let mut s = r.summary.clone();
    s.mapping = None;
    s.warnings.retain(|w| w.kind != "cmt_covers_map");
    serde_json::to_string(&s).unwrap()
}

#[test]
fn covering_table_is_the_dram_map() {
    for scheme in ["conventional", "rails", "hotr"] {
        let name = format!("scheme.name={scheme}");
        let base = [name.as_str(), "ftl.precondition.valid=0.5", "run.verify=true"];
        let reqs = stress(3, 200_000);
        let dram = run(small(&base), &reqs);
        // 2 GiB of 4 KiB pages: 512 Ki entries, 512 translation pages, 2 MiB.
        let cmt = run(small(&[&base[..], &["ftl.mapping=cmt", "ftl.cmt_size_kib=2048"]].concat()), &reqs);
        assert_eq!(json_without_mapping(&dram), json_without_mapping(&cmt), "{scheme}");
        assert!(cmt.summary.warnings.iter().any(|w| w.kind == "cmt_covers_map"), "{scheme}");
        assert_eq!(dram.requests.latency_ns, cmt.requests.latency_ns, "{scheme}");
        let m = stats(&cmt);
        assert_eq!((m.hit_ratio, m.translation_reads, m.translation_writes), (1.0, 0, 0), "{scheme}");
        assert!(dram.summary.mapping.is_none());
    }
}

#[test]
fn one_page_table_reads_each_translation_page() {
    // Reads 1 ms apart, each in another translation page (1024 LPNs each):
    // every one misses, and waits one uncontended flash read more.
    let reqs: Vec<_> = (0..40u64).map(|i| req(i * 1_000_000, i * 1024 + 7, 1, IoKind::Read)).collect();
    let base = ["ftl.precondition.valid=1.0"];
    let dram = run(small(&base), &reqs);
    let cmt = run(small(&[&base[..], &["ftl.mapping=cmt", "ftl.cmt_size_kib=4"]].concat()), &reqs);
    let m = stats(&cmt);
    assert_eq!((m.lookups, m.hits, m.translation_reads, m.translation_writes), (40, 0, 40, 0));
    for (d, c) in dram.requests.latency_ns.iter().zip(&cmt.requests.latency_ns) {
        // Idle dies: a translation read costs what a data read does.
        assert_eq!(*c, 2 * d, "dram {d} ns, cmt {c} ns");
    }
    // A second read of the same translation page hits.
    let again: Vec<_> = (0..2u64).map(|i| req(i * 1_000_000, 5 + i, 1, IoKind::Read)).collect();
    let m = stats(&run(small(&[&base[..], &["ftl.mapping=cmt", "ftl.cmt_size_kib=4"]].concat()), &again)).clone();
    assert_eq!((m.lookups, m.hits, m.translation_reads), (2, 1, 1));
}

#[test]
fn dirty_evictions_are_written_back_and_gc_keeps_verify_clean() {
    for scheme in ["conventional", "rails", "cr1"] {
        let name = format!("scheme.name={scheme}");
        let mut kv: Vec<&str> = TINY.to_vec();
        kv.extend([name.as_str(), "ftl.precondition.valid=0.7", "ftl.precondition.to_gc_threshold=true"]);
        kv.extend(["ftl.mapping=cmt", "ftl.cmt_size_kib=8"]);
        let cfg = ConfigBuilder::from_preset("small").unwrap().set_all(kv.iter().copied()).unwrap().build().unwrap();
        let logical = detour_core::device::Geometry::from_config(&cfg.device).unwrap().logical_pages as u64;
        // Writes all over the space: few lookups hit a two-page table.
        let reqs = poisson(6_000, 20_000.0, 0.3, logical / 4, 11);
        let r = run(cfg, &reqs);
        let m = stats(&r);
        assert_eq!(r.summary.verify_errors, 0, "{scheme}: {:?}", r.verify_failures);
        assert!(m.translation_writes > 0 && m.translation_reads > 0, "{scheme}: {m:?}");
        assert!(r.summary.gc.runs > 0, "{scheme}");
        assert!(m.gc_moves > 0, "{scheme}: translation pages never collected: {m:?}");
    }
}

#[test]
fn hit_ratio_rises_with_table_size() {
    let mut p = profile("bench-like").unwrap();
    p.requests = 20_000;
    let reqs: Vec<_> = Generator::new(&p).unwrap().collect();
    let ratios: Vec<f64> = [8, 64, 512]
        .iter()
        .map(|kib| {
            let size = format!("ftl.cmt_size_kib={kib}");
            let r = run(small(&["ftl.mapping=cmt", size.as_str(), "host.address=fold"]), &reqs);
            stats(&r).hit_ratio
        })
        .collect();
    assert!(ratios[0] < ratios[1] && ratios[1] < ratios[2], "{ratios:?}");
}

#[test]
fn table_settings_are_checked() {
    let too_small = ConfigBuilder::from_preset("small").unwrap().set_all(["ftl.mapping=cmt", "ftl.cmt_size_kib=2"]).unwrap().build();
    let e = too_small.map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("ftl.cmt_size_kib") && e.contains("4..="), "{e}");
    let bad = ConfigBuilder::from_preset("small").unwrap().set_all(["ftl.mapping=dftl"]).and_then(|b| b.build());
    assert!(bad.is_err());
}

#[test]
fn buffer_flushes_look_up_the_table() {
    let mut kv: Vec<&str> = TINY.to_vec();
    kv.extend(["ftl.precondition.valid=0.5", "write_buffer.pages=64", "host.write_ack=buffer", "ftl.mapping=cmt", "ftl.cmt_size_kib=8"]);
    let cfg = ConfigBuilder::from_preset("small").unwrap().set_all(kv.iter().copied()).unwrap().build().unwrap();
    let r = run(cfg, &poisson(4_000, 20_000.0, 0.5, 5_000, 12));
    let m = stats(&r);
    assert_eq!(r.summary.verify_errors, 0, "{:?}", r.verify_failures);
    assert!(m.translation_reads > 0 && m.translation_writes > 0, "{m:?}");
    assert!(r.summary.write_buffer.as_ref().is_some_and(|b| b.flushes > 0));
}
