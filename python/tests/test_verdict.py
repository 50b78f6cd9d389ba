"""The verdict rule (detour/reproduce/verdict.py) on hand-made rows, and
every report's verdicts re-judged by it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from detour.reproduce import judge_rows
from detour.reproduce.base import Section
from detour.reproduce.verdict import Claim, counts, headline, judge, verdict

M = "read change %"


@pytest.mark.parametrize("ours, expected", [
    (-21.8, "reproduced"),       # the paper's number
    (-21.8 * 1.9, "reproduced"),  # 1.9x larger
    (-21.8 / 1.9, "reproduced"),  # 1.9x smaller
    (-21.8 * 2.0, "reproduced"),  # the bound itself is within 2x
    (-21.8 * 2.1, "direction"),   # 2.1x larger
    (-21.8 / 2.1, "direction"),   # 2.1x smaller
    (+3.0, "disagrees"),          # sign wrong
    (0.0, "disagrees"),           # no effect where the paper has one
    (float("nan"), "not-run"),    # undefined in the run
])
def test_one_measure(ours, expected):
    v, facts = verdict({M: -21.8}, {M: ours})
    assert v == expected
    assert (facts == []) == (expected == "reproduced")


def test_qualitative_claims_hold_on_every_workload_or_disagree():
    assert verdict({}, {}, holds=(4, 4))[0] == "reproduced"
    v, facts = verdict({}, {}, holds=(3, 4))
    assert v == "disagrees" and "3 of 4" in facts[0]
    assert verdict({}, {}, holds=(0, 0))[0] == "not-run"  # nothing to judge on


def test_worst_measure_wins_and_the_cause_says_which():
    paper = {"a %": 10.0, "b %": 10.0}
    assert verdict(paper, {"a %": 11.0, "b %": 30.0})[0] == "direction"
    v, facts = verdict(paper, {"a %": 30.0, "b %": -1.0})
    assert v == "disagrees" and any("b %" in f and "opposite sign" in f for f in facts)
    # a right number does not save a claim whose qualitative part fails
    assert verdict({M: -20.0}, {M: -20.0}, holds=(1, 2))[0] == "disagrees"
    # a direction-only number stays direction when the qualitative part holds
    assert verdict({M: -20.0}, {M: -2.0}, holds=(2, 2))[0] == "direction"


def test_not_measured_is_not_run_with_the_reason():
    row = judge(Claim("rr-2", "max up to 32x min", {"max / min": 32.0}, {}, why="no queue-length record"))
    assert row["verdict"] == "not-run"
    assert "max / min: not measured" in row["cause"] and "no queue-length record" in row["cause"]
    assert verdict({"x": 1.0}, {"x": 1.0, "y": 5.0})[0] == "reproduced"  # measures the paper lacks are not judged


def test_judge_gives_a_cause_for_all_but_reproduced():
    ok = judge(Claim("hr-2", "mixed pages 9.6%", {"mixed %": 9.6}, {"mixed %": 12.0}, why="never shown"))
    assert ok["verdict"] == "reproduced" and ok["cause"] == ""
    off = judge(Claim("hr-1", "33% blocked", {"blocked %": 33.0}, {"blocked %": 10.1}, why="light load"))
    assert off["verdict"] == "direction"
    assert off["cause"].startswith("blocked %: ours +10.1 vs paper +33, 3.3x smaller") and off["cause"].endswith("light load")
    assert counts([ok, off]) == {"reproduced": 1, "direction": 1, "disagrees": 0, "not-run": 0}
    assert headline([ok, off]).startswith("1 of 2 reproduced")


def test_every_row_gets_a_verdict_even_without_a_section():
    s = Section("x-1", "t", "claim one", "w")
    s.measured({M: -10.0}, {M: -12.0})
    rows = judge_rows(["x-1", "x-2"], [s, Section("x-2", "t", "claim two", "w")])
    assert [(r["id"], r["verdict"]) for r in rows] == [("x-1", "reproduced"), ("x-2", "not-run")]
    assert rows[1]["claim"] == "claim two" and "does not compute" in rows[1]["cause"]


def rejudge(report_json: Path) -> None:
    """Every verdict in a report is what the rule gives for its own numbers,
    and the counts are those verdicts' (used by the reproduction tests)."""
    doc = json.loads(report_json.read_text())
    assert doc["verdicts"], report_json
    for row in doc["verdicts"]:
        v, _ = verdict(row["paper"], row["ours"], row["holds"])
        assert row["verdict"] == v, row
        assert (row["cause"] == "") == (v == "reproduced"), row
        if "verdict_default" in row:  # the second column is judged by the same rule
            assert row["verdict_default"] == verdict(row["paper"], row["ours_default"], row["holds_default"])[0], row
    assert doc["verdict_counts"] == counts(doc["verdicts"])
