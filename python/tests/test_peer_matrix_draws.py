"""scripts/peer_matrix_detour.py's two judgements of an aged point over
preconditioning draws (docs/validation.md, issue 46, h42tail75 and h43draw):
`draw_bound` marks a point when fewer than half of the peer's other draws
come within 10% of its matrix draw; `over_draws` compares Detour's average
over its draws with the peer's average over its draws. Hand-made files."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
FIGS = ("read_mean", "read_p50", "read_p99", "write_mean", "write_p50", "write_p99")
PID = "r70-mixed-zipf@0.75-aged"


def load():
    sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location("peer_matrix_detour", SCRIPTS / "peer_matrix_detour.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(sim: str, window: int, seed: int, v: float, **other: float) -> str:
    figs = {f: other.get(f, v) for f in FIGS}
    return f"{sim},{window},{seed}," + ",".join(str(figs[f]) for f in FIGS)


@pytest.fixture
def m(tmp_path, monkeypatch):
    mod = load()
    monkeypatch.setattr(mod.pm, "OUT", tmp_path)
    # the peer's matrix run: every counted figure 100.0 (its draw 0, to rounding)
    (tmp_path / "peers-mqsim.csv").write_text("point," + ",".join(FIGS) + "\n" + PID + ",100.2" + ",99.8" * 5 + "\n")
    return mod


def write_draws(tmp: Path, rows: list[str]) -> None:
    (tmp / f"draws-mqsim-{PID}.csv").write_text("sim,fetch_window,seed," + ",".join(FIGS) + "\n" + "\n".join(rows) + "\n")


def test_draw_bound_counts_the_peers_other_draws_at_the_matrix_window(m, tmp_path):
    # others at 512: 105 (within 10% of 100), 120 and 130 (not): 1 of 3, fewer than half
    write_draws(tmp_path, [row("mqsim", 512, 0, 100), row("mqsim", 512, 1, 105), row("mqsim", 512, 2, 120),
                           row("mqsim", 512, 3, 130), row("mqsim", 1024, 0, 100), row("detour", 512, 0, 100)])
    assert m.draw_bound("mqsim", PID) == " (peer draw-bound, 1 of 3)"
    # 2 of 3 within 10%: not marked
    write_draws(tmp_path, [row("mqsim", 512, 0, 100), row("mqsim", 512, 1, 105), row("mqsim", 512, 2, 92),
                           row("mqsim", 512, 3, 130)])
    assert m.draw_bound("mqsim", PID) == ""


def test_over_draws_averages_each_side_at_the_matrix_window(m, tmp_path):
    # MQSim at 512: 100, 105, 120, 130 -> 113.75; Detour at 512: 100, 120 -> 110: -3.30%.
    # read_p50: MQSim 100, 105, 120, 130 -> 113.75; Detour 50, 50 -> -56.04%.
    # The 1024 rows (MQSim 1000, Detour 5000) are another window: not counted.
    write_draws(tmp_path, [row("mqsim", 512, 0, 100), row("mqsim", 512, 1, 105), row("mqsim", 512, 2, 120),
                           row("mqsim", 512, 3, 130), row("detour", 512, 0, 100, read_p50=50),
                           row("detour", 512, 1, 120, read_p50=50), row("mqsim", 1024, 0, 1000),
                           row("detour", 1024, 0, 5000)])
    n_peer, n_det, e = m.over_draws("mqsim", PID)
    assert (n_peer, n_det) == (4, 2)
    assert e["read_mean"] == pytest.approx(-3.2967, abs=1e-3)
    assert e["read_p50"] == pytest.approx(-56.044, abs=1e-3)
    out = m.draws_table("mqsim", [PID])
    assert f"| {PID} | 4 | 2 | -3 | -56 | -3 | -3 | -3 | -3 | no |" in out


def test_over_draws_needs_both_sides_and_the_matrix_draw(m, tmp_path):
    write_draws(tmp_path, [row("mqsim", 512, 0, 100), row("mqsim", 512, 1, 105)])
    assert m.over_draws("mqsim", PID) is None
    # no peer row is the matrix's run: nothing to anchor the window on
    write_draws(tmp_path, [row("mqsim", 512, 5, 140), row("detour", 512, 0, 100)])
    assert m.over_draws("mqsim", PID) is None
    assert m.draws_table("mqsim", [PID]) == ""
