"""`detour sweep --backend ray --address ...` on a real local Ray cluster
started by this test (and always shut down after it)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A local Ray head (2 CPUs, no dashboard), started by this process so
    that shutting it down stops exactly the processes it started."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ctx = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield ctx.address_info["gcs_address"]
    finally:
        ray.shutdown()


def test_sweep_on_ray(cluster, tmp_path, cli):
    from conftest import write_mqsim_trace

    write_mqsim_trace(tmp_path / "t.trace", n=300)
    f = tmp_path / "s.toml"
    f.write_text(
        'traces = ["t.trace", "missing.trace"]\n'
        'profiles = [{profile = "hm", set = {requests = 1500, footprint_bytes = 268435456}}]\n'
        'devices = ["small"]\n[grid]\n"host.queue_depth" = [8, 32]\n'
    )
    out = tmp_path / "out"
    env_addr = cluster
    r = cli("sweep", f, "--out", out, "--backend", "ray", "--address", env_addr, timeout=240)
    assert r.returncode == 0, r.stderr
    assert "on Ray at" in r.stdout
    runs = list((out / "runs").iterdir())
    assert len(runs) == 6 and not [d for d in runs if d.name.startswith(".")]
    status = {}
    for d in runs:
        spec = json.loads((d / "spec.json").read_text())
        st = json.loads((d / "status.json").read_text())
        status[((spec["trace"] and Path(spec["trace"]).name) or spec["profile"], spec["grid"]["host.queue_depth"])] = st["status"]
        if st["status"] == "ok":
            s = json.loads((d / "summary.json").read_text())
            assert s["config"]["host"]["queue_depth"] == spec["grid"]["host.queue_depth"]
            assert st["pid"] != 0
        else:
            assert json.loads((d / "error.json").read_text())["type"] == "DetourIOError"
    assert status == {
        ("t.trace", 8): "ok", ("t.trace", 32): "ok", ("hm", 8): "ok", ("hm", 32): "ok",
        ("missing.trace", 8): "failed", ("missing.trace", 32): "failed",
    }
    # resumable there too: nothing reruns
    r = cli("sweep", f, "--out", out, "--backend", "ray", "--address", env_addr, timeout=240)
    assert r.returncode == 0 and "ran 0" in r.stdout and "skipped 6" in r.stdout
