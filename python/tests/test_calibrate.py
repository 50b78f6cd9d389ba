"""`detour calibrate`: one knob of a profile, bisected until the baseline
shows a figure its paper reports about the baseline."""

from __future__ import annotations

import json

import pytest
from detour.calibrate import HOTR_BLOCKED, Observable, _blocked_share, calibrate, knob_set, measure
from detour.reproduce import two_columns
from detour.reproduce.base import Section

#: HotR's blocked-read share measured on the small device (fast), 4,000 requests.
SMALL_BLOCKED = Observable("reads blocked %", 33.0, "test", [("small", "hotr", {"scheme.hotr.migrate_share": 0.0})],
                           _blocked_share)
CUT = {"requests": 4000}


def test_rate_calibration_hits_its_target_within_5_percent():
    own = measure("fin2", SMALL_BLOCKED, CUT)
    assert abs(own - 33.0) > 0.05 * 33.0  # the profile's own rate misses: the knob has work to do
    c = calibrate("fin2", SMALL_BLOCKED, "rate", profile_overrides=CUT)
    assert c.within and abs(c.achieved - 33.0) <= 0.05 * 33.0
    assert c.factor != 1.0 and len(c.history) >= 2
    # the point is real: running the profile there gives the same figure
    again = measure("fin2", SMALL_BLOCKED, {**CUT, **c.profile_set()})
    assert again == pytest.approx(c.achieved)
    # half and twice the calibrated rate bracket the target (the load sweep's ends)
    lo = measure("fin2", SMALL_BLOCKED, {**CUT, **c.profile_set(0.5)})
    hi = measure("fin2", SMALL_BLOCKED, {**CUT, **c.profile_set(2.0)})
    assert lo < c.achieved < hi
    d = c.to_json()
    assert d["knob"] == "rate" and d["target"] == 33.0 and d["set"] == c.profile_set()


def test_knobs_keep_what_they_should():
    base = {"rate_per_s": 100.0, "off_rate_per_s": None, "process": "poisson", "on_s": None, "off_s": None,
            "requests": 0, "duration_s": 60.0, "zipf_theta": 0.9}
    # rate: a duration-limited profile keeps its request count
    s = knob_set(base, "rate", 4.0)
    assert s["arrival.rate_per_s"] == 400.0 and s["duration_s"] == 15.0
    # burst: on/off at the same mean rate, same duration
    b = knob_set(base, "burst", 10.0)
    on, off = b["arrival.on_s"], b["arrival.off_s"]
    assert b["arrival.rate_per_s"] * on / (on + off) == pytest.approx(100.0) and "duration_s" not in {
        k for k, v in b.items() if v != 60.0}
    assert knob_set(base, "skew", 1.2) == {"zipf_theta": 1.2}
    with pytest.raises(ValueError):
        knob_set(base, "colour", 1.0)


def test_the_observable_is_the_baselines():
    """HotR is calibrated on its baseline (migrate_share 0), never on HotR."""
    (_device, scheme, o), = HOTR_BLOCKED.runs
    assert scheme == "hotr" and o == {"scheme.hotr.migrate_share": 0.0}


def test_cli_calibrate_writes_knob_target_and_achieved(cli, tmp_path):
    f = tmp_path / "cal.json"
    p = cli("calibrate", "fin2", "-O", "hotr-blocked", "--requests", "3000", "--out", f)
    assert p.returncode == 0, p.stderr
    d = json.loads(f.read_text())
    assert d["knob"] == "rate" and d["target"] == 33.0 and abs(d["achieved"] - 33.0) <= 0.05 * 33.0
    assert "arrival.rate_per_s" in p.stdout


def test_two_columns_put_both_runs_of_a_row_together():
    a = Section("x-1", "t", "p", "w", ["workload", "v"], [["a", 1.0], ["b", 2.0]], notes=["n"])
    a.measured({"m": 1.0}, {"m": 1.0})
    d = Section("x-1", "t", "p", "w", ["workload", "v"], [["a", 3.0], ["b", 4.0]], notes=["m"])
    d.measured({"m": 1.0}, {"m": -1.0})
    (s,) = two_columns([a], [d], "peer", "default")
    assert s.headers == ["rules", "workload", "v"]
    assert s.rows == [["peer", "a", 1.0], ["default", "a", 3.0], ["peer", "b", 2.0], ["default", "b", 4.0]]
    assert s.claim.ours == {"m": 1.0} and s.claim_default.ours == {"m": -1.0}


def test_the_calibrated_profile_file_reruns_the_point(tmp_path):
    c = calibrate("fin2", SMALL_BLOCKED, "rate", profile_overrides=CUT)
    f = tmp_path / "fin2.toml"
    f.write_text(c.profile_toml())
    text = f.read_text()
    assert text.startswith("# Calibrated by detour.calibrate: knob rate") and "target 33" in text
    assert measure(str(f), SMALL_BLOCKED, {}) == pytest.approx(c.achieved)


def _search(f, band=None, target=-17.5, keep=None):
    from detour.calibrate import RANGES, _Search

    obs = Observable("x", target, "test", [], lambda s: 0.0, band=band, keep=keep)
    s = _Search(obs, 0.05, 16, f, lambda m: None, "t")
    return s, s.run(1.0, True, RANGES["rate"])


def test_a_profile_inside_the_papers_range_keeps_its_own_load():
    s, x = _search(lambda x: (-12.0 * x, False), band=(-26.0, -9.0))
    assert x == 1.0 and len(s.history) == 1


def test_a_ranged_search_stops_at_the_first_point_inside():
    s, x = _search(lambda x: (-2.0 * x, False), band=(-26.0, -9.0))
    assert -26.0 <= s.cache[x][0] <= -9.0 and x < 13.0  # not pushed on to the midpoint (-17.5 at x = 8.75)


def test_saturated_points_are_never_chosen_and_end_the_scan():
    # The range is reached only where the baseline saturates (x >= 2.5):
    # the profile's own load is kept, and the scan went no further than x = 4.
    s, x = _search(lambda x: (-3.0 * x, x >= 2.5), band=(-26.0, -9.0))
    assert x == 1.0 and max(h[0] for h in s.history) == 4.0
    assert any(sat for _, _, sat in s.history)
    # A point search likewise takes the closest unsaturated point.
    s, x = _search(lambda x: (-3.0 * x, x >= 2.5), target=-17.5)
    assert not s.cache[x][1] and x < 2.5


def test_points_outside_the_kept_range_are_passed_over_and_the_search_looks_below():
    # RR-SSD's shape: the target (60) is crossed above x0 = 1 only where the
    # kept figure is out of range (x > 1.5, passed over as saturated), and
    # below x0 at x = 0.5 exactly (f = 40 + 40 x, inside). The search looks
    # below and ends there; without `keep` the same shape ends above.
    def f(x):
        return (100.0 - 20.0 * x if x >= 1 else 40.0 + 40.0 * x), x > 1.5

    s, x = _search(f, target=60.0, keep=("k", lambda s: 0.0, (0.0, 1.0)))
    assert x == 0.5 and s.cache[x][0] == 60.0
    assert max(h[0] for h in s.history) == 2.0  # the scan up stopped at the first point passed over
