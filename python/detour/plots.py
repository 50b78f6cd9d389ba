"""Plots of results, drawn with Matplotlib's Agg canvas (no display and no
global pyplot state, so it is safe inside notebooks and worker processes)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def comparison(results: Mapping[str, "object"], path, title: str = "") -> Path:
    """Bar plot of mean and p99 read/write latency per scheme (left) and the
    CDF of read latency per scheme (right). `results` maps a name to a
    `detour.Result`. Writes a PNG to `path` and returns it."""
    names = list(results)
    fig = _figure(11, 4.2)
    ax, cdf = fig.subplots(1, 2, width_ratios=[3, 2])
    bars = [("read", "mean"), ("read", "p99"), ("write", "mean"), ("write", "p99")]
    x = np.arange(len(bars))
    width = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        lat = results[name].summary["latency_us"]
        vals = [lat[k][s] for k, s in bars]
        rects = ax.bar(x + (i - (len(names) - 1) / 2) * width, vals, width, label=name)
        if len(names) <= 4:  # more labels than that overlap; the table has the numbers
            ax.bar_label(rects, fmt="%.0f", fontsize=7, padding=1)
    ax.set_xticks(x, [f"{k} {s}" for k, s in bars])
    # Reads (tens of µs) and writes (ms) on one axis: log keeps both legible.
    ax.set_yscale("log")
    ax.set_ylabel("latency (µs, log scale)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.set_title(title or "Latency by scheme")
    ax.legend(fontsize=8, ncols=2 if len(names) > 4 else 1)
    for name in names:
        c = results[name].columns
        lat = np.sort(c["latency_ns"][~c["is_write"] & ~c["warmup"]]) / 1000.0
        if len(lat):
            cdf.plot(lat, np.arange(1, len(lat) + 1) / len(lat), label=name)
    cdf.set_xscale("log")
    cdf.set_xlabel("read latency (µs)")
    cdf.set_ylabel("fraction of reads")
    cdf.set_title("Read latency CDF")
    cdf.grid(True, alpha=0.3)
    path = Path(path)
    fig.savefig(path)
    return path
