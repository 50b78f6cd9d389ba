"""HotR's figures: Fig. 1(b)/(c) (hr-1, hr-2), Fig. 5 (hr-3), Fig. 6
(hr-4), Fig. 7 (hr-5), Fig. 8 (hr-6), Fig. 9 (hr-7). The paper gives one
number per figure (its average over the four workloads): it is drawn at
the group "mean", beside our mean over the unsaturated workloads."""

from __future__ import annotations

from typing import Optional

from ..base import Section
from . import MEAN, Panel, Plot, Series, at_mean, claim_paper, num, records, saturated_groups, with_mean

WL = "workload"
SCHEMES = ("Rails", "TTFlash", "HotR")


def _rows(s: Section):
    recs = [r for r in records(s) if r[WL] != MEAN]
    return recs, saturated_groups(recs, WL)


def hr1(s: Section) -> Plot:
    recs, sat = _rows(s)
    panels = []
    for col, measure, what in (("blocked %", "reads blocked %", "reads blocked by a program or erase (%)"),
                               ("slower than ideal %", "slower than ideal %", "read mean slower than ideal (%)")):
        groups, v = with_mean(recs, WL, [col], sat)
        panels.append(Panel(what, WL, "%", groups, [Series("ours", v[col]),
                                                    Series("paper", at_mean(groups, claim_paper(s, measure)),
                                                           paper=True, beside="ours")], sat))
    return Plot("hr-1", "hr-1 (Fig. 1): reads blocked by writes, and the slowdown against an ideal device", panels,
                "paper: its average over four workloads, at 'mean'")


def hr2(s: Section) -> Plot:
    recs, _ = _rows(s)
    cols = ["read-intensive %", "write-intensive %", "mixed %"]
    groups, v = with_mean(recs, WL, cols)
    series = [Series(c, v[c]) for c in cols] + [Series("paper mixed %", at_mean(groups, claim_paper(s, "mixed pages %")),
                                                        paper=True)]
    return Plot("hr-2", "hr-2 (Fig. 1(c)): page classes by the >90% rule",
                [Panel("pages accessed at least twice", WL, "share of pages (%)", groups, series)],
                "paper: mixed pages, its average, at 'mean'", ncols=1)


def hr3(s: Section) -> Plot:
    recs, sat = _rows(s)
    groups, v = with_mean(recs, WL, SCHEMES, sat)
    paper = 1 + claim_paper(s, "HotR read mean vs baseline %") / 100
    series = [Series(n, v[n]) for n in SCHEMES] + [Series("paper HotR", at_mean(groups, paper), paper=True)]
    return Plot("hr-3", "hr-3 (Fig. 5): mean read response time, normalised to the baseline",
                [Panel("each scheme / baseline", WL, "read mean / baseline", groups, series, sat, line=1.0)],
                "paper: HotR's average (1 - 21.8%), at 'mean'; Rails best and TTFlash worst per workload", ncols=1)


def hr4(s: Section) -> Plot:
    recs, sat = _rows(s)
    cols = {"HotR redirected %": "reads redirected %", "HotR blocked reads redirected %": "blocked reads redirected %"}
    groups, v = with_mean(recs, WL, list(cols) + ["baseline blocked %"], sat)
    series = [Series("baseline blocked %", v["baseline blocked %"])]
    for col, measure in cols.items():
        series += [Series(col, v[col]), Series(f"paper {col}", at_mean(groups, claim_paper(s, measure)), paper=True)]
    return Plot("hr-4", "hr-4 (Fig. 6): reads HotR redirects to its staging copies on its spare chip",
                [Panel("reads redirected, and the baseline's blocked reads", WL, "share of reads (%)", groups, series,
                       sat)], "paper: its averages, at 'mean'", ncols=1)


#: hr-5's paper numbers are HotR's product against each other scheme's:
#: with the baseline's product 1, the others' follow from HotR's.
OTHERS = {"baseline": "HotR product vs baseline %", "Rails": "HotR product vs Rails %",
          "TTFlash": "HotR product vs TTFlash %"}


def hr5(s: Section) -> Plot:
    recs, sat = _rows(s)
    names = ["baseline", "HotR", "Rails", "TTFlash"]
    groups, v = with_mean(recs, WL, names, sat)
    hotr = 1 + claim_paper(s, OTHERS["baseline"]) / 100
    paper = {"baseline": 1.0, "HotR": hotr,
             **{k: hotr / (1 + claim_paper(s, m) / 100) for k, m in OTHERS.items() if k != "baseline"}}
    series = []
    for n in names:
        series += [Series(n, v[n]), Series(f"paper {n}", at_mean(groups, paper[n]), paper=True)]
    return Plot("hr-5", "hr-5 (Fig. 7): cost-latency product (space x read mean), relative to the baseline",
                [Panel("cost x latency / baseline's", WL, "product / baseline", groups, series, sat, line=1.0)],
                "paper: derived from its HotR-vs-each percentages (baseline = 1), at 'mean'", ncols=1)


PCTS = ["p95", "p97", "p98", "p99", "p99.5"]


def hr6(s: Section) -> Plot:
    recs = [r for r in records(s) if r["requests"] == "read"]
    panels = []
    for wl in dict.fromkeys(r[WL] for r in recs):
        mine = [r for r in recs if r[WL] == wl]
        sat = PCTS if any(r["saturated"] is True for r in mine) else []
        series = [Series({"baseline": "baseline", "hotr": "HotR", "rails": "Rails", "ttflash": "TTFlash"}[r["scheme"]],
                         [num(r[p]) for p in PCTS]) for r in mine]
        panels.append(Panel(wl, "percentile", "read latency (us)", PCTS, series, sat, kind="lines", scale="log"))
    return Plot("hr-6", "hr-6 (Fig. 8): read tail latency per workload", panels,
                "paper: the order Rails < HotR < baseline < TTFlash (it gives no number to draw)")


CELLS = ["SLC", "MLC", "TLC", "QLC"]


def hr7(s: Section) -> Plot:
    recs = records(s)
    series, sat_points = [], []
    for r in recs:
        bad = [c for c in CELLS if c in str(r["saturated"]).split(", ")]
        label = r[WL] + ("" if num(r["x calibrated rate"]) == 1.0 else f" @{num(r['x calibrated rate']):g}x")
        series.append(Series(label, [float("nan") if c in bad else num(r[c]) for c in CELLS]))
        sat_points += [f"{label} {c}" for c in bad]
    cap = "paper: the speedup grows with bits per cell (it gives no number to draw)"
    if sat_points:
        cap += "; saturated, not drawn: " + ", ".join(sat_points)
    return Plot("hr-7", "hr-7 (Fig. 9): HotR's read speedup over the baseline by flash type",
                [Panel("baseline / HotR read mean", "flash type (bits per cell)", "read speedup", CELLS, series,
                       line=1.0, kind="lines")], cap, ncols=1)


def hr_load(s: Section) -> Optional[Plot]:
    recs = records(s)
    loads = sorted({num(r["x calibrated rate"]) for r in recs})
    series = []
    for wl in dict.fromkeys(r[WL] for r in recs):
        by = {num(r["x calibrated rate"]): num(r["HotR read mean vs baseline %"]) for r in recs if r[WL] == wl}
        series.append(Series(wl, [by.get(k, float("nan")) for k in loads]))
    groups = [f"{k:g}x" for k in loads]
    return Plot("hr-load", "hr-load (ours): HotR's read mean against the baseline, by load",
                [Panel("HotR read mean vs baseline", "x the calibrated rate", "change (%)", groups, series, line=0.0,
                       kind="lines")], "no paper figure; saturated runs are listed under 'Runs with warnings'", ncols=1)


BUILDERS = {"hr-1": hr1, "hr-2": hr2, "hr-3": hr3, "hr-4": hr4, "hr-5": hr5, "hr-6": hr6, "hr-7": hr7,
            "hr-load": hr_load}
DECORATORS: dict = {}
