"""Calibration: scale one knob of a synthetic profile, by bisection, until
the *baseline* scheme shows a figure the paper reports about its baseline.

    from detour.calibrate import calibrate, HOTR_BLOCKED
    c = calibrate("fin2", HOTR_BLOCKED, knob="rate", compat="disksim", requests=50000)
    c.factor, c.achieved, c.profile_set()     # e.g. 3.4, 33.2, {"arrival.rate_per_s": 34000.0}

Why: the papers' traces cannot be shipped, and a synthetic profile stands in
for one only if the baseline behaves as the paper says its baseline did
(EXPERIMENTS.md, "Baseline observables"). The knob is one of

- `rate`: the arrival rate, times a factor (`arrival.rate_per_s`, and the
  off-period rate of a bursty profile; a duration-limited profile's
  `duration_s` shrinks by the same factor, so it keeps its request count);
- `burst`: the peak-to-mean ratio b >= 1 of on/off arrivals at the profile's
  own mean rate (on for 1/b of every `BURST_PERIOD_S`, nothing between), for
  papers that state the mean rate;
- `skew`: the address popularity exponent `zipf_theta` itself.

The observable is measured on the baseline only (`Observable.runs` names
its device, scheme and settings); a scheme's own result is never a target.
Each evaluation is a deterministic run, so the search is reproducible. The
result records knob, factor, target, achieved and every point tried; the
reproductions write it into their report (docs/reproduce.md, "Calibration").
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import _toml

KNOBS = ("rate", "burst", "skew")
#: One on/off cycle of the `burst` knob, in seconds of trace time.
BURST_PERIOD_S = 1.0
#: Where each knob may go (factor for rate and burst, zipf theta for skew).
RANGES = {"rate": (1 / 64, 1024.0), "burst": (1.0, 1024.0), "skew": (0.0, 2.0)}


@dataclass
class Observable:
    """A figure a paper gives about its baseline, and how to measure it:
    `runs` are (device, scheme, config overrides) of the baseline runs, and
    `measure` turns their summaries (same order) into the figure."""

    name: str
    target: float
    source: str  # where the paper says it
    runs: Sequence[Tuple[str, str, Dict[str, Any]]]
    measure: Callable[[List[dict]], float]
    #: the paper's range, when it gives one (the target is its middle)
    band: Optional[Tuple[float, float]] = None


def _blocked_share(summaries: List[dict]) -> float:
    c = summaries[0].get("scheme_counters", {})
    return float(c.get("hotr.reads_blocked", 0.0)) / max(float(c.get("hotr.reads", 0.0)), 1.0) * 100


def _cr5_vs_cr4(summaries: List[dict]) -> float:
    cr4, cr5 = (float(s["latency_us"]["all"]["mean"]) for s in summaries)
    return (cr5 / cr4 - 1.0) * 100


#: HotR hr-1 (Sec. II-A, Fig. 1b): in the baseline with no optimisation,
#: 33.0% of reads on average are blocked by an in-progress write. Measured
#: with `hotr` at migrate_share = 0, which plans exactly what
#: `conventional` plans and counts the reads that find their die writing.
HOTR_BLOCKED = Observable(
    "reads blocked %", 33.0, "HotR Sec. II-A / Fig. 1(b): 33.0% of the baseline's reads blocked by a write, on average",
    [("hotr", "hotr", {"scheme.hotr.migrate_share": 0.0})], _blocked_share)


def cr5_vs_cr4(device_suffix: str = "ssd1", extra: Optional[Dict[str, Any]] = None) -> Observable:
    """CR5M Sec. IV-B and V: in SSD1 CR5 outperforms CR4 by 9-26% (mean
    response time): two of the paper's baselines, neither of them CR5M.
    The target is the range's midpoint, -17.5%."""
    f = {"ftl.precondition.valid": 0.3, **(extra or {})}
    return Observable(
        "CR5 vs CR4 mean %", -17.5, "CR5M Sec. V: in SSD1, CR5 outperforms CR4 by 9-26% (midpoint taken)",
        [(f"cr5m-{device_suffix}-cr4", "", f), (f"cr5m-{device_suffix}-cr5", "", f)], _cr5_vs_cr4, band=(-26.0, -9.0))


@dataclass
class Calibration:
    """Where the search ended (a row of the report's calibration table)."""

    profile: str
    knob: str
    factor: float  # rate or burst factor, or zipf theta for skew
    observable: str
    target: float
    achieved: float
    source: str
    within: bool  # |achieved - target| <= tol x |target|
    tol: float
    requests: Optional[int]
    compat: Optional[str]
    base: Dict[str, Any] = field(default_factory=dict)  # the profile's own knob values
    history: List[Tuple[float, float]] = field(default_factory=list)  # (factor, observable) tried, in order
    band: Optional[Tuple[float, float]] = None  # the paper's range, if it gives one
    fixed: Dict[str, Any] = field(default_factory=dict)  # profile overrides every point had (e.g. requests)

    @property
    def in_band(self) -> Optional[bool]:
        """Whether the achieved value is inside the paper's range (None: no range)."""
        if self.band is None:
            return None
        lo, hi = sorted(self.band)
        return lo <= self.achieved <= hi

    def profile_set(self, scale: float = 1.0) -> Dict[str, Any]:
        """The profile overrides of the calibrated point, or of `scale` x
        that point (the load sweep: 0.5x..2x; for skew, theta x scale)."""
        return knob_set(self.base, self.knob, self.factor * scale)

    def profile_toml(self) -> str:
        """The calibrated profile as a spec file (`profile = "<name>"` and
        the overrides), headed by the knob, target and achieved value:
        `detour run --profile` it to rerun the calibrated point."""
        doc: Dict[str, Any] = {"profile": self.profile}
        for k, v in {**self.fixed, **self.profile_set()}.items():
            node = doc
            *parents, leaf = k.split(".")
            for part in parents:
                node = node.setdefault(part, {})
            node[leaf] = v
        head = (f"# Calibrated by detour.calibrate: knob {self.knob} = {self.factor:.6g} ({self.observable}: target "
                f"{self.target:g}, achieved {self.achieved:.4g}, {'within' if self.within else 'NOT within'} "
                f"{self.tol:g} of it)\n# on the baseline, under {self.compat or 'Detour default'} rules; {self.source}\n")
        return head + _toml.dumps(doc)

    def to_json(self) -> dict:
        d = asdict(self)
        d["history"] = [list(h) for h in self.history]
        d["set"] = self.profile_set()
        return d


def _knob_base(spec: dict) -> Dict[str, Any]:
    a = spec.get("arrival", {})
    return {"rate_per_s": float(a.get("rate_per_s", 0.0)), "off_rate_per_s": a.get("off_rate_per_s"),
            "process": a.get("process", "poisson"), "on_s": a.get("on_s"), "off_s": a.get("off_s"),
            "requests": int(spec.get("requests", 0) or 0), "duration_s": float(spec.get("duration_s", 0.0) or 0.0),
            "zipf_theta": float(spec.get("zipf_theta", 0.0))}


def _mean_rate(b: Dict[str, Any]) -> float:
    if b["process"] != "bursty":
        return b["rate_per_s"]
    on, off = float(b["on_s"]), float(b["off_s"])
    return (b["rate_per_s"] * on + float(b["off_rate_per_s"] or 0.0) * off) / (on + off)


def knob_set(base: Dict[str, Any], knob: str, x: float) -> Dict[str, Any]:
    """Profile overrides that put the knob at `x` (module docstring)."""
    if knob == "skew":
        return {"zipf_theta": round(x, 6)}
    if knob == "rate":
        s = {"arrival.rate_per_s": base["rate_per_s"] * x}
        if base["process"] == "bursty" and base["off_rate_per_s"]:
            s["arrival.off_rate_per_s"] = float(base["off_rate_per_s"]) * x
    elif knob == "burst":
        b = max(x, 1.0)
        on = BURST_PERIOD_S / b
        s = {"arrival.process": "bursty", "arrival.rate_per_s": _mean_rate(base) * b, "arrival.on_s": on,
             "arrival.off_s": BURST_PERIOD_S - on, "arrival.off_rate_per_s": 0.0}
        if b == 1.0 and base["process"] != "bursty":
            s = {"arrival.process": "poisson", "arrival.rate_per_s": _mean_rate(base)}
        elif b == 1.0:
            # An override cannot remove a bursty profile's on/off keys, so
            # "no bursts" is on all but a millionth of each period.
            s.update({"arrival.on_s": BURST_PERIOD_S * (1 - 1e-6), "arrival.off_s": BURST_PERIOD_S * 1e-6})
        x = 1.0  # the mean rate, hence the request count, is unchanged
    else:
        raise ValueError(f"unknown knob {knob!r}; known: {', '.join(KNOBS)}")
    if not base["requests"] and base["duration_s"]:
        s["duration_s"] = base["duration_s"] / x
    return s


def measure(profile: str, obs: Observable, profile_set: Dict[str, Any], compat: Optional[str] = None,
            overrides: Optional[Dict[str, Any]] = None) -> float:
    """The observable on the baseline runs of `profile` with `profile_set`."""
    from .api import run

    sums = []
    for device, scheme, o in obs.runs:
        r = run(device, profile=profile, profile_overrides=profile_set, scheme=scheme or None,
                overrides={**o, **(overrides or {})}, compat=compat)
        sums.append(r.summary)
    return float(obs.measure(sums))


def calibrate(profile: str, obs: Observable, knob: str = "rate", *, compat: Optional[str] = None,
              requests: Optional[int] = None, profile_overrides: Optional[Dict[str, Any]] = None,
              overrides: Optional[Dict[str, Any]] = None, tol: float = 0.05, max_evals: int = 16,
              say: Callable[[str], None] = lambda s: None) -> Calibration:
    """Bisect `knob` of `profile` until the baseline's `obs` is within
    `tol` (relative) of its target; returns the point closest to it.

    `requests` cuts the profile (duration-limited profiles become
    request-limited); `profile_overrides` and `overrides` (config keys)
    apply to every run. The observable need not be monotone: the search
    scans the knob up (then down) by factors of 2 until the observable
    crosses the target, then bisects that bracket."""
    from .api import _spec_dict

    if knob not in KNOBS:
        raise ValueError(f"unknown knob {knob!r}; known: {', '.join(KNOBS)}")
    fixed = dict(profile_overrides or {})
    if requests:
        fixed["requests"] = int(requests)
        fixed["duration_s"] = 0.0
    base = _knob_base(_spec_dict(profile, fixed))
    lo_lim, hi_lim = RANGES[knob]
    cache: Dict[float, float] = {}
    history: List[Tuple[float, float]] = []

    def f(x: float) -> float:
        x = float(f"{x:.6g}")
        if x not in cache:
            cache[x] = measure(profile, obs, {**fixed, **knob_set(base, knob, x)}, compat, overrides)
            history.append((x, cache[x]))
            say(f"  {profile}: {knob} {x:.4g} -> {obs.name} {cache[x]:.3g} (target {obs.target:g})")
        return cache[x]

    def close(v: float) -> bool:
        return abs(v - obs.target) <= tol * abs(obs.target)

    geometric = knob != "skew"
    mid = (lambda a, b: math.sqrt(a * b)) if geometric else (lambda a, b: (a + b) / 2)
    # A bursty profile's burst search starts from its own peak-to-mean ratio.
    own_burst = base["rate_per_s"] / _mean_rate(base) if base["process"] == "bursty" and _mean_rate(base) > 0 else 1.0
    x0 = {"rate": 1.0, "burst": own_burst, "skew": base["zipf_theta"]}[knob]
    step = (lambda x: x * 2) if geometric else (lambda x: x + 0.25)
    back = (lambda x: x / 2) if geometric else (lambda x: x - 0.25)

    def straddle(u: float, v: float) -> bool:
        return (u - obs.target) * (v - obs.target) <= 0

    # Bracket: scan up from the profile's own point until the observable
    # crosses the target (dips on the way are allowed: the CR5-vs-CR4 gap
    # first narrows, then widens as CR4's parity channel saturates); if the
    # range ends first, scan down.
    a, fa = x0, f(x0)
    b, fb = a, fa
    while not close(fb) and len(history) < max_evals and step(b) <= hi_lim:
        a, fa = b, fb
        b, fb = step(b), f(step(b))
        if straddle(fa, fb):
            break
    if not (close(fb) or straddle(fa, fb)):
        b, fb = x0, f(x0)
        a, fa = b, fb
        while not close(fa) and len(history) < max_evals and back(a) >= lo_lim:
            b, fb = a, fa
            a, fa = back(a), f(back(a))
            if straddle(fa, fb):
                break
    # Bisect inside the bracket.
    while len(history) < max_evals and not any(close(v) for v in cache.values()) and straddle(fa, fb):
        m = mid(a, b)
        fm = f(m)
        if straddle(fa, fm):
            b, fb = m, fm
        else:
            a, fa = m, fm
    best = min(cache, key=lambda x: abs(cache[x] - obs.target))
    return Calibration(profile=profile, knob=knob, factor=best, observable=obs.name, target=obs.target,
                       achieved=cache[best], source=obs.source, within=close(cache[best]), tol=tol,
                       requests=requests, compat=compat, base=base, history=history,
                       band=tuple(obs.band) if obs.band else None, fixed=fixed)


def calibration_table(cals: Sequence[Calibration]) -> Tuple[List[str], List[list]]:
    """Headers and rows of the report's calibration table."""
    headers = ["profile", "knob", "calibrated value", "observable (baseline)", "target", "achieved", "within tol",
               "in the paper's range", "evaluations", "timing rules"]
    rows = [[c.profile, c.knob, c.factor, c.observable, c.target, c.achieved, "yes" if c.within else "no",
             "-" if c.in_band is None else ("yes" if c.in_band else "no"), len(c.history),
             c.compat or "Detour default"] for c in cals]
    return headers, rows
