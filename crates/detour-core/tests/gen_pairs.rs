//! Patterned read pairs (msr-patterned) and the random-read baseline
//! (msr-random, the read-collision paper's RR8).

use std::collections::HashMap;

use detour_core::workload::generator::{Arrival, Generator, SyntheticSpec};
use detour_core::workload::profiles::{apply_overrides, profile};
use detour_core::workload::Request;
use detour_core::IoKind;

const DIES: u64 = 16;

fn cut(name: &str, n: u64) -> SyntheticSpec {
    apply_overrides(&profile(name).unwrap(), &[("requests", &n.to_string())]).unwrap()
}

#[test]
fn patterned_pairs_share_a_die_and_are_read_within_the_gap() {
    let spec = cut("msr-patterned", 200_000);
    let p = spec.pairs.clone().unwrap();
    let page = p.page_bytes.unwrap();
    let gap_ns = (p.gap_us * 1e3) as u64;
    let g = Generator::new(&spec).unwrap();
    let pairs = g.pairs().to_vec();
    assert_eq!(pairs.len(), p.count as usize);
    for &(a, b) in &pairs {
        assert!(a != b && (b - a) % (p.stride as u64 * page) == 0);
        assert_eq!((a / page) % DIES, (b / page) % DIES, "static lpn % 16 puts both on one die");
    }
    let reqs: Vec<Request> = g.collect();
    let first_of: HashMap<u64, usize> = pairs.iter().enumerate().map(|(i, p)| (p.0, i)).collect();
    let second_of: HashMap<u64, usize> = pairs.iter().enumerate().map(|(i, p)| (p.1, i)).collect();
    let mut per_pair = vec![0u64; pairs.len()];
    let (mut seconds, mut lone) = (0u64, 0u64);
    for (i, r) in reqs.iter().enumerate().filter(|(_, r)| r.kind == IoKind::Read && r.size as u64 == page) {
        if let Some(&k) = second_of.get(&r.offset) {
            seconds += 1;
            per_pair[k] += 1;
            let mut back = reqs[..i].iter().rev().take_while(|q| r.time_ns - q.time_ns <= gap_ns);
            lone += !back.any(|q| q.kind == IoKind::Read && q.offset == pairs[k].0) as u64;
        }
    }
    let reads = reqs.iter().filter(|r| r.kind == IoKind::Read).count() as f64;
    let firsts = reqs.iter().filter(|r| r.kind == IoKind::Read && first_of.contains_key(&r.offset)).count();
    let share = (firsts as u64 + seconds) as f64 / reads;
    per_pair.sort_unstable_by(|a, b| b.cmp(a));
    let top5 = per_pair.iter().take(pairs.len() / 20).sum::<u64>() as f64 / seconds as f64;
    println!("msr-patterned: pair reads {:.1}% of reads, top 5% of pairs {:.1}% of pair reads", 100.0 * share, 100.0 * top5);
    // Ordinary reads (e.g. a sequential run) may land on a pair page by chance.
    assert!(lone * 1000 <= seconds, "{lone} of {seconds} second halves without their first within {gap_ns} ns");
    assert!((share - p.read_share).abs() < 0.02, "pair read share {share}");
    assert!((top5 - 0.80).abs() < 0.04, "top 5% of pairs: {top5}");
}

#[test]
fn pair_pages_are_never_written_together() {
    let spec = cut("msr-patterned", 200_000);
    let g = Generator::new(&spec).unwrap();
    let partner: HashMap<u64, u64> = g.pairs().iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
    let reqs: Vec<Request> = g.collect();
    let writes: Vec<&Request> = reqs.iter().filter(|r| r.kind == IoKind::Write).collect();
    for (i, w) in writes.iter().enumerate() {
        if let Some(&other) = partner.get(&w.offset) {
            let close = writes[i + 1..].iter().take_while(|q| q.time_ns - w.time_ns < 1_000_000);
            assert!(close.clone().all(|q| q.offset != other), "pair written together at line {}", w.line);
        }
    }
}

#[test]
fn pairs_keep_read_ratio_and_rate() {
    let spec = cut("msr-patterned", 200_000);
    let reqs: Vec<Request> = Generator::new(&spec).unwrap().collect();
    let reads = reqs.iter().filter(|r| r.kind == IoKind::Read).count() as f64 / reqs.len() as f64;
    let Arrival::Poisson { rate_per_s } = spec.arrival else { panic!() };
    let rate = (reqs.len() - 1) as f64 / (reqs.last().unwrap().time_ns as f64 / 1e9);
    assert!((reads - spec.read_ratio).abs() < 0.01, "read ratio {reads}");
    assert!((rate / rate_per_s - 1.0).abs() < 0.02, "rate {rate}");
}

#[test]
fn random_reads_spread_evenly_over_dies() {
    let spec = cut("msr-random", 200_000);
    assert!(spec.pairs.is_none());
    let mut per_die = [0u64; DIES as usize];
    for r in Generator::new(&spec).unwrap() {
        assert_eq!((r.kind, r.size), (IoKind::Read, 4096));
        per_die[((r.offset / 16384) % DIES) as usize] += 1;
    }
    let mean = per_die.iter().sum::<u64>() as f64 / DIES as f64;
    let sd = (per_die.iter().map(|&c| (c as f64 - mean).powi(2)).sum::<f64>() / DIES as f64).sqrt();
    // The paper's Table 3 reports 0.016..0.168 for MSR traces; random is ~0.
    assert!(sd / mean < 0.01, "relative std of reads per die {}", sd / mean);
}
