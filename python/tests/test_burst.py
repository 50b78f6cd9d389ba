"""burst.fit_onoff: the on/off shape of arrival times, by the rule in
detour/reproduce/burst.py, on hand-made arrivals with known answers."""

import os

import pytest
from detour.reproduce import cr5m
from detour.reproduce.burst import OnOff, fit_onoff, trace_arrivals

# Where the shared samples are on the project's machines (as in test_grounding.py).
SAMPLE = "/work/shared/traces/mqsim_wsrch-small.trace.zst"


def test_hand_made_arrivals():
    # 1 s windows (times exact in binary), the first arrival at 0; counts per window 3 3 0 0 0 1 3 1.
    counts = [3, 3, 0, 0, 0, 1, 3, 1]
    t = [i + 0.25 * j for i, c in enumerate(counts) for j in range(c)]
    f = fit_onoff(t[::-1], 1.0)  # any order
    assert f.requests == 11
    # Sorted counts 0 0 0 1 1 3 3 3: median 1, so on = count > 1: windows 0, 1 and 6.
    assert f.median == 1.0
    # On runs [0, 1] and [6]: mean 1.5 windows; off runs [2..5] and [7]: mean 2.5 windows.
    assert f.mean_on_s == pytest.approx(1.5)
    assert f.mean_off_s == pytest.approx(2.5)
    assert f.on_share == pytest.approx(9 / 11)
    # The busiest 1% of 8 windows is one window: 3 of 11 requests.
    assert f.busiest_1pct_share == pytest.approx(3 / 11)
    # On 1.5 / 4 of the time with 9 / 11 of the requests.
    assert f.peak_to_mean == pytest.approx((9 / 11) / (1.5 / 4))
    assert f.off_to_mean == pytest.approx((2 / 11) / (2.5 / 4))


def test_arrival_keeps_the_mean_rate():
    f = OnOff(window_s=0.01, requests=100, span_s=1.0, median=1.0, mean_on_s=0.01, mean_off_s=0.03,
              on_share=0.75, busiest_1pct_share=0.1)
    # On a quarter of the time with three quarters of the requests: 3x the mean on, 1/3 off.
    assert f.on_time == pytest.approx(0.25)
    a = f.arrival(100.0)
    assert a["arrival.process"] == "onoff"
    assert a["arrival.rate_per_s"] == pytest.approx(300.0)
    assert a["arrival.off_rate_per_s"] == pytest.approx(100.0 / 3)
    assert a["arrival.mean_on_s"] == 0.01 and a["arrival.mean_off_s"] == 0.03
    mean = 0.25 * a["arrival.rate_per_s"] + 0.75 * a["arrival.off_rate_per_s"]
    assert mean == pytest.approx(100.0)


def test_steady_arrivals_have_no_shape():
    with pytest.raises(ValueError, match="same count"):
        fit_onoff([i + 0.5 for i in range(100)], 1.0)
    with pytest.raises(ValueError, match="two distinct"):
        fit_onoff([1.0, 1.0])


def test_onoff_runs_mean_rate():
    # The core's onoff process at the fitted shape keeps Table I's mean rate (financial1, 129 req/s).
    from detour import api

    n = 20000
    r = api.run("cr5m-ssd1", profile="financial1",
                profile_overrides={"requests": n, "footprint_bytes": 256 << 20, **cr5m.BURST.arrival(129.0)})
    span = r.columns["arrival_ns"].max() / 1e9
    assert n / span == pytest.approx(129.0, rel=0.05)


@pytest.mark.skipif(not os.path.exists(SAMPLE), reason="the shared trace sample is not here")
def test_cr5m_shape_is_the_samples_fit():
    f = fit_onoff(trace_arrivals(SAMPLE))
    assert f == cr5m.BURST
