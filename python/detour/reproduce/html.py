"""The reproduction report: one self-contained HTML page (figures inlined as
PNG, no scripts, no server), the figures as PNG and SVG files beside it,
each table as CSV, and report.json with every number."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
from pathlib import Path
from typing import Any, List, Optional, Sequence

from ..report import fmt
from ..sweep.records import write_atomic
from .base import Section
from .verdict import counts, headline

STYLE = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em} h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em} td.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f2f2f2} .paper{background:#fff8e6;padding:.5em .8em;border-left:4px solid #e0b000}
.workload{color:#555;font-size:.9em} .note{background:#fdecec;padding:.4em .8em;border-left:4px solid #c33;margin:.4em 0}
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
        parts.append(f"<h2 id='{s.id}'>{html.escape(s.id)}: {html.escape(s.title)}{_badge(by_id.get(s.id))}</h2>")
        parts.append(f"<p class='paper'><b>Paper:</b> {html.escape(s.paper)}</p>")
        parts.append(f"<p class='workload'><b>Workload:</b> {html.escape(s.workload)}</p>")
        if s.headers:
            parts.append(_table(s.headers, s.rows))
            _write_csv(tables / f"{s.id}.csv", s.headers, s.rows)
        for name, fig in s.figures:
            png = _png(fig)
            write_atomic(figs / f"{name}.png", png)
            buf = io.BytesIO()
            fig.savefig(buf, format="svg")
            write_atomic(figs / f"{name}.svg", buf.getvalue())
            parts.append(f"<p><img alt='{html.escape(name)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'></p>")
        parts += [f"<p class='note'>{html.escape(n)}</p>" for n in s.notes]
    parts.append(f"<h2>How this was run</h2><pre>{html.escape(json.dumps(meta, indent=2))}</pre></body></html>")
    page = out / "report.html"
    write_atomic(page, "\n".join(parts).encode())
    doc = {"title": title, "meta": meta, "verdict_counts": counts(verdicts), "verdicts": verdicts,
           "sections": [s.to_json() for s in sections]}
    write_atomic(out / "report.json", (json.dumps(doc, indent=2, default=_num) + "\n").encode())
    return page


def _badge(v: Optional[dict]) -> str:
    if v is None:
        return ""
    return f" <span class='v {v['verdict']}'>{html.escape(v['verdict'])}</span>"


def _numbers(d: dict) -> str:
    return "; ".join(f"{m}: {fmt(x)}" for m, x in d.items()) or "-"


def _verdict_table(verdicts: List[dict]) -> List[str]:
    """The verdicts first: the count, then one line per row of
    EXPERIMENTS.md (the rule is verdict.verdict; docs/reproduce.md)."""
    two = any("verdict_default" in v for v in verdicts)

    def ours(d: dict, holds, v: Optional[dict] = None) -> str:
        cal = set((v or {}).get("calibrated") or ())
        nums = "; ".join(f"{m}: {fmt(x)}" + (" (calibrated)" if m in cal else "") for m, x in d.items()) or "-"
        sat = (v or {}).get("saturated") or []
        return (html.escape(nums) + (f"; holds on {holds[0]} of {holds[1]}" if holds else "")
                + (f"; left out, saturated: {html.escape(', '.join(sat))}" if sat else ""))

    def default(v: dict) -> str:
        if not two:
            return ""
        if "verdict_default" not in v:
            return "<td>-</td>"
        cal_sat = {"calibrated": v.get("calibrated"), "saturated": v.get("saturated_default")}
        return (f"<td>{ours(v['ours_default'], v['holds_default'], cal_sat)} "
                f"<span class='v {v['verdict_default']}'>{html.escape(v['verdict_default'])}</span></td>")

    rows = "".join(
        f"<tr><td><a href='#{v['id']}'>{html.escape(v['id'])}</a></td><td>{_badge(v)}</td>"
        f"<td>{html.escape(v['claim'])}</td><td>{html.escape(_numbers(v['paper']))}</td>"
        f"<td>{ours(v['ours'], v['holds'], v)}</td>{default(v)}<td>{html.escape(v['cause'])}</td></tr>" for v in verdicts)
    head_ours = "<th>ours (paper's simulator's rules: judged)</th><th>ours (Detour default, not counted)</th>" if two \
        else "<th>ours</th>"
    return [f"<h2>Verdicts: {html.escape(headline(verdicts))}</h2>",
            "<p class='workload'>By one rule (docs/reproduce.md): reproduced = the paper's sign and within 2x of its "
            "number, and the qualitative claim holding on every workload; direction = right sign, more than 2x off; "
            "disagrees = wrong sign or the claim failing somewhere; not-run = not measured. A figure the paper gives "
            "per item (volume, workload) is judged per item and reproduces when most items do. Not counted: "
            "calibrated = the row holds only a calibration's target; saturated = every run it rests on carried the "
            "core's saturated warning (such runs are left out of every verdict and every figure).</p>",
            f"<table><tr><th>id</th><th>verdict</th><th>paper's claim</th><th>paper</th>{head_ours}<th>cause</th>"
            f"</tr>{rows}</table>"]


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
