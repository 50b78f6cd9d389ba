"""burst.fit_onoff: the on/off shape of arrival times, by the rule in
detour/reproduce/burst.py, on hand-made arrivals with known answers; the
stored shapes are the samples' fits."""

from pathlib import Path

import numpy as np
import pytest
from detour.reproduce import cr5m
from detour.reproduce.burst import SHAPES, OnOff, fit_onoff, trace_arrivals

SHARED_TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"


def test_fit_onoff_hand_made_bursts():
    # Ten repeats of three 1 s windows holding 25, 3 and 2 requests: 300
    # requests from 0 to 29.9 s, so the mean gap is 29.9 / 299 = 0.1 s and a
    # window of 10 gaps is 1 s. Median window: 3; on (> 3): the ten 25s.
    t = []
    for j in range(10):
        t += [3 * j + i * 0.04 for i in range(25)]
        t += [3 * j + 1 + x for x in (0.2, 0.5, 0.8)]
        t += [3 * j + 2 + x for x in (0.3, 0.9)]
    f = fit_onoff(t[::-1])  # any order
    assert f.requests == 300
    assert f.mean_on_gaps == pytest.approx(10.0)  # runs of one window
    assert f.mean_off_gaps == pytest.approx(20.0)  # runs of two
    assert f.on_time == pytest.approx(1 / 3)
    assert f.on_share == pytest.approx(250 / 300)
    assert f.peak_to_mean == pytest.approx(2.5)
    assert f.max_peak() == pytest.approx(3.0)
    # The busiest 1% of 30 windows is one window: 25 of 300 requests.
    assert f.busiest_1pct_share == pytest.approx(25 / 300)


def test_fit_onoff_two_rates():
    # 100/s for 1 s, 10/s for 1 s, alternating: on windows carry 100/110 of the requests.
    t = []
    for k in range(20):
        t += list(2.0 * k + np.arange(100) / 100.0) + list(2.0 * k + 1.0 + np.arange(10) / 10.0)
    f = fit_onoff(t)
    assert f.on_time == pytest.approx(0.5, abs=0.1)
    assert f.on_share == pytest.approx(100 / 110, abs=0.05)


def test_steady_or_short_arrivals_have_no_shape():
    with pytest.raises(ValueError, match="same count"):
        fit_onoff([i + 0.5 for i in range(100)])
    with pytest.raises(ValueError, match="at least 20"):
        fit_onoff(list(np.arange(19.0)))


def test_arrival_keeps_the_mean_rate_at_any_peak():
    sh = OnOff(requests=100, mean_on_gaps=20.0, mean_off_gaps=30.0, on_share=0.8, busiest_1pct_share=0.1)
    o = sh.arrival(1000.0)
    # on 2000/s for 40% of the time, off (1 - 0.8) / 0.6 x 1000 = 333.3/s for 60%: mean 1000/s.
    assert o["arrival.process"] == "onoff"
    assert o["arrival.rate_per_s"] == pytest.approx(2000.0)
    assert o["arrival.off_rate_per_s"] == pytest.approx(1000 / 3)
    assert o["arrival.mean_on_s"] == pytest.approx(0.02) and o["arrival.mean_off_s"] == pytest.approx(0.03)
    for peak in (1.0, 1.5, 2.5):
        a = sh.arrival(1000.0, peak)
        assert 0.4 * a["arrival.rate_per_s"] + 0.6 * a["arrival.off_rate_per_s"] == pytest.approx(1000.0)
    # The largest peak empties the off periods; beyond it is clamped.
    assert sh.arrival(1000.0, 10.0)["arrival.off_rate_per_s"] == pytest.approx(0.0)


def test_onoff_runs_mean_rate():
    # The core's onoff process at the fitted shape keeps Table I's mean rate (financial1, 129 req/s).
    from detour import api

    n = 20000
    r = api.run("cr5m-ssd1", profile="financial1",
                profile_overrides={"requests": n, "footprint_bytes": 256 << 20, **cr5m.BURST.arrival(129.0)})
    span = r.columns["arrival_ns"].max() / 1e9
    assert n / span == pytest.approx(129.0, rel=0.05)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_stored_shapes_are_the_samples_fits(name):
    path = SHARED_TRACES / name
    if not path.exists():
        pytest.skip("the shared trace sample is not here")
    assert fit_onoff(trace_arrivals(str(path))) == SHAPES[name]
