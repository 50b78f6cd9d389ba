"""`detour demo`: the bundled workload under every scheme, a table and a plot."""

from __future__ import annotations

import json

import detour
from detour.demo import demo, demo_trace


def test_bundled_trace_is_what_the_script_writes(tmp_path):
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "tools" / "make_demo_trace.py"
    spec = importlib.util.spec_from_file_location("make_demo_trace", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(str(tmp_path / "demo.trace"))
    with demo_trace() as bundled:
        assert (tmp_path / "demo.trace").read_bytes() == bundled.read_bytes()


def test_demo_runs_every_scheme_and_plots(tmp_path):
    lines = []
    results = demo(tmp_path / "demo", echo=lines.append)
    names = [n for n, _ in detour.schemes()]
    assert list(results) == names
    png = tmp_path / "demo" / "comparison.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    text = "\n".join(lines)
    for n in names:
        assert n in text
        s = json.loads((tmp_path / "demo" / n / "summary.json").read_text())
        assert s["requests"] == 20_000 and s["verify_errors"] == 0
    assert "read p99 us" in (tmp_path / "demo" / "comparison.txt").read_text()


def test_demo_command(cli, tmp_path):
    p = cli("demo", "--out", tmp_path / "d")
    assert p.returncode == 0, p.stderr
    assert "conventional" in p.stdout and "comparison.png" in p.stdout
    assert (tmp_path / "d" / "comparison.png").exists()
