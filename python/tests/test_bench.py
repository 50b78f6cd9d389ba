"""`detour bench`: one run in a fresh process, requests/s and peak memory."""

from __future__ import annotations

import detour
import pytest
from conftest import TINY_REQUESTS
from detour.bench import bench


def test_bench_measures_in_a_subprocess(tiny_trace):
    m = bench(tiny_trace, device="small", overrides=["host.queue_depth=32"])
    assert m["requests"] == TINY_REQUESTS
    assert m["requests_per_s"] > 0 and m["wall_s"] > 0
    assert m["peak_rss_mib"] >= m["rss_before_run_mib"] > 1


def test_bench_error_is_a_detour_error(tmp_path):
    with pytest.raises(detour.DetourError, match=r"missing.trace"):
        bench(tmp_path / "missing.trace", device="small")


def test_bench_command(cli, tiny_trace, tmp_path):
    p = cli("bench", "--trace", tiny_trace, "--device", "small", "--set", "host.queue_depth=32")
    assert p.returncode == 0, p.stderr
    assert "requests/s" in p.stdout and "peak memory" in p.stdout
    p = cli("bench", "--trace", tmp_path / "missing.trace")
    assert p.returncode == 1 and p.stderr.startswith("detour: error:")


def test_bench_repeat_reports_the_median_run(tiny_trace):
    m = bench(tiny_trace, device="small", overrides=["host.queue_depth=32"], repeat=3)
    assert m["runs"] == 3 and len(m["wall_s_runs"]) == 3
    assert m["wall_s"] == sorted(m["wall_s_runs"])[1]
    assert m["wall_s_min"] <= m["wall_s"] <= m["wall_s_max"]
    assert m["requests_per_s"] == pytest.approx(m["requests"] / m["wall_s"])
    assert m["requests"] == TINY_REQUESTS


def test_bench_repeat_fails_when_runs_disagree(tiny_trace, monkeypatch):
    import detour.bench as b

    runs = iter([{"events": 10}, {"events": 11}])
    template = {"requests": 1, "sim_time_s": 1.0, "latency_us": {}, "gc": {}, "wall_s": 1.0, "peak_rss_mib": 1.0}
    monkeypatch.setattr(b, "_run_once", lambda args: {**template, **next(runs)})
    with pytest.raises(detour.DetourError, match=r"run 2 .* disagrees with run 1 on events"):
        bench(tiny_trace, device="small", repeat=2)


@pytest.mark.parametrize("repeat", [0, -1, 1.5, True])
def test_bench_repeat_must_be_a_count(tiny_trace, repeat):
    with pytest.raises(ValueError, match="repeat must be"):
        bench(tiny_trace, device="small", repeat=repeat)


def test_bench_command_repeat(cli, tiny_trace):
    p = cli("bench", "--trace", tiny_trace, "--device", "small", "--repeat", "2")
    assert p.returncode == 0, p.stderr
    assert "median of 2 runs" in p.stdout
    p = cli("bench", "--trace", tiny_trace, "--device", "small", "--repeat", "0")
    assert p.returncode == 2 and "at least 1" in p.stderr
