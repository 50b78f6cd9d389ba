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

from .base import Context, ReproduceError, Section
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
              say: Callable[[str], None] = print, compat: Optional[str] = None) -> Path:
    """Run `paper`'s experiments into `out`; returns the report's path.

    `compat`: None (Detour's own timing), a bundle name (`detour.compats()`),
    or "paper" for the simulator the paper ran on (`PAPER_COMPAT`)."""
    from .. import __version__
    from ..report import table
    from .html import write_report

    mod = _module(paper)
    for t in traces:
        if not Path(t).is_file():
            raise ReproduceError(f"--trace {t}: no such file")
    out = Path(out)
    if compat == "paper":
        compat = PAPER_COMPAT[paper]
    from ..api import compats

    if compat is not None and compat not in [n for n, _ in compats()]:
        raise ReproduceError(f"unknown --compat {compat!r}; known: paper, {', '.join(n for n, _ in compats())}")
    ctx = Context(paper=paper, out=out, quick=quick, traces=[Path(t) for t in traces], workers=workers,
                  backend=backend, address=address, say=say, compat=None if compat in (None, "none") else compat)
    t0 = time.perf_counter()
    sections: List[Section] = mod.experiments(ctx)
    wall = time.perf_counter() - t0
    for s in sections:
        say(f"\n{s.id}: {s.title}\n  paper: {s.paper}\n  workload: {s.workload}")
        if s.headers:
            say(table(s.headers, s.rows))
        for n in s.notes:
            say(f"  note: {n}")
    meta = {"paper": paper, "paper_file": mod.PAPER_FILE, "quick": quick, "traces": [str(t) for t in traces],
            "detour_version": __version__, "python": platform.python_version(), "wall_s": round(wall, 1),
            "backend": backend, "sweeps": ctx.sweeps_run, "compat": ctx.compat or "none"}
    intro = [mod.INTRO, "Every number here was produced by Detour in this run; the paper's are quoted from the "
             "paper for comparison and were never used to set a parameter."]
    if ctx.compat:
        intro.append(f"Every run here follows {ctx.compat}'s timing rules (`compat = \"{ctx.compat}\"`, docs/validation.md).")
    verdicts = judge_rows(mod.ROWS, sections)
    say(f"\nverdicts: {headline(verdicts)}")
    say(table(["id", "verdict", "cause"], [[v["id"], v["verdict"], v["cause"][:100]] for v in verdicts]))
    page = write_report(out, mod.TITLE, intro, sections, meta, verdicts)
    say(f"\nreport: {page}")
    return page


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
