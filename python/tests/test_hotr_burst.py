"""HotR's burst fit and joint calibration rule (detour.reproduce.hotr_burst),
on hand-made arrivals and points."""

import numpy as np
import pytest
from detour.reproduce.hotr_burst import JointPoint, OnOff, choose_joint, fit_onoff, peaks


def test_fit_onoff_hand_made_bursts():
    # Ten repeats of three 1 s windows holding 25, 3 and 2 requests: 300
    # requests from 0 to 29.9 s, so the mean gap is 29.9 / 299 = 0.1 s and a
    # window of 10 gaps is 1 s. Median window: 3; on (> 3): the ten 25s.
    t = []
    for j in range(10):
        t += [3 * j + i * 0.04 for i in range(25)]
        t += [3 * j + 1 + x for x in (0.2, 0.5, 0.8)]
        t += [3 * j + 2 + x for x in (0.3, 0.9)]
    f = fit_onoff(np.array(t))
    assert f.time_on == pytest.approx(1 / 3)
    assert f.share_on == pytest.approx(250 / 300)
    assert f.peak == pytest.approx((250 / 300) / (1 / 3))  # 2.5
    assert f.mean_on_gaps == pytest.approx(10.0)  # runs of one window
    assert f.mean_off_gaps == pytest.approx(20.0)  # runs of two
    assert f.max_peak() == pytest.approx(3.0)


def test_fit_onoff_steady_arrivals_are_not_bursty():
    # Evenly spaced arrivals: every window holds 10 (rounding may move one
    # arrival to the next window: 9 and 11), so the peak stays near 1.
    try:
        f = fit_onoff(np.arange(1000) * 0.001)
    except ValueError as e:
        assert "all on or all off" in str(e)
    else:
        assert f.peak < 1.2
    # Too few arrivals to fit.
    with pytest.raises(ValueError, match="at least 20"):
        fit_onoff(np.arange(19.0))


def test_fit_onoff_two_rates():
    # 100/s for 1 s, 10/s for 1 s, alternating: on windows carry 100/110 of the requests.
    t = []
    for k in range(20):
        t += list(2.0 * k + np.arange(100) / 100.0) + list(2.0 * k + 1.0 + np.arange(10) / 10.0)
    f = fit_onoff(np.array(t))
    assert f.time_on == pytest.approx(0.5, abs=0.1)
    assert f.share_on == pytest.approx(100 / 110, abs=0.05)


def test_overrides_keep_the_mean_rate():
    sh = OnOff(mean_on_gaps=20.0, mean_off_gaps=30.0, peak=2.0, share_on=0.8, time_on=0.4)
    o = sh.overrides(1000.0)
    # on 2000/s for 40% of the time, off (1 - 0.8) / 0.6 x 1000 = 333.3/s for 60%: mean 1000/s.
    assert o["arrival.rate_per_s"] == pytest.approx(2000.0)
    assert o["arrival.off_rate_per_s"] == pytest.approx(1000 / 3)
    assert 0.4 * 2000 + 0.6 * o["arrival.off_rate_per_s"] == pytest.approx(1000.0)
    assert o["arrival.mean_on_s"] == pytest.approx(0.02) and o["arrival.mean_off_s"] == pytest.approx(0.03)
    # The largest peak empties the off periods; beyond it is clamped.
    assert sh.overrides(1000.0, 10.0)["arrival.off_rate_per_s"] == pytest.approx(0.0)
    assert peaks(sh) == pytest.approx([1.0, 1.5, 2.0, 2.5])


def test_choose_joint_rule():
    pts = [JointPoint(1.0, 3.4, 33.0, 60.0, False, True),
           JointPoint(1.5, 3.0, 33.5, 45.0, False, True),
           JointPoint(2.0, 2.5, 20.0, 42.8, False, False),  # blocked share missed: not eligible
           JointPoint(2.5, 2.0, 33.0, 43.0, True, True)]    # saturated: not eligible
    assert choose_joint(pts, 42.8).peak == 1.5
    # Equal distance: the less bursty point.
    tie = [JointPoint(2.0, 1, 33, 30.0, False, True), JointPoint(1.0, 1, 33, 50.0, False, True)]
    assert choose_joint(tie, 40.0).peak == 1.0
    # None met the blocked share: the unsaturated one nearest the slowdown.
    miss = [JointPoint(1.0, 1, 20, 80.0, False, False), JointPoint(2.0, 1, 25, 50.0, False, False),
            JointPoint(3.0, 1, 33, 42.8, True, True)]
    assert choose_joint(miss, 42.8).peak == 2.0
    with pytest.raises(ValueError):
        choose_joint([], 42.8)


def test_rate_knob_scales_both_rates_of_an_onoff_profile():
    from detour.calibrate import knob_set

    base = {"rate_per_s": 1000.0, "off_rate_per_s": 100.0, "process": "onoff", "on_s": None, "off_s": None,
            "requests": 5000, "duration_s": 0.0, "zipf_theta": 0.9}
    assert knob_set(base, "rate", 2.0) == {"arrival.rate_per_s": 2000.0, "arrival.off_rate_per_s": 200.0}
