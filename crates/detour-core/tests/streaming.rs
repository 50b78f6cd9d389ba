//! Per-request rows streamed as requests complete: the Parquet file holds
//! what memory would, the summary's percentiles keep their bound, and a
//! failed run leaves no file.

mod common;
use common::*;
use detour_core::metrics::histogram::RELATIVE_ERROR;
use detour_core::metrics::parquet::ParquetSink;
use detour_core::metrics::{LatencyStats, RequestSink};
use detour_core::sim::{NoProgress, Simulation};
use detour_core::workload::Request;
use detour_core::{Error, IoKind};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

fn workload() -> Vec<Request> {
    // Reads and writes, with a burst deep enough that completions come
    // out of arrival order and GC runs.
    let mut reqs = stress(11, 4000);
    reqs.truncate(20_000);
    reqs
}

fn run_with(sink: RequestSink, reqs: &[Request]) -> detour_core::sim::RunResult {
    let sim = Simulation::new(small(&["run.verify=true", "host.warmup_requests=100"])).unwrap();
    let mut it = reqs.iter().copied().map(Ok);
    sim.run_with_sink(&mut it, "<test>", &mut NoProgress, sink).unwrap()
}

#[test]
fn the_parquet_file_holds_the_rows_memory_would() {
    let reqs = workload();
    let mem = run_with(RequestSink::Memory, &reqs);
    let dir = tempdir("stream");
    let path = dir.join("requests.parquet");
    let streamed = run_with(RequestSink::Parquet(ParquetSink::create(&path).unwrap()), &reqs);
    assert_eq!(mem.summary, streamed.summary, "where the rows go changes nothing else");
    assert!(streamed.requests.is_empty());
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.file_metadata().num_rows() as usize, mem.requests.len());
    assert!(meta.num_row_groups() >= 1);
    let kv = meta.file_metadata().key_value_metadata().unwrap();
    assert!(kv.iter().any(|k| k.key == "detour.summary" && k.value.as_deref().unwrap_or("").contains("\"requests\"")));
    let (mut i, c) = (0usize, &mem.requests);
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let cols: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
        assert_eq!(cols[0], &Field::ULong(c.arrival_ns[i]));
        assert_eq!(cols[1], &Field::ULong(c.latency_ns[i]));
        assert_eq!(cols[4], &Field::Bool(c.is_write[i]));
        assert_eq!(cols[8], &Field::Bool(c.warmup[i]));
        let parts = c.bus_ns[i] as u64 + c.array_ns[i] as u64 + c.delay_ns[i] as u64;
        assert_eq!(cols[9], &Field::ULong(c.latency_ns[i].saturating_sub(parts)));
        i += 1;
    }
    assert_eq!(i, c.len());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        {
            let again = dir.join("again.parquet");
            run_with(RequestSink::Parquet(ParquetSink::create(&again).unwrap()), &reqs);
            std::fs::read(&again).unwrap()
        },
        "the same run writes the same bytes"
    );
    assert!(leftovers(&dir).is_empty(), "temporary files left: {:?}", leftovers(&dir));
}

#[test]
fn summary_percentiles_are_within_the_stated_bound_of_exact_ones() {
    let r = run_with(RequestSink::Memory, &workload());
    let c = &r.requests;
    let measured = |write: Option<bool>| -> Vec<u64> {
        (0..c.len()).filter(|&i| !c.warmup[i] && write.is_none_or(|w| c.is_write[i] == w)).map(|i| c.latency_ns[i]).collect()
    };
    let s = &r.summary.latency_us;
    for (got, kind) in [(&s.read, Some(false)), (&s.write, Some(true)), (&s.all, None)] {
        let exact = LatencyStats::from_ns(&measured(kind));
        assert!(exact.count > 1000, "too few {kind:?} to test: {}", exact.count);
        assert_eq!((got.count, got.min, got.max), (exact.count, exact.min, exact.max));
        assert!((got.mean - exact.mean).abs() <= 1e-9 * exact.mean);
        let pairs = [(got.p50, exact.p50), (got.p90, exact.p90), (got.p99, exact.p99), (got.p999, exact.p999)];
        for (g, e) in pairs {
            assert!((g - e).abs() <= e * RELATIVE_ERROR, "{kind:?}: {g} vs exact {e}");
        }
    }
}

#[test]
fn a_failed_run_leaves_no_file() {
    let dir = tempdir("failed");
    let path = dir.join("requests.parquet");
    let sim = Simulation::new(small(&["host.address=strict"])).unwrap();
    let logical = sim.geometry().logical_pages as u64;
    let reqs = [req(0, 0, 1, IoKind::Read), req(10, logical + 1, 1, IoKind::Read)];
    let mut it = reqs.iter().copied().map(Ok);
    let err = sim.run_with_sink(&mut it, "<test>", &mut NoProgress, RequestSink::Parquet(ParquetSink::create(&path).unwrap()));
    assert!(matches!(err, Err(Error::Trace { .. })), "{err:?}");
    assert!(!path.exists());
    assert!(leftovers(&dir).is_empty(), "temporary files left: {:?}", leftovers(&dir));
    let err = ParquetSink::create(&dir.join("no/such/dir/requests.parquet")).err().unwrap();
    assert!(err.to_string().contains("no/such/dir"), "{err}");
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("detour-streaming-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn leftovers(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}
