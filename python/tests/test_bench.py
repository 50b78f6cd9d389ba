"""`detour bench`: one run in a fresh process, requests/s and peak memory."""

from __future__ import annotations

import pytest

import detour
from detour.bench import bench
from conftest import TINY_REQUESTS


def test_bench_measures_in_a_subprocess(tiny_trace):
    m = bench(tiny_trace, device="small", overrides=["host.queue_depth=32"])
    assert m["requests"] == TINY_REQUESTS
    assert m["requests_per_s"] > 0 and m["wall_s"] > 0
    assert m["peak_rss_mib"] >= m["rss_before_run_mib"] > 1


def test_bench_error_is_a_detour_error(tmp_path):
    with pytest.raises(detour.DetourError, match="missing.trace"):
        bench(tmp_path / "missing.trace", device="small")


def test_bench_command(cli, tiny_trace, tmp_path):
    p = cli("bench", "--trace", tiny_trace, "--device", "small", "--set", "host.queue_depth=32")
    assert p.returncode == 0, p.stderr
    assert "requests/s" in p.stdout and "peak memory" in p.stdout
    p = cli("bench", "--trace", tmp_path / "missing.trace")
    assert p.returncode == 2 and p.stderr.startswith("detour: error:")
