"""The reproduction report's page: verdicts as a table of measures (row,
measure, paper, ours, verdict), notes coloured by kind, the run settings
as tables, each experiment's figure data beside its PNG."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Dict, List

from detour.reproduce.base import Section
from detour.reproduce.html import note_kind, write_report
from detour.reproduce.verdict import Claim, judge


class Page(HTMLParser):
    """The verdict table's cells by row, and each note's classes."""

    def __init__(self):
        super().__init__()
        self.tables: List[Dict] = []
        self.notes: List[str] = []
        self._cell = None
        self._row = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append({"class": a.get("class", ""), "rows": []})
        elif tag == "tr":
            self._row = []
            self.tables[-1]["rows"].append(self._row)
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "p" and "note" in (a.get("class") or ""):
            self.notes.append(a["class"])
        elif tag == "pre":
            self.notes.append("pre")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _report(tmp_path):
    s = Section("hr-3", "Mean read response time", "HotR -21.8% on average", "profiles", ["workload", "x"], [["a", 1.0]])
    s.notes = ["HotR: -3.8% on average over reads (paper -21.8%).",
               "Saturated, left out of this table and its verdict: fin2.",
               "the order Rails < HotR < TTFlash holds on 2 of 4 unsaturated workloads."]
    s.figure_data["hr-3"] = {"panels": [{"series": [{"name": "paper HotR", "values": [0.782]}]}]}
    from detour.plots import _figure

    fig = _figure(3, 2)
    fig.subplots().plot([1, 2])
    s.figures.append(("hr-3", fig))
    v = [judge(Claim("hr-3", "claim", {"HotR read mean vs baseline %": -21.8}, {"HotR read mean vs baseline %": 3.0},
                     holds=(2, 4), why="because")),
         judge(Claim("hr-2", "claim", {"mixed pages %": 9.6}, {"mixed pages %": 12.0}))]
    meta = {"paper": "hotr", "quick": True, "traces": [], "compat": "disksim", "wall_s": 20.5,
            "sweeps": [{"name": "hotr-baseline", "file": "f.toml", "runs": 4, "executed": 4, "skipped": 0,
                        "failed": 0, "wall_s": 1.5}],
            "calibration": [{"profile": "fin2", "knob": "rate", "observable": "reads blocked %", "target": 33.0,
                             "achieved": 31.6, "within": True, "factor": 3.08, "compat": "disksim",
                             "history": [[1.0, 10.0]]}]}
    page = write_report(tmp_path, "T", ["intro"], [s], meta, v)
    p = Page()
    p.feed(page.read_text())
    return p, page


def test_verdicts_are_a_table_of_measures(tmp_path):
    p, _ = _report(tmp_path)
    t = next(t for t in p.tables if t["class"] == "verdicts")
    assert t["rows"][0] == ["row", "measure", "paper", "ours", "verdict", "cause"]
    # hr-3: its measure, then its qualitative part, each a line of its own
    first, second = t["rows"][1], t["rows"][2]
    assert first[:5] == ["hr-3", "HotR read mean vs baseline %", "-21.8", "3", "disagrees"]
    assert "opposite sign" in first[5] and "because" in first[5]
    assert second == ["the paper's claim holds", "on every workload", "on 2 of 4"]
    assert t["rows"][3][:5] == ["hr-2", "mixed pages %", "9.6", "12.0", "reproduced"]


def test_notes_are_coloured_by_kind(tmp_path):
    p, _ = _report(tmp_path)
    # the verdict's cause first (a disagreement), then the section's notes by the rule
    assert p.notes == ["note disagreement", "note information", "note caveat", "note disagreement"]
    assert note_kind("Mirror reads: 1.1% on average (paper about 1.2%).") == "information"
    assert note_kind("The paper's trend does not hold at every step.") == "disagreement"
    assert note_kind("Saturated, left out: fin2.") == "caveat"
    assert note_kind("holds on 4 of 4 workloads") == "information"
    assert note_kind("holds on 5 of 5 unsaturated rows") == "information"


def test_run_settings_are_tables_not_a_json_dump(tmp_path):
    p, page = _report(tmp_path)
    assert "pre" not in p.notes and "<pre>" not in page.read_text()
    settings = next(t for t in p.tables if t["class"] == "settings")
    assert ["--quick", "yes"] in settings["rows"] and ["timing rules judged", "disksim"] in settings["rows"]
    cal = next(t for t in p.tables if t["rows"] and t["rows"][0][:2] == ["profile", "knob"])
    assert cal["rows"][1][:4] == ["fin2", "rate", "reads blocked %", "33.0"]
    sweeps = next(t for t in p.tables if t["rows"] and t["rows"][0][0] == "sweep")
    assert sweeps["rows"][1][0] == "hotr-baseline"


def test_figure_data_is_written_beside_the_figure(tmp_path):
    _report(tmp_path)
    data = json.loads((tmp_path / "figures" / "hr-3.json").read_text())
    assert data["panels"][0]["series"][0]["values"] == [0.782]
    assert (tmp_path / "figures" / "hr-3.png").is_file()
