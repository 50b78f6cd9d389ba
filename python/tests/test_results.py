"""`detour results`: one row per run, parameters and flattened summary fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from detour.results import SUMMARY_FIELDS, gather
from detour.sweep import run_sweep

REQUIRED = [
    "key", "status", "error", "device", "profile", "scheme", "seed", "host.queue_depth",
    "requests", "reads", "writes", "verify_errors",
    "latency_us.read.mean", "latency_us.read.p50", "latency_us.read.p99", "latency_us.read.p999",
    "latency_us.write.mean", "latency_us.write.p99", "latency_us.all.mean", "latency_us.all.p99",
    "throughput.iops", "gc.write_amplification", "gc.runs",
]


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("results")
    f = d / "s.toml"
    f.write_text(
        'profiles = [{profile = "hm", set = {requests = 1500, footprint_bytes = 268435456}},\n'
        '            {profile = "mail", set = {requests = 100}}]\n'  # mail fails on small when strict: beyond its logical space
        'devices = ["small"]\nschemes = ["conventional"]\nseeds = [3]\nverify = true\n'
        '[set]\n"host.address" = "strict"\n'
        '[grid]\n"host.queue_depth" = [4, 16, 64]\n'
    )
    run_sweep(f, d / "out", workers=2)
    return d / "out"


def test_table_columns_and_rows(swept):
    t = gather(swept)
    assert t.num_rows == 6
    for c in REQUIRED:
        assert c in t.column_names, c
    rows = t.to_pylist()
    ok = [r for r in rows if r["status"] == "ok"]
    failed = [r for r in rows if r["status"] == "failed"]
    assert len(ok) == 3 and len(failed) == 3
    assert sorted(r["host.queue_depth"] for r in ok) == [4, 16, 64]
    for r in ok:
        s = json.loads((swept / "runs" / r["key"] / "summary.json").read_text())
        assert r["requests"] == s["requests"] == 1500
        assert r["latency_us.read.p99"] == s["latency_us"]["read"]["p99"]
        assert r["gc.write_amplification"] == s["gc"]["write_amplification"]
        assert (r["scheme"], r["seed"], r["profile"], r["verify_errors"], r["error"]) == ("conventional", 3, "hm", 0, None)
    for r in failed:
        assert r["error"].startswith("TraceError: ") and r["requests"] is None and r["profile"] == "mail"
    assert (swept / "results.parquet").exists() and (swept / "results.csv").exists()
    header = (swept / "results.csv").read_text().splitlines()[0]
    assert '"latency_us.read.p99"' in header and len((swept / "results.csv").read_text().splitlines()) == 7


def test_pandas_one_liner(swept):
    pd = pytest.importorskip("pandas")
    gather(swept)
    df = pd.read_parquet(swept / "results.parquet")
    assert df.shape[0] == 6 and set(SUMMARY_FIELDS) <= set(df.columns)
    ok = df[df.status == "ok"].sort_values("host.queue_depth")
    assert list(ok["host.queue_depth"]) == [4, 16, 64]
    assert (ok["latency_us.read.mean"] > 0).all()
    assert pd.read_csv(swept / "results.csv").shape == df.shape


def test_polars_one_liner(swept):
    pl = pytest.importorskip("polars")
    gather(swept)
    assert pl.read_parquet(swept / "results.parquet").height == 6


def test_cli_results(swept, cli, tmp_path):
    r = cli("results", swept)
    assert r.returncode == 0, r.stderr
    assert "6 runs: 3 ok, 3 failed" in r.stdout
    assert "host.queue_depth" in r.stdout and "TraceError" in r.stdout
    r = cli("results", tmp_path)
    assert r.returncode == 1 and "no sweep records" in r.stderr
