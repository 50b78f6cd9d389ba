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
measure makes the row disagree. Three refinements keep a verdict honest:

- *Calibration targets* (`calibrated`: measures a profile's load or
  generator was set to reach) are shown and never judged: a row left with
  nothing else is `calibrated`, not `reproduced`.
- *Per-item figures* (`items`: measure -> the volume or workload it is
  the paper's figure for): each item is judged on its own measures by the
  rule above, and the items together reproduce only when most (more than
  half) of them do; direction when most have the right sign; else they
  disagree. Items left undefined are left out of the count.
- *Saturated runs* (`saturated`: the workloads whose runs carried the
  core's `saturated` warning) never reach a verdict: the reproduction
  leaves them out of its measures, and a row left with nothing else is
  `saturated`.

`calibrated` and `saturated` rows are not counted among the judged ones
(`headline`). Every verdict other than `reproduced` carries a cause: what
the rule saw (which measure, by how much) followed by the reproduction's
explanation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

REPRODUCED, DIRECTION, DISAGREES, NOT_RUN = "reproduced", "direction", "disagrees", "not-run"
CALIBRATED, SATURATED = "calibrated", "saturated"
VERDICTS = (REPRODUCED, DIRECTION, DISAGREES, NOT_RUN, CALIBRATED, SATURATED)
#: Verdicts that are not a judgment of the paper's claim (not counted).
UNJUDGED = (CALIBRATED, SATURATED)
#: How far from the paper's number a measure may be and still reproduce it.
FACTOR = 2.0
_WORST = (DISAGREES, NOT_RUN, DIRECTION)


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
    calibrated: List[str] = field(default_factory=list)  # measures that are calibration targets (never judged)
    items: Dict[str, str] = field(default_factory=dict)  # measure -> the item (volume, workload) it belongs to
    saturated: List[str] = field(default_factory=list)  # workloads left out: their runs saturated


def _measure(m: str, p: float, o: Optional[float]) -> Tuple[str, Optional[str]]:
    """One measure against the paper's number: (verdict, fact or None)."""
    if o is None:
        return NOT_RUN, f"{m}: not measured"
    p, o = float(p), float(o)
    if math.isnan(o) or math.isnan(p):
        return NOT_RUN, f"{m}: undefined in this run"
    if p == 0 or o == 0 or (p > 0) != (o > 0):
        how = "opposite sign" if p and o else "no effect on one side"
        return DISAGREES, f"{m}: ours {_n(o)} vs paper {_n(p)}, {how}"
    if not (1 / FACTOR <= o / p <= FACTOR):
        off = o / p if abs(o) > abs(p) else p / o
        return DIRECTION, f"{m}: ours {_n(o)} vs paper {_n(p)}, {off:.1f}x {'larger' if abs(o) > abs(p) else 'smaller'}"
    return REPRODUCED, None


def _worst(found: Sequence[str]) -> str:
    for v in _WORST:
        if v in found:
            return v
    return REPRODUCED


def _by_items(paper: Mapping[str, float], ours: Mapping[str, Optional[float]],
              items: Mapping[str, str]) -> Tuple[str, List[str]]:
    """The per-item part: each item by the one-measure rule (worst of its
    measures), then reproduced when most items are, direction when most
    have the right sign, else disagrees."""
    per: Dict[str, List[Tuple[str, Optional[str]]]] = {}
    for m in paper:
        per.setdefault(items[m], []).append(_measure(m, paper[m], ours.get(m)))
    got = {it: _worst([v for v, _ in vs]) for it, vs in per.items()}
    judged = [it for it, v in got.items() if v != NOT_RUN]
    facts = [f"{it}: not measured or undefined" for it, v in got.items() if v == NOT_RUN]
    if not judged:
        return NOT_RUN, facts
    n, ok = len(judged), sum(got[it] == REPRODUCED for it in judged)
    signs = ok + sum(got[it] == DIRECTION for it in judged)
    v = REPRODUCED if 2 * ok > n else DIRECTION if 2 * signs > n else DISAGREES
    if v == REPRODUCED:
        return v, []
    off = [f for it in judged for _, f in per[it] if f]
    return v, [f"reproduced on {ok} of {n} items (most must be)"] + off + facts


def verdict(paper: Mapping[str, float], ours: Mapping[str, Optional[float]],
            holds: Optional[Sequence[int]] = None, calibrated: Sequence[str] = (),
            items: Optional[Mapping[str, str]] = None, saturated: Sequence[str] = ()) -> Tuple[str, List[str]]:
    """The rule (module docstring): (verdict, facts), where `facts` says
    what made it anything but `reproduced`."""
    items = dict(items or {})
    judged_paper = {m: p for m, p in paper.items() if m not in calibrated}
    if holds is not None and int(holds[1]) == 0 and saturated:
        holds = None  # every workload of the qualitative part was left out
    if not any(ours.get(m) is not None for m in judged_paper) and holds is None:
        if saturated:
            return SATURATED, [f"left out, saturated: {', '.join(saturated)}"]
        if calibrated and not judged_paper:
            return CALIBRATED, [f"{', '.join(calibrated)}: calibration target, not judged"]
        return NOT_RUN, [f"{m}: not measured" for m in judged_paper] or ["nothing measured"]
    found: List[str] = []
    facts: List[str] = []
    for m, p in judged_paper.items():
        if m in items:
            continue
        v, f = _measure(m, p, ours.get(m))
        found.append(v)
        facts += [f] if f else []
    with_item = {m: p for m, p in judged_paper.items() if m in items}
    if with_item:
        v, item_facts = _by_items(with_item, ours, items)
        found.append(v)
        facts += item_facts
    if holds is not None:
        k, n = int(holds[0]), int(holds[1])
        if n == 0:
            found.append(NOT_RUN)
            facts.append("no workload to judge the claim on")
        elif k < n:
            found.append(DISAGREES)
            facts.append(f"the claim holds on {k} of {n} workloads")
    v = _worst(found)
    if v != REPRODUCED and saturated:
        facts.append(f"left out, saturated: {', '.join(saturated)}")
    return v, ([] if v == REPRODUCED else facts)


def rejudge(row: Mapping) -> str:
    """The verdict the rule gives a report.json row's own numbers."""
    return verdict(row["paper"], row["ours"], row["holds"], row.get("calibrated") or (), row.get("items"),
                   row.get("saturated") or ())[0]


def judge(c: Claim) -> dict:
    """One row of report.json's `verdicts`: the claim, the numbers, the
    verdict by `verdict`, and the cause (empty when reproduced)."""
    v, facts = verdict(c.paper, c.ours, c.holds, c.calibrated, c.items, c.saturated)
    cause = "" if v == REPRODUCED else "; ".join(facts) + (f". {c.why}" if c.why else "")
    return {"id": c.id, "claim": c.claim, "paper": dict(c.paper), "ours": {m: c.ours[m] for m in c.ours},
            "holds": list(c.holds) if c.holds is not None else None, "calibrated": list(c.calibrated),
            "items": dict(c.items), "saturated": list(c.saturated), "verdict": v, "cause": cause}


def not_run(rid: str, claim: str, why: str) -> dict:
    """The row of an experiment this reproduction did not compute."""
    return judge(Claim(rid, claim, why=why))


def counts(rows: Sequence[dict]) -> Dict[str, int]:
    """How many rows got each verdict (every verdict listed, 0 included)."""
    return {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}


def headline(rows: Sequence[dict]) -> str:
    """'N of M reproduced (a direction, b disagree, c not run)', M the rows
    judged; calibrated and saturated rows are named after it, not counted."""
    c = counts(rows)
    judged = len(rows) - sum(c[v] for v in UNJUDGED)
    out = (f"{c[REPRODUCED]} of {judged} reproduced ({c[DIRECTION]} direction only, {c[DISAGREES]} disagree, "
           f"{c[NOT_RUN]} not run)")
    left = [f"{r['id']} {r['verdict']}" for r in rows if r["verdict"] in UNJUDGED]
    return out + (f"; not judged: {', '.join(left)}" if left else "")


def _n(x: float) -> str:
    return f"{x:+.3g}" if abs(x) < 1000 else f"{x:+,.0f}"
