"""The Python API: detour.run, detour.config, Result, the exception classes."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap

import detour
import numpy as np
import pyarrow as pa
import pytest
from conftest import TINY_REQUESTS, write_mqsim_trace


def _requests(n=2000, seed=3):
    rng = np.random.default_rng(seed)
    return {
        "time_ns": np.cumsum(rng.exponential(50_000, n)).astype(np.uint64),
        "offset": rng.integers(0, 10_000, n) * 4096,
        "size": np.full(n, 4096),
        "is_write": rng.random(n) < 0.3,
    }


def test_run_trace_result(tiny_trace):
    r = detour.run("small", trace=tiny_trace, verify=True)
    assert isinstance(r, detour.Result)
    assert len(r) == TINY_REQUESTS == r.summary["requests"]
    assert r.summary["verify_errors"] == 0 and r.verify_failures == []
    assert list(r.columns) == list(detour.COLUMNS)
    assert r.columns["latency_ns"].dtype == np.uint64
    assert r.columns["is_write"].dtype == np.bool_
    assert r.columns["size"].dtype == np.uint32
    assert (np.diff(r.columns["arrival_ns"].astype(np.int64)) >= 0).all()
    assert r.latency("read", "p99") == r.summary["latency_us"]["read"]["p99"]
    # The nearest-rank percentile recomputed from the columns: the
    # summary's (from a histogram) is within its stated bound of it.
    reads = np.sort(r.columns["latency_ns"][~r.columns["is_write"]])
    rank = int(np.ceil(0.99 * len(reads)))
    exact = reads[rank - 1] / 1000
    assert r.summary["latency_us"]["read"]["p99"] == pytest.approx(exact, rel=1 / 2048)
    assert r.summary["latency_us"]["read"]["mean"] == pytest.approx(reads.mean() / 1000)
    assert r.summary["latency_us"]["read"]["max"] == reads[-1] / 1000


def test_breakdown_adds_up(tiny_trace):
    r = detour.run("small", trace=tiny_trace)
    for kind in ("read", "write", "all"):
        b = r.summary["breakdown_us"][kind]
        assert b["queue"] + b["bus"] + b["array"] + b["delay"] == pytest.approx(r.summary["latency_us"][kind]["mean"])
    q = r.queue_ns()
    c = r.columns
    assert (q + c["bus_ns"] + c["array_ns"] + c["delay_ns"] >= c["latency_ns"]).all()


def test_run_requests_arrays_and_determinism():
    a = detour.run("small", requests=_requests(), overrides={"host.queue_depth": 16})
    b = detour.run("small", requests=_requests(), overrides=["host.queue_depth=16"])
    assert a.summary == b.summary
    for k in detour.COLUMNS:
        assert np.array_equal(a.columns[k], b.columns[k])
    assert a.summary["requests"] == 2000
    assert a.summary["workload"] == {
        "source": "<requests>",
        "kind": "requests",
        "format": None,
        "requests": 2000,
        "skipped_malformed": 0,
        "clamped": 0,
        "filtered_out": 0,
        "ignored": 0,
        "backwards": 0,
        "max_step_back_ns": 0,
        "reordered": 0,
        "reorder_window_ns": 0,
        "time_resolution_ns": 0,
        "spread": 0,
        "scaled_from_bytes": None,
    }


def test_run_options_object_and_keywords_agree():
    """`run` takes a typed RunOptions, its fields as keywords, or both (the
    keywords replace the object's fields); a wrong keyword is a TypeError."""
    reqs = _requests(300)
    opts = detour.RunOptions(requests=reqs, overrides=["host.queue_depth=4"])
    a = detour.run("small", opts)
    b = detour.run("small", requests=reqs, overrides=["host.queue_depth=4"])
    c = detour.run("small", detour.RunOptions(requests=reqs), overrides=["host.queue_depth=4"])
    assert a.summary == b.summary == c.summary
    assert a.summary["config"]["host"]["queue_depth"] == 4
    with pytest.raises(TypeError, match="requestz"):
        detour.run("small", requestz=reqs)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.verify = True  # type: ignore[misc]
    with pytest.raises(ValueError, match="exactly one workload"):
        detour.run("small", opts, profile="fiu-web")


def test_run_trace_is_deterministic(tiny_trace):
    a = detour.run("small", trace=tiny_trace)
    b = detour.run("small", trace=tiny_trace)
    assert json.dumps(a.summary, sort_keys=True) == json.dumps(b.summary, sort_keys=True)


def test_to_arrow_to_pandas_and_write(tiny_trace, tmp_path):
    r = detour.run("small", trace=tiny_trace)
    t = r.to_arrow()
    assert isinstance(t, pa.Table) and t.num_rows == TINY_REQUESTS
    assert t.schema.field("latency_ns").type == pa.uint64()
    assert json.loads(t.schema.metadata[b"detour.summary"])["requests"] == TINY_REQUESTS
    try:
        import pandas  # noqa: F401
    except ImportError:
        pass
    else:
        df = r.to_pandas()
        assert len(df) == TINY_REQUESTS and "queue_ns" in df.columns
    out = r.write(tmp_path / "deep" / "out")
    assert json.loads((out / "summary.json").read_text()) == r.summary
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_config_layers(tmp_path):
    text = detour.config("bench-matched", overrides=["host.queue_depth=8"], scheme="conventional", verify=True)
    assert "queue_depth = 8" in text and "verify = true" in text
    f = tmp_path / "dev.toml"
    f.write_text('preset = "small"\n[ftl]\ngc_threshold = 0.1\n')
    text = detour.config(f)
    assert 'name = "small"' in text and "gc_threshold = 0.1" in text
    assert detour.config(f, toml="[host]\nqueue_depth = 4\n").count("queue_depth = 4") == 1
    names = [n for n, _ in detour.presets()]
    assert "bench-matched" in names and "small" in names
    assert ("conventional" in [n for n, _ in detour.schemes()])


def test_exceptions_are_distinct_classes(tmp_path, tiny_trace):
    classes = [detour.TraceError, detour.ConfigError, detour.GeometryError, detour.SimulationError, detour.DetourIOError]
    assert len(set(classes)) == len(classes)
    assert all(issubclass(c, detour.DetourError) for c in classes)
    assert issubclass(detour.DetourIOError, OSError)

    with pytest.raises(detour.ConfigError, match=r"device.chanels"):
        detour.config("small", overrides=["device.chanels=4"])
    with pytest.raises(detour.ConfigError, match=r"ftl.gc_threshold"):
        detour.config("small", overrides=["ftl.gc_threshold=0.9"])
    with pytest.raises(detour.GeometryError):
        detour.config("small", overrides=["device.blocks_per_plane=1048576", "device.pages_per_block=65535"])
    with pytest.raises(detour.DetourIOError) as e:
        detour.run("small", trace=tmp_path / "missing.trace")
    assert isinstance(e.value, OSError) and e.value.errno == 2 and e.value.filename.endswith("missing.trace")
    with pytest.raises(detour.DetourIOError):
        detour.config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.trace"
    bad.write_text("0 0 0 8 1\n10 0 x 8 1\n")
    with pytest.raises(detour.TraceError, match=r"bad.trace:2"):
        detour.run("small", trace=bad, format="mqsim")
    far = {"time_ns": [0], "offset": [1 << 40], "size": [4096], "is_write": [True]}
    with pytest.raises(detour.TraceError, match="beyond the logical space"):
        detour.run("small", requests=far, overrides={"host.address": "strict"})
    assert detour.run("small", requests=far).summary.pages.folded == 1
    tiny = [
        "device.channels=1", "device.chips_per_channel=1", "device.dies_per_chip=1", "device.planes_per_die=1",
        "device.blocks_per_plane=8", "device.pages_per_block=4", "device.overprovisioning=0.0",
    ]
    n = 64
    fill = {"time_ns": np.arange(n) * 1000, "offset": (np.arange(n) % 32) * 4096, "size": [4096] * n, "is_write": [True] * n}
    # No spare for GC: refused before the run (it used to stop partway with
    # "could not complete", a SimulationError; issue 50).
    with pytest.raises(detour.ConfigError, match=r"device.overprovisioning"):
        detour.run("small", overrides=tiny, requests=fill)
    assert issubclass(detour.SimulationError, detour.DetourError) and not issubclass(detour.SimulationError, detour.ConfigError)


def test_bad_workload_arguments(tiny_trace):
    with pytest.raises(ValueError, match="exactly one workload"):
        detour.run("small")
    with pytest.raises(ValueError, match="exactly one workload"):
        detour.run("small", trace=tiny_trace, requests=_requests(10))
    with pytest.raises(ValueError, match="unknown column"):
        detour.run("small", requests={**_requests(10), "colour": [1] * 10})
    with pytest.raises(ValueError, match="rows"):
        detour.run("small", requests={**_requests(10), "size": [4096] * 9})
    with pytest.raises(ValueError, match="negative"):
        detour.run("small", requests={**_requests(3), "offset": [-4096, 0, 0]})


def test_progress_callback_and_stop():
    seen = []
    detour.run("small", requests=_requests(40_000), progress=lambda n, t: seen.append((n, t)))
    assert seen and seen[-1][0] == 40_000
    assert [n for n, _ in seen] == sorted(n for n, _ in seen)

    class Stop(Exception):
        pass

    def stop(n, t):
        raise Stop(n)

    with pytest.raises(Stop):
        detour.run("small", requests=_requests(40_000), progress=stop)

    def interrupt(n, t):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        detour.run("small", requests=_requests(40_000), progress=interrupt)


def test_ctrl_c_stops_a_run_cleanly(tmp_path):
    """A real SIGINT while the core runs with the GIL released."""
    script = textwrap.dedent(
        """
        import sys, numpy as np, detour
        n = 3_000_000
        req = {"time_ns": np.arange(n, dtype=np.uint64) * 20_000, "offset": (np.arange(n, dtype=np.uint64) % 100_000) * 4096,
               "size": np.full(n, 4096, dtype=np.uint32), "is_write": np.zeros(n, dtype=bool)}
        cfg = detour.config("small")
        def started(k, t):
            if k == 16384:
                print("started", flush=True)
        try:
            detour.run("small", requests=req, progress=started)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        print("finished", flush=True)
        """
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.strip() == "started", p.stderr.read()
    p.send_signal(2)  # SIGINT
    out, err = p.communicate(timeout=120)
    assert p.returncode == 3, (out, err)
    assert "interrupted" in out


def test_precondition_span_footprint_writes_what_the_profile_can_read(tiny_trace):
    """`ftl.precondition.span = "footprint"`: `valid` is a share of the
    workload's footprint, so valid = 1 leaves no read finding a page never
    written, where a small share leaves some of them."""
    prof = {"requests": 3000, "footprint_bytes": 64 << 20, "read_ratio": 1.0}
    sets = {"ftl.precondition.valid": 1.0, "ftl.precondition.span": "footprint"}
    whole = detour.run("small", profile="fin2", profile_overrides=prof, overrides=sets)
    assert whole.summary["pages"]["placed_on_read"] == 0 and whole.summary["reads"] > 0
    part = detour.run("small", profile="fin2", profile_overrides=prof, overrides={**sets, "ftl.precondition.valid": 0.01})
    assert part.summary["pages"]["placed_on_read"] > 0
    assert whole.summary["config"]["ftl"]["precondition"]["span"] == "footprint"
    # A trace is read once more for the highest address it touches.
    t = detour.run("small", trace=tiny_trace, overrides=sets).summary
    assert t["pages"]["placed_on_read"] == 0 and t["reads"] > 0
    assert detour.run("small", trace=tiny_trace, overrides={**sets, "ftl.precondition.valid": 0.01}).summary["pages"][
        "placed_on_read"] > 0


def test_steady_writes_replay_the_workloads_own_writes_first(tiny_trace):
    """`ftl.precondition.steady_writes`: the workload's writes, a multiple of
    the logical pages, written before the run (a profile drawn again, a trace
    read again): the device starts worn, every read still finds its data,
    and the same inputs give the same summary."""
    prof = {"requests": 3000, "footprint_bytes": 64 << 20}
    sets = {"ftl.precondition.steady_writes": 2, "run.verify": True}
    fresh = detour.run("small", profile="fin2", profile_overrides=prof, overrides={"run.verify": True}).summary
    worn = detour.run("small", profile="fin2", profile_overrides=prof, overrides=sets).summary
    assert fresh["gc"]["erase_count_mean"] == 0 and worn["gc"]["erase_count_mean"] > 0
    assert worn["verify_errors"] == 0 and worn["requests"] == 3000
    again = detour.run("small", profile="fin2", profile_overrides=prof, overrides=sets).summary
    assert json.dumps(again, sort_keys=True) == json.dumps(worn, sort_keys=True)
    longer = write_mqsim_trace(tiny_trace.with_name("longer.trace"), n=5000)
    t = detour.run("small", trace=longer, overrides=sets).summary
    assert t["gc"]["erase_count_mean"] > 0 and t["verify_errors"] == 0
    # A trace that writes too little a pass for the target is refused, and
    # a profile that never writes ends instead of drawing reads for ever.
    with pytest.raises(detour.ConfigError, match=r"steady_writes.*passes"):
        detour.run("small", trace=tiny_trace, overrides=sets)
    with pytest.raises(detour.ConfigError, match="no writes to replay"):
        detour.run("small", profile="fin2", profile_overrides={**prof, "read_ratio": 1.0}, overrides=sets)


def test_reads_of_lost_pages_fail_and_are_reported(tmp_path):
    """Issue 50.7: after a die fails under `pure`, a read of a page that was
    on it fails: counted in lost_requests, flagged in the `lost` column of
    requests.parquet, left out of the latency figures (it was a 0 us read)."""
    import pyarrow.parquet as pq

    sets = {"scheme.raid.fail_unit": "die", "scheme.raid.fail_at_us": 100000, "run.verify": True}
    prof = {"requests": 4000}
    r = detour.run("small", scheme="pure", profile="bench-like", profile_overrides=prof, overrides=sets)
    s = r.summary
    assert s.lost_requests > 0 and s.verify_errors == 0
    lost = r.columns["lost"]
    assert lost.sum() == s.lost_requests and s.requests + s.lost_requests + s.warmup_requests == 4000
    measured = ~lost & ~r.columns["warmup"] & ~r.columns["is_write"]
    assert (r.columns["latency_ns"][measured] > 0).all()
    streamed = detour.run("small", scheme="pure", profile="bench-like", profile_overrides=prof, overrides=sets,
                          requests_parquet=tmp_path / "requests.parquet")
    t = pq.read_table(tmp_path / "requests.parquet", columns=["lost"])
    assert t.column("lost").to_numpy(zero_copy_only=False).sum() == streamed.summary.lost_requests == s.lost_requests
    from detour.report import summary_text

    assert "lost:" in summary_text(r.summary)


def test_place_reads_before_run_places_every_page_the_run_reads(tiny_trace):
    """`ftl.precondition.place_reads = "before_run"` (SSDSim's
    pre_process_page): the workload is read once more before the run, request
    for request as the run sees it (a profile drawn again from its seed, a
    trace read again), and every page a read covers is placed then: no read
    of the run finds a page unwritten, where on the read (the default) many
    do; every read still finds its data."""
    prof = {"requests": 3000, "footprint_bytes": 64 << 20}
    sets = {"ftl.precondition.place_reads": "before_run", "run.verify": True}
    on_read = detour.run("small", profile="fin2", profile_overrides=prof, overrides={"run.verify": True}).summary
    before = detour.run("small", profile="fin2", profile_overrides=prof, overrides=sets).summary
    assert on_read["pages"]["placed_on_read"] > 0 and before["pages"]["placed_on_read"] == 0
    assert before["verify_errors"] == 0 and before["pages"]["host_read"] == on_read["pages"]["host_read"]
    t = detour.run("small", trace=tiny_trace, overrides=sets).summary
    assert t["pages"]["placed_on_read"] == 0 and t["reads"] > 0 and t["verify_errors"] == 0
