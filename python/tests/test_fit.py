"""Profiles fit the device they run on (detour/fit.py): a footprint larger
than the logical space is scaled to it, with a note in the summary; every
built-in profile runs on `small` and on the presets it was made for."""

from __future__ import annotations

import detour
import pytest
from conftest import run_cli
from detour import _detour, _toml
from detour.fit import PROFILE_DEVICES

GIB = 2**30


def test_every_profile_claims_its_devices():
    names = {n for n, _ in detour.profiles()}
    presets = {n for n, _ in detour.presets()}
    assert set(PROFILE_DEVICES) == names
    assert all(set(devs) <= presets for devs in PROFILE_DEVICES.values())


CASES = [(p, d) for p, devs in sorted(PROFILE_DEVICES.items()) for d in ("small", *devs)]


@pytest.mark.parametrize("profile,device", CASES, ids=[f"{p}-on-{d}" for p, d in CASES])
def test_every_profile_runs_on_every_device_it_claims(profile, device):
    r = detour.run(device, profile=profile, profile_overrides={"requests": 200})
    w = r.summary.workload
    assert r.summary.requests == 200 and w.kind == "profile"
    limit = _detour.logical_bytes(detour.config(device))
    assert w.spec["footprint_bytes"] <= limit
    if w.scaled_from_bytes is not None:
        assert w.scaled_from_bytes > limit >= w.spec["footprint_bytes"] > limit - w.spec["alignment"]
    own = _toml.loads(detour.profile_spec(profile))["footprint_bytes"]
    assert (w.scaled_from_bytes is None) == (own <= limit)


def test_msr_random_on_small_is_scaled_and_says_so():
    r = detour.run("small", profile="msr-random", profile_overrides={"requests": 500})
    assert r.summary.workload.scaled_from_bytes == 64 * GIB
    assert r.summary.reads == 500 and r.summary.latency_us.read.mean > 0
    # Unfitted, its addresses fold into the device (the default), or are refused when strict.
    folded = detour.run("small", profile="msr-random", profile_overrides={"requests": 500}, fit=False)
    assert folded.summary.pages.folded > 0
    strict = {"host.address": "strict"}
    with pytest.raises(detour.DetourError, match="beyond the logical space"):
        detour.run("small", profile="msr-random", profile_overrides={"requests": 500}, fit=False, overrides=strict)
    # A footprint the user set is theirs: no scaling, the core's rule.
    with pytest.raises(detour.DetourError, match="beyond the logical space"):
        detour.run("small", profile="msr-random", profile_overrides={"requests": 500, "footprint_bytes": 64 * GIB},
                   overrides=strict)


def test_the_scheme_shrinks_the_space_too():
    # rails keeps a second copy of everything: half the logical space.
    whole = _detour.logical_bytes(detour.config("small"))
    half = _detour.logical_bytes(detour.config("small", scheme="rails"))
    assert half == pytest.approx(whole / 2, rel=1e-3)
    r = detour.run("small", profile="bench-like", scheme="rails", profile_overrides={"requests": 300})
    assert r.summary.workload.spec["footprint_bytes"] <= half


def test_a_profile_that_fits_runs_as_written():
    r = detour.run("bench-matched", profile="bench-like", profile_overrides={"requests": 300})
    assert r.summary.workload.scaled_from_bytes is None
    assert r.summary.workload.spec["footprint_bytes"] == 16 * GIB


def test_cli_prints_the_note(tmp_path):
    p = run_cli("run", "-d", "small", "-p", "msr-random", "--profile-set", "requests=300", "-o", str(tmp_path / "o"),
                "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "note: the profile's footprint (64.0 GiB) exceeds small's logical space" in p.stdout
    p = run_cli("run", "-d", "small", "-p", "msr-random", "--profile-set", "requests=300", "--no-fit",
                "--set", "host.address=strict", "-o", str(tmp_path / "n"))
    assert p.returncode == 1 and "beyond the logical space" in p.stderr
    p = run_cli("profiles")
    assert "made for" in p.stdout and "collisions" in p.stdout
