"""Each reproduction experiment's own figure (detour.reproduce.figures):
shaped by the section's table, the paper's numbers drawn beside ours,
saturated groups marked and never drawn as bars, log axes where values
span decades."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from detour.reproduce import PAPERS
from detour.reproduce.base import Section
from detour.reproduce.figures import MEAN, Panel, Plot, Series, add_figures, draw, hotr as hotr_figs
from detour.reproduce.figures.draw import pick_scale
from test_plots import assert_readable


def _bars(ax):
    """(x centre, height, hatched) of every bar drawn on `ax`."""
    from matplotlib.container import BarContainer

    return [(p.get_x() + p.get_width() / 2, p.get_height(), bool(p.get_hatch())) for c in ax.containers
            if isinstance(c, BarContainer) for p in c.patches]


def _hr3_section(saturated_fin2: bool) -> Section:
    s = Section("hr-3", "t", "HotR -21.8% on average", "w",
                ["workload", "baseline read mean us", "Rails", "TTFlash", "HotR",
                 "HotR all-request mean vs baseline % (other reading)", "saturated"],
                [["fin2", 600.0, 0.2, 1600.0, 0.9, 1.0, saturated_fin2],
                 ["hm", 400.0, 0.25, 3.5, 0.8, -0.5, False]])
    s.measured({"HotR read mean vs baseline %": -21.8}, {"HotR read mean vs baseline %": -20.0}, holds=(1, 1),
               saturated=["fin2"] if saturated_fin2 else [])
    return s


def test_every_experiment_of_every_paper_has_its_own_figure():
    for paper, module in PAPERS.items():
        rows = importlib.import_module(f"detour.reproduce.{module}").ROWS
        figs = importlib.import_module(f"detour.reproduce.figures.{module}")
        missing = [r for r in rows if r not in figs.BUILDERS and r not in figs.DECORATORS]
        assert not missing, (paper, missing)


def test_the_papers_number_is_drawn_beside_ours_and_kept_in_the_data():
    s = _hr3_section(False)
    add_figures("hotr", [s])
    (name, fig), = s.figures
    assert name == "hr-3"
    data = s.figure_data["hr-3"]
    paper = [x for x in data["panels"][0]["series"] if x["paper"]]
    # the paper's -21.8% as HotR / baseline, at the group "mean"
    assert paper[0]["values"][-1] == pytest.approx(0.782) and data["panels"][0]["groups"][-1] == MEAN
    hatched = [h for _x, h, hatch in _bars(fig.axes[0]) if hatch and h == h]
    assert hatched == [pytest.approx(0.782)]
    assert_readable(fig)


def test_a_saturated_run_is_marked_not_drawn_as_a_bar():
    s = _hr3_section(True)
    plot = hotr_figs.hr3(s)
    fig = draw(plot)
    ax = fig.axes[0]
    fin2 = plot.panels[0].groups.index("fin2")
    # no bar of any height at fin2 (TTFlash's 1,600x would have set the axis)
    assert all(not (abs(x - fin2) < 0.45 and h == h and h > 0) for x, h, _ in _bars(ax))
    assert any(t.get_text() == "saturated" for t in ax.texts)
    assert "saturated: not drawn" in [t.get_text() for t in fig.legends[0].get_texts()]
    # and the mean is over the unsaturated workloads only
    rails = next(x for x in plot.panels[0].series if x.name == "Rails")
    assert rails.values[-1] == pytest.approx(0.25)
    assert ax.get_ylim()[1] < 100


def test_log_scale_where_values_span_decades():
    def panel(vals, sat=()):
        return Panel("t", "x", "y", [str(i) for i in range(len(vals))], [Series("a", vals)], list(sat))

    assert pick_scale(panel([0.2, 1600.0])) == "log"
    assert pick_scale(panel([0.8, 1.2])) == "linear"
    assert pick_scale(panel([3.0, 60.0])) == "linear"  # shares, from 0
    assert pick_scale(panel([-20.0, 300.0])) == "symlog"
    assert pick_scale(panel([-20.0, 30.0])) == "linear"
    # a saturated group's value does not set the scale (it is not drawn)
    assert pick_scale(panel([0.9, 1600.0], sat=["1"])) == "linear"
    fig = draw(Plot("x", "t", [panel([0.2, 1600.0])]))
    assert fig.axes[0].get_yscale() == "log"


def test_figure_data_has_no_nan_for_json():
    s = _hr3_section(True)
    add_figures("hotr", [s])
    flat = str(s.figure_data)
    assert "nan" not in flat.lower()
    vals = s.figure_data["hr-3"]["panels"][0]["series"][0]["values"]
    assert vals[0] is not None and all(v is None or math.isfinite(v) for v in vals)


def test_decorators_add_the_papers_points_to_the_experiments_own_figure():
    from detour.plots import _figure

    fig = _figure(6, 3)
    ax = fig.subplots()
    ax.plot(np.arange(10), np.arange(10) * 10, label="msr-hm1")
    ax.set_title("t")
    s = Section("rc-4", "t", "p", "w", ["workload", "imbalanced pairs", "top 5% share %", "saturated"],
                [["msr-hm1", 10, 81.0, False]], figures=[("rc-4", fig)])
    add_figures("collisions", [s])
    assert s.figure_data["rc-4"]["paper"]["msr-hm1"] == {"pairs %": 5.0, "collisions %": 80.0}
    assert any("paper" in t.get_text() for t in ax.texts)


@pytest.mark.parametrize("rid", ["rr-2", "rr-7"])  # a decorated figure and a built one
def test_an_experiment_whose_every_workload_saturated_gets_them_marked(rid):
    s = Section(rid, rid, "", "every workload's runs saturated")
    s.measured(saturated=["webvm", "mail"])
    add_figures("rr-ssd", [s])
    (name, fig), = s.figures
    assert name == rid and s.figure_data[rid]["panels"][0]["saturated"] == ["mail", "webvm"]
    assert not _bars(fig.axes[0]) and "saturated: not drawn" in [t.get_text() for t in fig.axes[0].texts]
    assert_readable(fig)
