"""Trace utilities: formats, inspect, convert (and the real samples in
../shared/traces when they are there)."""

from __future__ import annotations

from pathlib import Path

import detour
import pytest
from conftest import TINY_REQUESTS

SHARED_TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"


def test_formats():
    f = detour.formats()
    assert {"msr", "mqsim", "spc", "fiu", "blkparse", "systor"} <= set(f)


def test_inspect(tiny_trace):
    st = detour.inspect_trace(tiny_trace)
    assert st["format"] == "mqsim"
    assert st["requests"] == TINY_REQUESTS == st["reads"] + st["writes"]
    assert 0 < st["read_ratio"] < 1 and st["footprint_pages"] > 0
    assert sum(b["count"] for b in st["size_histogram"]) == TINY_REQUESTS


@pytest.mark.parametrize("fmt", detour.formats())
def test_convert_round_trip(fmt, tiny_trace, tmp_path):
    out = tmp_path / f"t.{fmt}"
    info = detour.convert_trace(tiny_trace, out, fmt)
    assert info["written"] == TINY_REQUESTS and info["format"] == "mqsim"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    back = detour.inspect_trace(out, format=fmt)
    orig = detour.inspect_trace(tiny_trace)
    for k in ("requests", "reads", "writes", "bytes_read", "bytes_written", "footprint_pages"):
        assert back[k] == orig[k], k
    # the simulator reads the converted trace like the original
    if fmt not in ("msr", "tencent", "cloudphysics"):  # those round time (100 ns, 1 s)
        a = detour.run("small", trace=tiny_trace).summary["latency_us"]
        b = detour.run("small", trace=out, format=fmt).summary["latency_us"]
        assert a == b


def test_convert_errors(tiny_trace, tmp_path):
    with pytest.raises(detour.ConfigError, match="nope"):
        detour.convert_trace(tiny_trace, tmp_path / "x", "nope")
    with pytest.raises(detour.DetourIOError):
        detour.convert_trace(tmp_path / "missing", tmp_path / "x", "msr")
    assert not (tmp_path / "x").exists()


def test_skip_malformed_and_volume(tmp_path):
    t = tmp_path / "v.trace"
    t.write_text("0 0 0 8 1\n10 1 8 8 1\nbroken line\n20 0 16 8 0\n")
    with pytest.raises(detour.TraceError, match=r"v.trace:3"):
        detour.inspect_trace(t, format="mqsim")
    st = detour.inspect_trace(t, format="mqsim", skip_malformed=True, volume=0)
    assert st["requests"] == 2 and st["skipped_malformed"] == 1 and st["filtered_out"] == 1
    r = detour.run("small", trace=t, format="mqsim", skip_malformed=True, volume=0)
    w = r.summary["workload"]
    assert (w["requests"], w["skipped_malformed"], w["filtered_out"]) == (2, 1, 1)


@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason="../shared/traces not present")
@pytest.mark.parametrize("name", sorted(p.name for p in SHARED_TRACES.glob("*.zst")) if SHARED_TRACES.is_dir() else [])
def test_real_samples_inspect(name):
    st = detour.inspect_trace(SHARED_TRACES / name, clamp_backwards_time=True)
    assert st["requests"] > 0


def test_profiles_and_spec(tmp_path):
    names = [n for n, _ in detour.profiles()]
    assert "bench-like" in names and "mail" in names
    spec = detour.profile_spec("bench-like", ["requests=500", "arrival.rate_per_s=1000.0"])
    assert "requests = 500" in spec and "rate_per_s = 1000.0" in spec
    f = tmp_path / "spec.toml"
    f.write_text('profile = "hadoop"\nrequests = 300\n')
    assert "requests = 300" in detour.profile_spec(f)
    with pytest.raises(detour.ConfigError, match="nope"):
        detour.profile_spec("nope")
    with pytest.raises(detour.ConfigError):
        detour.profile_spec("bench-like", ["no-equals-sign"])


def test_generate_and_run_profile(tmp_path):
    out = tmp_path / "g.trace"
    n = detour.generate("bench-like", out, to="mqsim", overrides={"requests": 400, "footprint_bytes": 1 << 28})
    assert n == 400
    st = detour.inspect_trace(out)
    assert st["requests"] == 400 and st["format"] == "mqsim"
    a = detour.run("small", profile="bench-like", profile_overrides={"requests": 400, "footprint_bytes": 1 << 28})
    b = detour.run("small", trace=out)
    assert a.summary["requests"] == 400
    w = a.summary["workload"]
    assert w["kind"] == "profile" and w["source"] == "profile:bench-like" and w["spec"]["requests"] == 400
    # the generated trace and the in-process generator give the same simulation
    assert a.summary["latency_us"] == b.summary["latency_us"]


def test_profile_commands(cli, tmp_path):
    p = cli("profiles")
    assert p.returncode == 0 and "bench-like" in p.stdout
    p = cli("profiles", "--show", "mail", "--profile-set", "requests=10")
    assert p.returncode == 0 and "requests = 10" in p.stdout
    out = tmp_path / "g.trace"
    p = cli("traces", "generate", out, "--profile", "bench-like", "--profile-set", "requests=200",
            "--profile-set", "footprint_bytes=268435456")
    assert p.returncode == 0, p.stderr
    assert detour.inspect_trace(out)["requests"] == 200
    p = cli("run", "--profile", "bench-like", "--profile-set", "requests=200",
            "--profile-set", "footprint_bytes=268435456", "--out", tmp_path / "o", "-q")
    assert p.returncode == 0, p.stderr
    p = cli("run", "--profile", "bench-like", "--profile-set", "arrival.rat=1", "--out", tmp_path / "o2")
    assert p.returncode == 1 and "rat" in p.stderr
