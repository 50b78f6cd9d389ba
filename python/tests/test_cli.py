"""The `detour` command, run as a user would, in a subprocess."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from conftest import TINY_REQUESTS

STATS = ("mean", "p50", "p90", "p95", "p99", "p999", "max")


def test_run_writes_summary_and_requests(cli, tiny_trace, tmp_path):
    out = tmp_path / "out"
    p = cli("run", "--device", "small", "--trace", tiny_trace, "--verify", "--out", out)
    assert p.returncode == 0, p.stderr
    assert "wrote" in p.stdout
    s = json.loads((out / "summary.json").read_text())
    for key in ("requests", "reads", "writes", "verify_errors"):
        assert isinstance(s[key], int), key
    assert s["requests"] == TINY_REQUESTS == s["reads"] + s["writes"]
    assert s["verify"] is True and s["verify_errors"] == 0
    for kind in ("read", "write", "all"):
        for stat in STATS:
            assert isinstance(s["latency_us"][kind][stat], float), (kind, stat)
        lat = s["latency_us"][kind]
        assert lat["p50"] <= lat["p90"] <= lat["p95"] <= lat["p99"] <= lat["p999"] <= lat["max"]
    assert s["config"]["device"]["channels"] == 4
    assert s["config"]["run"]["verify"] is True
    assert s["workload"]["format"] == "mqsim"
    assert s["workload"]["source"].endswith("tiny.trace")
    assert s["workload"]["skipped_malformed"] == 0

    table = pq.read_table(out / "requests.parquet")
    assert table.num_rows == TINY_REQUESTS
    assert set(table.column_names) >= {"arrival_ns", "latency_ns", "offset", "size", "is_write", "queue_ns"}
    lat = table.column("latency_ns").to_numpy()
    assert (lat > 0).all()
    assert (out / "config.toml").read_text().startswith("name = \"small\"")
    # nothing half-written left behind
    assert sorted(p.name for p in out.iterdir()) == ["config.toml", "requests.parquet", "summary.json"]


def test_rerun_from_written_config_is_identical(cli, tiny_trace, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli("run", "--trace", tiny_trace, "--set", "host.queue_depth=8", "--out", a, "-q").returncode == 0
    p = cli("run", "--device", a / "config.toml", "--trace", tiny_trace, "--out", b, "-q")
    assert p.returncode == 0, p.stderr
    sa, sb = (json.loads((d / "summary.json").read_text()) for d in (a, b))
    assert sa == sb


def test_unknown_set_key_fails_the_run_and_names_key(cli, tiny_trace, tmp_path):
    p = cli("run", "--trace", tiny_trace, "--set", "ftl.gc_treshold=0.1", "--out", tmp_path / "o")
    assert p.returncode == 1
    assert p.stderr.startswith("detour: error:")
    assert "ftl.gc_treshold" in p.stderr
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "o").exists()


def test_bad_value_and_missing_file_fail_the_run_with_status_1(cli, tiny_trace, tmp_path):
    p = cli("run", "--trace", tiny_trace, "--set", "device.channels=0", "--out", tmp_path / "o")
    assert p.returncode == 1 and "device.channels" in p.stderr
    p = cli("run", "--trace", tmp_path / "missing.trace", "--out", tmp_path / "o")
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.strip() == f"detour: error: {tmp_path / 'missing.trace'}: no such file or directory"
    p = cli("run", "--device", "no-such-preset", "--trace", tiny_trace, "--out", tmp_path / "o")
    assert p.returncode == 1 and "bench-matched" in p.stderr  # lists the known presets


@pytest.mark.parametrize("args", [
    ("run", "--device", "{tmp}/missing.toml", "--profile", "hm", "--out", "{tmp}/o"),
    ("run", "--profile", "{tmp}/missing.toml", "--out", "{tmp}/o"),
    ("traces", "inspect", "{tmp}/missing.trace"),
    ("sweep", "{tmp}/missing.toml", "--out", "{tmp}/o"),
])
def test_file_errors_are_in_detours_words(cli, tmp_path, args):
    p = cli(*[a.format(tmp=tmp_path) for a in args])
    assert p.returncode == 1, p.stderr
    assert "Errno" not in p.stderr and p.stderr.rstrip().endswith(": no such file or directory"), p.stderr
    assert str(tmp_path / "missing.") in p.stderr


def test_usage_errors_exit_2_and_failed_runs_1(cli, tiny_trace, tmp_path):
    assert cli("run", "--device", "small").returncode == 2  # argparse: no workload
    assert cli("run", "--trace", tiny_trace, "--profile-set", "x=1", "--out", tmp_path / "o").returncode == 2
    assert cli("reproduce", "no-such-paper").returncode == 2
    assert cli("sweep").returncode == 2  # no file
    assert cli("run", "--trace", tiny_trace, "--scheme", "nope", "--out", tmp_path / "o").returncode == 1
    assert cli("run", "--trace", tiny_trace, "--out", tmp_path / "o", "-q").returncode == 0


def test_malformed_trace_names_line_and_skip(cli, tmp_path):
    t = tmp_path / "bad.trace"
    t.write_text("0 0 0 8 1\n1000 0 8 8 0\n2000 0 sixteen 8 1\n3000 0 24 8 1\n")
    p = cli("run", "--trace", t, "--format", "mqsim", "--out", tmp_path / "o")
    assert p.returncode == 1
    assert "bad.trace:3" in p.stderr
    p = cli("run", "--trace", t, "--format", "mqsim", "--skip-malformed", "--out", tmp_path / "o")
    assert p.returncode == 0, p.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["requests"] == 3 and s["workload"]["skipped_malformed"] == 1
    assert "skipped malformed 1" in p.stdout


def test_presets_lists_bench_matched(cli):
    p = cli("presets")
    assert p.returncode == 0
    assert "bench-matched" in p.stdout and "small" in p.stdout


def test_schemes_lists_conventional(cli):
    p = cli("schemes")
    assert p.returncode == 0 and "conventional" in p.stdout
    # Each scheme's config section; a family shares one.
    assert "[scheme.hotr]" in p.stdout and p.stdout.count("[scheme.raid]") == 5


def test_policies_lists_every_family(cli):
    p = cli("policies")
    assert p.returncode == 0
    for key, name in [("ftl.gc_policy", "cost-benefit"), ("scheduler.order", "out-of-order"), ("ftl.mapping", "cmt")]:
        assert any(key in line and name in line for line in p.stdout.splitlines()), (key, name, p.stdout)


def test_unknown_scheme(cli, tiny_trace, tmp_path):
    p = cli("run", "--trace", tiny_trace, "--scheme", "nope", "--out", tmp_path / "o")
    assert p.returncode == 1 and "scheme.name" in p.stderr and "conventional" in p.stderr


def test_config_prints_resolved_toml(cli):
    p = cli("config", "--device", "bench-matched", "--set", "host.queue_depth=8")
    assert p.returncode == 0
    assert "queue_depth = 8" in p.stdout and "[device.flash]" in p.stdout


def test_usage_error_exits_2(cli):
    p = cli("run", "--out", "x")  # no workload
    assert p.returncode == 2 and "error" in p.stderr


def test_traces_commands(cli, tiny_trace, tmp_path):
    p = cli("traces", "inspect", tiny_trace)
    assert p.returncode == 0 and "mqsim" in p.stdout and f"{TINY_REQUESTS}" in p.stdout
    p = cli("traces", "inspect", tiny_trace, "--json")
    assert json.loads(p.stdout)["requests"] == TINY_REQUESTS
    out = tmp_path / "t.csv"
    p = cli("traces", "convert", tiny_trace, out, "--to", "msr")
    assert p.returncode == 0, p.stderr
    assert json.loads(cli("traces", "inspect", out, "--json").stdout)["format"] == "msr"
    p = cli("traces", "convert", tiny_trace, out, "--to", "nope")
    assert p.returncode == 1 and "nope" in p.stderr
    p = cli("traces", "formats")
    assert "mqsim" in p.stdout.split()


def test_run_prints_warnings_of_a_run_that_measured_nothing(cli, tmp_path, tiny_trace):
    # Every request in the warm-up: the run completes and measures nothing.
    out = tmp_path / "out"
    p = cli("run", "--device", "small", "--trace", tiny_trace, "--set", "host.warmup_requests=1000000", "--out", out)
    assert p.returncode == 0, p.stderr
    assert "warning [nothing_measured]" in p.stdout, p.stdout
    s = json.loads((out / "summary.json").read_text())
    assert [w["kind"] for w in s["warnings"]] == ["nothing_measured"]


def test_ambiguous_trace_is_refused_naming_the_candidates(cli, tmp_path):
    trace = tmp_path / "t.trace"
    trace.write_text("11413000 0 657728 16 1\n11565000 1 31244784 64 7\n")
    p = cli("run", "--device", "small", "--trace", trace, "--out", tmp_path / "out")
    assert p.returncode != 0
    assert "mqsim or disksim" in p.stderr and "--format" in p.stderr, p.stderr
