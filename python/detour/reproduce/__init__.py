"""`detour reproduce <paper> [--quick] [--trace F ...]`: run a paper's
experiments (ids hr-1.., cr-1.., rr-1.., rc-1..) as sweeps and write a report with
the paper's numbers beside ours (docs/reproduce.md).

    from detour.reproduce import reproduce
    page = reproduce("hotr", "out/hotr", quick=True)   # -> out/hotr/report.html

Each paper module has `TITLE`, `PAPER_FILE` and `experiments(ctx) ->
[Section]`; adding one is one module and one row in `PAPERS`.
"""

from __future__ import annotations

import importlib
import platform
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from .base import Context, ReproduceError, Section, warnings_section
from .figures import add_figures
from .verdict import headline, judge, not_run

#: paper name -> module (under detour.reproduce)
PAPERS = {
    "hotr": "hotr",
    "cr5m": "cr5m",
    "collisions": "collisions",
    "rr-ssd": "rrssd",
}

#: the simulator each paper ran on: `compat="paper"` runs it under that one's rules
PAPER_COMPAT = {
    "hotr": "disksim",
    "cr5m": "ssdsim",
    "collisions": "mqsim",
    "rr-ssd": "ssdsim",
}

__all__ = ["PAPERS", "ReproduceError", "Section", "reproduce", "reproduce_all"]


def _module(paper: str):
    if paper not in PAPERS:
        raise ReproduceError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}, all")
    return importlib.import_module(f".{PAPERS[paper]}", __name__)


def reproduce(paper: str, out, *, quick: bool = False, traces: Sequence[str] = (), workers: Optional[int] = None,
              backend: str = "local", address: Optional[str] = None,
              say: Callable[[str], None] = print, compat: Optional[str] = None,
              traces_dir: Optional[str] = None) -> Path:
    """Run `paper`'s experiments into `out`; returns the report's path.

    `compat`: None (Detour's own timing), a bundle name (`detour.compats()`),
    or "paper" for the simulator the paper ran on (`PAPER_COMPAT`).
    `traces_dir`: a directory holding the real traces the paper names
    (`tracedir.NAMES`): each found one runs under the paper's name for it."""
    from .. import __version__
    from ..report import table
    from .html import write_report

    mod = _module(paper)
    for t in traces:
        if not Path(t).is_file():
            raise ReproduceError(f"--trace {t}: no such file")
    out = Path(out)
    if traces_dir is not None:
        if traces:
            raise ReproduceError("give --trace or --traces, not both")
        from . import tracedir

        found = tracedir.find(paper, Path(traces_dir))
        say(f"== traces in {traces_dir}: " + ", ".join(f"{w} = {f.name}" for w, f in found))
        traces = [str(x) for x in tracedir.link(found, out)]
    from ..api import compats

    if compat not in (None, "paper") and compat not in [n for n, _ in compats()]:
        raise ReproduceError(f"unknown --compat {compat!r}; known: paper, {', '.join(n for n, _ in compats())}")
    both = compat == "paper"
    if compat == "paper":
        compat = PAPER_COMPAT[paper]
    ctx = Context(paper=paper, out=out, quick=quick, traces=[Path(t) for t in traces], workers=workers,
                  backend=backend, address=address, say=say, compat=None if compat in (None, "none") else compat)
    t0 = time.perf_counter()
    sections: List[Section] = mod.experiments(ctx)
    add_figures(paper, sections)  # from the judged column's numbers, before the default column joins them
    default_sections: Optional[List[Section]] = None
    if both and ctx.compat:
        # The second column: the same workloads (the same calibrated points)
        # under Detour's own timing rules, in sweeps named <name>-default.
        dctx = Context(paper=paper, out=out, quick=quick, traces=ctx.traces, workers=workers, backend=backend,
                       address=address, say=say, compat=None, suffix="-default", calibrations=ctx.calibrations)
        default_sections = mod.experiments(dctx)
        ctx.sweeps_run += dctx.sweeps_run
        ctx.run_warnings += dctx.run_warnings
        sections = two_columns(sections, default_sections, f"{ctx.compat} (paper's)", "Detour default")
    wall = time.perf_counter() - t0
    for s in sections:
        say(f"\n{s.id}: {s.title}\n  paper: {s.paper}\n  workload: {s.workload}")
        if s.headers:
            say(table(s.headers, s.rows))
        for n in s.notes:
            say(f"  note: {n}")
    cals = [c.to_json() for c in ctx.calibrations.values()]
    meta = {"paper": paper, "paper_file": mod.PAPER_FILE, "quick": quick,
            "traces": [str(Path(t).resolve()) for t in traces], "trace_links": [str(t) for t in traces],
            "detour_version": __version__, "python": platform.python_version(), "wall_s": round(wall, 1),
            "backend": backend, "sweeps": ctx.sweeps_run, "compat": ctx.compat or "none",
            "columns": [ctx.compat, "none"] if default_sections is not None else [ctx.compat or "none"],
            "calibration": cals, "missing_options": ctx.missing_options,
            "run_warnings": len(ctx.run_warnings)}
    intro = [mod.INTRO, "Every number here was produced by Detour in this run; the paper's are quoted from the "
             "paper for comparison and were never used to set a parameter."]
    if ctx.compat and default_sections is not None:
        intro.append(f"Every experiment ran twice on the same workloads: under {ctx.compat}'s timing rules, the "
                     f"simulator the paper ran on (`compat = \"{ctx.compat}\"`, docs/validation.md), and under Detour's "
                     "default rules. Tables give both (column 'rules'); the verdicts are computed on the paper's "
                     "simulator's column, and the verdict table shows the default column's numbers and verdict beside "
                     "them, not counted.")
    elif ctx.compat:
        intro.append(f"Every run here follows {ctx.compat}'s timing rules (`compat = \"{ctx.compat}\"`, docs/validation.md).")
    if ctx.missing_options:
        intro.append("This build of the core lacks " + ", ".join(ctx.missing_options) + "; the runs go without it "
                     "(docs/reproduce.md).")
    if ctx.calibrations:
        intro.append(calibration_text(list(ctx.calibrations.values()), ctx.compat))
        cal = calibration_section(list(ctx.calibrations.values()), ctx.compat)
        cal.notes += ctx.calibration_notes
        sections.insert(0, cal)
        say(f"\n{cal.id}: {cal.title}\n  paper: {cal.paper}")
        say(table(cal.headers, cal.rows))
        for n in cal.notes:
            say(f"  note: {n}")
    warned = warnings_section(ctx.run_warnings, sum(s.get("runs") or 0 for s in ctx.sweeps_run))
    if warned is not None:
        intro.append(f"Some runs carry the core's warnings ({warned.workload}): they are listed under "
                     "'Runs with warnings' at the end, by sweep.")
        sections.append(warned)
        say(f"\nruns with warnings: {warned.workload}")
    verdicts = judge_rows(mod.ROWS, sections)
    if default_sections is not None:
        add_default_column(verdicts, judge_rows(mod.ROWS, default_sections))
    say(f"\nverdicts: {headline(verdicts)}")
    if default_sections is not None:
        say(f"(judged on {ctx.compat}'s rules; 'default' is the same rule on Detour's default rules, not counted)")
        say(table(["id", "verdict", "default", "cause"],
                  [[v["id"], v["verdict"], v.get("verdict_default", "-"), v["cause"][:100]] for v in verdicts]))
    else:
        say(table(["id", "verdict", "cause"], [[v["id"], v["verdict"], v["cause"][:100]] for v in verdicts]))
    page = write_report(out, mod.TITLE, intro, sections, meta, verdicts)
    say(f"\nreport: {page}")
    return page


def two_columns(ps: List[Section], ds: List[Section], pname: str, dname: str) -> List[Section]:
    """The paper's-rules sections with the default-rules rows beside them:
    a first column 'rules', the two runs of each row one under the other;
    the default's notes follow, marked. Claims (and verdicts) stay the
    paper's-rules ones; the default's claim is kept as `claim_default`."""
    by = {s.id: s for s in ds}
    for s in ps:
        d = by.get(s.id)
        if d is None:
            continue
        if s.headers:
            s.headers = ["rules"] + list(s.headers)
            if len(s.rows) == len(d.rows):
                s.rows = [x for rp, rd in zip(s.rows, d.rows) for x in ([pname] + list(rp), [dname] + list(rd))]
            else:
                s.rows = [[pname] + list(r) for r in s.rows] + [[dname] + list(r) for r in d.rows]
        s.notes = [f"[{pname}] {n}" for n in s.notes] + [f"[{dname}] {n}" for n in d.notes]
        s.claim_default = d.claim
    return ps


def add_default_column(verdicts: List[dict], defaults: List[dict]) -> None:
    """Beside each verdict (on the paper's rules), the default rules'
    numbers and the verdict the same rule gives them (not counted)."""
    by = {v["id"]: v for v in defaults}
    for v in verdicts:
        d = by.get(v["id"])
        if d is not None:
            v["ours_default"], v["holds_default"], v["verdict_default"] = d["ours"], d["holds"], d["verdict"]
            v["saturated_default"] = d["saturated"]


def calibration_text(cals, compat: Optional[str]) -> str:
    c0 = cals[0]
    return (f"Load: each profile's {c0.knob} was scaled by bisection (detour.calibrate) until the baseline showed "
            f"{c0.observable} = {c0.target:g}, a figure the paper reports about its baseline ({c0.source}), under "
            f"{compat or 'Detour default'} rules; both columns then run at that point. The knob, target and the "
            "value achieved per profile are in the calibration table and in report.json (meta.calibration). The "
            "calibration never looks at the paper's scheme.")


def calibration_section(cals, compat: Optional[str]) -> Section:
    from ..calibrate import calibration_table

    h, rows = calibration_table(cals)
    c0 = cals[0]
    s = Section("calibration", "Calibrated load (the baseline's figure, not the scheme's)",
                f"{c0.source}", "each profile at the reproduction's length", h, rows)
    s.notes.append("Calibrated value: the factor applied to the profile's arrival rate (rate), the peak-to-mean ratio "
                   "of on/off arrivals at its mean rate (burst), or zipf theta (skew). " + "; ".join(
                       f"{c.profile}: " + ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}"
                                                   for k, v in c.profile_set().items()) for c in cals))
    if c0.band is not None:
        lo, hi = sorted(c0.band)
        s.notes.append(f"The paper gives a range ({lo:g}..{hi:g}): the search stops at the first point inside it, "
                       "starting from the profile's own load, so a profile already inside keeps its own load.")
    missed = [c for c in cals if not c.within]
    if missed:
        s.notes.append(("Outside the paper's range" if c0.band is not None else "Not within 5% of the target")
                       + ": " + "; ".join(f"{c.profile} {c.achieved:.3g}" for c in missed) + ". No unsaturated point "
                       "of the knob's range (x1/64..x1024, scanned by factors of 2 until the baseline saturates: "
                       "see report.json's history) reaches it; " + (
                           "the profile's own load is kept." if c0.band is not None else "the closest is used."))
    sat = [c.profile for c in cals if c.saturated]
    if sat:
        s.notes.append("Saturated baseline at the chosen point (every point tried was): " + ", ".join(sat)
                       + ". Latencies there are set by the device's throughput; read the results with that in mind.")
    return s


def judge_rows(rows: Sequence[str], sections: Sequence[Section]) -> List[dict]:
    """One verdict per row id of EXPERIMENTS.md, each by `verdict.judge`
    (a row with no section, or a section that measured nothing for it, is
    not-run)."""
    by = {s.id: s for s in sections}
    out = []
    for rid in rows:
        s = by.get(rid)
        if s is not None and s.claim is not None:
            out.append(judge(s.claim))
        else:
            out.append(not_run(rid, s.paper if s else "", "this reproduction does not compute it"))
    return out


def reproduce_all(out, **kw) -> Path:
    """Every paper, each into OUT/<paper>, and OUT/index.html linking them."""
    from .html import write_index

    out = Path(out)
    pages = []
    for p in PAPERS:
        page = reproduce(p, out / p, **kw)
        pages.append((_module(p).TITLE, f"{p}/{page.name}"))
    return write_index(out, pages)
