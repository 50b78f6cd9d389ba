//! HotR page classes: read-only pages are never written, write-only pages
//! never read, and the >90% classification finds the mixed pages.

use detour_core::workload::generator::{page_class_stats, Generator, PageClass, SyntheticSpec};
use detour_core::workload::profiles::{apply_overrides, profile};
use detour_core::workload::Request;
use detour_core::IoKind;

fn cut(name: &str, n: u64) -> SyntheticSpec {
    apply_overrides(&profile(name).unwrap(), &[("requests", &n.to_string())]).unwrap()
}

#[test]
fn hotr_profiles_keep_their_page_classes() {
    for name in ["fin2", "hm", "hpc46", "hpc28"] {
        let spec = cut(name, 200_000);
        let g = Generator::new(&spec).unwrap();
        let mut mixed_pages = std::collections::HashMap::<u64, (u32, u32)>::new();
        let reqs: Vec<Request> = Generator::new(&spec).unwrap().collect();
        for r in &reqs {
            for p in 0..(r.size as u64).div_ceil(4096) {
                let page = r.offset / 4096 + p;
                match (g.page_class(page * 4096).unwrap(), r.kind) {
                    (PageClass::ReadOnly, IoKind::Write) => {
                        panic!("{name}: write to read-only page {r:?}")
                    }
                    (PageClass::WriteOnly, IoKind::Read) => {
                        panic!("{name}: read of write-only page {r:?}")
                    }
                    (PageClass::Mixed, k) => {
                        let c = mixed_pages.entry(page).or_default();
                        if k == IoKind::Read {
                            c.0 += 1
                        } else {
                            c.1 += 1
                        }
                    }
                    _ => {}
                }
            }
        }
        let all = page_class_stats(reqs.iter().copied(), 4096, 1);
        let busy = page_class_stats(reqs.iter().copied(), 4096, 10);
        // Of the mixed-class pages accessed >= 10 times, how many classify as mixed.
        // Only counted: the map's order cannot reach the result.
        #[allow(clippy::disallowed_methods)]
        let hot_mixed: Vec<_> = mixed_pages.values().filter(|c| c.0 + c.1 >= 10).collect();
        let caught =
            hot_mixed.iter().filter(|c| (c.0 as f64) <= 0.9 * (c.0 + c.1) as f64 && (c.1 as f64) <= 0.9 * (c.0 + c.1) as f64).count();
        let caught = caught as f64 / hot_mixed.len() as f64;
        println!(
            "{name:6} mixed share: all pages {:.1}%, pages with >= 10 accesses {:.1}%; mixed-class busy pages classified mixed {:.1}%",
            100.0 * all.mixed_share(),
            100.0 * busy.mixed_share(),
            100.0 * caught
        );
        assert!(all.read_intensive > 0 && all.write_intensive > 0 && all.mixed > 0, "{name}: {all:?}");
        assert!(caught > 0.7, "{name}: only {caught} of busy mixed-class pages look mixed");
        assert!(busy.mixed_share() < 0.25, "{name}: {busy:?}");
        // HotR Fig. 1c: 9.6% mixed on average (full-length runs give 8.2..9.6%;
        // 200k requests touch pages a little less often).
        assert!((all.mixed_share() - 0.096).abs() < 0.04, "{name}: {all:?}");
    }
}
