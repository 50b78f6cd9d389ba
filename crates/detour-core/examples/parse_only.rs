//! This example demonstrates streaming a trace without simulating it, to
//! time the reader alone: `cargo run --release --example parse_only -- TRACE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: parse_only TRACE");
    let t = std::time::Instant::now();
    let s = detour_core::workload::open_trace(std::path::Path::new(&path), &Default::default()).expect("open");
    let mut n = 0u64;
    for r in s {
        r.expect("parse");
        n += 1;
    }
    println!("{n} requests in {:.3} s", t.elapsed().as_secs_f64());
}
