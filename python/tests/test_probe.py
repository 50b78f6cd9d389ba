"""The `[probes]` load sampler from Python (docs/results.md, `probe`): off by
default; on, the summary has its digest, `Result.timeseries_table()` one
row per sample and die whose chip columns sum the dies, `write()` and sweep
records carry `timeseries.parquet`; the RR-SSD reproduction's reading of
Table III and its from-day-1 statistic."""

from __future__ import annotations

import detour
import numpy as np
import pyarrow.parquet as pq
from detour.reproduce import rrssd

PROFILE = ["requests=4000", "footprint_bytes=1073741824"]
SET = {"host.time_scale": 0.05}


def test_probe_is_off_by_default():
    r = detour.run("small", profile="mail", profile_overrides=PROFILE, scheme="conventional", overrides=SET)
    assert r.summary.get("probe") is None
    assert r.timeseries_table() is None


def test_probe_series_reach_python_and_disk(tmp_path):
    r = detour.run("small", profile="mail", profile_overrides=PROFILE, scheme="conventional",
                   overrides={**SET, "probes.interval_us": 100})
    p = r.summary["probe"]
    t = r.timeseries_table()
    dies, chips = int(r.timeseries["dies"]), int(r.timeseries["chips"])
    assert p["samples"] == len(r.timeseries["t_ns"]) > 5
    assert t.num_rows == p["samples"] * dies
    d = t.to_pydict()
    die, chip, q, cq = (np.asarray(d[k]) for k in ("die", "chip", "queue", "chip_queue"))
    per = dies // chips
    assert (chip == die // per).all()
    # A chip's queue is the sum of its dies' queues, sample by sample.
    summed = q.reshape(-1, chips, per).sum(axis=2)
    assert (summed == cq.reshape(-1, chips, per)[:, :, 0]).all()
    assert cq.max() == p["chip_queue_peak"]
    # The host's share of a chip's queue leaves GC's commands out.
    hq = np.asarray(d["chip_host_queue"])
    assert (hq <= cq).all() and hq.max() == p["chip_host_queue_peak"] > 0
    r.write(tmp_path)
    assert pq.read_table(tmp_path / "timeseries.parquet").num_rows == t.num_rows


def test_free_blocks_always_and_buffer_pages_only_with_a_buffer():
    base = {**SET, "probes.interval_us": 100}
    plain = detour.run("small", profile="mail", profile_overrides=PROFILE, scheme="conventional", overrides=base)
    t = plain.timeseries_table()
    assert "free_blocks" in t.column_names and "buffer_pages" not in t.column_names
    assert min(t.column("free_blocks").to_pylist()) > 0
    buffered = detour.run("small", profile="mail", profile_overrides=PROFILE, scheme="conventional",
                          overrides={**base, "write_buffer.pages": 64, "host.write_ack": "buffer"})
    pages = buffered.timeseries_table().column("buffer_pages").to_pylist()
    assert max(pages) > 0 and max(pages) <= 64


def test_readings_of_table_iii():
    assert rrssd.reading_set("mail") == {"content.read_unique": 0.2}
    assert rrssd.reading_set("hadoop", "new-share") == {"content.read_unique": 0.175}
    assert rrssd.reading_set("not-a-profile") == {}
    # per-text: the smaller New where Sec. IV-B calls it small, the larger for desktop
    text = {n: rrssd.reading_set(n, "per-text")["content.read_unique"] for n in rrssd.PROFILES}
    assert text == {"webvm": 0.32, "homes": 0.2, "mail": 0.2, "hadoop": 0.175, "trans": 0.138, "desktop": 0.503}


def test_steady_state_statistic_skips_day_0(tmp_path):
    class FakeRun:
        dir = tmp_path

        def columns(self, names):
            import pyarrow as pa

            return pa.table({"arrival_ns": np.array([0, 10, 200, 300], dtype=np.uint64),
                             "latency_ns": np.array([9000, 9000, 1000, 3000], dtype=np.uint64),
                             "is_write": np.array([False, True, False, False]),
                             "warmup": np.array([False, False, False, False])})

    rrssd._CACHE.clear()
    old = rrssd._T0_NS
    try:
        rrssd._T0_NS = 100.0
        assert rrssd.steady(FakeRun(), "read") == 2.0
        assert rrssd.steady(FakeRun(), "all", "p99") == 3.0
    finally:
        rrssd._T0_NS = old
        rrssd._CACHE.clear()
