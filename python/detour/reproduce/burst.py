"""On/off arrivals fitted to a real trace's burstiness (issue 49: "arrivals
with the burstiness real traces have ... rather than steady Poisson where a
paper's effect lives in bursts").

The rule, written before it was applied to any reproduction (`fit_onoff`):

1. Split the trace's span, from its first arrival, into windows of
   `WINDOW_S` (10 ms: the window issue 49 measures burstiness in, "the share
   of requests in the busiest 1% of 10 ms windows").
2. Count the arrivals in each window; a window is *on* when its count is
   above the median count, else *off*.
3. The mean on and off lengths are the mean lengths of the runs of
   consecutive on (off) windows, times the window.
4. The share of the requests that arrive in on windows is the burst's weight.

`OnOff.arrival(mean_rate)` turns that shape into the core's `onoff` arrival
process (exponential on and off lengths with those means, Poisson inside
each) at a *given* mean rate: the on-time share is p = on / (on + off), the
on rate is mean x share / p and the off rate mean x (1 - share) / (1 - p), so
the process's mean rate is the given one (a paper's printed rate stays its
rate; the burst only moves arrivals in time). The lengths stay the trace's,
in seconds.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import asdict, dataclass
from typing import Dict, Sequence

import numpy as np

#: The window the on/off periods are counted in, in seconds (issue 49's burst
#: statistic's window).
WINDOW_S = 0.010


@dataclass(frozen=True)
class OnOff:
    """An on/off arrival shape fitted by `fit_onoff` (lengths in seconds)."""

    window_s: float
    requests: int
    span_s: float
    median: float  # arrivals per window, the on/off threshold
    mean_on_s: float
    mean_off_s: float
    on_share: float  # share of the requests arriving in on windows
    busiest_1pct_share: float  # share of the requests in the busiest 1% of windows (a check, not used)

    @property
    def on_time(self) -> float:
        """The share of time on, p = on / (on + off), as the process draws it."""
        return self.mean_on_s / (self.mean_on_s + self.mean_off_s)

    @property
    def peak_to_mean(self) -> float:
        """The on rate over the mean rate."""
        return self.on_share / self.on_time

    @property
    def off_to_mean(self) -> float:
        """The off rate over the mean rate."""
        return (1.0 - self.on_share) / (1.0 - self.on_time)

    def arrival(self, mean_rate: float) -> Dict[str, object]:
        """Profile overrides for the core's `onoff` process at `mean_rate`."""
        return {"arrival.process": "onoff", "arrival.rate_per_s": mean_rate * self.peak_to_mean,
                "arrival.mean_on_s": self.mean_on_s, "arrival.mean_off_s": self.mean_off_s,
                "arrival.off_rate_per_s": mean_rate * self.off_to_mean}

    def as_dict(self) -> dict:
        return {**asdict(self), "on_time": self.on_time, "peak_to_mean": self.peak_to_mean,
                "off_to_mean": self.off_to_mean}


def _runs(on: np.ndarray, value: bool) -> np.ndarray:
    """Lengths of the runs of `value` in the boolean array `on`."""
    x = np.concatenate(([False], on == value, [False])).astype(np.int8)
    d = np.diff(x)
    return np.flatnonzero(d == -1) - np.flatnonzero(d == 1)


def fit_onoff(arrivals_s: Sequence[float], window_s: float = WINDOW_S) -> OnOff:
    """The on/off shape of arrival times (seconds, any order), by the rule in
    the module docstring."""
    t = np.sort(np.asarray(arrivals_s, dtype=float))
    if len(t) < 2 or t[-1] <= t[0]:
        raise ValueError("fit_onoff needs at least two distinct arrival times")
    if window_s <= 0:
        raise ValueError(f"window_s must be > 0, got {window_s}")
    idx = np.floor((t - t[0]) / window_s).astype(np.int64)
    counts = np.bincount(idx)
    med = float(np.median(counts))
    on = counts > med
    on_runs, off_runs = _runs(on, True), _runs(on, False)
    if not len(on_runs) or not len(off_runs):
        raise ValueError("every window has the same count: no on/off structure")
    k = max(1, int(np.ceil(0.01 * len(counts))))
    return OnOff(window_s=window_s, requests=len(t), span_s=float(t[-1] - t[0]), median=med,
                 mean_on_s=float(on_runs.mean() * window_s), mean_off_s=float(off_runs.mean() * window_s),
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
