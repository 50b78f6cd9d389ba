"""The deduplicating schemes from Python (docs/schemes/rr-ssd.md): ca-ssd,
rr-ssd, oracle and pblru run and verify on a synthetic FIU profile, report
the dedup counters and per-period rows; the value-popularity analysis works
on a profile, from the API and the CLI."""

from __future__ import annotations

import json

import pytest

import detour

# A short mail profile on 1 GiB (the small device holds 1.8 GiB), arrivals
# compressed 20x (it lasts about 20 ms), in periods of 4 ms.
PROFILE = ["requests=6000", "footprint_bytes=1073741824"]
DAY = {"scheme.rrssd.period_s": 0.004, "host.time_scale": 0.05, "run.verify": True}


@pytest.mark.parametrize("scheme", ["ca-ssd", "rr-ssd", "oracle", "pblru"])
def test_dedup_schemes_run_clean_on_a_profile(scheme):
    r = detour.run("small", profile="mail", profile_overrides=PROFILE, scheme=scheme, overrides=DAY)
    s = r.summary
    assert s["verify_errors"] == 0
    c = s["scheme_counters"]
    assert c["dedup.ratio"] > 2.0, c  # mail writes mostly duplicate values
    assert 0 < c["dedup.space_saved_share"] < 1
    assert s["periods"] and {"rep_share", "new_share", "read_mean_us"} <= set(s["periods"][0])


def test_rr_ssd_replicates_and_reports_its_cost():
    s = detour.run("small", profile="mail", profile_overrides=PROFILE, scheme="rr-ssd", overrides=DAY).summary
    c = s["scheme_counters"]
    assert c["rrssd.copies_made"] > 0 and c["rrssd.replication_minutes"] > 0
    assert len(s["periods"]) >= 3
    assert all(p["replicas"] <= p["budget_pages"] for p in s["periods"])
    # After the first period, reads find the values replicated at its end.
    assert s["periods"][0]["rep_share"] == 0 and max(p["rep_share"] for p in s["periods"][1:]) > 0


def test_value_popularity_of_a_profile(cli):
    p = detour.value_popularity(profile="mail", overrides=PROFILE, day_s=60.0, points=10)
    assert p["read_pages"] > 0 and p["write_pages"] > 0
    assert len(p["cdf"]) == 10 and p["cdf"][-1]["reads"] == pytest.approx(1.0)
    assert 0 < p["top80_read_values"] <= 1
    assert p["days"] and p["days"][0]["new_values"] > 0
    with pytest.raises(ValueError):
        detour.value_popularity()
    out = cli("traces", "popularity", "--profile", "mail", "--profile-set", "requests=3000", "--day-s", "60", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["distinct_values"] > 0
    out = cli("traces", "popularity", "--profile", "mail", "--profile-set", "requests=3000", "--day-s", "60")
    assert out.returncode == 0 and "serve 80% of the reads" in out.stdout, out.stderr
