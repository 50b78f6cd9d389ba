"""Peer timing rules (`compat`) and the write buffer from Python: the API,
the command line and sweep files all reach the same bundles."""

from __future__ import annotations

import json

import detour
import pytest
from detour.sweep import run_sweep


def test_every_bundle_is_listed_with_reasons():
    names = [n for n, _ in detour.compats()]
    assert names == ["none", "ssdsim", "disksim", "mqsim"]
    for name in names:
        settings = detour.compat_settings(name)
        assert settings and all(because for _, _, because in settings), name


def test_a_bundle_sets_its_keys_and_later_overrides_win():
    cfg = detour.config("small", compat="ssdsim", overrides=["scheduler.unit=die"])
    assert 'write_ack = "transfer"' in cfg and 'compat = "ssdsim"' in cfg
    assert 'unit = "die"' in cfg


def test_unknown_bundle_is_a_config_error():
    with pytest.raises(detour.ConfigError, match="flashsim"):
        detour.config("small", compat="flashsim")


def test_transfer_acknowledgement_shortens_writes_only(tiny_trace):
    base = detour.run("small", trace=tiny_trace)
    ack = detour.run("small", trace=tiny_trace, overrides={"host.write_ack": "transfer"})
    # Every write ends at least the `small` preset's tPROG (600 µs) earlier, or close to it.
    t_prog = 600.0
    assert ack.summary["latency_us"]["write"]["mean"] < base.summary["latency_us"]["write"]["mean"] - 0.9 * t_prog
    assert ack.summary["latency_us"]["read"]["p50"] >= base.summary["latency_us"]["read"]["p50"]
    ssd = detour.run("small", trace=tiny_trace, compat="ssdsim")
    assert ssd.summary["config"]["compat"] == "ssdsim"


def test_write_buffer_summary_reaches_python(tiny_trace):
    r = detour.run("small", trace=tiny_trace, verify=True,
                   overrides={"host.write_ack": "buffer", "write_buffer.size_mib": 1})
    b = r.summary["write_buffer"]
    assert r.summary["verify_errors"] == 0
    assert b["capacity_pages"] == 256 and b["write_pages"] > 0
    assert b["write_pages"] - b["write_hits"] <= b["flushes"] <= b["write_pages"], b


def test_config_command_prints_the_bundle_and_its_reasons(cli):
    p = cli("config", "--device", "small", "--compat", "disksim")
    assert p.returncode == 0, p.stderr
    assert "# compat = 'disksim'" in p.stdout
    assert "scheduler.order = \"fcfs\"" in p.stdout and "first come, first served" in p.stdout
    assert 'order = "fcfs"' in p.stdout.split("\n# ")[-1]


def test_run_command_takes_compat_under_set(cli, tiny_trace, tmp_path):
    out = tmp_path / "o"
    p = cli("run", "-d", "small", "-t", tiny_trace, "--compat", "mqsim", "--set", "host.link_gbps=0", "-o", out)
    assert p.returncode == 0, p.stderr
    cfg = json.loads((out / "summary.json").read_text())["config"]
    assert cfg["compat"] == "mqsim" and cfg["scheduler"]["unit"] == "chip"
    assert cfg["host"]["link_gbps"] == 0.0, "--set wins over the bundle"


def test_sweep_grid_compares_bundles(tmp_path, tiny_trace):
    f = tmp_path / "s.toml"
    # compat last in the table: still applied under every other key
    f.write_text(f'traces = ["{tiny_trace}"]\ndevices = ["small"]\n[set]\n"scheduler.unit" = "die"\n'
                 '[grid]\ncompat = ["none", "ssdsim"]\n')
    info = run_sweep(f, tmp_path / "out", workers=1)
    assert info["failed"] == 0 and info["runs"] == 2
    specs = [json.loads(p.read_text()) for p in (tmp_path / "out").rglob("spec.json")]
    assert sorted(s["compat"] for s in specs) == ["none", "ssdsim"]
    for p in (tmp_path / "out").rglob("summary.json"):
        assert json.loads(p.read_text())["config"]["scheduler"]["unit"] == "die"
