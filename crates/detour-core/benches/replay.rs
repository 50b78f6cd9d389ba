//! Criterion benchmarks of the simulator's hot path: replaying a synthetic
//! bench-like workload (70% reads, Poisson arrivals, 4-64 KiB, Zipf 0.9) on
//! the bench-matched device, fresh and preconditioned to 50% full with GC
//! active. For the standard figures against the peers use `make bench-core`
//! (see docs/benchmarks.md). `cargo bench` cannot give the bench target the
//! final-crate arguments that build uses, so its times are for comparing
//! commits with each other, not with those figures.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use detour_core::config::ConfigBuilder;
use detour_core::sim;
use detour_core::workload::generator::Generator;
use detour_core::workload::profiles::profile;
use detour_core::Request;

fn workload(n: u64) -> Vec<Request> {
    let mut spec = profile("bench-like").expect("bench-like profile");
    spec.requests = n;
    Generator::new(&spec).expect("valid spec").collect()
}

fn replay(c: &mut Criterion) {
    let n = 100_000;
    let reqs = workload(n);
    let mut g = c.benchmark_group("replay");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n));
    for (name, sets) in
        [("fresh", vec![]), ("preconditioned-50", vec!["ftl.precondition.valid=0.5", "ftl.precondition.to_gc_threshold=true"])]
    {
        let cfg = ConfigBuilder::from_preset("bench-matched").unwrap().set_all(sets).unwrap().build().unwrap();
        g.bench_with_input(BenchmarkId::new("bench-matched", name), &reqs, |b, reqs| {
            b.iter(|| sim::run_requests(cfg.clone(), reqs).expect("run"))
        });
    }
    g.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
