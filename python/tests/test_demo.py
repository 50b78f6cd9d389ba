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
    from detour.demo import SETUPS, inactive

    lines = []
    results = demo(tmp_path / "demo", echo=lines.append)
    names = [n for n, _ in detour.schemes()]
    assert [n for n in results if "@" not in n] == names
    png = tmp_path / "demo" / "comparison.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    text = "\n".join(lines)
    table = (tmp_path / "demo" / "comparison.txt").read_text()
    assert "read p99 us" in table
    for n in names:
        assert n in text
        s = json.loads((tmp_path / "demo" / n / "summary.json").read_text())
        assert s["requests"] == 20_000 and s["verify_errors"] == 0
        # no misleading row: a scheme that did nothing is named inactive, with why, and has no numbers
        row = [ln for ln in table.splitlines() if ln.split(" ")[0] == n]
        why = inactive(n, s)
        if why:
            assert f"{n}: inactive on this workload: {why}" in table and not row
        else:
            assert len(row) == 1
    # each scheme ran on what its paper gives it
    for n, su in SETUPS.items():
        cfg = results[n].summary["config"]
        for k, v in su.overrides.items():
            sec, key = k.rsplit(".", 1)
            node = cfg
            for part in sec.split("."):
                node = node[part]
            assert node[key] == v, (n, k)
    assert results["cr5m"].summary["config"]["device"]["chips_per_channel"] == \
        results["cr5"].summary["config"]["device"]["chips_per_channel"] + 1
    # HotR runs on a workload with its premise, beside its baseline on the same one
    assert "conventional@fin2" in results and results["hotr"].summary["workload"] == results["conventional@fin2"].summary["workload"]
    # the paper's claim the demo shows: CR5M beats CR5 on writes
    assert results["cr5m"].latency("write") < results["cr5"].latency("write")


def test_demo_command(cli, tmp_path):
    p = cli("demo", "--out", tmp_path / "d")
    assert p.returncode == 0, p.stderr
    assert "conventional" in p.stdout and "comparison.png" in p.stdout
    assert (tmp_path / "d" / "comparison.png").exists()
