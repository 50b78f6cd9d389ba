"""Calibration: scale one knob of a synthetic profile, by bisection, until
the *baseline* scheme shows a figure the paper reports about its baseline.

    from detour.calibrate import calibrate, HOTR_BLOCKED
    c = calibrate("fin2", HOTR_BLOCKED, knob="rate", compat="disksim", requests=50000)
    c.factor, c.achieved, c.profile_set()     # e.g. 3.4, 33.2, {"arrival.rate_per_s": 34000.0}

Why: the papers' traces cannot be shipped, and a synthetic profile stands in
for one only if the baseline behaves as the paper says its baseline did
(EXPERIMENTS.md, "Baseline observables"). The knob is one of

- `rate`: the arrival rate, times a factor (`arrival.rate_per_s`, and the
  off-period rate of a bursty or on/off profile, whose period lengths stay; a duration-limited profile's
  `duration_s` shrinks by the same factor, so it keeps its request count);
- `burst`: the peak-to-mean ratio b >= 1 of on/off arrivals at the profile's
  own mean rate (on for 1/b of every `BURST_PERIOD_S`, nothing between), for
  papers that state the mean rate;
- `skew`: the address popularity exponent `zipf_theta` itself.

The observable is measured on the baseline only (`Observable.runs` names
its device, scheme and settings); a scheme's own result is never a target.
When the paper gives a range (`Observable.band`), the search stops at the
first point inside it, starting from the profile's own point, so the knob
moves no further than the paper's range requires; a profile already inside
keeps its own load. A point where a baseline run is saturated (the run's
`saturated` warning: a queue still growing, or dies or channels busy for
95% of the run) is never chosen while an unsaturated one exists, and the
scan does not go past it: there the device's throughput, not the workload's
shape, sets every latency. If no unsaturated point reaches the target (or
the range), a ranged search keeps the profile's own point and a point
search the unsaturated point closest to the target; either says so.
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
    #: another baseline figure the paper gives as a range, which every point
    #: must keep: (name, measure of the same summaries, (lo, hi)). A point
    #: outside it is passed over as a saturated one is (never chosen while a
    #: point inside exists; the scan goes no further), so one knob is set on
    #: two of the paper's figures at once (RR-SSD: Table III's CA-SSD read
    #: gain, keeping Fig. 1's read queueing inside 25-77%).
    keep: Optional[Tuple[str, Callable[[List[dict]], float], Tuple[float, float]]] = None


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
    The search stops inside that range (the midpoint, -17.5%, is the
    nominal target when a point must be named)."""
    f = {"ftl.precondition.valid": 0.3, **(extra or {})}
    return Observable(
        "CR5 vs CR4 mean %", -17.5, "CR5M Sec. V: in SSD1, CR5 outperforms CR4 by 9-26%",
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
    within: bool  # |achieved - target| <= tol x |target|, or inside the paper's range when it gives one
    tol: float
    requests: Optional[int]
    compat: Optional[str]
    base: Dict[str, Any] = field(default_factory=dict)  # the profile's own knob values
    #: (factor, observable, saturated) tried, in order
    history: List[Tuple[float, float, bool]] = field(default_factory=list)
    band: Optional[Tuple[float, float]] = None  # the paper's range, if it gives one
    fixed: Dict[str, Any] = field(default_factory=dict)  # profile overrides every point had (e.g. requests)
    saturated: bool = False  # a baseline run at the chosen point was saturated (every point tried was)
    #: `Observable.keep`'s figure at the chosen point, and the points passed over for it (outside its range)
    kept: Optional[float] = None
    passed_over: List[float] = field(default_factory=list)

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

    @classmethod
    def from_json(cls, d: dict, band: Optional[Tuple[float, float]] = None) -> "Calibration":
        """The calibration `to_json` wrote (its derived `set` dropped), with
        the observable's `band` (not saved: it is the paper's, not the point's)."""
        d = {k: v for k, v in d.items() if k != "set"}
        return cls(**{**d, "history": [tuple(h) for h in d["history"]], "band": band})


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
        if base["process"] in ("bursty", "onoff") and base["off_rate_per_s"]:
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
    return measure_point(profile, obs, profile_set, compat, overrides)[0]


def measure_point(profile: str, obs: Observable, profile_set: Dict[str, Any], compat: Optional[str] = None,
                  overrides: Optional[Dict[str, Any]] = None) -> Tuple[float, bool]:
    """`measure`, and whether any of the baseline runs was saturated."""
    v, sat, _ = _measure_kept(profile, obs, profile_set, compat, overrides)
    return v, sat


def _measure_kept(profile: str, obs: Observable, profile_set: Dict[str, Any], compat: Optional[str],
                  overrides: Optional[Dict[str, Any]]) -> Tuple[float, bool, Optional[float]]:
    """`measure_point`, and `obs.keep`'s figure on the same runs (None without one)."""
    from .api import run

    sums = []
    for device, scheme, o in obs.runs:
        r = run(device, profile=profile, profile_overrides=profile_set, scheme=scheme or None,
                overrides={**o, **(overrides or {})}, compat=compat)
        sums.append(r.summary)
    kept = float(obs.keep[1](sums)) if obs.keep else None
    return float(obs.measure(sums)), any(saturated(s) for s in sums), kept


def saturated(summary: dict) -> bool:
    """The run's summary carries the `saturated` warning (its queue still
    growing, or dies or channels busy for 95% of it)."""
    return any(w.get("kind") == "saturated" for w in summary.get("warnings", []))


def calibrate(profile: str, obs: Observable, knob: str = "rate", *, compat: Optional[str] = None,
              requests: Optional[int] = None, profile_overrides: Optional[Dict[str, Any]] = None,
              overrides: Optional[Dict[str, Any]] = None, tol: float = 0.05, max_evals: int = 16,
              say: Callable[[str], None] = lambda s: None) -> Calibration:
    """Bisect `knob` of `profile` until the baseline's `obs` is within
    `tol` (relative) of its target, or inside the paper's range when `obs`
    has one (module docstring: saturated points and the fallback).

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
    sat_at: Dict[float, bool] = {}
    kept_at: Dict[float, Optional[float]] = {}

    def f(x: float) -> Tuple[float, bool]:
        # A point outside `obs.keep`'s range is passed over like a saturated one.
        v, sat, k = _measure_kept(profile, obs, {**fixed, **knob_set(base, knob, x)}, compat, overrides)
        sat_at[x], kept_at[x] = sat, k
        return v, sat or (obs.keep is not None and k is not None and not obs.keep[2][0] <= k <= obs.keep[2][1])

    s = _Search(obs, tol, max_evals, f, say, f"  {profile}: {knob}")
    # A bursty profile's burst search starts from its own peak-to-mean ratio.
    own_burst = base["rate_per_s"] / _mean_rate(base) if base["process"] == "bursty" and _mean_rate(base) > 0 else 1.0
    x0 = {"rate": 1.0, "burst": own_burst, "skew": base["zipf_theta"]}[knob]
    best = s.run(x0, knob != "skew", RANGES[knob])
    v, _ = s.cache[best]
    return Calibration(profile=profile, knob=knob, factor=best, observable=obs.name, target=obs.target,
                       achieved=v, source=obs.source, within=s.goal(v), tol=tol, requests=requests, compat=compat,
                       base=base, history=s.history, band=(obs.band[0], obs.band[1]) if obs.band else None, fixed=fixed,
                       saturated=sat_at[best], kept=kept_at[best],
                       passed_over=sorted(x for x, sat in sat_at.items() if s.cache[x][1] and not sat))


class _Search:
    """The knob search of `calibrate`: `f(x)` gives (observable, saturated)."""

    def __init__(self, obs: Observable, tol: float, max_evals: int, f: Callable[[float], Tuple[float, bool]],
                 say: Callable[[str], None], what: str):
        self.obs, self.tol, self.max_evals, self._f, self.say, self.what = obs, tol, max_evals, f, say, what
        self.cache: Dict[float, Tuple[float, bool]] = {}
        self.history: List[Tuple[float, float, bool]] = []
        self.aim = obs.target  # what a bracket must straddle: the target, or the range's nearer edge

    @staticmethod
    def key(x: float) -> float:
        """A point as the cache holds it (6 significant digits)."""
        return float(f"{x:.6g}")

    def f(self, x: float) -> Tuple[float, bool]:
        x = self.key(x)
        if x not in self.cache:
            self.cache[x] = self._f(x)
            v, sat = self.cache[x]
            self.history.append((x, v, sat))
            self.say(f"{self.what} {x:.4g} -> {self.obs.name} {v:.3g} (target {self.obs.target:g})"
                     + ((" [saturated]" if self.obs.keep is None else f" [saturated or {self.obs.keep[0]} outside "
                        f"{self.obs.keep[2][0]:g}-{self.obs.keep[2][1]:g}]") if sat else ""))
        return self.cache[x]

    def goal(self, v: float) -> bool:
        if self.obs.band is not None:
            lo, hi = sorted(self.obs.band)
            return lo <= v <= hi
        return abs(v - self.obs.target) <= self.tol * abs(self.obs.target)

    def done(self) -> bool:
        return any(self.goal(v) and not sat for v, sat in self.cache.values())

    def straddle(self, u: float, v: float) -> bool:
        return (u - self.aim) * (v - self.aim) <= 0

    def run(self, x0: float, geometric: bool, limits: Tuple[float, float]) -> float:
        mid = (lambda a, b: math.sqrt(a * b)) if geometric else (lambda a, b: (a + b) / 2)
        step = (lambda x: x * 2) if geometric else (lambda x: x + 0.25)
        back = (lambda x: x / 2) if geometric else (lambda x: x - 0.25)
        x0 = self.key(x0)  # `_choose` looks the profile's own point up in the cache
        v0, _ = self.f(x0)
        if self.obs.band is not None:
            self.aim = min(self.obs.band, key=lambda e: abs(e - v0))
        # Bracket: scan up from the profile's own point until the observable
        # crosses the aim (dips on the way are allowed: the CR5-vs-CR4 gap
        # first narrows, then widens as CR4's parity channel saturates) or a
        # point saturates; if neither, scan down.
        a, b = x0, x0
        while not self.done() and len(self.history) < self.max_evals and step(b) <= limits[1] \
                and not self.f(b)[1]:
            a, b = b, step(b)
            if self.straddle(self.f(a)[0], self.f(b)[0]):
                break
        if not self.done() and not self.straddle(self.f(a)[0], self.f(b)[0]):
            a = b = x0
            while not self.done() and len(self.history) < self.max_evals and back(a) >= limits[0]:
                b, a = a, back(a)
                if self.straddle(self.f(a)[0], self.f(b)[0]):
                    break
        self._bisect(a, b, mid)
        if self.obs.keep is not None and not self.done() and a >= x0 and b >= x0:
            # The bracket above x0 led nowhere inside `keep`'s range (its
            # crossing lies where the kept figure is out of range): a kept
            # range is not only left by too much load, so look below too.
            a = b = x0
            while not self.done() and len(self.history) < self.max_evals and back(a) >= limits[0]:
                b, a = a, back(a)
                if self.straddle(self.f(a)[0], self.f(b)[0]):
                    self._bisect(a, b, mid)
                    break
        return self._choose(x0)

    def _bisect(self, a: float, b: float, mid: Callable[[float, float], float]) -> None:
        """Bisect inside the bracket [a, b]; a saturated middle is too much load."""
        lo, hi = (a, b) if a <= b else (b, a)
        while len(self.history) < self.max_evals and not self.done() and self.straddle(self.f(lo)[0], self.f(hi)[0]):
            m = mid(lo, hi)
            vm, sat = self.f(m)
            if sat or self.straddle(self.f(lo)[0], vm):
                hi = m
            else:
                lo = m

    def _choose(self, x0: float) -> float:
        ok = [x for x, (v, sat) in self.cache.items() if not sat] or list(self.cache)
        hits = [x for x in ok if self.goal(self.cache[x][0])]
        if self.obs.band is not None:
            # Inside the range: the point nearest the profile's own; outside
            # it everywhere: the profile's own point, unless saturated.
            if hits:
                return min(hits, key=lambda x: abs(math.log(x / x0)) if x > 0 and x0 > 0 else abs(x - x0))
            return x0 if x0 in ok else min(ok, key=lambda x: abs(self.cache[x][0] - self.aim))
        return min(ok, key=lambda x: abs(self.cache[x][0] - self.obs.target))


def calibration_table(cals: Sequence[Calibration]) -> Tuple[List[str], List[list]]:
    """Headers and rows of the report's calibration table."""
    headers = ["profile", "knob", "calibrated value", "observable (baseline)", "target", "achieved", "within tol",
               "in the paper's range", "baseline saturated", "evaluations", "timing rules"]
    rows = [[c.profile, c.knob, c.factor, c.observable, c.target, c.achieved, "yes" if c.within else "no",
             "-" if c.in_band is None else ("yes" if c.in_band else "no"), "yes" if c.saturated else "no",
             len(c.history), c.compat or "Detour default"] for c in cals]
    return headers, rows
