"""Rows streamed to requests.parquet by the core: the file, the lazy
columns, and exact percentiles against the summary's histogram ones."""

from __future__ import annotations

import json
import subprocess
import sys

import detour
import numpy as np
import pyarrow.parquet as pq
import pytest
from detour.requests_file import LazyColumns, exact_latency, nearest_rank

BOUND = 1 / 2048  # docs/results.md, Percentiles


def test_streamed_rows_equal_the_rows_kept_in_memory(tmp_path):
    kw = dict(profile="bench-like", profile_overrides={"requests": 20_000}, overrides=["host.warmup_requests=50"])
    mem = detour.run("small", **kw)
    path = tmp_path / "rows.parquet"
    streamed = detour.run("small", requests_parquet=path, **kw)
    assert isinstance(streamed.columns, LazyColumns) and streamed.requests_path == path
    assert len(streamed) == len(mem) == 20_000
    for name in detour.COLUMNS:
        assert np.array_equal(streamed.columns[name], mem.columns[name]), name
    t = pq.read_table(path)
    assert t.num_rows == 20_000 and "queue_ns" in t.column_names
    assert t.schema.field("latency_ns").type == "uint64" and t.schema.field("size").type == "uint32"
    assert json.loads(t.schema.metadata[b"detour.summary"])["requests"] == mem.summary.requests
    out = streamed.write(tmp_path / "out")
    assert pq.read_table(out / "requests.parquet").num_rows == 20_000


def test_summary_percentiles_within_the_bound_of_exact_ones(tmp_path):
    path = tmp_path / "r.parquet"
    r = detour.run("small", profile="bench-like", profile_overrides={"requests": 30_000}, requests_parquet=path)
    for kind in ("read", "write", "all"):
        exact, got = exact_latency(path, kind), r.summary["latency_us"][kind]
        assert exact["count"] == got["count"] > 1000
        assert exact["min"] == got["min"] and exact["max"] == got["max"]
        assert exact["mean"] == pytest.approx(got["mean"], rel=1e-9)
        for p in ("p50", "p90", "p99", "p999"):
            assert abs(got[p] - exact[p]) <= exact[p] * BOUND, (kind, p, got[p], exact[p])
    with pytest.raises(ValueError, match="kind"):
        exact_latency(path, "reads")


def test_nearest_rank():
    v = np.arange(1, 101)
    assert [nearest_rank(v, p) for p in (0, 50, 99, 99.9)] == [1, 50, 99, 100]
    assert nearest_rank(np.array([]), 50) == 0.0


def test_detour_run_streams_and_imports_no_numpy(tiny_trace, tmp_path):
    code = (
        "import sys; from detour.cli import main\n"
        f"rc = main(['run', '--trace', {str(tiny_trace)!r}, '--out', {str(tmp_path / 'o')!r}, '-q', '--no-progress'])\n"
        "print(rc, 'numpy' in sys.modules, 'pyarrow' in sys.modules)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["0", "False", "False"]
    assert pq.read_table(tmp_path / "o" / "requests.parquet").num_rows > 0
    assert not list((tmp_path / "o").glob(".*.tmp"))
