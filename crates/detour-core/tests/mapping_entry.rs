//! MQSim's cached mapping table of single entries (`ftl.mapping = "cmt"`,
//! `ftl.cmt_granularity = "entry"`; ftl/mapping/entry.rs), by hand on the
//! small preset: 4 x 2 x 2 x 2 planes of 256 blocks of 64 pages of 4 KiB =
//! 2^19 physical pages, 8 sectors a page. MQSim's sizes
//! (`Address_Mapping_Unit_Page_Level`): a CMT entry is ceil((2 x 19 + 8) /
//! 8) = 6 bytes, a translation-page entry ceil((19 + 8) / 8) = 4 bytes, so
//! a translation page holds 4096 / 4 = 1024 entries and 1 KiB of table
//! holds 1024 / 6 = 170 entries.

mod common;
use common::*;
use detour_core::config::Config;
use detour_core::ftl::mapping::MappingStats;
use detour_core::sim::{run_requests, RunResult};
use detour_core::IoKind;

fn run(cfg: Config, reqs: &[detour_core::workload::Request]) -> RunResult {
    run_requests(cfg, reqs).unwrap()
}

fn stats(r: &RunResult) -> MappingStats {
    r.summary.mapping.clone().expect("a mapping section with ftl.mapping = cmt")
}

/// Every page valid; an entry table of `kib` KiB.
fn entries(kib: u32) -> Config {
    small(&["ftl.precondition.valid=1.0", "ftl.mapping=cmt", "ftl.cmt_granularity=entry", &format!("ftl.cmt_size_kib={kib}")])
}

/// Reads of single pages 1 ms apart (the dies idle between them).
fn reads(lpns: &[u64]) -> Vec<detour_core::workload::Request> {
    lpns.iter().enumerate().map(|(i, &l)| req(i as u64 * 1_000_000, l, 1, IoKind::Read)).collect()
}

#[test]
fn a_read_miss_costs_one_translation_read_then_the_data_read_and_caches_its_entry_only() {
    // LPNs 7 and 8 share translation page 0: entry by entry, the second
    // misses too (a page table would hit); 7 again hits.
    let reqs = reads(&[7, 8, 7, 3000]);
    let dram = run(small(&["ftl.precondition.valid=1.0"]), &reqs);
    let cmt = run(entries(1024), &reqs);
    let m = stats(&cmt);
    assert_eq!((m.cmt_pages, m.lookups, m.hits, m.translation_reads, m.translation_writes), (1024 * 1024 / 6, 4, 1, 3, 0));
    let (d, c) = (&dram.requests.latency_ns, &cmt.requests.latency_ns);
    // Idle dies: a translation read costs what a data read does.
    assert_eq!((c[0], c[1], c[2], c[3]), (2 * d[0], 2 * d[1], d[2], 2 * d[3]), "dram {d:?}, entries {c:?}");
    let page = run(small(&["ftl.precondition.valid=1.0", "ftl.mapping=cmt", "ftl.cmt_size_kib=1024"]), &reqs);
    assert_eq!((stats(&page).hits, stats(&page).translation_reads), (2, 2), "the page table caches 8 with 7");
}

#[test]
fn misses_on_one_translation_page_at_once_share_its_read() {
    // 1 and 2 (other channels, same translation page) at the same time:
    // MQSim reads the page once (`ArrivingMappingEntries`), and both wait
    // for that read, then read their data on idle dies.
    let both = [req(0, 1, 1, IoKind::Read), req(0, 2, 1, IoKind::Read)];
    let dram = run(small(&["ftl.precondition.valid=1.0"]), &both);
    let cmt = run(entries(1024), &both);
    assert_eq!((stats(&cmt).lookups, stats(&cmt).translation_reads), (2, 1));
    let (d, c) = (&dram.requests.latency_ns, &cmt.requests.latency_ns);
    assert_eq!(d[0], d[1]);
    assert_eq!((c[0], c[1]), (2 * d[0], 2 * d[1]), "dram {d:?}, entries {c:?}");
}

#[test]
fn one_kib_holds_170_entries_in_lru_order() {
    // 170 distinct entries, then the first again: still cached. One more
    // entry before it and it has been evicted (least recently used).
    let mut lpns: Vec<u64> = (0..170).map(|i| i * 2048).collect();
    lpns.push(0);
    let m = stats(&run(entries(1), &reads(&lpns)));
    assert_eq!((m.cmt_pages, m.hits, m.translation_reads), (170, 1, 170));
    lpns.insert(170, 171 * 2048);
    let m = stats(&run(entries(1), &reads(&lpns)));
    assert_eq!((m.hits, m.translation_reads), (0, 172));
}

#[test]
fn a_dirty_eviction_reads_and_rewrites_its_translation_page_once() {
    // Writes to LPNs 1 and 2 (translation page 0) dirty two entries; 170
    // reads elsewhere evict both. The first eviction reads page 0's old
    // copy, merges both dirty entries, and programs it anew
    // (generate_flash_writeback_request_for_mapping_data makes every dirty
    // entry of the page clean); the second finds 2 clean: nothing written.
    let mut reqs = vec![req(0, 1, 1, IoKind::Write), req(1_000_000, 2, 1, IoKind::Write)];
    reqs.extend((0..170u64).map(|i| req((i + 2) * 1_000_000, (i + 1) * 2048, 1, IoKind::Read)));
    let m = stats(&run(entries(1), &reqs));
    // Misses: 2 writes (page 0 read twice, 1 ms apart) + 170 reads; + 1
    // merge read before the write-back.
    assert_eq!((m.lookups, m.hits, m.translation_writes, m.translation_reads), (172, 0, 1, 173));
}

#[test]
fn a_read_that_places_a_page_never_written_dirties_its_entry() {
    // An empty device: reading LPN 1 places it (no write ever named it),
    // which changes its entry, so the 170 reads that evict it write its
    // translation page back (MQSim's online_create_entry_for_reads ends in
    // Update_mapping_info, which marks the entry dirty). The same reads on
    // a device whose pages are all written evict a clean entry.
    let mut reqs = vec![req(0, 1, 1, IoKind::Read)];
    reqs.extend((0..170u64).map(|i| req((i + 1) * 1_000_000, (i + 1) * 2048, 1, IoKind::Read)));
    let cmt = |valid: &str| small(&[valid, "ftl.mapping=cmt", "ftl.cmt_granularity=entry", "ftl.cmt_size_kib=1"]);
    let empty = stats(&run(cmt("ftl.precondition.valid=0.0"), &reqs));
    let full = stats(&run(cmt("ftl.precondition.valid=1.0"), &reqs));
    // Every read of the empty device places its page and dirties its entry:
    // LPN 1's is the one evicted, and its page is read to merge.
    assert_eq!((empty.translation_writes, empty.translation_reads), (1, 172), "{empty:?}");
    assert_eq!((full.translation_writes, full.translation_reads), (0, 171), "{full:?}");
}

#[test]
fn held_write_backs_read_the_old_copy_program_nothing_and_answer_later_misses() {
    // As a_dirty_eviction_reads_and_rewrites_its_translation_page_once,
    // then LPN 3 (translation page 0 again) is read. Programmed: page 0's
    // new copy is read for it. Held (MQSim: MappingWriteTRQueue is never
    // served, the page stays in DepartingMappingEntries): the merge read
    // runs, no program, and LPN 3's miss reads nothing, costing what a
    // read with the whole map in DRAM does.
    let mut reqs = vec![req(0, 1, 1, IoKind::Write), req(1_000_000, 2, 1, IoKind::Write)];
    reqs.extend((0..170u64).map(|i| req((i + 2) * 1_000_000, (i + 1) * 2048, 1, IoKind::Read)));
    reqs.push(req(200_000_000, 3, 1, IoKind::Read));
    let program = run(entries(1), &reqs);
    let held = run(
        small(&[
            "ftl.precondition.valid=1.0",
            "ftl.mapping=cmt",
            "ftl.cmt_granularity=entry",
            "ftl.cmt_size_kib=1",
            "ftl.cmt_write_back=hold",
        ]),
        &reqs,
    );
    let (p, h) = (stats(&program), stats(&held));
    assert_eq!((p.translation_writes, p.translation_writes_held, p.translation_reads), (1, 0, 174), "{p:?}");
    assert_eq!((h.translation_writes, h.translation_writes_held, h.translation_reads), (0, 1, 173), "{h:?}");
    let programs = |r: &RunResult| r.summary.dies.programs.iter().sum::<u64>();
    assert_eq!(programs(&program), programs(&held) + 1, "the held run never programs page 0");
    let dram = run(small(&["ftl.precondition.valid=1.0"]), &reqs);
    let last = reqs.len() - 1;
    assert_eq!(held.requests.latency_ns[last], dram.requests.latency_ns[last]);
    assert_eq!(program.requests.latency_ns[last], 2 * dram.requests.latency_ns[last]);
}
