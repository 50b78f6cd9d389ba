"""Each reproduction experiment's figure, shaped like the paper's figure or
table it reproduces (same axes, same grouping), with the paper's numbers
drawn beside ours.

    sections --add_figures--> one Plot per experiment --draw--> Figure
                               (figures/<paper>.py)       + its data (JSON)

A `Plot` is data first: panels of groups (workloads, configurations, load
points) and series, ours and the paper's. The paper's come only from what
the reproduction records as the paper's (a section's claim, or the paper's
tables its module keeps); where the paper gives one number for all
workloads (an average) it is drawn at the group "mean" beside our mean.
`draw` makes the figure from it by fixed rules, so every figure reads the
same way:

- the paper's series are hatched bars (or dashed lines with open markers)
  in the colour of the series they stand beside;
- a log axis when the drawn values span a decade and a half or more (a
  symmetric log axis for changes in % that reach beyond +-100%);
- a saturated group gets no bar: a hatched grey band with the word
  "saturated" (its numbers are the device's throughput, not the scheme's
  effect: docs/reproduce.md, "Verdicts").

The plot's data is written beside the PNG and SVG as figures/<name>.json.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ..base import Section

PAPER = "paper"
#: The group where our mean meets the paper's single (average) number.
MEAN = "mean"
SATURATED_HATCH = "xx"


@dataclass
class Series:
    name: str
    values: List[float]
    #: the paper's numbers (drawn hatched / dashed)
    paper: bool = False
    #: for bars: min and max per group, drawn as a range (cr-7's channels)
    low: Optional[List[float]] = None
    high: Optional[List[float]] = None
    #: the series a paper series stands beside (its colour); by default
    #: its name without "paper "
    beside: Optional[str] = None


@dataclass
class Panel:
    title: str
    xlabel: str
    ylabel: str
    groups: List[str]
    series: List[Series]
    #: groups whose runs saturated: marked, never drawn
    saturated: List[str] = field(default_factory=list)
    #: a reference value (1 for a ratio to the baseline, 0 for a change)
    line: Optional[float] = None
    kind: str = "bars"  # or "lines"
    #: "linear", "log", "symlog"; None picks by the rule above
    scale: Optional[str] = None
    stacked: bool = False


@dataclass
class Plot:
    name: str
    title: str
    panels: List[Panel]
    #: said under the title (what the paper's numbers are, where derived)
    caption: str = ""
    ncols: int = 2

    def to_json(self) -> dict:
        def clean(v: Any) -> Any:
            if isinstance(v, float) and not math.isfinite(v):
                return None
            if isinstance(v, dict):
                return {k: clean(x) for k, x in v.items()}
            if isinstance(v, list):
                return [clean(x) for x in v]
            return v

        return clean(asdict(self))


def num(v: Any) -> float:
    """A table cell as a float (NaN for anything that is not a number)."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def records(s: Section) -> List[Dict[str, Any]]:
    """A section's table rows as {header: cell}."""
    return [dict(zip(s.headers, r)) for r in s.rows]


def finite_mean(xs: Sequence[float]) -> float:
    xs = [x for x in xs if x == x]
    return float(np.mean(xs)) if xs else float("nan")


def with_mean(recs: List[dict], key: str, cols: Sequence[str], skip: Sequence[str] = ()) -> tuple:
    """(groups, {col: values}) of `recs` by `key`, plus the group MEAN: each
    column's mean over the rows not in `skip` (the saturated ones)."""
    groups = [str(r[key]) for r in recs]
    vals = {c: [num(r[c]) for r in recs] for c in cols}
    keep = [i for i, g in enumerate(groups) if g not in skip]
    for c in cols:
        vals[c].append(finite_mean([vals[c][i] for i in keep]))
    return groups + [MEAN], vals


def at_mean(groups: Sequence[str], value: float) -> List[float]:
    """A paper's single number, at the group MEAN only."""
    return [value if g == MEAN else float("nan") for g in groups]


def saturated_groups(recs: List[dict], key: str, col: str = "saturated") -> List[str]:
    return [str(r[key]) for r in recs if r.get(col) is True]


def claim_paper(s: Section, measure: str) -> float:
    """The paper's number for `measure` as the section's claim records it."""
    return float(s.claim.paper[measure]) if s.claim and measure in s.claim.paper else float("nan")


#: paper name -> its module of builders: `BUILDERS` (section id ->
#: fn(Section) -> Plot, a figure drawn from the section's table) and
#: `DECORATORS` (section id -> fn(Section, Figure) -> dict: the paper's
#: numbers added to a figure the experiment drew from its runs, such as a
#: CDF, returning the data added)
MODULES = {"hotr": "hotr", "collisions": "collisions", "cr5m": "cr5m", "rr-ssd": "rrssd"}


def _module(paper: str):
    mod = MODULES.get(paper)
    return importlib.import_module(f".{mod}", __name__) if mod else None


def add_figures(paper: str, sections: List[Section]) -> None:
    """Give each experiment of `paper` its own figure: a builder's plot
    replaces the module's figure of the same name (if any); a decorator
    draws the paper's numbers on the module's own. The data drawn is kept
    in `Section.figure_data`."""
    mod = _module(paper)
    if mod is None:
        return
    for s in sections:
        fn = mod.BUILDERS.get(s.id)
        plot = fn(s) if fn else None
        if plot is not None:
            s.figures = [(n, f) for n, f in s.figures if n != plot.name] + [(plot.name, draw(plot))]
            s.figure_data[plot.name] = plot.to_json()
        dec = mod.DECORATORS.get(s.id)
        for name, fig in s.figures if dec else ():
            if name == s.id:
                s.figure_data[name] = dec(s, fig)
        if (fn or dec) and not s.figures and s.claim and s.claim.saturated:
            plot = saturated_only(s)  # every workload left out: the figure says so
            s.figures = [(plot.name, draw(plot))]
            s.figure_data[plot.name] = plot.to_json()


def saturated_only(s: Section) -> Plot:
    """An experiment whose every workload saturated: the workloads, each
    marked, nothing drawn."""
    sat = list(s.claim.saturated) if s.claim else []
    return Plot(s.id, f"{s.id}: every workload's runs saturated",
                [Panel("nothing to draw", "workload", "-", sat, [], sat)], ncols=1)


from .draw import draw  # noqa: E402  (draw uses the dataclasses above)

__all__ = ["MEAN", "PAPER", "Panel", "Plot", "Series", "add_figures", "draw"]
