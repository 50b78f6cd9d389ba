"""RR-SSD's figures: Fig. 1 (rr-1), Fig. 2 (rr-2), Fig. 3 (rr-3), Fig. 4
(rr-4), Table I (rr-5), Fig. 9 (rr-6), Table IV (rr-7), Fig. 10 (rr-8),
Fig. 11 (rr-9), Fig. 12 (rr-10), Fig. 13 (rr-11), Table V (rr-12).

The reproduction leaves a workload with a saturated run out of its tables
(`Claim.saturated`); each figure shows it as a saturated group, so the
reader sees it was run and why it is not drawn."""

from __future__ import annotations

import textwrap
from typing import Dict, List, Tuple

from ..base import Section
from . import MEAN, Panel, Plot, Series, at_mean, claim_paper, finite_mean, num, records, saturated_only

WL = "workload"
NAN = float("nan")


def _left_out(s: Section) -> List[str]:
    return list(s.claim.saturated) if s.claim else []


def _groups(recs: List[dict], s: Section, mean: bool = True) -> Tuple[List[str], List[str]]:
    """(groups, saturated): the workloads of the table, those left out
    (saturated), and MEAN over the drawn ones."""
    names = list(dict.fromkeys(str(r[WL]) for r in recs))
    sat = [n for n in _left_out(s) if n not in names]
    return names + sat + ([MEAN] if mean else []), sat


def _values(recs: List[dict], groups: List[str], col: str) -> List[float]:
    """`col` per group (NaN for a saturated one), and at MEAN the mean of
    the drawn ones."""
    by = {str(r[WL]): num(r[col]) for r in recs}
    vals = [by.get(g, NAN) for g in groups if g != MEAN]
    return vals + ([finite_mean(vals)] if MEAN in groups else [])


def _empty(s: Section) -> bool:
    return not s.rows


def rr1(s: Section) -> Plot:
    if _empty(s):
        return saturated_only(s)
    recs = records(s)
    panels = []
    for kind, measure in (("read", "read queueing % (range midpoint)"), ("write", "write queueing % (range midpoint)")):
        mine = [r for r in recs if r["requests"] == kind]
        groups, sat = _groups(mine, s)
        series = [Series(c, _values(mine, groups, c)) for c in ("queueing %", "channel transfer %", "flash op %")]
        series.append(Series("paper queueing (its range's midpoint)", at_mean(groups, claim_paper(s, measure)),
                             paper=True, beside="queueing %"))
        panels.append(Panel(f"{kind}s, conventional SSD", WL, "share of service time (%)", groups, series, sat,
                            stacked=True))
    return Plot("rr-1", "rr-1 (Fig. 1): service-time breakdown, conventional SSD", panels,
                "paper: queueing 25-77% of read and 80-90% of write time (the midpoints, at 'mean')")


def rr2(s: Section, fig) -> Dict:
    """Fig. 2's claim on the module's time series: ours against 32x."""
    ax = fig.axes[0]
    ax.set_title("\n".join(textwrap.wrap(ax.get_title(), 70)))  # the experiment's title is longer than its panel
    ours = {r[0]: num(r[1]) for r in s.rows}  # the judged column: per-second means (rrssd_fig2.fig2_ratio)
    paper = claim_paper(s, "max / min chip queue (webvm)")
    ax.text(0.01, 0.97, f"max / min over these 100 s: ours {ours.get('webvm', NAN):.1f}x, paper up to {paper:g}x",
            transform=ax.transAxes, va="top", fontsize=8, bbox={"facecolor": "white", "edgecolor": "0.7"})
    return {"paper": {"max / min (webvm)": paper}, "ours": {"max / min (1 s means of host requests, Fig. 2's 100 s)": ours}}


def rr3(s: Section) -> Plot:
    if _empty(s):
        return saturated_only(s)
    recs = records(s)
    groups, sat = _groups(recs, s)
    series = []
    for col, measure, name in (("read improvement %", "read improvement % (mean)", "read"),
                               ("total improvement %", "total improvement % (mean)", "total")):
        series += [Series(name, _values(recs, groups, col)),
                   Series(f"paper {name}", at_mean(groups, claim_paper(s, measure)), paper=True)]
    return Plot("rr-3", "rr-3 (Fig. 3): Ideal-All-Chip replication against the conventional SSD",
                [Panel("service time improvement", WL, "improvement (%)", groups, series, sat)],
                "paper: its means (read 38.4%, total 25.3%), at 'mean'", ncols=1)


def rr4(s: Section, fig) -> Dict:
    """Fig. 4's numbers: the share of values serving 80% of reads, one
    marker per workload the paper names, in that workload's colour."""
    ax = fig.axes[0]
    colour = {ln.get_label(): ln.get_color() for ln in ax.get_lines()}
    paper = {r[0]: num(r[2]) for r in s.rows if num(r[2]) == num(r[2])}
    for n, v in paper.items():
        ax.plot([v], [80.0], ls="none", marker="*", ms=11, mfc="white", mec=colour.get(n, "k"))
    if paper:
        ax.plot([], [], ls="none", marker="*", mfc="white", mec="k", label="paper: values for 80% of reads")
        ax.axhline(80.0, color="0.6", lw=0.6, ls=":")
        ax.legend(title="workload", fontsize=7)
    return {"paper": {n: {"values %": v, "reads %": 80.0} for n, v in paper.items()},
            "ours": {r[0]: num(r[1]) for r in s.rows}}


def rr5(s: Section) -> Plot:
    if _empty(s):
        return saturated_only(s)
    recs = records(s)
    groups, sat = _groups(recs, s, mean=False)
    panels = []
    for unit, what in (("K", "copies (thousands)"), ("min", "minutes")):
        series = []
        for period in ("daily", "weekly"):
            series += [Series(period, _values(recs, groups, f"{period} {unit}")),
                       Series(f"paper {period}", _values(recs, groups, f"paper {period} {unit}"), paper=True)]
        panels.append(Panel(f"first window's {what}", WL, what, groups, series, sat))
    return Plot("rr-5", "rr-5 (Table I): replication cost of the first daily and the first weekly window", panels,
                "paper: Table I (mail, homes, webvm)")


def rr6(s: Section, fig) -> Dict:
    """Fig. 9's claim on the module's per-day panels: RR-SSD's gain as a
    share of Oracle's, ours beside the paper's 90%."""
    ours = dict(s.claim.ours) if s.claim else {}
    paper = dict(s.claim.paper) if s.claim else {}
    for ax in fig.axes:
        m = f"RR-SSD gain / Oracle gain % ({ax.get_title()})"
        if m in paper:
            ax.text(0.02, 0.04, f"RR-SSD / Oracle: ours {ours.get(m, NAN):.0f}%, paper ~{paper[m]:g}%",
                    transform=ax.transAxes, fontsize=7, bbox={"facecolor": "white", "edgecolor": "0.7"})
    return {"paper": paper, "ours": ours}


def rr7(s: Section) -> Plot:
    if _empty(s):
        return saturated_only(s)
    recs = records(s)
    groups, sat = _groups(recs, s, mean=False)
    read = [Series("RR-SSD", _values(recs, groups, "RR-SSD read")),
            Series("paper RR-SSD", _values(recs, groups, "paper"), paper=True),
            Series("Oracle", _values(recs, groups, "Oracle read")),
            Series("paper Oracle", _values(recs, groups, "paper Oracle"), paper=True)]
    total = [Series("RR-SSD", _values(recs, groups, "RR-SSD total")),
             Series("paper RR-SSD", _values(recs, groups, "paper total"), paper=True)]
    return Plot("rr-7", "rr-7 (Table IV): improvement over CA-SSD, from day 1",
                [Panel("read service time", WL, "improvement over CA-SSD (%)", groups, read, sat, line=0.0),
                 Panel("total (read + write) service time", WL, "improvement over CA-SSD (%)", groups, total, sat,
                       line=0.0)], "paper: Table IV per workload")


def rr8(s: Section) -> Plot:
    if _empty(s):
        return saturated_only(s)
    recs = records(s)
    alphas = sorted({num(r["alpha %"]) for r in recs})
    groups = [f"{a:g}%" for a in alphas]
    paper = dict(s.claim.paper) if s.claim else {}
    series = []
    for wl in dict.fromkeys(str(r[WL]) for r in recs):
        by = {num(r["alpha %"]): num(r["read improvement %"]) for r in recs if r[WL] == wl}
        series.append(Series(wl, [by.get(a, NAN) for a in alphas]))
        p = paper.get(f"best read improvement over alpha % ({wl})")
        if p is not None:
            series.append(Series(f"paper {wl} (where it levels off)", [p] * len(alphas), paper=True, beside=wl))
    return Plot("rr-8", "rr-8 (Fig. 10): read improvement against the replication space",
                [Panel("read improvement over CA-SSD", "replication space alpha (% of the footprint)",
                       "improvement (%)", groups, series, line=0.0, kind="lines")],
                "paper: it levels off near alpha = 20%, at about 25% (hadoop) and 33% (trans)", ncols=1)


def rr9(s: Section) -> Plot:
    if _empty(s):
        return saturated_only(s)
    recs = records(s)
    groups, sat = _groups(recs, s)
    cols = {"RR-SSD": "RR-SSD (S/(E x Pop))", "Random": "Random", "Static": "Static", "PBLRU": "PBLRU"}
    per = Panel("read improvement over CA-SSD, same copies and space", WL, "improvement (%)", groups,
                [Series(n, _values(recs, groups, c)) for n, c in cols.items()], sat, line=0.0)
    m = "RR-SSD gain vs Random/Static gain %"
    ratio = Panel("RR-SSD's gain / Random and Static's, - 1", "mean over the workloads", "%", [MEAN],
                  [Series("ours", [num(s.claim.ours.get(m)) if s.claim else NAN]),
                   Series("paper (about 2x)", [claim_paper(s, m)], paper=True, beside="ours")], line=0.0)
    return Plot("rr-9", "rr-9 (Fig. 11): placement strategies", [per, ratio],
                "paper: RR-SSD about 2x Random and Static; PBLRU between")


def rr10(s: Section) -> Plot:
    if _empty(s):
        return saturated_only(s)
    recs = records(s)
    groups, sat = _groups(recs, s)
    series = [Series("end-of-day read", _values(recs, groups, "end-of-day read improvement %")),
              Series("on-line read", _values(recs, groups, "on-line read improvement %")),
              Series("paper on-line read", at_mean(groups, claim_paper(s, "on-line read improvement %")), paper=True),
              Series("on-line total", _values(recs, groups, "on-line total %")),
              Series("paper on-line total", at_mean(groups, claim_paper(s, "on-line total improvement %")),
                     paper=True)]
    return Plot("rr-10", "rr-10 (Fig. 12): end-of-day against on-line replication",
                [Panel("improvement over CA-SSD", WL, "improvement (%)", groups, series, sat, line=0.0)],
                "paper: on-line's means, at 'mean'", ncols=1)


def rr11(s: Section) -> Plot:
    if _empty(s):
        return saturated_only(s)
    recs = records(s)
    groups, sat = _groups(recs, s)
    for r in recs:
        r["change %"] = (num(r["RR-SSD p99 us"]) / num(r["CA-SSD p99 us"]) - 1) * 100
    p99 = Panel("p99 of all requests", WL, "p99 latency (us)", groups[:-1],
                [Series("CA-SSD", _values(recs, groups[:-1], "CA-SSD p99 us")),
                 Series("RR-SSD", _values(recs, groups[:-1], "RR-SSD p99 us"))], sat)
    change = Panel("RR-SSD against CA-SSD", WL, "p99 change (%)", groups,
                   [Series("ours", _values(recs, groups, "change %")),
                    Series("paper (about 2x lower)", at_mean(groups, claim_paper(s, "p99 RR-SSD vs CA-SSD %")),
                           paper=True, beside="ours")], sat, line=0.0)
    return Plot("rr-11", "rr-11 (Fig. 13): tail latency", [p99, change], "paper: about 2x lower, at 'mean'")


def rr12(s: Section) -> Plot:
    if _empty(s):
        return saturated_only(s)
    recs = records(s)
    groups, sat = _groups(recs, s, mean=False)
    judged = "copies / flash writes incl. copies (Table V's count)"
    series = [Series(judged, _values(recs, groups, "copies / flash writes incl. copies % (Table V's, judged)")),
              Series("paper (Table V)", _values(recs, groups, "paper %"), paper=True, beside=judged),
              Series("copies / host page writes", _values(recs, groups,
                                                          "copies / host page writes % (a conventional SSD's writes)"))]
    return Plot("rr-12", "rr-12 (Table V): replication writes against all writes",
                [Panel("replication writes", WL, "share of writes (%)", groups, series, sat)],
                "paper: Table V per workload", ncols=1)


BUILDERS = {"rr-1": rr1, "rr-3": rr3, "rr-5": rr5, "rr-7": rr7, "rr-8": rr8, "rr-9": rr9, "rr-10": rr10,
            "rr-11": rr11, "rr-12": rr12}
DECORATORS = {"rr-2": rr2, "rr-4": rr4, "rr-6": rr6}
