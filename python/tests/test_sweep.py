"""Sweeps: the cross product, records keyed by hash, skip on rerun, resume
after SIGKILL, failed runs recorded, the sweep file validated up front."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import detour_command, write_mqsim_trace
from detour.sweep import SweepError, plan, run_sweep

# A tiny synthetic workload that fits the `small` device.
PROFILE = '{profile = "hm", set = {requests = 1500, footprint_bytes = 268435456}}'


def records(out: Path) -> dict:
    """key -> status of every record (never a temporary directory)."""
    runs = out / "runs"
    return {d.name: json.loads((d / "status.json").read_text())["status"] for d in runs.iterdir() if not d.name.startswith(".")}


def leftovers(out: Path) -> list:
    return [d.name for d in (out / "runs").iterdir() if d.name.startswith(".")]


def small_sweep(tmp_path: Path) -> Path:
    f = tmp_path / "small.toml"
    f.write_text(
        f"profiles = [{PROFILE}]\n"
        'devices = ["small", "bench-matched"]\n'
        '[grid]\n"host.queue_depth" = [8, 32]\n'
    )
    return f


def test_sweep_records_then_skips_everything(tmp_path):
    out = tmp_path / "out"
    info = run_sweep(small_sweep(tmp_path), out, workers=2)
    assert (info["runs"], info["executed"], info["ok"], info["failed"], info["skipped"]) == (4, 4, 4, 0, 0)
    recs = records(out)
    assert len(recs) == 4 and set(recs.values()) == {"ok"}
    specs = []
    for key in recs:
        d = out / "runs" / key
        assert {"spec.json", "config.toml", "status.json", "summary.json", "requests.parquet"} <= {p.name for p in d.iterdir()}
        spec = json.loads((d / "spec.json").read_text())
        assert spec["key"] == key and spec["profile"] == "hm"
        specs.append((spec["device"], spec["grid"]["host.queue_depth"]))
        summary = json.loads((d / "summary.json").read_text())
        assert summary["requests"] == 1500
        assert summary["config"]["host"]["queue_depth"] == spec["grid"]["host.queue_depth"]
    assert sorted(specs) == [("bench-matched", 8), ("bench-matched", 32), ("small", 8), ("small", 32)]
    mtimes = {k: (out / "runs" / k / "summary.json").stat().st_mtime_ns for k in recs}

    info = run_sweep(small_sweep(tmp_path), out, workers=2)
    assert (info["executed"], info["skipped"]) == (0, 4)
    assert json.loads((out / "sweep.json").read_text())["executed"] == 0
    assert mtimes == {k: (out / "runs" / k / "summary.json").stat().st_mtime_ns for k in recs}
    assert len((out / "sweep.log").read_text().splitlines()) == 4
    assert leftovers(out) == []


def test_trace_hash_cached_and_content_keyed(tmp_path):
    trace = write_mqsim_trace(tmp_path / "t.trace", n=300)
    f = tmp_path / "s.toml"
    f.write_text('traces = ["t.trace"]\ndevices = ["small"]\nschemes = ["conventional"]\nseeds = [1, 2]\n')
    out = tmp_path / "out"
    info = run_sweep(f, out, workers=1)
    assert (info["executed"], info["trace_hashes_computed"]) == (2, 1)  # once per file, not per run
    cache = json.loads((out / ".trace-hashes.json").read_text())
    assert list(cache) == [str(trace)] and len(cache[str(trace)]["sha256"]) == 64
    info = run_sweep(f, out, workers=1)
    assert (info["executed"], info["trace_hashes_computed"]) == (0, 0)
    write_mqsim_trace(trace, n=300, seed=8)  # new content: new keys
    info = run_sweep(f, out, workers=1)
    assert (info["executed"], info["trace_hashes_computed"]) == (2, 1)
    assert len(records(out)) == 4


def test_failed_run_is_recorded_and_others_succeed(tmp_path, cli):
    write_mqsim_trace(tmp_path / "good.trace", n=300)
    f = tmp_path / "s.toml"
    f.write_text('traces = ["good.trace", "no-such.trace"]\ndevices = ["small"]\n[grid]\n"host.queue_depth" = [0, 16]\n')
    out = tmp_path / "out"
    r = cli("sweep", f, "--out", out, "--workers", "2")
    assert r.returncode == 0, r.stderr
    recs = records(out)
    assert sorted(recs.values()) == ["failed", "failed", "ok", "ok"]
    for key, st in recs.items():
        d = out / "runs" / key
        spec = json.loads((d / "spec.json").read_text())
        if st == "failed":
            err = json.loads((d / "error.json").read_text())
            assert spec["trace"].endswith("no-such.trace")
            assert err["type"] == "DetourIOError" and "no-such.trace" in err["message"]
            assert not (d / "summary.json").exists()
        else:
            assert spec["trace"].endswith("good.trace") and not (d / "error.json").exists()
    assert "failed" in r.stdout and "no-such.trace" in r.stdout


def test_retry_failed_reruns_only_failed(tmp_path):
    # `mail` addresses beyond the small device's logical space: under strict addressing it fails, deterministically.
    f = tmp_path / "s.toml"
    f.write_text(f'profiles = [{PROFILE}, {{profile = "mail", set = {{requests = 200}}}}]\ndevices = ["small"]\n'
                 '[set]\n"host.address" = "strict"\n')
    out = tmp_path / "out"
    info = run_sweep(f, out, workers=2)
    assert (info["ok"], info["failed"]) == (1, 1)
    info = run_sweep(f, out, workers=2)
    assert (info["executed"], info["skipped"]) == (0, 2)
    info = run_sweep(f, out, workers=2, retry_failed=True)
    assert (info["executed"], info["failed"], info["skipped"]) == (1, 1, 1)
    recs = records(out)
    assert sorted(recs.values()) == ["failed", "ok"] and leftovers(out) == []
    err = json.loads((out / "runs" / next(k for k, s in recs.items() if s == "failed") / "error.json").read_text())
    assert err["type"] == "TraceError" and "logical space" in err["message"]


def test_killed_sweep_resumes_without_loss_or_duplicates(tmp_path):
    f = tmp_path / "twelve.toml"
    seeds = ", ".join(map(str, range(1, 13)))
    f.write_text(
        f'devices = ["small"]\nseeds = [{seeds}]\n'
        '[[profiles]]\nprofile = "hm"\nset = {requests = 150000, footprint_bytes = 268435456}\n'
    )
    out = tmp_path / "out"
    env = dict(os.environ)
    env.pop("DETOUR_DEBUG", None)
    proc = subprocess.Popen([*detour_command(), "sweep", str(f), "--out", str(out), "--workers", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if (out / "runs").is_dir() and len(records(out)) >= 2:
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.01)
        before = len(records(out))
        assert 2 <= before < 12, "the sweep finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    info = run_sweep(f, out, workers=1)
    recs = records(out)
    assert len(recs) == 12 and set(recs.values()) == {"ok"}
    assert info["skipped"] >= before and info["skipped"] + info["executed"] == 12
    assert leftovers(out) == []
    logged = [json.loads(line)["key"] for line in (out / "sweep.log").read_text().splitlines()]
    # no run recorded twice; a kill between a record's rename and its log line may drop that line
    assert len(logged) == len(set(logged)) and set(logged) <= set(recs) and len(logged) >= 11
    seeds_seen = sorted(json.loads((out / "runs" / k / "spec.json").read_text())["seed"] for k in recs)
    assert seeds_seen == list(range(1, 13))


@pytest.mark.parametrize(
    "text, message",
    [
        ('profiles = ["hm"]\ndevices = ["small"]\nbogus = 1\n', "unknown key 'bogus'"),
        ('profiles = [{profile = "hm", sett = {}}]\ndevices = ["small"]\n', "unknown key 'profiles[0].sett'"),
        ('traces = ["x"]\ndevices = ["small"]\n[reader]\nfromat = "msr"\n', "unknown key 'reader.fromat'"),
        ('profiles = ["hm"]\n', "'devices'"),
        ('devices = ["small"]\n', "at least one workload"),
        ('profiles = ["hm"]\ndevices = ["small"]\n[grid]\n"ftl.gc_threshold" = 0.1\n', "grid key 'ftl.gc_threshold'"),
        ('profiles = ["hm"]\ndevices = ["small"]\n[grid]\n"ftl.gc_threshold" = [0.1, 7.0]\n',
         "run 1 (hm small ftl.gc_threshold=7.0): config key `ftl.gc_threshold`"),
        ('profiles = ["hm"]\ndevices = ["small"]\n[set]\n"ftl.nope" = 1\n', "`ftl.nope`"),
        ('profiles = ["hm"]\ndevices = ["small"]\nschemes = ["conventional", "no-such-scheme"]\n', "run 1"),
        ('profiles = [{profile = "hm", set = {nope = 1}}]\ndevices = ["small"]\n', "run 0"),
    ],
)
def test_bad_sweep_files_rejected_before_anything_runs(tmp_path, text, message):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(SweepError) as e:
        plan(f)
    assert message in str(e.value)
    out = tmp_path / "out"
    with pytest.raises(SweepError):
        run_sweep(f, out)
    assert not out.exists()


def test_cli_rejects_bad_key_and_checks(tmp_path, cli):
    f = tmp_path / "bad.toml"
    f.write_text('profiles = ["hm"]\ndevices = ["small"]\nseed = [1]\n')
    r = cli("sweep", f, "--out", tmp_path / "out")
    assert r.returncode == 1 and "unknown key 'seed'" in r.stderr and not (tmp_path / "out").exists()
    r = cli("sweep", small_sweep(tmp_path), "--check")
    assert r.returncode == 0 and "4 runs" in r.stdout


def test_bench_sweep_measures_both(cli):
    r = cli("sweep", "--bench", "--bench-runs", "4", "--bench-requests", "500", "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert "4 runs of 500 requests" in r.stdout and "1 worker:" in r.stdout and "2 workers:" in r.stdout
    assert "speedup" in r.stdout


def test_a_run_that_kills_its_worker_is_recorded_and_the_rest_go_on(tmp_path, monkeypatch):
    """A worker that dies (here: os._exit in the run, for one seed) breaks
    the pool; that run is found, recorded as failed, and the others finish."""
    from detour.sweep import backends

    real = backends._result

    def crashing(task, rows):
        if task["label"].endswith("seed=3"):
            os._exit(9)
        return real(task, rows)

    monkeypatch.setattr(backends, "_result", crashing)  # inherited by the forked workers
    f = tmp_path / "s.toml"
    f.write_text(f'profiles = [{PROFILE}]\ndevices = ["small"]\nseeds = [1, 2, 3, 4, 5]\n')
    out = tmp_path / "out"
    info = run_sweep(f, out, workers=2)
    assert (info["executed"], info["ok"], info["failed"]) == (5, 4, 1)
    recs = records(out)
    (bad,) = [k for k, s in recs.items() if s == "failed"]
    assert json.loads((out / "runs" / bad / "spec.json").read_text())["seed"] == 3
    assert json.loads((out / "runs" / bad / "error.json").read_text())["type"] == "WorkerDied"
    assert leftovers(out) == []
