//! The deduplicating schemes (docs/schemes/rr-ssd.md): CA-SSD saves writes
//! of duplicate content and keeps shared pages alive through GC; RR-SSD
//! replicates popular values at each period's end within its budget and
//! routes reads to the least-loaded copy; Oracle bounds it; the other
//! placements and PBLRU run clean; runs are deterministic.

mod common;
use common::*;
use detour_core::metrics::Summary;
use detour_core::workload::Request;
use detour_core::{sim, IoKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn counter(s: &Summary, key: &str) -> f64 {
    s.scheme_counters.get(key).copied().unwrap_or_else(|| panic!("no counter {key}: {:?}", s.scheme_counters))
}

fn with_content(mut r: Request, content: u64, line: u64) -> Request {
    r.content = content;
    r.line = line;
    r
}

/// `lpns` single-page writes 20 µs apart, page i holding value 1 + i % `values`.
fn fill(lpns: u64, values: u64) -> Vec<Request> {
    (0..lpns).map(|i| with_content(req(i * 20_000, i, 1, IoKind::Write), 1 + i % values, i + 1)).collect()
}

/// After `fill(lpns, values)`: `n` reads from `start_ns`, `gap_ns` apart,
/// of skewed values (value k with k = values * u^4), each through a random
/// one of the LPNs holding it.
fn skewed_reads(n: u64, start_ns: u64, gap_ns: u64, lpns: u64, values: u64, seed: u64) -> Vec<Request> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let copies = lpns / values;
    (0..n)
        .map(|i| {
            let k = (values as f64 * rng.random::<f64>().powi(4)) as u64;
            let lpn = k + values * rng.random_range(0..copies);
            with_content(req(start_ns + i * gap_ns, lpn, 1, IoKind::Read), 0, lpns + i + 1)
        })
        .collect()
}

fn run(scheme: &str, extra: &[&str], reqs: &[Request]) -> Summary {
    let name = format!("scheme.name={scheme}");
    let mut o = vec!["run.verify=true", name.as_str()];
    o.extend_from_slice(extra);
    let r = sim::run_requests(small(&o), reqs).unwrap_or_else(|e| panic!("{scheme} {extra:?}: {e}"));
    assert_eq!(r.summary.verify_errors, 0, "{scheme} {extra:?}: {:?}", r.verify_failures);
    assert_eq!(r.summary.requests, reqs.len() as u64);
    r.summary
}

#[test]
fn duplicate_content_costs_no_flash_write() {
    let mut reqs = fill(4000, 400);
    reqs.extend(skewed_reads(2000, 100_000_000, 50_000, 4000, 400, 1));
    let s = run("ca-ssd", &[], &reqs);
    assert_eq!(counter(&s, "dedup.pages_written_flash"), 400.0);
    assert_eq!(counter(&s, "dedup.write_hits"), 3600.0);
    assert_eq!(counter(&s, "dedup.ratio"), 10.0);
    assert_eq!(counter(&s, "dedup.space_saved_pages"), 3600.0);
    assert!((counter(&s, "dedup.space_saved_share") - 0.9).abs() < 1e-9);
    let c = run("conventional", &[], &reqs);
    let (sp, cp): (u64, u64) = (s.dies.programs.iter().sum(), c.dies.programs.iter().sum());
    assert!(sp * 5 < cp, "{sp} vs {cp}");
    // Hashing sits on every write's path.
    assert!(s.latency_us.write.min >= 12.0, "{}", s.latency_us.write.min);
}

#[test]
fn without_deduplication_every_write_is_programmed_and_oracle_is_ideal_all_chip() {
    let mut reqs = fill(4000, 400);
    reqs.extend(skewed_reads(2000, 100_000_000, 50_000, 4000, 400, 1));
    let off = ["scheme.dedup.deduplicate=false", "scheme.dedup.hash_us=0"];
    let s = run("ca-ssd", &off, &reqs);
    assert_eq!((counter(&s, "dedup.pages_written_flash"), counter(&s, "dedup.write_hits")), (4000.0, 0.0));
    // Overwrites of shared content: each LPN its own page, freed alone.
    let mut again = reqs.clone();
    again.extend(fill(2000, 400).into_iter().map(|r| with_content(Request { time_ns: r.time_ns + 300_000_000, ..r }, 7, r.line + 6000)));
    let s = run("ca-ssd", &off, &again);
    assert_eq!(counter(&s, "dedup.pages_written_flash"), 6000.0);
    // Oracle without deduplication: every page on every chip, reads to the
    // least-loaded one; the writes cost what the conventional SSD's do.
    let ideal = run("oracle", &off, &reqs);
    let conv = run("conventional", &[], &reqs);
    assert_eq!(ideal.gc.programs_host, conv.gc.programs_host);
    assert!(ideal.latency_us.read.mean < conv.latency_us.read.mean, "{} vs {}", ideal.latency_us.read.mean, conv.latency_us.read.mean);
    // Content is not needed without deduplication.
    let bare: Vec<Request> = reqs.iter().map(|r| Request { content: 0, ..*r }).collect();
    assert_eq!(run("oracle", &off, &bare).gc.programs_host, conv.gc.programs_host);
}

/// Heavy overwrites with few values on a small device: GC must move shared
/// pages once and keep them while any LPN points at them.
#[test]
fn gc_keeps_shared_pages_until_no_lpn_points_at_them() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let lpns = 5000u64;
    let mut t = 0;
    let reqs: Vec<Request> = (0..40_000u64)
        .map(|i| {
            t += rng.random_range(0..40_000);
            let lpn = rng.random_range(0..lpns);
            // A third of the writes repeat one of 64 values; the rest are new.
            let (kind, content) = match rng.random_range(0..6) {
                0 | 1 => (IoKind::Read, 0),
                2 => (IoKind::Write, 1 + rng.random_range(0..64)),
                _ => (IoKind::Write, 1000 + i),
            };
            with_content(req(t, lpn, 1, kind), content, i + 1)
        })
        .collect();
    for variant in [&[][..], &["ftl.allocation=dynamic"], &["scheduler.suspension=true"]] {
        let mut o = TINY.to_vec();
        o.extend_from_slice(variant);
        let s = run("ca-ssd", &o, &reqs);
        assert!(s.gc.runs > 0 && s.gc.moves > 0, "{variant:?}: the workload must drive GC");
        assert!(counter(&s, "dedup.write_hits") > 1000.0);
        let s = run("rr-ssd", &[&o[..], &["scheme.dedup.period_s=0.1", "scheme.dedup.replication_io=simulated"]].concat(), &reqs);
        assert!(s.gc.runs > 0, "{variant:?}");
    }
}

const TINY: [&str; 7] = [
    "device.channels=2",
    "device.chips_per_channel=2",
    "device.dies_per_chip=1",
    "device.planes_per_die=2",
    "device.blocks_per_plane=32",
    "device.pages_per_block=32",
    "device.overprovisioning=0.2",
];

fn skewed_workload() -> Vec<Request> {
    let mut reqs = fill(8000, 800);
    reqs.extend(skewed_reads(60_000, 200_000_000, 12_000, 8000, 800, 5));
    reqs
}

const PERIOD: &str = "scheme.dedup.period_s=0.2";

#[test]
fn rr_ssd_replicates_popular_values_and_beats_ca_ssd_on_skewed_reads() {
    let reqs = skewed_workload();
    let ca = run("ca-ssd", &[PERIOD], &reqs);
    let rr = run("rr-ssd", &[PERIOD], &reqs);
    let oracle = run("oracle", &[PERIOD], &reqs);
    let (c, r, o) = (ca.latency_us.read.mean, rr.latency_us.read.mean, oracle.latency_us.read.mean);
    println!("read mean us: ca-ssd {c:.1} rr-ssd {r:.1} oracle {o:.1}");
    println!("rr-ssd counters {:?}", rr.scheme_counters);
    for p in &rr.periods {
        println!("  {p:?}");
    }
    assert!(counter(&rr, "rrssd.copies_made") > 0.0);
    assert!(counter(&rr, "dedup.replica_reads") > 0.0, "reads must use the replicas");
    assert!(r < c * 0.9, "rr-ssd {r} vs ca-ssd {c}");
    assert!(o <= r, "oracle {o} vs rr-ssd {r}");
    // The first period has no replicas yet: CA-SSD and RR-SSD read alike.
    assert_eq!(rr.periods[0]["replica_read_share"], 0.0);
    assert!(rr.periods[2]["rep_share"] > 0.5, "{:?}", rr.periods[2]);
}

#[test]
fn replicas_stay_within_the_budget() {
    let reqs = skewed_workload();
    for alpha in ["0", "5"] {
        let a = format!("scheme.dedup.alpha_pct={alpha}");
        // A small saving (1 in 8 LPNs duplicated) makes the budget bind.
        let mut reqs2 = fill(8000, 7000);
        reqs2.extend(skewed_reads(20_000, 200_000_000, 12_000, 7000, 7000, 9));
        for w in [&reqs, &reqs2] {
            let s = run("rr-ssd", &[PERIOD, &a], w);
            for p in &s.periods {
                assert!(p["replicas"] <= p["budget_pages"], "{alpha}: {p:?}");
            }
            let saved = counter(&s, "dedup.space_saved_pages");
            let alpha_pages = alpha.parse::<f64>().unwrap() / 100.0 * counter(&s, "dedup.mapped_lpns");
            assert!(counter(&s, "dedup.replicas") <= saved + alpha_pages.floor(), "{alpha}");
        }
    }
}

/// `scheme.dedup.drop_every` (paper Sec. III-B: dropping copies no longer
/// popular "can be done with less frequency than the replication"): with
/// no drop period in the run no copy is dropped, kept copies count against
/// the budget, and no value is copied twice, so fewer copies are made than
/// with a drop every period, where the skewed reads' changing tail drops
/// and remakes copies.
#[test]
fn drop_every_keeps_copies_between_drops_within_the_budget() {
    let mut reqs = fill(8000, 7000);
    reqs.extend(skewed_reads(20_000, 200_000_000, 12_000, 7000, 7000, 9));
    let daily = run("rr-ssd", &[PERIOD], &reqs);
    let never = run("rr-ssd", &[PERIOD, "scheme.dedup.drop_every=1000"], &reqs);
    assert!(counter(&daily, "rrssd.copies_dropped") > 0.0, "{:?}", daily.scheme_counters);
    assert_eq!(counter(&never, "rrssd.copies_dropped"), 0.0);
    assert!(counter(&never, "rrssd.copies_made") < counter(&daily, "rrssd.copies_made"));
    for p in &never.periods {
        assert!(p["replicas"] <= p["budget_pages"], "{p:?}");
    }
    // Without drops the replicas only grow: each period ends with at least
    // the last one's.
    for w in never.periods.windows(2) {
        assert!(w[1]["replicas"] >= w[0]["replicas"], "{:?}", never.periods);
    }
}

#[test]
fn placements_pblru_and_simulated_copies_run_clean_and_deterministic() {
    let reqs = skewed_workload();
    let cases: [(&str, &[&str]); 6] = [
        ("rr-ssd", &["scheme.dedup.placement=random"]),
        ("rr-ssd", &["scheme.dedup.placement=static"]),
        ("rr-ssd", &["scheme.dedup.placement=online"]),
        ("rr-ssd", &["scheme.dedup.replication_io=simulated"]),
        ("pblru", &[]),
        ("rr-ssd", &[]),
    ];
    let ca = run("ca-ssd", &[PERIOD], &reqs).latency_us.read.mean;
    for (scheme, extra) in cases {
        let o = [&[PERIOD][..], extra].concat();
        let a = run(scheme, &o, &reqs);
        let b = run(scheme, &o, &reqs);
        assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap(), "{scheme} {extra:?}");
        let made = if scheme == "pblru" { "pblru.copies_made" } else { "rrssd.copies_made" };
        assert!(counter(&a, made) > 0.0, "{scheme} {extra:?}");
        println!("{scheme} {extra:?}: read mean {:.1} us (ca-ssd {ca:.1}) {:?}", a.latency_us.read.mean, a.scheme_counters);
    }
}

#[test]
fn bad_rrssd_keys_name_themselves() {
    let err = detour_core::config::ConfigBuilder::from_preset("small")
        .unwrap()
        .set_all(["scheme.dedup.placement=best"])
        .unwrap()
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("scheme.dedup.placement"), "{err}");
    let err = detour_core::config::ConfigBuilder::from_preset("small").unwrap().set_all(["scheme.dedup.nope=1"]).map(|b| b.build());
    assert!(format!("{err:?}").contains("nope"), "{err:?}");
}

/// The paper's comparison on the synthetic FIU profiles (rr-6/7/9/10/12),
/// on the rr-ssd device with a 60 s "day". Slow: run with
/// `cargo test -p detour-core --test rrssd profiles -- --ignored --nocapture`
/// (PROFILES=mail,homes to choose; REQUESTS=n to cut each run short;
/// SCALE=x compresses arrival times by x, and the 60 s day with them, to
/// load the 256-die device: the profiles' 2,000 req/s barely queue on it;
/// DAYS=k makes the replication period k days: rr-5's weekly replication;
/// ALPHA=a sets scheme.dedup.alpha_pct (rr-8); ONLY=rr-ssd,oracle keeps
/// those schemes (CA-SSD always runs, as the baseline); IO=simulated makes
/// the end-of-period copies background I/O instead of the mirror SSD's).
#[test]
#[ignore]
fn profiles_compare_schemes() {
    use detour_core::config::ConfigBuilder;
    use detour_core::workload::generator::Generator;
    use detour_core::workload::profiles::{apply_overrides, profile};
    let names = std::env::var("PROFILES").unwrap_or_else(|_| "webvm,homes,mail".into());
    let schemes: [(&str, &[&str]); 8] = [
        ("conventional", &[]),
        ("ca-ssd", &[]),
        ("rr-ssd", &[]),
        ("oracle", &[]),
        ("rr-ssd", &["scheme.dedup.placement=random"]),
        ("rr-ssd", &["scheme.dedup.placement=static"]),
        ("rr-ssd", &["scheme.dedup.placement=online"]),
        ("pblru", &[]),
    ];
    for name in names.split(',') {
        let mut spec = profile(name).unwrap();
        if let Ok(n) = std::env::var("REQUESTS") {
            spec = apply_overrides(&spec, &[("requests", n.as_str())]).unwrap();
        }
        let reqs: Vec<Request> = Generator::new(&spec).unwrap().collect();
        let pop = detour_core::workload::popularity(reqs.iter().copied(), 60.0, 10);
        println!(
            "{name}: {} read pages, {} write pages, {} values; top values serving 80% of reads: {:.1}%",
            pop.read_pages,
            pop.write_pages,
            pop.distinct_values,
            100.0 * pop.top80_read_values
        );
        for d in &pop.days {
            println!(
                "    day {} new values {} read-yesterday {:.3} yesterday-top80 {:.3} new-read {:.3}",
                d.day, d.new_values, d.read_yesterday, d.yesterday_top80, d.new_read_share
            );
        }
        let scale: f64 = std::env::var("SCALE").map_or(1.0, |s| s.parse().unwrap());
        let days: f64 = std::env::var("DAYS").map_or(1.0, |s| s.parse().unwrap());
        let (ts, period) = (format!("host.time_scale={scale}"), format!("scheme.dedup.period_s={}", 60.0 * scale * days));
        let alpha = format!("scheme.dedup.alpha_pct={}", std::env::var("ALPHA").unwrap_or_else(|_| "0".into()));
        let only = std::env::var("ONLY").unwrap_or_default();
        let io = format!("scheme.dedup.replication_io={}", std::env::var("IO").unwrap_or_else(|_| "mirror".into()));
        let (mut base, mut conv) = ((0.0, 0.0), (0.0, 0.0));
        for (scheme, extra) in schemes {
            if !["ca-ssd", "conventional"].contains(&scheme) && !only.is_empty() && !only.split(',').any(|o| o == scheme) {
                continue;
            }
            let sname = format!("scheme.name={scheme}");
            let mut o = vec!["run.verify=true", ts.as_str(), period.as_str(), alpha.as_str(), io.as_str(), sname.as_str()];
            o.extend_from_slice(extra);
            let cfg = ConfigBuilder::from_preset("rr-ssd").unwrap().set_all(o.iter().copied()).unwrap().build().unwrap();
            let r = sim::run_requests(cfg, &reqs).unwrap();
            let s = &r.summary;
            let (rd, all) = (s.latency_us.read.mean, s.latency_us.all.mean);
            if scheme == "ca-ssd" {
                base = (rd, all);
            }
            if scheme == "conventional" {
                conv = (rd, all);
                println!(
                    "{name:8} conventional read {rd:8.1} us all {all:8.1} us write {:8.1} us p99 {:9.1} verify_err {}",
                    s.latency_us.write.mean, s.latency_us.all.p99, s.verify_errors
                );
                continue;
            }
            let imp = |b: f64, x: f64| 100.0 * (b - x) / b;
            let c = &s.scheme_counters;
            let g = |k: &str| c.get(k).copied().unwrap_or(0.0);
            println!(
                "{name:8} {scheme:7} {:28} read {rd:8.1} us ({:6.2}%) all {all:8.1} us ({:6.2}%) p99 {:9.1} verify_err {} dedup {:.2} saved {:.3} copies {} rep_ratio {:.4} repl_min {:.3} replica_reads {}",
                extra.join(" "),
                imp(base.0, rd),
                imp(base.1, all),
                s.latency_us.all.p99,
                s.verify_errors,
                g("dedup.ratio"),
                g("dedup.space_saved_share"),
                g("rrssd.copies_made") + g("pblru.copies_made"),
                g("rrssd.replication_write_ratio") + g("pblru.replication_write_ratio"),
                g("rrssd.replication_minutes"),
                g("dedup.replica_reads"),
            );
            println!(
                "    vs conventional (rr-3, Table III): read {:6.2}% all {:6.2}%; write {:8.1} us",
                imp(conv.0, rd),
                imp(conv.1, all),
                s.latency_us.write.mean
            );
            let b = &s.breakdown_us.read;
            println!(
                "    read breakdown us: queue {:.1} bus {:.1} array {:.1} delay {:.1}; gc runs {}",
                b.queue, b.bus, b.array, b.delay, s.gc.runs
            );
            if scheme == "rr-ssd" && extra.is_empty() {
                for p in &s.periods {
                    println!(
                        "    day {} reads {} Rep {:.3} New {:.3} replica-read {:.3} copies +{} -{} budget {} read {:.1} us",
                        p["period"],
                        p["reads"],
                        p["rep_share"],
                        p["new_share"],
                        p["replica_read_share"],
                        p["copies_made"],
                        p["copies_dropped"],
                        p["budget_pages"],
                        p["read_mean_us"]
                    );
                }
            }
        }
    }
}

/// rr-4 on the profiles: webvm keeps its popular read values from day to
/// day, homes does not; the top-80% share sits at the floor Table III's
/// unique-read share allows (docs/workloads.md).
#[test]
fn popularity_analysis_tells_webvm_from_homes() {
    use detour_core::workload::generator::Generator;
    use detour_core::workload::profiles::{apply_overrides, profile};
    let two_days = |name: &str| {
        let spec = apply_overrides(&profile(name).unwrap(), &[("requests", "240000")]).unwrap();
        detour_core::workload::popularity(Generator::new(&spec).unwrap(), 60.0, 10)
    };
    let (w, h) = (two_days("webvm"), two_days("homes"));
    assert!(w.days.len() >= 2 && h.days.len() >= 2);
    assert!((0.35..0.45).contains(&w.top80_read_values), "{}", w.top80_read_values);
    assert!((0.7..0.8).contains(&h.top80_read_values), "{}", h.top80_read_values);
    assert!(w.days[1].read_yesterday > 0.5 && h.days[1].read_yesterday < 0.3, "{:?} {:?}", w.days[1], h.days[1]);
    assert!(w.days[1].new_read_share < h.days[1].new_read_share);
    assert!(w.days.iter().all(|d| d.new_values > 0));
    assert_eq!(w.cdf.len(), 10);
}

/// A trace without content hashes (MSR and every format but FIU) means
/// nothing to a deduplicating scheme: it is refused at its first write,
/// naming the line and the key, unless synthetic content is asked for.
#[test]
fn dedup_without_content_is_refused_unless_synthetic_content_is_asked_for() {
    let reqs: Vec<Request> =
        (0..50).map(|i| with_content(req(i * 20_000, i, 1, if i == 0 { IoKind::Read } else { IoKind::Write }), 0, i + 1)).collect();
    let setups: [&[&str]; 5] = [
        &["scheme.name=ca-ssd"],
        &["scheme.name=rr-ssd"],
        &["scheme.name=oracle"],
        &["scheme.name=pblru"],
        &["scheme.name=collisions", "scheme.collisions.base=ca-ssd"],
    ];
    for o in setups {
        let err = sim::run_requests(small(o), &reqs).unwrap_err().to_string();
        assert!(
            err.starts_with("<workload>:2:") && err.contains("scheme.dedup.synthetic_content") && err.contains("deduplicates"),
            "{o:?}: {err}"
        );
        let ok = [o, &["scheme.dedup.synthetic_content=true"][..]].concat();
        let s = sim::run_requests(small(&ok), &reqs).unwrap_or_else(|e| panic!("{ok:?}: {e}")).summary;
        assert_eq!((s.requests, counter(&s, "dedup.write_hits")), (50, 0.0), "{ok:?}");
    }
    // Other schemes do not care.
    assert!(sim::run_requests(small(&["scheme.name=conventional"]), &reqs).is_ok());
}

/// A request so far into the trace that the dedup schemes would keep more
/// than 100,000 period rows (a ten-day gap under a 50 ms period: the run
/// fuzz test's case filled 22 GB) is refused, naming the period key.
#[test]
fn a_request_beyond_the_most_periods_is_refused_naming_the_period() {
    let mut reqs = fill(20, 5);
    reqs.push(with_content(req(10 * 86_400 * 1_000_000_000, 0, 1, IoKind::Write), 1, 21));
    let err = sim::run_requests(small(&["scheme.name=oracle", "scheme.dedup.period_s=0.05"]), &reqs).unwrap_err().to_string();
    assert!(err.starts_with("<workload>:21:") && err.contains("scheme.dedup.period_s"), "{err}");
    let err = sim::run_requests(small(&["scheme.name=rr-ssd", "scheme.tick_us=1000"]), &reqs).unwrap_err().to_string();
    assert!(err.contains("scheme.tick_us"), "{err}");
    // A day-long period holds the same trace.
    assert_eq!(run("oracle", &[], &reqs).requests, 21);
}
