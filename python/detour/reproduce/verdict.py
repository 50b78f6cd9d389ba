"""Verdicts by rule: one function decides whether each of a paper's
experiments (hr-1.., cr-1.., rr-1.., rc-1..) was reproduced, so no report
can carry a verdict written by hand (docs/reproduce.md, "Verdicts").

A row's claim is judged on what the reproduction measured, given as
*measures* (name -> number, ours and the paper's in the same unit, with 0
meaning "no effect": changes in percent, shares in percent) and/or a
*qualitative* part that holds on k of n workloads:

- `reproduced`: every measure has the paper's sign and is within 2x of the
  paper's number (0.5 <= ours / paper <= 2), and the qualitative part, if
  any, holds on every workload;
- `direction`: every sign is right and the qualitative part holds, but
  some measure is more than 2x off;
- `disagrees`: some measure has the wrong sign (or is 0 where the paper's
  is not), or the qualitative part fails on some workload;
- `not-run`: nothing of the row was measured (no measure of ours, no
  workload to judge the qualitative part on), or a measure came out
  undefined (NaN).

Worst wins (disagrees, then not-run, then direction): one disagreeing
measure makes the row disagree. Every verdict
other than `reproduced` carries a cause: what the rule saw (which measure,
by how much) followed by the reproduction's explanation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

REPRODUCED, DIRECTION, DISAGREES, NOT_RUN = "reproduced", "direction", "disagrees", "not-run"
VERDICTS = (REPRODUCED, DIRECTION, DISAGREES, NOT_RUN)
#: How far from the paper's number a measure may be and still reproduce it.
FACTOR = 2.0


@dataclass
class Claim:
    """What a reproduction measured for one row of EXPERIMENTS.md. Never a
    verdict: `judge` makes that."""

    id: str
    claim: str  # the paper's result, as EXPERIMENTS.md words it
    paper: Dict[str, float] = field(default_factory=dict)  # measure -> the paper's number
    ours: Dict[str, float] = field(default_factory=dict)  # measure -> ours (same unit; missing = not measured)
    holds: Optional[Tuple[int, int]] = None  # the qualitative part holds on (k, n) workloads
    why: str = ""  # the reproduction's explanation, shown for any verdict but `reproduced`


def verdict(paper: Mapping[str, float], ours: Mapping[str, Optional[float]],
            holds: Optional[Sequence[int]] = None) -> Tuple[str, List[str]]:
    """The rule (module docstring): (verdict, facts), where `facts` says
    what made it anything but `reproduced`."""
    facts: List[str] = []
    judged = [m for m in paper if m in ours and ours[m] is not None]
    if not judged and holds is None:
        return NOT_RUN, [f"{m}: not measured" for m in paper] or ["nothing measured"]
    found = set()
    for m in judged:
        p, o = float(paper[m]), float(ours[m])
        if math.isnan(o) or math.isnan(p):
            found.add(NOT_RUN)
            facts.append(f"{m}: undefined in this run")
        elif p == 0 or o == 0 or (p > 0) != (o > 0):
            found.add(DISAGREES)
            how = "opposite sign" if p and o else "no effect on one side"
            facts.append(f"{m}: ours {_n(o)} vs paper {_n(p)}, {how}")
        elif not (1 / FACTOR <= o / p <= FACTOR):
            found.add(DIRECTION)
            off = o / p if abs(o) > abs(p) else p / o
            facts.append(f"{m}: ours {_n(o)} vs paper {_n(p)}, {off:.1f}x {'larger' if abs(o) > abs(p) else 'smaller'}")
    for m in paper:
        if m not in judged:
            found.add(NOT_RUN)
            facts.append(f"{m}: not measured")
    if holds is not None:
        k, n = int(holds[0]), int(holds[1])
        if n == 0:
            found.add(NOT_RUN)
            facts.append("no workload to judge the claim on")
        elif k < n:
            found.add(DISAGREES)
            facts.append(f"the claim holds on {k} of {n} workloads")
    for v in (DISAGREES, NOT_RUN, DIRECTION):
        if v in found:
            return v, facts
    return REPRODUCED, []


def judge(c: Claim) -> dict:
    """One row of report.json's `verdicts`: the claim, the numbers, the
    verdict by `verdict`, and the cause (empty when reproduced)."""
    v, facts = verdict(c.paper, c.ours, c.holds)
    cause = "" if v == REPRODUCED else "; ".join(facts) + (f". {c.why}" if c.why else "")
    return {"id": c.id, "claim": c.claim, "paper": dict(c.paper), "ours": {m: c.ours[m] for m in c.ours},
            "holds": list(c.holds) if c.holds is not None else None, "verdict": v, "cause": cause}


def not_run(rid: str, claim: str, why: str) -> dict:
    """The row of an experiment this reproduction did not compute."""
    return judge(Claim(rid, claim, why=why))


def counts(rows: Sequence[dict]) -> Dict[str, int]:
    """How many rows got each verdict (every verdict listed, 0 included)."""
    return {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}


def headline(rows: Sequence[dict]) -> str:
    """'N of M reproduced (a direction, b disagree, c not run)'."""
    c = counts(rows)
    return (f"{c[REPRODUCED]} of {len(rows)} reproduced ({c[DIRECTION]} direction only, {c[DISAGREES]} disagree, "
            f"{c[NOT_RUN]} not run)")


def _n(x: float) -> str:
    return f"{x:+.3g}" if abs(x) < 1000 else f"{x:+,.0f}"
