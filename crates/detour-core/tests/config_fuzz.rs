//! Random configurations, geometries and workloads, in verify mode: every
//! run either completes every request with the latest data or ends in an
//! error that says why. A panic, a lost request or a wrong read fails.
//!
//! Every registered scheme (`schemes::SCHEMES`) is drawn. The geometries are small and
//! odd on purpose (counts that are not powers of two, one-page blocks, no
//! over-provisioning, a GC threshold of 0), and the workloads may address
//! past the device or go back in time, so the checks that refuse such input
//! are exercised as well.

use detour_core::config::ConfigBuilder;
use detour_core::schemes::SCHEMES;
use detour_core::sim;
use detour_core::workload::Request;
use detour_core::Error;
use detour_core::IoKind;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Case {
    keys: Vec<String>,
    requests: Vec<Request>,
}

fn pick<T: Clone + std::fmt::Debug + 'static>(v: &'static [T]) -> impl Strategy<Value = T> {
    proptest::sample::select(v)
}

fn keys() -> impl Strategy<Value = Vec<String>> {
    let device =
        (1u32..=5, 1u32..=3, 1u32..=3, 1u32..=4, 4u32..=24, 1u32..=12, pick(&[512u32, 2048, 4096, 16384]), pick(&[0.0, 0.07, 0.25, 0.6]));
    let sched = (any::<bool>(), any::<bool>(), any::<bool>(), 0u32..=3, pick(&[0.0, 5.0, 50.0]));
    let ftl = (
        pick(&["static", "dynamic"]),
        pick(&["CWDP", "PDWC", "WCDP", "DPCW"]),
        pick(&[0.0, 0.05, 0.2]),
        pick(&[0.0, 0.0, 0.3, 0.6]),
        pick(&[0.0, 0.0, 0.0, 0.1]),
        any::<bool>(),
    );
    let host = (pick(&[0u32, 1, 4]), pick(&[0.5, 1.0, 20.0]), pick(&["strict", "fold", "fold", "fold"]));
    (
        proptest::sample::select(SCHEMES.iter().map(|e| e.name).collect::<Vec<_>>()),
        device,
        sched,
        ftl,
        host,
        0..i64::MAX as u64,
        any::<bool>(),
    )
        .prop_map(|(scheme, d, s, f, h, seed, coll)| {
            let mut k = vec![
                "run.verify=true".to_string(),
                // Its requests carry no content: dedup schemes run on unique values.
                "scheme.dedup.synthetic_content=true".to_string(),
                format!("run.seed={seed}"),
                format!("scheme.name={scheme}"),
                format!("metrics.collisions={coll}"),
            ];
            let (ch, chips, dies, planes, blocks, pages, page_size, op) = d;
            k.extend([
                format!("device.channels={ch}"),
                format!("device.chips_per_channel={chips}"),
                format!("device.dies_per_chip={dies}"),
                format!("device.planes_per_die={planes}"),
                format!("device.blocks_per_plane={blocks}"),
                format!("device.pages_per_block={pages}"),
                format!("device.page_size={page_size}"),
                format!("device.overprovisioning={op}"),
            ]);
            let (read_priority, suspension, multiplane, max_suspends, suspend_us) = s;
            k.extend([
                format!("scheduler.read_priority={read_priority}"),
                format!("scheduler.suspension={suspension}"),
                format!("scheduler.multiplane={multiplane}"),
                format!("scheduler.max_suspends={max_suspends}"),
                format!("scheduler.suspend_us={suspend_us}"),
            ]);
            let (alloc, order, gc, valid, invalid, to_gc) = f;
            // Stale pages come from overwrites of valid ones.
            let invalid = if valid > 0.0 { invalid } else { 0.0 };
            k.extend([
                format!("ftl.allocation={alloc}"),
                format!("ftl.order={order}"),
                format!("ftl.gc_threshold={gc}"),
                format!("ftl.precondition.valid={valid}"),
                format!("ftl.precondition.invalid={invalid}"),
                format!("ftl.precondition.to_gc_threshold={to_gc}"),
            ]);
            let (qd, scale, address) = h;
            k.extend([format!("host.queue_depth={qd}"), format!("host.time_scale={scale}"), format!("host.address={address}")]);
            k
        })
}

/// Up to 150 requests of 1-6 units of 512 B to 16 KiB over a span that may
/// exceed the device, mostly in time order.
fn requests() -> impl Strategy<Value = Vec<Request>> {
    let one = (0u64..40_000, 0u64..400, 1u32..=6, pick(&[512u32, 4096, 16384]), any::<bool>(), 0u64..4);
    proptest::collection::vec(one, 0..150).prop_map(|v| {
        let mut t = 0u64;
        v.into_iter()
            .enumerate()
            .map(|(i, (gap, unit, n, unit_size, read, content))| {
                // One request in 512 steps back in time.
                t = if gap % 512 == 511 { t.saturating_sub(gap) } else { t + gap };
                let kind = if read { IoKind::Read } else { IoKind::Write };
                Request { time_ns: t, offset: unit * unit_size as u64, size: n * unit_size, kind, content, volume: 0, line: i as u64 + 1 }
            })
            .collect()
    })
}

fn case() -> impl Strategy<Value = Case> {
    (keys(), requests()).prop_map(|(keys, requests)| Case { keys, requests })
}

/// An error that is the input's fault, said as such: a config key, a
/// trace line, a geometry, or requests the device had no room for. Any
/// other simulation error is the simulator's own failure.
fn reported(e: &Error) -> bool {
    match e {
        Error::Config { .. } | Error::Trace { .. } | Error::Geometry(_) => true,
        Error::Sim(m) => m.contains("could not complete"),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_run_completes_with_the_latest_data_or_says_why(c in case()) {
        let cfg = match ConfigBuilder::new().set_all(c.keys.iter().map(String::as_str)).and_then(|b| b.build()) {
            Ok(cfg) => cfg,
            Err(e) => {
                prop_assert!(matches!(e, Error::Config { .. } | Error::Geometry(_)), "{e}");
                return Ok(());
            }
        };
        match sim::run_requests(cfg, &c.requests) {
            Ok(r) => {
                prop_assert_eq!(r.summary.requests, c.requests.len() as u64);
                prop_assert_eq!(r.summary.verify_errors, 0);
            }
            Err(e) => prop_assert!(reported(&e), "{e}"),
        }
    }
}
