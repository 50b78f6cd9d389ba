"""The collision paper's figures and tables: Table 2 (rc-1), Fig. 3 (rc-2),
Table 3 (rc-3), Fig. 4 (rc-4), Figs. 8-9 (rc-5), Fig. 11 (rc-6), Table 5
(rc-7), and the write overhead (rc-8). The paper gives most of them per
volume, so its numbers stand beside ours volume by volume."""

from __future__ import annotations

from typing import Dict, List, Tuple, cast

from ..base import Section
from . import MEAN, PAPER, Panel, Plot, Series, at_mean, finite_mean, num, records, saturated_groups

WL = "workload"


def _short(name: str) -> str:
    return name.replace("msr-", "")


def rc1(s: Section) -> Plot:
    recs = records(s)
    ours = [r for r in recs if not str(r[WL]).startswith(PAPER)]
    paper = {str(r[WL])[len(PAPER) + 1:]: r for r in recs if str(r[WL]).startswith(PAPER)}
    groups = [_short(r[WL]) for r in ours]
    sat = [_short(g) for g in saturated_groups(ours, WL)]

    def pair(col: str, name: str) -> List[Series]:
        return [Series(name, [num(r[col]) for r in ours]),
                Series(f"paper {name}", [num(paper[r[WL]][col]) if r[WL] in paper else float("nan") for r in ours],
                       paper=True)]

    panels = [Panel("collisions, as a share of time", "workload (volume profile)", "%", groups,
                    pair("expected % (time share)", "expected") + pair("measured % (time share)", "measured"), sat),
              Panel("imbalanced collisions", "workload (volume profile)", "% of collisions", groups,
                    pair("imbalanced %", "imbalanced"), sat),
              Panel("mean outstanding commands (OCC)", "workload (volume profile)", "commands", groups,
                    pair("mean OCC", "mean OCC"), sat),
              Panel("mean repetition of a collision pair", "workload (volume profile)", "repetitions", groups,
                    pair("mean repetition", "mean repetition"), sat)]
    return Plot("rc-1", "rc-1 (Table 2): collision statistics per workload, original FTL", panels,
                "paper: Table 2's row for each volume and RR8; mean OCC and repetition are the calibration's targets")


def rc2(s: Section) -> Plot:
    from ..collisions import PAPER_TABLE2

    recs = records(s)
    groups = [_short(r[WL]) for r in recs]
    # Fig. 3's bars are Table 2's measured over expected collisions.
    paper = [PAPER_TABLE2[r[WL]][2] / PAPER_TABLE2[r[WL]][1] if r[WL] in PAPER_TABLE2 else float("nan") for r in recs]
    # Ours the same way: rc-1's time shares, measured over expected (`fig3_ratio`).
    series = [Series("ours", [num(r["measured / expected (time shares: judged)"]) for r in recs]),
              Series("paper (Table 2: measured / expected)", paper, paper=True, beside="ours")]
    return Plot("rc-2", "rc-2 (Fig. 3): measured / expected read collisions",
                [Panel("measured / expected collisions", "workload", "ratio", groups, series,
                       [_short(g) for g in saturated_groups(recs, WL)], line=1.0)],
                "paper: all but PROJ3 below 1; RR8 (random reads) at 1", ncols=1)


def rc3(s: Section) -> Plot:
    recs = records(s)
    groups = [_short(r[WL]) for r in recs]
    series = [Series("ours", [num(r["reads RSD"]) for r in recs]),
              Series(PAPER, [num(r[PAPER]) for r in recs], paper=True, beside="ours")]
    return Plot("rc-3", "rc-3 (Table 3): relative standard deviation of reads per die",
                [Panel("reads per die, RSD", "workload", "RSD", groups, series,
                       [_short(g) for g in saturated_groups(recs, WL)])],
                "a calibration target: each volume's pair skew was set to reach the paper's", ncols=1)


def rc4(s: Section, fig) -> Dict:
    """Fig. 4's point: the top 5% (PROJ3: 29%) of pairs give 80% (62%)."""
    from ..collisions import VOLUMES

    ax = fig.axes[0]
    shown = {r[0] for r in s.rows}
    pts: Dict[str, Tuple[float, float]] = {}
    for v, d in VOLUMES.items():
        top = cast(Dict[str, object], d).get("top_share")
        if top and v in shown:
            pts[v] = cast(Tuple[float, float], top)
    at: Dict[tuple, List[str]] = {}
    for v, pt in pts.items():  # volumes the paper gives one point for share it
        at.setdefault(pt, []).append(_short(v))
    for (frac, share), vols in at.items():
        ax.plot([frac * 100], [share * 100], ls="none", marker="*", ms=11, mfc="white", mec="k")
        ax.annotate("paper: " + ", ".join(vols), (frac * 100, share * 100), xytext=(6, -12), textcoords="offset points",
                    fontsize=7)
    ax.plot([], [], ls="none", marker="*", mfc="white", mec="k", label="paper (Sec. II-C)")
    ax.legend(title="workload", fontsize=7)
    return {"paper": {v: {"pairs %": f * 100, "collisions %": sh * 100} for v, (f, sh) in pts.items()},
            "ours": {r[0]: r[2] for r in s.rows}}


def rc5(s: Section) -> Plot:
    from ..collisions import L_R

    recs = records(s)
    # the l_R sweep's rows, then the l_M sweep's (both hold "l_R = 5, l_M = 2%")
    parts = {"l_R": recs[:len(L_R)], "l_M": recs[len(L_R):]}
    best = num(s.claim.paper.get("best read change %")) if s.claim else float("nan")
    panels = []
    for key, fixed, what in (("l_R", "l_M = 2%", "l_R (pairs per die)"), ("l_M", "l_R = 5", "l_M (% of capacity)")):
        mine = parts[key]
        groups = [str(r[key]).split("= ")[1] for r in mine]
        panels.append(Panel(f"mean read latency, varying {key} ({fixed})", what, "change vs original FTL (%)",
                            groups, [Series("ours", [num(r["mean read change %"]) for r in mine]),
                                     Series("paper's best (HM1)", [best] * len(mine), paper=True, beside="ours")],
                            line=0.0, kind="lines"))
        panels.append(Panel(f"replications, varying {key}", what, "page replications", groups,
                            [Series("replications", [num(r["replications"]) for r in mine])], kind="lines"))
    sat = s.claim.saturated if s.claim else []
    cap = "paper: the gain levels off past l_R = 5 and l_M = 0.2%, at most -14.6% (HM1)"
    if sat:
        cap += "; saturated, not judged: " + ", ".join(sat)
    return Plot("rc-5", "rc-5 (Figs. 8-9): sensitivity to l_R and l_M", panels, cap)


def rc6(s: Section) -> Plot:
    from ..collisions import RC6_PAPER_BEST

    recs = records(s)
    sat = saturated_groups(recs, WL)
    groups = [_short(r[WL]) for r in recs] + ["best"]
    series = []
    for col, name in (("scheme / original (mean)", "mean"), ("scheme / original (p99)", "p99")):
        vals = [num(r[col]) for r in recs]
        ok = [v for v, r in zip(vals, recs) if r[WL] not in sat]
        series.append(Series(f"{name} read latency", vals + [min(ok) if ok else float("nan")]))
        p = 1 + RC6_PAPER_BEST[name] / 100
        series.append(Series(f"paper {name} read latency", [float("nan")] * len(recs) + [p], paper=True))
    return Plot("rc-6", "rc-6 (Fig. 11): read latency with the scheme, normalised to the original FTL",
                [Panel("scheme / original FTL", "workload", "normalised read latency", groups, series,
                       [_short(g) for g in sat], line=1.0)],
                "paper: its best volume (PRXY0: -37% mean, -53% p99), at 'best' beside our best", ncols=1)


def rc7(s: Section) -> Plot:
    recs = records(s)
    groups = [_short(r[WL]) for r in recs]
    series = [Series("ours", [num(r["change %"]) for r in recs]),
              Series("paper (Table 5)", [num(r["paper change %"]) for r in recs], paper=True, beside="ours")]
    return Plot("rc-7", "rc-7 (Table 5): change in imbalanced collisions with the scheme",
                [Panel("imbalanced collisions, with the scheme vs original", "workload", "change (%)", groups,
                       series, [_short(g) for g in saturated_groups(recs, WL)], line=0.0)], ncols=1)


def rc8(s: Section) -> Plot:
    recs = records(s)
    groups = [_short(r[WL]) for r in recs]
    vals = [num(r["change %"]) for r in recs]
    return Plot("rc-8", "rc-8: host write latency with the scheme",
                [Panel("host write mean, scheme vs original", "workload", "change (%)", groups + [MEAN],
                       [Series("ours", vals + [finite_mean(vals)]),
                        Series("paper's bound (< 0.01%)", at_mean(groups + [MEAN], 0.01), paper=True, beside="ours")],
                       [_short(g) for g in saturated_groups(recs, WL)], line=0.0)],
                "paper: under 0.01% on every volume (its bound, at 'mean')", ncols=1)


BUILDERS = {"rc-1": rc1, "rc-2": rc2, "rc-3": rc3, "rc-5": rc5, "rc-6": rc6, "rc-7": rc7, "rc-8": rc8}
DECORATORS = {"rc-4": rc4}
