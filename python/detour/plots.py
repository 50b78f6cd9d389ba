"""Plots of results, drawn with Matplotlib's Agg canvas (no display and no
global pyplot state, so it is safe inside notebooks and worker processes)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping

import numpy as np

if TYPE_CHECKING:
    from .api import Result


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def derived_colour(name: str) -> str:
    """A colour from the name alone, the same in every run (a hash, not
    Python's salted `hash`): for a scheme whose entry names none, so a new
    scheme needs no colour edit. Mid saturation and value keep it apart
    from the greys of the baselines."""
    import colorsys
    import hashlib

    hue = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big") / 2**32
    r, g, b = colorsys.hsv_to_rgb(hue, 0.65, 0.8)
    return "#{:02x}{:02x}{:02x}".format(*(round(c * 255) for c in (r, g, b)))


def _scheme_colours() -> dict:
    from .registry import schemes

    return {e.name: e.colour or derived_colour(e.name) for e in schemes()}


#: One colour per scheme, the same in every figure (the demo, the sweeps,
#: every reproduction): each scheme's entry names it (`.colour(...)` in its
#: Rust file), chosen to stay apart when all 14 schemes share a plot (a
#: 10-colour cycle gave conventional and ca-ssd, hotr and rr-ssd, rails and
#: oracle, ttflash and pblru one colour each); the two baselines are
#: greys. The reproductions' variants (Random, Static, on-line) follow.
SCHEME_COLORS = {
    **_scheme_colours(),
    "random": "#bfef45", "static": "#dcbeff", "online": "#fabed4", "ideal": "#ffd8b1",
}
#: Names the reports use for a scheme (lower-cased): the HotR baseline is
#: the conventional FTL.
ALIASES = {"baseline": "conventional", "on-line": "online"}
PAPER_PREFIX = "paper "


def scheme_style(name: str) -> dict:
    """Matplotlib keywords for a series named after a scheme: its fixed
    colour; a "paper X" series (the paper's numbers beside ours) in X's
    colour, hatched (bars only). Empty for other names: workloads keep
    Matplotlib's cycle."""
    key = name.strip().lower()
    paper = key.startswith(PAPER_PREFIX)
    if paper:
        key = key[len(PAPER_PREFIX):]
    color = SCHEME_COLORS.get(ALIASES.get(key, key))
    if color is None:
        return {}
    if paper:
        return {"color": "white", "edgecolor": color, "hatch": "////"}
    return {"color": color}


def grid(n: int, ncols: int = 3, panel: tuple = (4.0, 3.0)):
    """A figure of `n` panels in rows of at most `ncols` (a long row of
    panels is unreadable at page width); returns (figure, axes) with the
    unused cells hidden."""
    ncols = max(1, min(ncols, n))
    nrows = -(-n // ncols)
    fig = _figure(panel[0] * ncols, panel[1] * nrows)
    axes = list(np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel())
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]


def labels(ax, title: str, xlabel: str, ylabel: str) -> None:
    """Every panel gets a title and both axis labels."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def comparison(results: Mapping[str, Result], path, title: str = "") -> Path:
    """Bar plot of mean and p99 read/write latency per scheme (left) and the
    CDF of read latency per scheme (right). `results` maps a name to a
    `detour.Result`. Writes a PNG to `path` and returns it."""
    path = Path(path)
    comparison_figure(results, title).savefig(path)
    return path


def comparison_figure(results: Mapping[str, Result], title: str = ""):
    """The figure of `comparison`: both panels share one legend of the
    schemes (their colours are `SCHEME_COLORS`), to the right."""
    names = list(results)
    fig = _figure(12, 4.2)
    ax, cdf = fig.subplots(1, 2, width_ratios=[3, 2])
    bars = [("read", "mean"), ("read", "p99"), ("write", "mean"), ("write", "p99")]
    x = np.arange(len(bars))
    width = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        lat = results[name].summary["latency_us"]
        vals = [lat[k][s] for k, s in bars]
        rects = ax.bar(x + (i - (len(names) - 1) / 2) * width, vals, width, label=name, **scheme_style(name))
        if len(names) <= 4:  # more labels than that overlap; the table has the numbers
            ax.bar_label(rects, fmt="%.0f", fontsize=7, padding=1)
    ax.set_xticks(x, [f"{k} {s}" for k, s in bars])
    # Reads (tens of µs) and writes (ms) on one axis: log keeps both legible.
    ax.set_yscale("log")
    labels(ax, title or "Latency by scheme", "latency statistic", "latency (µs, log scale)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    for name in names:
        c = results[name].columns
        lat = np.sort(c["latency_ns"][~c["is_write"] & measured_rows(c)]) / 1000.0
        if len(lat):
            cdf.plot(lat, np.arange(1, len(lat) + 1) / len(lat), label=name, **scheme_style(name))
    cdf.set_xscale("log")
    labels(cdf, "Read latency CDF", "read latency (µs)", "fraction of reads")
    cdf.grid(True, alpha=0.3)
    # One legend for both panels: the same schemes in the same colours.
    fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", title="scheme", fontsize=8,
               ncols=2 if len(names) > 10 else 1)
    return fig


def measured_rows(c):
    """The rows the summary's statistics count: not warm-up, not failed."""
    keep = ~c["warmup"]
    if "lost" in c:
        keep &= ~c["lost"]
    return keep


def result_figure(result, title: str = ""):
    """One run at a glance: the latency CDF of reads and of writes (left)
    and the mean time per part of the critical path (right), µs."""
    fig, (cdf, parts) = grid(2, ncols=2, panel=(5.0, 3.4))
    c = result.columns
    measured = measured_rows(c)
    for kind, sel, color in (("read", ~c["is_write"], "#4363d8"), ("write", c["is_write"], "#e6194b")):
        lat = np.sort(c["latency_ns"][sel & measured]) / 1000.0
        if len(lat):
            cdf.plot(lat, np.arange(1, len(lat) + 1) / len(lat), label=f"{kind}s ({len(lat):,})", color=color)
    cdf.set_xscale("log")
    labels(cdf, "Latency CDF", "latency (µs, log scale)", "fraction of requests")
    cdf.grid(True, alpha=0.3)
    if cdf.lines:
        cdf.legend(fontsize=8)
    b = result.summary["breakdown_us"]
    kinds = [k for k in ("read", "write") if result.summary["latency_us"][k]["count"]]
    bottom = np.zeros(len(kinds))
    for part, color in (("queue", "#a9a9a9"), ("bus", "#42d4f4"), ("array", "#3cb44b"), ("delay", "#f58231")):
        vals = np.array([b[k][part] for k in kinds])
        parts.bar(kinds, vals, bottom=bottom, label=part, color=color)
        bottom += vals
    labels(parts, "Where the time goes (means)", "request kind", "mean latency (µs)")
    parts.legend(fontsize=8, title="part")
    s = result.summary
    fig.suptitle(title or f"{s['scheme']} on {s['device'] or 'custom device'}, {s['requests']:,} requests")
    return fig


def demo_gains(rows, path, title: str = "") -> Path:
    """The demo's figure: one horizontal bar per scheme, its change of the
    paper's metric against its own baseline (%), on a symmetric log axis
    (gains of 1% and losses of 200% share it legibly); on the right, the
    mechanism's counter and whether the sign is the paper's. `rows` are
    `detour.demo.Row`s. Writes a PNG to `path` and returns it."""
    path = Path(path)
    fig = _figure(12, 0.5 * len(rows) + 1.6)
    ax = fig.subplots()
    y = np.arange(len(rows))[::-1]
    gains = np.array([r.gain_pct for r in rows])
    ax.barh(y, gains, color=[SCHEME_COLORS.get(r.case.scheme, "#808080") for r in rows], height=0.6)
    # Linear within +-1% (the demo's "no change" band, shaded), log beyond.
    ax.set_xscale("symlog", linthresh=1.0)
    lim = max(10.0, float(np.nanmax(np.abs(gains))) * 5)
    ax.set_xlim(-lim, lim)
    ax.axvline(0, color="black", lw=0.8)
    ax.axvspan(-1, 1, color="#e8e8e8", zorder=0)
    for yi, g in zip(y, gains):
        right = g >= 0
        ax.text(g * 1.2 if abs(g) > 1 else (1.2 if right else -1.2), yi, f"{g:+.1f}%", va="center", fontsize=8,
                ha="left" if right else "right")
    ax.set_yticks(y, [f"{r.case.scheme} vs {r.case.baseline}\n{r.case.workload}, {' '.join(r.case.metric)}"
                      for r in rows], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    # The right-hand column is a twin axis's tick labels, so the layout
    # makes room for it.
    notes = ax.twinx()
    notes.set_ylim(ax.get_ylim())
    paper = {-1: "faster", 0: "same", 1: "slower"}
    notes.set_yticks(y, [("paper: %s, %s  |  " % (paper[r.case.paper], "agrees" if r.agrees else "DISAGREES"))
                         + (f"{r.case.counters[0]} = {r.counts[0]:,}" if r.case.counters else "no mechanism")
                         for r in rows], fontsize=8)
    for tick, r in zip(notes.get_yticklabels(), rows):
        tick.set_color("black" if r.agrees else "#c00000")
    labels(ax, title or "Each scheme against its own baseline",
           "change of the paper's latency metric vs the baseline, % (symlog; < 0 is faster)", "")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    fig.savefig(path)
    return path
