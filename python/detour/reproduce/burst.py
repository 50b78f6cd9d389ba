"""On/off arrivals fitted to a real trace's burstiness (issue 49: "arrivals
with the burstiness real traces have ... rather than steady Poisson where a
paper's effect lives in bursts"). One rule for every paper that uses it
(HotR, CR5M), written before it was applied to any reproduction:

1. Cut the trace's span, from its first arrival, into windows of
   WINDOW_REQUESTS mean gaps (the span over the number of gaps): windows
   that hold WINDOW_REQUESTS requests each at the trace's mean rate, so the
   shape is in units of the trace's own mean gap and carries over to a
   profile at any rate (a sample's rate is rarely the profile's).
2. Count the arrivals in each window; a window is *on* when its count is
   above the median count, else *off*.
3. The mean on and off lengths are the mean lengths of the runs of
   consecutive on (off) windows, in mean gaps.
4. The burst's weight is the share of the requests that arrive in on
   windows.

`OnOff.arrival(mean_rate, peak)` turns the shape into the core's `onoff`
process (crates/detour-core/src/workload/generator/arrival.rs: exponential
on and off lengths, Poisson inside each) at a *given* mean rate: lengths
are the fitted ones times the profile's mean gap, the on-time share is
p = on / (on + off), the on rate is `peak` x the mean (the sample's own
peak-to-mean ratio, share / p, unless told) and the off rate keeps the
mean: p x on + (1 - p) x off = mean. A paper's printed rate stays its
rate; the burst only moves arrivals in time.

The fitted shapes of the samples in ../shared/traces are kept here as
constants (SHAPES), so a reproduction does not need the samples;
python/tests/test_burst.py refits each from its sample when it is there.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import asdict, dataclass
from typing import Dict, Optional, Sequence

import numpy as np

#: Requests per window at the trace's mean rate (the rule's one setting):
#: enough that a window's count says something (a Poisson window of 10 has
#: a median of 10, spread +-3), few enough to see bursts of tens of
#: requests, the scale at which a die's queue fills behind a program.
WINDOW_REQUESTS = 10


@dataclass(frozen=True)
class OnOff:
    """An on/off arrival shape fitted by `fit_onoff` (lengths in mean gaps)."""

    requests: int
    mean_on_gaps: float
    mean_off_gaps: float
    on_share: float  # share of the requests arriving in on windows
    busiest_1pct_share: float  # share of the requests in the busiest 1% of windows (a check, not used)

    @property
    def on_time(self) -> float:
        """The share of time on, p = on / (on + off), as the process draws it."""
        return self.mean_on_gaps / (self.mean_on_gaps + self.mean_off_gaps)

    @property
    def peak_to_mean(self) -> float:
        """The on rate over the mean rate, as fitted."""
        return self.on_share / self.on_time

    def max_peak(self) -> float:
        """The peak at which the off periods are empty."""
        return 1.0 / self.on_time

    def arrival(self, mean_rate: float, peak: Optional[float] = None) -> Dict[str, object]:
        """Profile overrides for the core's `onoff` process at `mean_rate`
        and peak-to-mean ratio `peak` (default the fitted one; kept within
        1..max_peak)."""
        p = self.peak_to_mean if peak is None else min(max(peak, 1.0), self.max_peak())
        f = self.on_time
        gap = 1.0 / mean_rate
        return {"arrival.process": "onoff", "arrival.rate_per_s": p * mean_rate,
                "arrival.off_rate_per_s": max(0.0, (1.0 - f * p) / (1.0 - f)) * mean_rate,
                "arrival.mean_on_s": self.mean_on_gaps * gap, "arrival.mean_off_s": self.mean_off_gaps * gap}

    def as_dict(self) -> dict:
        return {**asdict(self), "on_time": self.on_time, "peak_to_mean": self.peak_to_mean}


def _runs(on: np.ndarray, value: bool) -> np.ndarray:
    """Lengths of the runs of `value` in the boolean array `on`."""
    x = np.concatenate(([False], on == value, [False])).astype(np.int8)
    d = np.diff(x)
    return np.flatnonzero(d == -1) - np.flatnonzero(d == 1)


def fit_onoff(arrivals_s: Sequence[float], window_requests: int = WINDOW_REQUESTS) -> OnOff:
    """The on/off shape of arrival times (seconds, any order and origin), by
    the rule in the module docstring."""
    t = np.sort(np.asarray(arrivals_s, dtype=float))
    if len(t) < 2 * window_requests or t[-1] <= t[0]:
        raise ValueError(f"fit_onoff: need at least {2 * window_requests} arrivals over a positive span")
    t = t - t[0]
    w = window_requests * t[-1] / (len(t) - 1)
    nwin = int(np.ceil(t[-1] / w))  # the last window may be partly covered
    counts = np.bincount(np.minimum((t // w).astype(np.int64), nwin - 1), minlength=nwin)
    on = counts > np.median(counts)
    on_runs, off_runs = _runs(on, True), _runs(on, False)
    if not len(on_runs) or not len(off_runs):
        raise ValueError("fit_onoff: every window has the same count: no on/off structure")
    k = max(1, int(np.ceil(0.01 * nwin)))
    return OnOff(requests=len(t), mean_on_gaps=float(on_runs.mean() * window_requests),
                 mean_off_gaps=float(off_runs.mean() * window_requests),
                 on_share=float(counts[on].sum() / len(t)),
                 busiest_1pct_share=float(np.sort(counts)[::-1][:k].sum() / len(t)))


def trace_arrivals(path: str) -> np.ndarray:
    """Arrival times (s, from the first) of any trace the core reads (its
    format detected, compressed or not), through a conversion to MQSim's
    ASCII format, whose first column is the arrival in ns."""
    from ..traces import convert_trace

    fd, tmp = tempfile.mkstemp(suffix=".trace")
    os.close(fd)
    try:
        convert_trace(path, tmp, "mqsim")
        with open(tmp) as f:
            return np.array([int(line.split()[0]) for line in f if line.strip()], dtype=float) / 1e9
    finally:
        os.unlink(tmp)


#: `fit_onoff` of the samples in ../shared/traces (test_burst.py refits them):
#: MSR Cambridge hm_0 (1,000 records from mid-trace) and MQSim's wsrch-small
#: (24,783 requests, very likely UMass WebSearch, an SPC trace).
SHAPES: Dict[str, OnOff] = {
    "msr_hm_0.sample1000.csv.zst": OnOff(requests=1000, mean_on_gaps=16.296296296296294,
                                         mean_off_gaps=21.538461538461537, on_share=0.978, busiest_1pct_share=0.473),
    "mqsim_wsrch-small.trace.zst": OnOff(requests=24783, mean_on_gaps=18.52836879432624,
                                         mean_off_gaps=25.425531914893615, on_share=0.5673243755800347,
                                         busiest_1pct_share=0.021587378444901748),
}
