"""Traces whose arrivals go back in time (interleaved volumes): `inspect`
reports the disorder instead of refusing, and `run` sorts it within a
bounded window (`reorder_window_s`, `--reorder-window`) with counts."""

from __future__ import annotations

from pathlib import Path

import detour
import pytest
from conftest import run_cli

SHARED_TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"


@pytest.fixture
def interleaved(tmp_path: Path) -> Path:
    """Two volumes' logs merged badly: volume 1 runs up to 40 µs ahead of volume 0."""
    lines = []
    for i in range(200):
        lines.append(f"{i * 50_000 + 40_000} 1 {8 * i} 8 1")
        lines.append(f"{i * 50_000} 0 {8 * i} 8 0")
    p = tmp_path / "mixed.trace"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_inspect_reports_disorder_instead_of_refusing(interleaved):
    st = detour.inspect_trace(interleaved)
    assert st["requests"] == 400 and st["backwards"] == 200 and st["max_step_back_ns"] == 40_000
    assert st["clamped"] == 0 and st["duration_s"] == pytest.approx((199 * 50_000 + 40_000) / 1e9)
    # Read as a run reads it: the default 2 s window sorts it before any clamp.
    clamped = detour.inspect_trace(interleaved, clamp_backwards_time=True)
    assert clamped["clamped"] == 0 and clamped["reordered"] == 200 and clamped["backwards"] == 200


def test_cli_inspect_names_the_window_that_sorts(interleaved):
    p = run_cli("traces", "inspect", str(interleaved))
    assert p.returncode == 0, p.stderr
    assert "200 requests arrive before an earlier line's time" in p.stdout and "--reorder-window 4e-05" in p.stdout


def test_run_sorts_within_the_window(interleaved):
    with pytest.raises(detour.TraceError, match=r"mixed\.trace:2: time goes backwards by 40000 ns.*--reorder-window"):
        detour.run("small", trace=interleaved, reorder_window_s=0)
    assert detour.run("small", trace=interleaved).summary.workload.reordered == 200  # the default 2 s window
    r = detour.run("small", trace=interleaved, reorder_window_s=40e-6)
    w = r.summary.workload
    assert (w.requests, w.reordered, w.backwards, w.clamped, w.max_step_back_ns) == (400, 200, 200, 0, 40_000)
    # Sorted: the arrivals are in time order, each volume-0 write before the read 40 µs after it.
    t = r.columns["arrival_ns"]
    assert (t[1:] >= t[:-1]).all() and not r.columns["is_write"][1] and r.columns["is_write"][0]


def test_a_narrow_window_errors_or_clamps_what_it_cannot_sort(tmp_path):
    # 20 µs comes after 50 µs has left a 10 µs window (100 µs was read by then).
    p = tmp_path / "late.trace"
    p.write_text("0 0 0 8 1\n100000 1 8 8 1\n50000 0 16 8 1\n20000 0 24 8 1\n200000 1 32 8 1\n")
    with pytest.raises(detour.TraceError, match=r"late\.trace:4: .*widen the window: --reorder-window"):
        detour.run("small", trace=p, reorder_window_s=10e-6)
    r = detour.run("small", trace=p, reorder_window_s=10e-6, clamp_backwards_time=True)
    assert (r.summary.workload.clamped, r.summary.requests) == (1, 5)
    st = detour.inspect_trace(p)
    r = detour.run("small", trace=p, reorder_window_s=st["max_step_back_ns"] / 1e9)
    assert r.summary.workload.clamped == 0 and list(r.columns["arrival_ns"]) == [0, 20_000, 50_000, 100_000, 200_000]


def test_cli_run_with_a_window(interleaved, tmp_path):
    p = run_cli("run", "-t", str(interleaved), "--reorder-window", "0.00004", "-o", str(tmp_path / "o"), "-q")
    assert p.returncode == 0, p.stderr
    p = run_cli("run", "-t", str(interleaved), "--reorder-window", "-1", "-o", str(tmp_path / "o"))
    assert p.returncode == 2 and "at least 0" in p.stderr


@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason="../shared/traces not present")
@pytest.mark.parametrize("name", sorted(p.name for p in SHARED_TRACES.glob("*.zst")) if SHARED_TRACES.is_dir() else [])
def test_every_shared_sample_inspects_and_runs_sorted(name, tmp_path):
    path = SHARED_TRACES / name
    p = run_cli("traces", "inspect", str(path))
    assert p.returncode == 0, p.stderr
    st = detour.inspect_trace(path)
    if st["backwards"]:
        window = st["max_step_back_ns"] / 1e9
        r = detour.run("small", trace=path, reorder_window_s=window)
        w = r.summary.workload
        assert w.clamped == 0 and w.reordered > 0 and w.requests == st["requests"]
