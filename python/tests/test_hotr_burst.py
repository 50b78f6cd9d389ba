"""HotR's joint calibration rule (detour.reproduce.hotr_burst), on
hand-made shapes and points."""

import pytest
from detour.reproduce.burst import OnOff
from detour.reproduce.hotr_burst import JointPoint, choose_joint, peaks


def test_peaks_run_from_poisson_past_the_sample():
    sh = OnOff(requests=100, mean_on_gaps=20.0, mean_off_gaps=30.0, on_share=0.8, busiest_1pct_share=0.1)
    # Poisson, halfway, the sample's 2.0, and the largest (off empty): 1 / 0.4.
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
