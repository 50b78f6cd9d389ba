"""CR5M's figures: Figs. 6-8 (cr-1: one panel per configuration SSD1-3),
the write response time (cr-2), the mirror chips' read share (cr-3), Fig. 9
and Fig. 10 (cr-4, cr-5: the synthetic sweeps), Fig. 11 (cr-6: parity
pre-reads) and Fig. 12 (cr-7: writes per channel). The paper's CR5M vs CR5
changes are per trace; its other numbers are averages, drawn at "mean"."""

from __future__ import annotations

from typing import List, Optional

from ..base import Section
from . import MEAN, Panel, Plot, Series, at_mean, claim_paper, finite_mean, num, records

ORGS = ["CR1", "CR4", "CR5", "CR5M"]


def _label(r: dict) -> str:
    return f"{r['config']}\n{r['workload']}"


def _sat(recs: List[dict]) -> List[str]:
    return [_label(r) for r in recs if r["saturated"] is True]


def _change_panel(recs: List[dict], col: str, title: str, paper_mean: float, sat: List[str],
                  paper_col: Optional[str] = None) -> Panel:
    """Ours per configuration and workload, their mean at MEAN, and the
    paper's: per workload from `paper_col`, else its average at MEAN."""
    groups = [_label(r) for r in recs] + [MEAN]
    vals = [num(r[col]) for r in recs]
    ours = vals + [finite_mean([v for v, r in zip(vals, recs) if _label(r) not in sat])]
    paper = ([num(r[paper_col]) for r in recs] + [paper_mean]) if paper_col else at_mean(groups, paper_mean)
    return Panel(title, "configuration and workload", "CR5M vs CR5 (%)", groups,
                 [Series("CR5M vs CR5", ours), Series("paper CR5M vs CR5", paper, paper=True)], sat, line=0.0)


def cr1(s: Section) -> Plot:
    recs = records(s)
    sat = _sat(recs)
    panels = []
    for cfg in dict.fromkeys(r["config"] for r in recs):
        mine = [r for r in recs if r["config"] == cfg]
        panels.append(Panel(f"{cfg}: mean response time / pure SSD", "workload", "normalised response time",
                            [r["workload"] for r in mine], [Series(o, [num(r[o]) for r in mine]) for o in ORGS],
                            [r["workload"] for r in mine if _label(r) in sat], line=1.0))
    paper = {r["workload"]: num(r["paper CR5M vs CR5 %"]) for r in recs}
    panels.append(_change_panel(recs, "CR5M vs CR5 %", "CR5M against CR5, overall response time",
                                finite_mean(list(paper.values())), sat, "paper CR5M vs CR5 %"))
    return Plot("cr-1", "cr-1 (Figs. 6-8): mean response time normalised to the pure SSD", panels,
                "paper: CR5M vs CR5 per trace (its mean at 'mean'); its order CR1 < CR5M < CR5 < CR4")


def cr2(s: Section) -> Plot:
    recs = records(s)
    paper = [num(r["paper %"]) for r in recs]
    return Plot("cr-2", "cr-2: write response time, CR5M against CR5",
                [_change_panel(recs, "CR5M vs CR5 %", "write response time", finite_mean(paper), _sat(recs),
                               "paper %")],
                "paper: Build and Radius9 only (its mean of the two at 'mean')", ncols=1)


def cr3(s: Section) -> Plot:
    recs = records(s)
    groups = [_label(r) for r in recs] + [MEAN]
    sat = _sat(recs)
    vals = [num(r["mirror reads %"]) for r in recs]
    ours = vals + [finite_mean([v for v, r in zip(vals, recs) if _label(r) not in sat])]
    return Plot("cr-3", "cr-3: reads served by the mirror chips (CR5M)",
                [Panel("mirror reads", "configuration and workload", "share of reads (%)", groups,
                       [Series("ours", ours), Series("paper", at_mean(groups, claim_paper(s, "mirror reads %")),
                                                     paper=True, beside="ours")], sat)],
                "paper: about 1.2% of reads, at 'mean'", ncols=1)


def sweep(s: Section, fig_no: int, xlabel: str) -> Plot:
    recs = records(s)
    groups = [str(r["workload"]).split("-", 1)[1] for r in recs]
    sat = [g for g, r in zip(groups, recs) if r["saturated"] is True]
    best = claim_paper(s, "best CR5M vs CR5 %")
    panels = [Panel("mean response time", xlabel, "us", groups,
                    [Series("CR5", [num(r["CR5 mean us"]) for r in recs]),
                     Series("CR5M", [num(r["CR5M mean us"]) for r in recs])], sat),
              Panel("CR5M against CR5", xlabel, "change (%)", groups,
                    [Series("CR5M vs CR5", [num(r["CR5M vs CR5 %"]) for r in recs]),
                     Series("CR5M next vs CR5 (ours)", [num(r["CR5M next vs CR5 %"]) for r in recs]),
                     Series("paper's best CR5M vs CR5", [best] * len(recs), paper=True)], sat, line=0.0,
                    kind="lines")]
    return Plot(s.id, f"{s.id} (Fig. {fig_no}): {s.title}", panels, f"paper: {s.paper} (its best drawn as a line)")


def cr4(s: Section) -> Plot:
    return sweep(s, 9, "write ratio")


def cr5(s: Section) -> Plot:
    return sweep(s, 10, "mean request size")


def cr6(s: Section) -> Plot:
    recs = records(s)
    sat = _sat(recs)
    groups = [_label(r) for r in recs]
    per = Panel("parity pre-reads per write", "configuration and workload", "pre-reads per write", groups,
                [Series(c, [num(r[c]) for r in recs]) for c in ("CR5", "CR5M (host writes)", "CR5M (with reclaims)")],
                sat)
    change = _change_panel(recs, "CR5M vs CR5 %", "pre-reads per write, CR5M against CR5",
                           claim_paper(s, "pre-reads per write, CR5M vs CR5 %"), sat)
    return Plot("cr-6", "cr-6 (Fig. 11): parity pre-reads per write (RMW / RCW / MW)", [per, change],
                "paper: CR5M -56% on average, at 'mean'")


def cr7(s: Section) -> Plot:
    recs = records(s)
    sat = _sat(recs)
    groups = [_label(r) for r in recs]
    per = Panel("data-chip writes per channel (bars: mean; whiskers: min..max)", "configuration and workload",
                "writes per channel", groups,
                [Series(o, [num(r[f"{o} mean"]) for r in recs], low=[num(r[f"{o} min"]) for r in recs],
                        high=[num(r[f"{o} max"]) for r in recs]) for o in ("CR5", "CR5M")], sat)
    change = _change_panel(recs, "CR5M vs CR5 %", "mean writes per channel, CR5M against CR5",
                           claim_paper(s, "channel writes, CR5M vs CR5 %"), sat)
    return Plot("cr-7", "cr-7 (Fig. 12): writes per channel", [per, change], "paper: CR5M -14% on average, at 'mean'")


def cr_load(s: Section) -> Plot:
    recs = records(s)
    loads = sorted({num(r["x Table I rate"]) for r in recs})
    groups = [f"{k:g}x" for k in loads]
    series = []
    for wl in dict.fromkeys(r["workload"] for r in recs):
        by = {num(r["x Table I rate"]): num(r["CR5M vs CR5 %"]) for r in recs if r["workload"] == wl}
        series.append(Series(wl, [by.get(k, float("nan")) for k in loads]))
    return Plot("cr-load", "cr-load (ours): CR5M against CR5 on SSD1, by load",
                [Panel("CR5M vs CR5, mean response time", "x Table I's rate", "change (%)", groups, series,
                       line=0.0, kind="lines")], "no paper figure; saturated runs are listed under 'Runs with warnings'",
                ncols=1)


BUILDERS = {"cr-1": cr1, "cr-2": cr2, "cr-3": cr3, "cr-4": cr4, "cr-5": cr5, "cr-6": cr6, "cr-7": cr7,
            "cr-load": cr_load}
DECORATORS: dict = {}
