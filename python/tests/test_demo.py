"""`detour demo`: every scheme on its paper's setting, against its baseline,
with the paper's sign, in one figure and one line each."""

from __future__ import annotations

import detour
import pytest
from detour import demo as d

#: Fewer requests than the demo's 20,000 keep the test quick; the cases
#: scale their workloads with it (the RR profiles' scaled days).
QUICK = 8_000


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    lines = []
    rows = d.demo(out, echo=lines.append, requests=QUICK)
    return out, rows, "\n".join(lines)


def test_bundled_trace_is_what_the_script_writes(tmp_path):
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "tools" / "make_demo_trace.py"
    spec = importlib.util.spec_from_file_location("make_demo_trace", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(str(tmp_path / "demo.trace"))
    with d.demo_trace() as bundled:
        assert (tmp_path / "demo.trace").read_bytes() == bundled.read_bytes()


def test_every_scheme_has_one_case_against_its_entrys_baseline():
    # the papers' cases name registered schemes; a scheme without one (just
    # added) still runs, on a plain case built from its registry entry
    names = [n for n, _ in detour.schemes()]
    assert sorted(c.scheme for c in d.all_cases()) == sorted(n for n in names if n != "conventional")
    assert {c.scheme for c in d.CASES} <= set(names)
    for c in d.all_cases():
        assert c.baseline in names and c.baseline != c.scheme and c.workload in d.workloads()
        assert c.paper in ((-1, 0, 1) if c in d.CASES else (None,)) and c.claim


def test_a_scheme_without_a_case_gets_a_plain_one(monkeypatch):
    monkeypatch.setattr(d, "CASES", [c for c in d.CASES if c.scheme != "cr5m"])
    plain = next(c for c in d.all_cases() if c.scheme == "cr5m")
    assert (plain.baseline, plain.workload, plain.paper, plain.counters) == ("cr5", "trace", None, ())
    from types import SimpleNamespace

    res = SimpleNamespace(summary={"latency_us": {k: {"mean": 1.0} for k in ("read", "write")}})
    row = d.Row(plain, res, res, -3.0, ())
    line = d.verdict(row)
    assert row.agrees and line.startswith("cr5m: helped (-3.0% all mean vs cr5)"), line
    assert line.endswith(" (no paper case yet).") and "NOT" not in line, line


def test_every_scheme_acts_on_its_setting(quick):
    _, rows, _ = quick
    for r in rows:
        s = r.result.summary
        assert s["verify_errors"] == 0 and r.base.summary["verify_errors"] == 0, r.case.scheme
        assert d.idle(r.result) is None, (r.case.scheme, d.idle(r.result))
        # the counter the line and the figure show is one the scheme reports, and it moved
        for k in r.case.counters:
            assert k in s["scheme_counters"], (r.case.scheme, k)
        if r.case.counters:
            assert r.counts[0] > 0, r.case.scheme
        # scheme and baseline ran the same requests
        assert s["workload"] == r.base.summary["workload"] and s["requests"] == QUICK


def test_interference_schemes_run_with_gc_busy(quick):
    _, rows, _ = quick
    for r in rows:
        if r.case.workload == "fin2-aged":
            assert r.result.summary["gc"]["runs"] > 0 and r.base.summary["gc"]["runs"] > 0, r.case.scheme


def test_each_scheme_shows_its_papers_sign(quick):
    # every scheme the demo does not mark contrary shows its paper's sign;
    # a contrary one still does not (else its note is stale), and says so
    _, rows, _ = quick
    wrong = {r.case.scheme: round(r.gain_pct, 2) for r in rows if r.agrees == bool(r.case.contrary)}
    assert not wrong, wrong
    for r in rows:
        assert (d.contrary_note(r) in r.line) if r.case.contrary else "NOT" not in r.line


def test_hotr_migrates_only_on_blocked_reads_and_its_note_is_computed(quick):
    # HotR Sec. III-C: a page is copied to staging from a read found
    # blocked, so migrations never outnumber the blocked reads; the note
    # on its sign is filled from this run's counters, not typed
    _, rows, _ = quick
    r = next(r for r in rows if r.case.scheme == "hotr")
    c = r.result.summary["scheme_counters"]
    assert 0 < c["hotr.migrations"] + c["hotr.migrations_skipped"] <= c["hotr.reads_blocked"]
    assert 0 < c["hotr.reads_redirected_staging"] <= c["hotr.reads_blocked"]
    # the line counts the redirected reads, not every read of a staged page
    assert f"{int(c['hotr.reads_redirected_staging']):,} of the {int(c['hotr.reads_blocked']):,} reads" in r.line


def test_no_case_is_contrary():
    # every case runs its paper's setting and shows its paper's sign (HotR
    # since its staging chip is the paper's spare); a contrary one would
    # need its own computed note (`Case.contrary`)
    assert [c.scheme for c in d.CASES if c.contrary] == []


def test_lines_follow_the_rule(quick):
    _, rows, text = quick
    for r in rows:
        assert r.line in text
        assert r.line.startswith(f"{r.case.scheme}: {d.WORD[d._sign(r.gain_pct)]} ({r.gain_pct:+.1f}%")
        assert ("NOT the paper's sign" in r.line) != r.agrees


def test_rule_reads_a_small_change_as_none():
    assert d._sign(0.5) == 0 and d._sign(-0.99) == 0 and d._sign(-1.0) == -1 and d._sign(250) == 1


def test_figure_and_table_are_written(quick):
    out, rows, _ = quick
    png = out / "comparison.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    table = (out / "comparison.txt").read_text()
    for r in rows:
        assert f"{r.gain_pct:+.1f}" in table and r.line in table


def test_demo_command(tmp_path, monkeypatch):
    # the CLI path only (the full demo is `make demo`): two cases
    monkeypatch.setattr(d, "all_cases", lambda: [c for c in d.CASES if c.scheme in ("cr5", "cr5m")])
    from detour.cli import main

    assert main(["demo", "--out", str(tmp_path / "d")]) == 0
    assert (tmp_path / "d" / "comparison.png").exists()


def test_verdict_says_when_a_run_goes_against_its_paper():
    # the rule on made-up numbers: a scheme the paper finds faster, measured 5% slower
    from types import SimpleNamespace

    case = d.Case("hotr", "trace", "", ("read", "mean"), -1, "claim", ("c",), "{0:,} helped ({share})",
                  "{0:,} did not help ({share})")
    res = SimpleNamespace(summary={"pages": {"host_read": 200}})
    row = d.Row(case, res, res, 5.0, (50,))
    assert not row.agrees
    assert d.verdict(row) == "hotr: hurt (+5.0% read mean vs conventional): 50 did not help (25.0% of the pages read). " \
                             "NOT the paper's sign (claim)."
    row.gain_pct = -5.0
    assert row.agrees and d.verdict(row).startswith("hotr: helped (-5.0% read mean vs conventional): 50 helped")


def test_hotr_family_reads_the_reproductions_reading():
    # HotR's Fig. 5 measure, read as the reproductions read it (hr-3): the
    # demo takes the reproductions' constant, so the two cannot drift apart
    from detour.reproduce import hotr

    fig5 = [c for c in d.CASES if c.scheme in ("hotr", "rails", "ttflash")]
    assert len(fig5) == 3
    assert all(c.metric == (hotr.KIND, "mean") for c in fig5)
    assert hotr.KIND == "read"
