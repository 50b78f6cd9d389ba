"""The reproduction report: one self-contained HTML page (figures inlined as
PNG, no scripts, no server), the figures as PNG and SVG files beside it,
each table as CSV, and report.json with every number."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import re
from pathlib import Path
from typing import Any, List, Optional, Sequence

from ..report import fmt
from ..sweep.records import write_atomic
from .base import Section
from .verdict import counts, headline

STYLE = """
body{font-family:system-ui,sans-serif;max-width:1300px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em} h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em} td.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f2f2f2} .paper{background:#fff8e6;padding:.5em .8em;border-left:4px solid #e0b000}
.workload{color:#555;font-size:.9em} .note{padding:.4em .8em;margin:.4em 0;border-left:4px solid}
.note.information{background:#eef4fb;border-color:#4a7ebb} .note.caveat{background:#fff6e0;border-color:#d9a400}
.note.disagreement{background:#fdecec;border-color:#c33} .kind{font-size:.75em;text-transform:uppercase;color:#555;margin-right:.5em}
table.verdicts td{vertical-align:top} td.m{min-width:16em} td.id{white-space:nowrap} td.cause{font-size:.85em;min-width:22em} table.settings th{text-align:left;font-weight:normal;background:#f7f7f7}
.v{padding:0 .4em;border-radius:3px;font-size:.85em;white-space:nowrap} .reproduced{background:#dff0d8}
.direction{background:#fcf3cf} .disagrees{background:#f8d7da} .not-run{background:#e2e3e5} .calibrated{background:#dbe9f6} .saturated{background:#ece2f4} img{max-width:100%;border:1px solid #eee}
"""


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _table(headers: Sequence[str], rows: List[List[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = []
    for r in rows:
        cells = "".join(
            f'<td class="n">{html.escape(fmt(c))}</td>' if isinstance(c, (int, float)) and not isinstance(c, bool)
            else f"<td>{html.escape(fmt(c))}</td>" for c in r)
        body.append(f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def write_report(out: Path, title: str, intro: List[str], sections: List[Section], meta: dict,
                 verdicts: List[dict]) -> Path:
    """Write OUT/report.html, OUT/report.json, OUT/figures/*, OUT/tables/*;
    `verdicts` are `verdict.judge`'s rows, shown first."""
    figs, tables = out / "figures", out / "tables"
    figs.mkdir(parents=True, exist_ok=True)
    tables.mkdir(parents=True, exist_ok=True)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>"]
    by_id = {v["id"]: v for v in verdicts}
    parts += _verdict_table(verdicts)
    parts += [f"<p>{html.escape(p)}</p>" for p in intro]
    for s in sections:
        parts += _section(s, by_id.get(s.id), figs, tables)
    parts += settings(meta)
    parts.append("</body></html>")
    page = out / "report.html"
    write_atomic(page, "\n".join(parts).encode())
    doc = {"title": title, "meta": meta, "verdict_counts": counts(verdicts), "verdicts": verdicts,
           "sections": [s.to_json() for s in sections]}
    write_atomic(out / "report.json", (json.dumps(doc, indent=2, default=_num) + "\n").encode())
    return page


def _section(s: Section, v: Optional[dict], figs: Path, tables: Path) -> List[str]:
    """One experiment: the paper's result, the workload, our table (also
    as CSV), its figures (inlined; also as PNG, SVG and the JSON of the
    numbers drawn), the verdict's cause and the notes, each by kind."""
    parts = [f"<h2 id='{s.id}'>{html.escape(s.id)}: {html.escape(s.title)}{_badge(v)}</h2>",
             f"<p class='paper'><b>Paper:</b> {html.escape(s.paper)}</p>",
             f"<p class='workload'><b>Workload:</b> {html.escape(s.workload)}</p>"]
    if s.headers:
        parts.append(_table(s.headers, s.rows))
        _write_csv(tables / f"{s.id}.csv", s.headers, s.rows)
    for name, fig in s.figures:
        png = _png(fig)
        write_atomic(figs / f"{name}.png", png)
        buf = io.BytesIO()
        fig.savefig(buf, format="svg")
        write_atomic(figs / f"{name}.svg", buf.getvalue())
        if name in s.figure_data:
            write_atomic(figs / f"{name}.json", (json.dumps(s.figure_data[name], indent=1) + "\n").encode())
        parts.append(f"<p><img alt='{html.escape(name)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'></p>")
    if v is not None and v["cause"]:
        parts.append(_note(f"Verdict {v['verdict']}: {v['cause']}", cause_kind(v["verdict"])))
    return parts + [_note(n, note_kind(n)) for n in s.notes]


def _badge(v: Optional[dict]) -> str:
    if v is None:
        return ""
    return f" <span class='v {v['verdict']}'>{html.escape(v['verdict'])}</span>"


#: Words that make a note a caveat (something left out, not judged, or
#: not as the paper did it) or a disagreement (the paper's claim failing):
#: `note_kind`'s rule, checked in this order.
DISAGREEMENT = ("does not hold", "disagree", "opposite sign", "keeps growing", "losses:", "not the paper's sign")
CAVEAT = ("saturated", "left out", "not judged", "cannot", "lacks", "not in this build", "outside the paper",
          "not the paper", "no longer", "not simulated", "not checked", "not run", "instead of", "read the numbers")


#: "holds on 2 of 4 unsaturated workloads", "beats CR5 on 3 of 5"
K_OF_N = re.compile(r"\bon (\d+) of (\d+)\b")


def note_kind(text: str) -> str:
    """A note's kind by rule: "disagreement" when it says the paper's
    claim fails (in words, or as a claim holding on k of n with k < n),
    "caveat" when it says something was left out or done otherwise than
    the paper, else "information"."""
    low = text.lower()
    if any(w in low for w in DISAGREEMENT) or any(int(k) < int(n) for k, n in K_OF_N.findall(low)):
        return "disagreement"
    if any(re.search(r"\b" + re.escape(w), low) for w in CAVEAT):  # "unsaturated" is no caveat
        return "caveat"
    return "information"


def cause_kind(verdict: str) -> str:
    """The kind of a verdict's cause: a disagreement for `disagrees`, a
    caveat for any other verdict short of `reproduced`."""
    return "disagreement" if verdict == "disagrees" else "caveat"


def _note(text: str, kind: str) -> str:
    return f"<p class='note {kind}'><span class='kind'>{kind}</span>{html.escape(text)}</p>"


def measure_lines(v: dict, ours_key: str = "ours", holds_key: str = "holds",
                  saturated_key: str = "saturated") -> List[tuple]:
    """(measure, paper, ours) lines of one verdict: each measure (a
    calibration target marked), the qualitative part, the workloads left
    out saturated."""
    paper, ours = v["paper"], v.get(ours_key) or {}
    cal = set(v.get("calibrated") or ())
    out = [(m + (" (calibration target)" if m in cal else ""), fmt(paper[m]) if m in paper else "-",
            fmt(ours[m]) if m in ours else "-") for m in list(paper) + [m for m in ours if m not in paper]]
    holds = v.get(holds_key)
    if holds:
        out.append(("the paper's claim holds", "on every workload", f"on {holds[0]} of {holds[1]}"))
    sat = v.get(saturated_key) or []
    if sat:
        out.append(("left out, saturated", "-", ", ".join(sat)))
    return out or [("-", "-", "-")]


def _verdict_table(verdicts: List[dict]) -> List[str]:
    """The verdicts first: the count, then a table with one line per
    measure of each row of EXPERIMENTS.md (row, measure, paper, ours,
    verdict; the rule is verdict.verdict, docs/reproduce.md)."""
    two = any("verdict_default" in v for v in verdicts)
    body = []
    for v in verdicts:
        lines = measure_lines(v)
        dflt = measure_lines(v, "ours_default", "holds_default", "saturated_default") if "verdict_default" in v else []
        n = len(lines)
        for i, (m, p, o) in enumerate(lines):
            cells = (f"<td rowspan='{n}' class='id'><a href='#{v['id']}'>{html.escape(v['id'])}</a></td>" if i == 0 else "")
            cells += f"<td class='m'>{html.escape(m)}</td><td class='n'>{html.escape(p)}</td><td class='n'>{html.escape(o)}</td>"
            if i == 0:
                cells += f"<td rowspan='{n}'>{_badge(v)}</td>"
            if two:
                d = next((x[2] for x in dflt if x[0] == m), "-")
                cells += f"<td class='n'>{html.escape(d)}</td>"
                if i == 0:
                    cells += f"<td rowspan='{n}'>{_badge({'verdict': v['verdict_default']}) if dflt else '-'}</td>"
            if i == 0:
                cells += f"<td rowspan='{n}' class='cause'>{html.escape(v['cause'])}</td>"
            body.append(f"<tr>{cells}</tr>")
    head = ("<th>row</th><th>measure</th><th>paper</th><th>ours</th><th>verdict</th>"
            + ("<th>ours (Detour default, not counted)</th><th>verdict (Detour default)</th>" if two else "")
            + "<th>cause</th>")
    if two:
        head = head.replace("<th>ours</th>", "<th>ours (paper's simulator's rules: judged)</th>")
    return [f"<h2>Verdicts: {html.escape(headline(verdicts))}</h2>",
            "<p class='workload'>By one rule (docs/reproduce.md): reproduced = the paper's sign and within 2x of its "
            "number, and the qualitative claim holding on every workload; direction = right sign, more than 2x off; "
            "disagrees = wrong sign or the claim failing somewhere; not-run = not measured. A figure the paper gives "
            "per item (volume, workload) is judged per item and reproduces when most items do. Not counted: "
            "calibrated = the row holds only a calibration's target; saturated = every run it rests on carried the "
            "core's saturated warning (such runs are left out of every verdict and every figure).</p>",
            f"<table class='verdicts'><tr>{head}</tr>{''.join(body)}</table>"]


#: meta keys shown as one line each, with the name a reader knows them by
SETTINGS = [("paper", "paper"), ("paper_file", "paper's text (../shared/papers)"), ("quick", "--quick"),
            ("traces", "real traces (--trace)"), ("compat", "timing rules judged"), ("columns", "columns run"),
            ("backend", "backend"), ("detour_version", "Detour"), ("python", "Python"), ("wall_s", "wall time, s"),
            ("run_warnings", "warnings over all runs"), ("missing_options", "options this build lacks")]
CALIBRATION = [("profile", "profile"), ("knob", "knob"), ("observable", "observable (baseline)"),
               ("target", "target"), ("achieved", "achieved"), ("within", "within"), ("factor", "factor"),
               ("compat", "rules")]
SWEEPS = [("name", "sweep"), ("runs", "runs"), ("executed", "ran"), ("skipped", "already recorded"),
          ("failed", "failed"), ("wall_s", "wall s"), ("file", "file")]


def settings(meta: dict) -> List[str]:
    """'How this was run' as tables: the settings, the calibrated points,
    the sweeps (report.json's meta has every field)."""
    def cell(v: Any) -> str:
        if isinstance(v, (list, tuple)):
            return ", ".join(str(x) for x in v) or "none"
        if isinstance(v, bool):
            return "yes" if v else "no"
        return fmt(v)

    rows = "".join(f"<tr><th>{html.escape(label)}</th><td>{html.escape(cell(meta[k]))}</td></tr>"
                   for k, label in SETTINGS if k in meta)
    out = ["<h2 id='settings'>How this was run</h2>", f"<table class='settings'>{rows}</table>"]
    for key, cols, title in (("calibration", CALIBRATION, "Calibrated points"), ("sweeps", SWEEPS, "Sweeps")):
        items = meta.get(key) or []
        if items:
            out.append(f"<h3>{title}</h3>")
            out.append(_table([label for _, label in cols], [[_cellv(it.get(k)) for k, _ in cols] for it in items]))
    out.append("<p class='workload'>Every field, and each calibration's search history: report.json's "
               "<code>meta</code>.</p>")
    return out


def _cellv(v: Any) -> Any:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return "-" if v is None else v


def _num(v: Any):
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


def _write_csv(path: Path, headers: Sequence[str], rows: List[List[Any]]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(headers)
    w.writerows(rows)
    write_atomic(path, buf.getvalue().encode())


def write_index(out: Path, reports: List[tuple]) -> Path:
    """OUT/index.html linking each paper's report (relative links: no server)."""
    items = "".join(f"<li><a href='{html.escape(rel)}'>{html.escape(title)}</a></li>" for title, rel in reports)
    page = out / "index.html"
    write_atomic(page, f"<!doctype html><html><head><meta charset='utf-8'><title>Detour reproductions</title>"
                       f"<style>{STYLE}</style></head><body><h1>Detour reproductions</h1><ul>{items}</ul></body></html>".encode())
    return page
