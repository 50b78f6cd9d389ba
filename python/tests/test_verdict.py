"""The verdict rule (detour/reproduce/verdict.py) on hand-made rows, and
every report's verdicts re-judged by it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from detour.reproduce import judge_rows
from detour.reproduce.base import Section
from detour.reproduce.verdict import Claim, counts, headline, judge, rejudge as rejudge_row, verdict

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
    assert counts([ok, off]) == {"reproduced": 1, "direction": 1, "disagrees": 0, "not-run": 0, "calibrated": 0,
                                 "saturated": 0}
    assert headline([ok, off]).startswith("1 of 2 reproduced")


def test_every_row_gets_a_verdict_even_without_a_section():
    s = Section("x-1", "t", "claim one", "w")
    s.measured({M: -10.0}, {M: -12.0})
    rows = judge_rows(["x-1", "x-2"], [s, Section("x-2", "t", "claim two", "w")])
    assert [(r["id"], r["verdict"]) for r in rows] == [("x-1", "reproduced"), ("x-2", "not-run")]
    assert rows[1]["claim"] == "claim two" and "does not compute" in rows[1]["cause"]


def test_a_calibration_target_is_never_counted():
    # A row holding only its calibration's target, exactly on the paper's number, is not reproduced.
    row = judge(Claim("rc-3", "RSD per volume", {"RSD (hm1)": 0.168}, {"RSD (hm1)": 0.168}, calibrated=["RSD (hm1)"]))
    assert row["verdict"] == "calibrated" and "calibration target" in row["cause"]
    # Beside a result, the target is left out: a wrong-signed target cannot sink it, nor a right one carry it.
    both = {"blocked %": 33.0, "slower %": 42.8}
    assert verdict(both, {"blocked %": -5.0, "slower %": 40.0}, calibrated=["blocked %"])[0] == "reproduced"
    assert verdict(both, {"blocked %": 33.0, "slower %": -1.0}, calibrated=["blocked %"])[0] == "disagrees"
    ok = judge(Claim("x-1", "c", {"a %": 1.0}, {"a %": 1.0}))
    assert headline([ok, row]) == "1 of 1 reproduced (0 direction only, 0 disagree, 0 not run); not judged: rc-3 calibrated"


def test_a_saturated_run_never_reaches_a_verdict():
    # Every workload saturated: nothing is judged, whatever the numbers would have said.
    row = judge(Claim("hr-3", "HotR -21.8%", {"HotR %": -21.8}, {}, holds=(0, 0), saturated=["fin2", "hm"]))
    assert row["verdict"] == "saturated" and "fin2" in row["cause"]
    # Some saturated: judged on the rest, and a failing verdict names the ones left out.
    v, facts = verdict({"x %": -20.0}, {"x %": 5.0}, saturated=["hm"])
    assert v == "disagrees" and any("saturated: hm" in f for f in facts)
    assert counts([row])["saturated"] == 1 and headline([row]).startswith("0 of 0 reproduced")


def test_a_section_leaves_a_saturated_run_out(tmp_path):
    from detour.reproduce.base import Run, split_saturated

    sat = {"latency_us": {}, "warnings": [{"kind": "saturated", "message": "queue still growing"}]}
    calm = {"latency_us": {}, "warnings": [{"kind": "scheme_idle", "message": "idle"}]}
    by = {"a": {"b": Run({}, calm, tmp_path), "s": Run({}, calm, tmp_path)},
          "z": {"b": Run({}, calm, tmp_path), "s": Run({}, sat, tmp_path)}}
    assert split_saturated(by) == (["a"], ["z"])
    assert split_saturated(by, ("b",)) == (["a", "z"], [])


def test_hotr_rows_leave_a_saturated_workload_out_of_the_verdict_and_the_figure(tmp_path):
    from detour.reproduce.base import Run
    from detour.reproduce.hotr import hr3

    def run(read_us: float, sat: bool = False) -> Run:
        lat = {k: {"mean": read_us, "p99": read_us} for k in ("read", "all", "write")}
        return Run({}, {"latency_us": lat, "warnings": [{"kind": "saturated", "message": "m"}] if sat else []}, tmp_path)

    # HotR judged on its spare chip ("chip"); staging in op space ("hotr") is shown, never judged.
    ok = {"baseline": run(100.0), "chip": run(80.0), "hotr": run(2000.0), "rails": run(50.0), "ttflash": run(150.0)}
    # On "bad" HotR is 10x slower, but its TTFlash run saturated: the workload is left out, not judged.
    bad = {"baseline": run(100.0), "chip": run(1000.0), "hotr": run(1000.0), "rails": run(50.0),
           "ttflash": run(9e6, sat=True)}
    s = hr3({"good": ok, "bad": bad}, "desc")
    assert s.claim.saturated == ["bad"] and s.claim.holds == (1, 1)
    assert s.claim.ours == {"HotR read mean vs baseline %": pytest.approx(-20.0)}
    assert judge(s.claim)["verdict"] == "reproduced"
    assert [r[-1] for r in s.rows] == [False, True]  # the table still shows it, marked
    assert s.rows[0][6] == pytest.approx(20.0)  # op staging's 2000 us beside, not judged
    from detour.reproduce.figures import add_figures

    add_figures("hotr", [s])  # the figure is drawn from the section, as the report does
    ax = s.figures[0][1].axes[0]
    assert "saturated" in [t.get_text() for t in ax.texts]  # in place of its bars
    # Every workload saturated: the row is `saturated`, whatever the numbers.
    s = hr3({"bad": bad}, "desc")
    assert judge(s.claim)["verdict"] == "saturated"


def test_hr5_judges_hotr_on_its_spare_chip_with_each_schemes_space(tmp_path):
    from detour.reproduce.base import Run
    from detour.reproduce.hotr import hr5

    def run(read_us: float, all_us: float = 0.0, sat: bool = False) -> Run:
        lat = {"read": {"mean": read_us}, "all": {"mean": all_us or read_us}, "write": {"mean": 1.0}}
        return Run({}, {"latency_us": lat, "warnings": [{"kind": "saturated", "message": "m"}] if sat else []}, tmp_path)

    # Read means: baseline 100, HotR on its spare chip ("chip") 80, HotR in op space 90, Rails 50, TTFlash 160.
    # The interference-free device ("free") 40.
    d = {"baseline": run(100.0), "chip": run(80.0, 200.0), "hotr": run(90.0), "rails": run(50.0),
         "ttflash": run(160.0), "free": run(40.0)}
    s = hr5({"w": d}, "desc")
    # Products (space x read mean / baseline's): 1, 1.10 x 0.8 = 0.88, 2 x 0.5 = 1.0, 1.25 x 1.6 = 2.0;
    # the all-request product of the spare-chip run 1.10 x 2 = 2.2, op staging 1.10 x 0.9 = 0.99 (not judged);
    # Rails' and the interference-free device's read means / the baseline's, 0.5 and 0.4 (shown).
    assert s.rows[0][1:-1] == pytest.approx([1.0, 0.88, 1.0, 2.0, 2.2, 0.99, 0.5, 0.4]) and s.rows[0][-1] is False
    assert s.claim.ours == {"HotR product vs Rails %": pytest.approx(-12.0),
                            "HotR product vs TTFlash %": pytest.approx(-56.0),
                            "HotR product vs baseline %": pytest.approx(-12.0)}
    assert s.claim.holds == (1, 1)
    # The spare-chip run saturating leaves the workload out, whatever op staging does.
    d["chip"] = run(80.0, sat=True)
    assert hr5({"w": d}, "desc").claim.saturated == ["w"]


def test_cr1_judges_each_workload_as_an_item_and_leaves_saturated_rows_out(tmp_path):
    from detour.reproduce.base import Run
    from detour.reproduce.cr5m import Causes, cr1

    def run(us: float, sat: bool = False) -> Run:
        lat = {k: {"mean": us} for k in ("all", "read", "write")}
        return Run({}, {"latency_us": lat, "warnings": [{"kind": "saturated", "message": "m"}] if sat else []}, tmp_path)

    means = {"pure": 100.0, "cr1": 90.0, "cr4": 130.0, "cr5": 110.0, "cr5m": 100.0}  # CR5M -9.1% vs CR5
    by = {("ssd1", n, o): run(v, sat=(n == "build" and o == "cr4")) for n in ("atto", "exchange", "build")
          for o, v in means.items()}
    s = cr1(by, ["ssd1"], ["atto", "exchange", "build"], "desc", Causes("load", "mw"))
    assert s.claim.saturated == ["SSD1 build"] and s.claim.holds == (2, 2)
    assert s.claim.items == {"CR5M vs CR5 % (atto)": "atto", "CR5M vs CR5 % (exchange)": "exchange"}
    # atto (paper -8.5%) and exchange (-8.6%) reproduce, the global CR1 measure (-10% vs -19%) too.
    assert judge(s.claim)["verdict"] == "reproduced"


def test_cr5m_per_trace_numbers_are_judged_on_ssd1_and_the_others_shown(tmp_path):
    """The paper's single per-trace numbers are read as SSD1's (cr5m.JUDGED,
    docs/reproduce.md "Readings"): SSD2's runs are shown, in a note, and
    change no verdict; the order claim still counts every configuration."""
    from detour.reproduce.base import Run
    from detour.reproduce.cr5m import Causes, cr1, cr7

    def run(us: float, writes: float = 0.0, sat: bool = False) -> Run:
        lat = {k: {"mean": us} for k in ("all", "read", "write")}
        counters = {f"channel_writes_{k}": writes for k in ("mean", "min", "max")}
        return Run({}, {"latency_us": lat, "scheme_counters": counters,
                        "warnings": [{"kind": "saturated", "message": "m"}] if sat else []}, tmp_path)

    # SSD1: CR5M -9.1% vs CR5 (atto's paper -8.5%: reproduced); SSD2: -50% (5.9x: would not be).
    ssd1 = {"pure": 100.0, "cr1": 90.0, "cr4": 130.0, "cr5": 110.0, "cr5m": 100.0}
    ssd2 = {"pure": 100.0, "cr1": 90.0, "cr4": 300.0, "cr5": 200.0, "cr5m": 100.0}
    by = {("ssd1", "atto", o): run(v, writes=v) for o, v in ssd1.items()}
    by.update({("ssd2", "atto", o): run(v, writes=v) for o, v in ssd2.items()})
    s = cr1(by, ["ssd1", "ssd2"], ["atto"], "desc", Causes("load", "mw"))
    assert s.claim.ours["CR5M vs CR5 % (atto)"] == pytest.approx(-100 / 11)
    assert s.claim.saturated == [] and s.claim.holds == (2, 2)  # the order: on every configuration
    assert judge(s.claim)["verdict"] == "reproduced"
    assert any("SSD2: atto -50.0" in n for n in s.notes)
    # cr-7 (Fig. 12, "in a single SSD"): SSD1's channel writes, 100 vs 110 = -9.1%; SSD2's -50% only in a note.
    s7 = cr7(by, ["ssd1", "ssd2"], ["atto"], "desc", Causes("load", "mw"))
    assert s7.claim.ours == {"channel writes, CR5M vs CR5 %": pytest.approx(-100 / 11)}
    assert any("SSD2: -50.0" in n for n in s7.notes)
    # Without SSD1 (not this reproduction's runs), every configuration run is judged.
    s2 = cr1({k: v for k, v in by.items() if k[0] == "ssd2"}, ["ssd2"], ["atto"], "desc", Causes("load", "mw"))
    assert s2.claim.ours["CR5M vs CR5 % (atto)"] == pytest.approx(-50.0)
    # A saturated SSD2 run leaves SSD2's row out of the order count and names nothing: SSD1 is judged.
    by[("ssd2", "atto", "cr4")] = run(300.0, writes=300.0, sat=True)
    s = cr1(by, ["ssd1", "ssd2"], ["atto"], "desc", Causes("load", "mw"))
    assert s.claim.saturated == [] and s.claim.holds == (1, 1) and judge(s.claim)["verdict"] == "reproduced"


def test_per_item_rows_reproduce_when_most_items_do():
    items = {f"r ({n})": n for n in ("a", "b", "c")}
    paper = {m: -10.0 for m in items}
    # Two of three items within 2x: reproduced, though c is 5x off.
    assert verdict(paper, {"r (a)": -11.0, "r (b)": -9.0, "r (c)": -50.0}, items=items)[0] == "reproduced"
    # Without items the same numbers are worst-wins: direction.
    assert verdict(paper, {"r (a)": -11.0, "r (b)": -9.0, "r (c)": -50.0})[0] == "direction"
    # One of three: not most; right signs on most: direction.
    v, facts = verdict(paper, {"r (a)": -11.0, "r (b)": -90.0, "r (c)": -50.0}, items=items)
    assert v == "direction" and facts[0] == "reproduced on 1 of 3 items (most must be)"
    # Most with the wrong sign: disagrees; one wrong sign alone does not sink a majority.
    assert verdict(paper, {"r (a)": 5.0, "r (b)": 5.0, "r (c)": -10.0}, items=items)[0] == "disagrees"
    assert verdict(paper, {"r (a)": 5.0, "r (b)": -10.0, "r (c)": -10.0}, items=items)[0] == "reproduced"
    # Half is not most.
    two = {"r (a)": "a", "r (b)": "b"}
    assert verdict({"r (a)": 1.0, "r (b)": 1.0}, {"r (a)": 1.0, "r (b)": 9.0}, items=two)[0] == "direction"
    # An item is judged on all its measures: one off makes the item off.
    it = {"x (a)": "a", "y (a)": "a"}
    assert verdict({"x (a)": 1.0, "y (a)": 1.0}, {"x (a)": 1.0, "y (a)": -1.0}, items=it)[0] == "disagrees"


def rejudge(report_json: Path) -> None:
    """Every verdict in a report is what the rule gives for its own numbers,
    and the counts are those verdicts' (used by the reproduction tests)."""
    doc = json.loads(report_json.read_text())
    assert doc["verdicts"], report_json
    for row in doc["verdicts"]:
        v = rejudge_row(row)
        assert row["verdict"] == v, row
        assert (row["cause"] == "") == (v == "reproduced"), row
        if "verdict_default" in row:  # the second column is judged by the same rule
            assert row["verdict_default"] == rejudge_row({**row, "ours": row["ours_default"], "holds": row["holds_default"],
                                                      "saturated": row["saturated_default"]}), row
    assert doc["verdict_counts"] == counts(doc["verdicts"])
