"""`draw`: a `Plot` as a Matplotlib figure, by the rules of the package
docstring (paper beside ours, log where values span decades, saturated
groups marked and not drawn)."""

from __future__ import annotations

import math
import textwrap
from typing import Dict, List

import numpy as np
from matplotlib.colors import to_hex
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ...plots import PAPER_PREFIX, grid, labels, scheme_style
from . import SATURATED_HATCH, Panel, Plot, Series

#: Colours for series that are not schemes (workloads, measures): the
#: Matplotlib cycle's, skipping none, so a paper series can take its twin's.
CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
         "#17becf"]


def colours(series: List[Series]) -> Dict[str, str]:
    """One colour per series name: a scheme's own (plots.SCHEME_COLORS), or
    the next of CYCLE; "paper X" takes X's colour."""
    out: Dict[str, str] = {}
    k = 0
    for s in series:
        base = own_name(s)
        if base in out:
            continue
        style = scheme_style(base)
        if "color" in style:
            out[base] = to_hex(style["color"])
        else:
            out[base] = CYCLE[k % len(CYCLE)]
            k += 1
    return out


def own_name(s: Series) -> str:
    """The series a paper series stands beside ("paper HotR" -> "HotR")."""
    n = s.name
    if s.beside:
        return s.beside
    return n[len(PAPER_PREFIX):] if s.paper and n.lower().startswith(PAPER_PREFIX) else n


#: How many times the smallest drawn value the largest must be for a log axis (10^1.5).
LOG_SPAN = 10 ** 1.5


def pick_scale(p: Panel) -> str:
    """The axis rule: log when every drawn value is positive and they span
    a decade and a half or more (TTFlash at 12x beside Rails at 0.2x; a
    share of 3% beside one of 60% reads better on a linear axis, from 0);
    symlog (linear within +-1) for values of both signs reaching beyond
    +-100 (changes in %); else linear."""
    keep = [g not in p.saturated for g in p.groups]
    vals = np.array([v for s in p.series for v, k in zip(s.values, keep) if k and v == v and not math.isinf(v)], float)
    if p.scale and (p.scale != "log" or (vals > 0).any()):
        return p.scale
    if p.stacked or not len(vals):
        return "linear"
    if (vals > 0).all():
        return "log" if vals.max() / vals.min() >= LOG_SPAN else "linear"
    return "symlog" if np.abs(vals).max() > 100 else "linear"


def draw(plot: Plot):
    """The figure of `plot`: its panels in rows of `plot.ncols`, one legend
    for all of them at the right."""
    n = len(plot.panels)
    widest = max(len(p.groups) * (2 if p.stacked else 1 if p.kind == "lines" else max(1, len(p.series)))
                 for p in plot.panels)
    width = min(11.0, max(4.2 if n > 1 else 6.5, 1.2 + 0.32 * widest))
    fig, axes = grid(n, ncols=min(plot.ncols, n), panel=(width, 3.3))
    cols = colours([s for p in plot.panels for s in p.series])
    handles: Dict[str, object] = {}
    for ax, p in zip(axes, plot.panels):
        (lines if p.kind == "lines" else bars)(ax, p, cols)
        mark_saturated(ax, p)
        scale = pick_scale(p)
        if scale == "symlog":
            ax.set_yscale("symlog", linthresh=1.0)
        elif scale == "log":
            ax.set_yscale("log")
            plain_log_ticks(ax)
        if p.line is not None:
            ax.axhline(p.line, color="k", lw=0.8)
        ylabel = p.ylabel + {"log": " (log scale)", "symlog": " (symlog scale)"}.get(scale, "")
        labels(ax, "\n".join(textwrap.wrap(p.title, int(width * 9))), p.xlabel, ylabel)
        ax.grid(True, axis="y", which="major", alpha=0.3)
        ax.tick_params(axis="x", labelsize=7 if len(p.groups) > 6 else 8)
        if sum(len(g) for g in p.groups) > width * 8:  # names that would run into each other
            ax.tick_params(axis="x", labelrotation=30)
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    if any(p.saturated for p in plot.panels):
        handles["saturated: not drawn"] = Patch(facecolor="white", edgecolor="0.6", hatch=SATURATED_HATCH)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="outside right upper", fontsize=8)
    # Left-aligned and wrapped short of the legend at the right (about 11
    # characters an inch at 10 pt).
    chars = int(fig.get_figwidth() * 0.7 * 11)
    fig.suptitle("\n".join(textwrap.wrap(plot.title, chars) + textwrap.wrap(plot.caption, chars)), fontsize=10,
                 x=0.01, ha="left")
    return fig


def plain_log_ticks(ax) -> None:
    """Log ticks as plain numbers (0.5, 1, 2 rather than 5 x 10^-1): at 1,
    2 and 5 of each decade when the axis spans less than three decades
    (a bare decade tick would leave one label or none), no minor labels."""
    fmt = FuncFormatter(lambda v, _pos: f"{v:g}")
    lo, hi = ax.get_ylim()
    if lo > 0 and hi / lo < 1000:
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(fmt)
    ax.yaxis.set_minor_formatter(NullFormatter())


def _paper_style(colour: str) -> dict:
    return {"color": "white", "edgecolor": colour, "hatch": "////", "linewidth": 0.8}


def bars(ax, p: Panel, cols: Dict[str, str]) -> None:
    x = np.arange(len(p.groups))
    hide = np.array([g in p.saturated for g in p.groups])
    if p.stacked:
        _stacked(ax, p, cols, x, hide)
    else:
        width = 0.8 / max(len(p.series), 1)
        for i, s in enumerate(p.series):
            vals = np.where(hide, np.nan, np.array(s.values, float))
            c = cols[own_name(s)]
            style = _paper_style(c) if s.paper else {"color": c}
            xs = x + (i - (len(p.series) - 1) / 2) * width
            ax.bar(xs, vals, width, label=s.name, **style)
            if s.low is not None and s.high is not None:
                lo, hi = np.array(s.low, float), np.array(s.high, float)
                ax.errorbar(xs, vals, yerr=[np.clip(vals - lo, 0, None), np.clip(hi - vals, 0, None)], fmt="none",
                            ecolor="0.2", elinewidth=0.8, capsize=2)
    ax.set_xticks(x, p.groups)
    ax.set_xlim(-0.6, len(p.groups) - 0.4)


def _stacked(ax, p: Panel, cols: Dict[str, str], x, hide) -> None:
    """Ours stacked (parts of a whole); a paper series, beside the stack,
    as one hatched bar."""
    ours = [s for s in p.series if not s.paper]
    papers = [s for s in p.series if s.paper]
    w = 0.8 / (1 + (len(papers) > 0))
    off = -w / 2 if papers else 0.0
    bottom = np.zeros(len(p.groups))
    for s in ours:
        vals = np.where(hide, np.nan, np.nan_to_num(np.array(s.values, float)))
        ax.bar(x + off, vals, w, bottom=bottom, label=s.name, color=cols[own_name(s)])
        bottom = bottom + np.nan_to_num(vals)
    for s in papers:
        ax.bar(x + w / 2, np.array(s.values, float), w, label=s.name, **_paper_style(cols[own_name(s)]))


def lines(ax, p: Panel, cols: Dict[str, str]) -> None:
    x = np.arange(len(p.groups))
    hide = np.array([g in p.saturated for g in p.groups])
    for s in p.series:
        vals = np.where(hide, np.nan, np.array(s.values, float))
        c = cols[own_name(s)]
        if s.paper:
            ax.plot(x, vals, ls="--", marker="o", mfc="white", color=c, label=s.name)
        else:
            ax.plot(x, vals, ls="-", marker="o", color=c, label=s.name)
    ax.set_xticks(x, p.groups)


def mark_saturated(ax, p: Panel) -> None:
    """A hatched grey band over each saturated group, labelled: the group's
    values are not drawn (one band for a panel saturated throughout)."""
    if p.groups and all(g in p.saturated for g in p.groups):
        ax.axvspan(-0.45, len(p.groups) - 0.55, facecolor="white", edgecolor="0.6", hatch=SATURATED_HATCH, lw=0)
        ax.text(0.5, 0.5, "saturated: not drawn", transform=ax.transAxes, ha="center", va="center", fontsize=9,
                color="0.3", bbox={"facecolor": "white", "edgecolor": "none", "pad": 2})
        ax.set_yticks([])
        return
    for i, g in enumerate(p.groups):
        if g in p.saturated:
            ax.axvspan(i - 0.45, i + 0.45, facecolor="white", edgecolor="0.6", hatch=SATURATED_HATCH, lw=0, zorder=0)
            ax.text(i, 0.5, "saturated", transform=ax.get_xaxis_transform(), ha="center", va="center", rotation=90,
                    fontsize=8, color="0.3", bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
