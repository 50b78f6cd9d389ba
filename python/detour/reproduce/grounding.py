"""Grounding: every figure a paper prints about its *baseline* (its traces'
read share, sizes and rates, its baseline device's own observables), beside
what our baseline shows on the same workload (issue 49, item 1).

A synthetic profile stands in for a paper's trace only as far as its
baseline behaves as the paper's did. Some of these figures are inputs (a
profile's read ratio, its size mix), some were reached by calibration (a
knob scaled until the baseline shows them), and the rest are checks that
nothing set. A workload is *grounded* when its baseline is within
`TOL` of every figure the paper prints for it. The section carries no
verdict: it says how far each experiment's workloads can be trusted, and
a scheme's result is never one of its figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .base import Section

#: Within 10% of the paper's figure (relative; absolute 10 points for a
#: figure of 0).
TOL = 0.10


@dataclass
class Figure:
    """One baseline figure of the paper for one workload."""

    item: str  # the workload / volume / trace
    figure: str  # what is measured, with its unit
    source: str  # where the paper prints it
    paper: float
    ours: float
    #: what set it: "calibrated: <knob>", "profile input: <key>", or "-" (a check: nothing set it)
    knob: str
    #: where the paper gives a range (lo, hi): inside it is on target, `paper` is its middle
    band: Optional[Tuple[float, float]] = None

    def off(self) -> float:
        """(ours - paper) / paper, in percent (NaN when undefined)."""
        if self.ours != self.ours or self.paper != self.paper:
            return float("nan")
        if self.paper == 0:
            return float("nan")
        return (self.ours / self.paper - 1.0) * 100.0

    def within(self) -> bool:
        if self.ours != self.ours:
            return False
        if self.band is not None:
            return self.band[0] <= self.ours <= self.band[1]
        if self.paper == 0:
            return abs(self.ours) <= TOL * 100
        return abs(self.ours / self.paper - 1.0) <= TOL + 1e-12


def grounded(figs: Sequence[Figure]) -> Dict[str, bool]:
    """Per item: every figure within TOL."""
    out: Dict[str, bool] = {}
    for f in figs:
        out[f.item] = out.get(f.item, True) and f.within()
    return out


def section(figs: Sequence[Figure], desc: str, notes: Sequence[str] = ()) -> Section:
    """The report's grounding table: one row per (workload, figure), and a
    note naming the grounded workloads and, for the others, each figure
    that misses."""
    rows: List[List[Any]] = [[f.item, f.figure, f.source, f.paper, f.ours, f.off(), f.knob, f.within()] for f in figs]
    s = Section("grounding", "Baseline figures the paper prints, and ours (grounding; no verdict)",
                "the papers' figures about their baselines and traces (each row's source)", desc,
                ["workload", "figure", "source", "paper", "ours (baseline)", "off %", "set by", "within 10%"], rows)
    g = grounded(figs)
    ok = [k for k, v in g.items() if v]
    s.notes.append(f"A workload is grounded when its baseline is within {TOL * 100:.0f}% of every figure the paper "
                   f"prints for it. Grounded: {', '.join(ok) or 'none'} ({len(ok)} of {len(g)}). 'set by' says "
                   "whether a figure is a profile input, a calibration target (then it checks the calibration, not "
                   "the scheme) or a check nothing set. No scheme's result is a figure here.")
    missed = [f for f in figs if not f.within()]
    if missed:
        s.notes.append("Missed: " + "; ".join(f"{f.item} {f.figure} {f.ours:.3g} vs {f.paper:g}"
                                              + (f" ({f.off():+.0f}%)" if f.off() == f.off() else "")
                                              for f in missed) + ".")
    s.notes += list(notes)
    return s


def given(ctx, key: str) -> str:
    """What sets a trace property: the profile's `key`, or the real trace."""
    return "the trace itself" if ctx.traces else f"profile input: {key}"


def write_share(run) -> float:
    """Writes as a share of the measured requests, %."""
    s = run.summary
    n = s["reads"] + s["writes"]
    return s["writes"] / n * 100 if n else float("nan")


def mean_size_kib(run) -> float:
    """Mean request size over the measured requests, KiB (host bytes moved
    over the run / requests)."""
    s = run.summary
    t = s["throughput"]
    n = s["reads"] + s["writes"]
    mib = (t["read_mib_s"] + t["write_mib_s"]) * t["duration_s"]
    return mib * 1024 / n if n else float("nan")


def arrival_rate(run) -> Optional[float]:
    """The profile's mean arrival rate in trace time, req/s (None for a
    trace or a non-Poisson arrival)."""
    spec = (run.summary.get("workload") or {}).get("spec") or {}
    a = spec.get("arrival") or {}
    r = a.get("rate_per_s")
    if r is None:
        return None
    return float(r)
