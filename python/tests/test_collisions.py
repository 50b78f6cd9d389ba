"""Read-collision accounting from Python: the summary section, the pair
table and `collision_pairs.parquet` (docs/schemes/collisions.md)."""

from __future__ import annotations

import json

import detour
import numpy as np
import pyarrow.parquet as pq


def _pair_reads(n=400):
    """Pages 0 and 16 (one die on `small`) read together, then page 1 alone."""
    t = np.repeat(np.arange(n, dtype=np.uint64) * 1_000_000, 2)
    offset = np.tile(np.array([0, 16 * 4096], dtype=np.uint64), n)
    return {"time_ns": t, "offset": offset, "size": np.full(2 * n, 4096), "is_write": np.zeros(2 * n, bool)}


def test_pairs_exported_and_summed(tmp_path):
    r = detour.run("small", requests=_pair_reads(), overrides={"metrics.collisions": True, "scheduler.multiplane": False})
    c = r.summary["collisions"]
    assert c["reads"] == 800 and c["collisions"] == 400 and c["imbalanced"] == 400
    table = r.collision_pairs_table()
    assert table.column_names == ["lpn_a", "lpn_b", "count"]
    assert table.to_pydict() == {"lpn_a": [0], "lpn_b": [16], "count": [400]}
    out = r.write(tmp_path / "out")
    assert pq.read_table(out / "collision_pairs.parquet").to_pydict() == table.to_pydict()
    assert json.loads((out / "summary.json").read_text())["collisions"]["mean_repetition"] == 400.0


def test_off_by_default(tmp_path):
    r = detour.run("small", requests=_pair_reads(10))
    assert "collisions" not in r.summary
    assert r.collision_pairs_table().num_rows == 0
    out = r.write(tmp_path / "out")
    assert not (out / "collision_pairs.parquet").exists()


def test_collisions_scheme_listed():
    assert "collisions" in dict(detour.schemes())


def test_analyze_collisions_cli(cli, tmp_path):
    out = tmp_path / "an"
    p = cli("analyze", "collisions", "--profile", "msr-patterned", "--profile-set", "requests=3000", "--no-progress", "--out", out)
    assert p.returncode == 0, p.stderr
    assert "Imbalanced collision pairs" in p.stdout and "Reads per die RSD" in p.stdout
    s = json.loads((out / "summary.json").read_text())
    assert s["collisions"]["reads"] > 0 and s["device"] == "collisions"
    pairs = pq.read_table(out / "collision_pairs.parquet")
    assert pairs.num_rows == s["collisions"]["imbalanced_pairs"]
    p = cli("analyze", "collisions", "--profile", "msr-random", "--profile-set", "requests=500", "--no-progress", "--set", "scheme.collisions.l_r=-1")
    assert p.returncode == 1 and "scheme.collisions.l_r" in p.stderr


def test_analyze_collisions_takes_the_trace_as_an_argument(cli, tmp_path):
    from conftest import write_mqsim_trace

    trace = write_mqsim_trace(tmp_path / "t.trace", 300)
    p = cli("analyze", "collisions", trace, "--no-progress", "--set", "host.address=fold")
    assert p.returncode == 0, p.stderr
    assert "Reads per die RSD" in p.stdout
    p = cli("analyze", "collisions", "--no-progress")
    assert p.returncode == 2 and "give a trace" in p.stderr
