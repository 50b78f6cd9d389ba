"""How far Table 2's expected collision ratio can go at Table 2's OCC
(patterned read collisions paper, Sec. II-C): an arithmetic bound, no
simulation.

The paper's expected ratio is that of "a hypothetical workload ... that
continuously maintains the same level of OCC ... but distributes read
operations randomly over all dies". Read as rc-1 reads it (the share of the
10 us samples at which some die holds two reads: RR8's 83.7% at OCC 7.8 is
that reading's birthday probability, docs/schemes/collisions.md), a sample
with n reads outstanding on D dies collides with probability b(n) =
1 - D!/((D-n)! D^n), and the expected ratio is the mean of b(n) over the
samples whose mean n is the OCC. Whatever the OCC's path, that mean is at
most the upper concave envelope of b at the OCC, so a Table 2 row whose
expected ratio is above it cannot be met by any workload with that OCC,
real or synthetic. (Read per arrival instead, 1 - (1 - 1/D)^(n-1) is
concave and lower still.)
"""

from __future__ import annotations

from typing import List


def birthday(n: int, dies: int = 16) -> float:
    """Probability that some die holds two of n reads placed uniformly."""
    none = 1.0
    for k in range(n):
        none *= max(dies - k, 0) / dies
    return 1.0 - none


def max_expected_share(occ: float, dies: int = 16, busy: bool = True) -> float:
    """The largest mean of b(n) over samples whose mean n is `occ`: the upper
    concave envelope of (n, b(n)) at `occ`, n >= 1 when the average is over
    busy samples (something outstanding, h34's reading of Table 2's OCC),
    n >= 0 when idle samples count too."""
    lo = 1 if busy else 0
    if occ <= lo:
        return 0.0
    pts: List[tuple] = [(n, birthday(n, dies)) for n in range(lo, 4 * dies + 1)]
    best = 0.0
    # The envelope at occ is the best chord between a point left of occ and one right of it.
    for x0, y0 in pts:
        if x0 > occ:
            break
        for x1, y1 in pts:
            if x1 < occ or x1 == x0:
                continue
            best = max(best, y0 + (y1 - y0) * (occ - x0) / (x1 - x0))
        if x0 == occ:
            best = max(best, y0)
    return best
