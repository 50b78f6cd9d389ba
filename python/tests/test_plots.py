"""Figures: one fixed, distinct colour per scheme in every figure, a
legend wherever several series share a panel, titles and axis labels on
every panel, and grids instead of long rows."""

from __future__ import annotations

from types import SimpleNamespace

import detour
import numpy as np
from detour import plots
from detour.reproduce.figures import Panel, Plot, Series, draw
from matplotlib.colors import to_rgba


def assert_readable(fig) -> None:
    """Every visible panel has a title and both axis labels, and a panel
    with several labelled series has a legend (its own or the figure's)."""
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel(), (ax.get_title(), ax.get_xlabel(), ax.get_ylabel())
        named = [lab for lab in ax.get_legend_handles_labels()[1] if not lab.startswith("_")]
        if len(named) > 1:
            assert ax.get_legend() is not None or fig.legends, ax.get_title()


def fake_results(names):
    rng = np.random.default_rng(3)
    out = {}
    for i, name in enumerate(names):
        lat = rng.lognormal(4 + 0.1 * i, 0.5, 500) * 1000
        w = rng.random(500) < 0.3
        stat = {"mean": float(lat.mean() / 1000), "p99": float(np.percentile(lat, 99) / 1000)}
        out[name] = SimpleNamespace(summary={"latency_us": {"read": stat, "write": stat}},
                                    columns={"latency_ns": lat.astype(np.uint64), "is_write": w,
                                             "warmup": np.zeros(500, bool)})
    return out


def test_every_scheme_has_its_own_colour():
    names = [n for n, _ in detour.schemes()]
    assert len(names) >= 14
    colours = [plots.SCHEME_COLORS[n] for n in names]  # a KeyError names a scheme without one
    assert len({to_rgba(c) for c in colours}) == len(colours)
    # the variants the reproductions plot beside the schemes are distinct too
    assert len({to_rgba(c) for c in plots.SCHEME_COLORS.values()}) == len(plots.SCHEME_COLORS)


def test_a_scheme_names_its_colour_on_its_entry_or_gets_one_from_its_name():
    from detour.registry import schemes

    for e in schemes():
        assert plots.SCHEME_COLORS[e.name] == (e.colour or plots.derived_colour(e.name)), e.name
    assert sum(bool(e.colour) for e in schemes()) >= 14  # the shipped ones name theirs
    derived = plots.derived_colour("delayed")  # docs/extending.md's example names none
    assert derived == plots.derived_colour("delayed") and len(derived) == 7 and derived.startswith("#")
    assert to_rgba(derived) not in {to_rgba(c) for n, c in plots.SCHEME_COLORS.items() if n != "delayed"}


def test_comparison_uses_the_palette_and_one_legend_for_both_panels():
    names = [n for n, _ in detour.schemes()]
    fig = plots.comparison_figure(fake_results(names), title="t")
    assert_readable(fig)
    bars, cdf = fig.axes[:2]
    assert fig.legends and [t.get_text() for t in fig.legends[0].get_texts()] == names
    for name in names:
        want = to_rgba(plots.SCHEME_COLORS[name])
        bar = next(p for c in bars.containers if c.get_label() == name for p in c.patches)
        line = next(ln for ln in cdf.get_lines() if ln.get_label() == name)
        assert bar.get_facecolor() == want and to_rgba(line.get_color()) == want, name


def test_the_same_scheme_keeps_its_colour_across_figures():
    series = [Series("Rails", [1, 2]), Series("baseline", [1, 1]), Series("paper Rails", [2, 3], paper=True),
              Series("w", [1, 1])]
    fig = draw(Plot("x", "title", [Panel("t", "x", "y", ["w1", "w2"], series)]))  # a reproduction's figure
    assert_readable(fig)
    ax = fig.axes[0]
    patch = {c.get_label(): c.patches[0] for c in ax.containers}
    assert patch["Rails"].get_facecolor() == to_rgba(plots.SCHEME_COLORS["rails"])
    assert patch["baseline"].get_facecolor() == to_rgba(plots.SCHEME_COLORS["conventional"])
    # the paper's numbers: hatched, in the scheme's colour
    assert patch["paper Rails"].get_hatch() and patch["paper Rails"].get_edgecolor() == to_rgba(plots.SCHEME_COLORS["rails"])
    assert plots.scheme_style("w") == {}  # not a scheme: Matplotlib's cycle


def test_grid_wraps_panels_into_rows():
    fig, axes = plots.grid(7, ncols=3, panel=(4, 3))
    assert len(axes) == 7 and all(ax.get_visible() for ax in axes)
    assert sum(not ax.get_visible() for ax in fig.axes) == 2  # the unused cells of 3 x 3
    w, h = fig.get_size_inches()
    assert (w, h) == (12, 9)
