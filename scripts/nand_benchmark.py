"""The `[nand]` error model against a published read-retry curve
(docs/nand.md, "Benchmark against a published curve"; docs/nand-benchmark.png).

The source: J. Park, M. Kim, M. Chun, L. Orosa, J. Kim, O. Mutlu, "Reducing
Solid-State Drive Read Latency by Optimizing Read-Retry", ASPLOS 2021
(arXiv:2104.09611): the average number of read-retry steps a read needs on
160 real 48-layer 3D TLC chips, by P/E cycles and retention age (retention
at 30 C, emulated by baking), with an ECC correcting 72 bits per 1 KiB.

The points below are the paper's numbers as a public repository records
them, read through this session's search tool; the paper's own text and
figures were not available here, so the check should be repeated against
the paper (docs/nand.md says so). The record: SlugLab/HBFSim,
experiments/eq3_system_thermal/ecc_proxy/profile_v1.json (commit 17d0fc5),
its "evidence" entry, citing arxiv.org/html/2104.09611:

- "measured_anchor": 19.9 mean retry steps at 365 days (30 C) and 2000 P/E,
  and no retry at zero P/E and zero age;
- "source_bounds": more than 3 steps at 0 P/E and 90 days; at least 8 at
  1000 P/E and 90 days; 54.4% of reads at least 7 steps at 0 P/E and 180
  days (so a mean of at least 0.544 x 7 = 3.81; the derivation is ours);
- "source_ecc_capability_context": 72 bits per 1 KiB.

The 90-day, 0 P/E bound is also quoted, in words ("every read ... required
more than three retry steps"), by a computing-history repository's
read-retry synthesis ("Case 85"), found through the same tool.

A bound ("more than 3") is met within 2x if ours is at least half of it;
a mean if ours is within [mean / 2, 2 x mean].

Two models are held against the points:

- `power_law`, `tlc3d72` (the MQSim fork's fit, not fitted to these points),
  with the default ECC (40 bits per 1 KiB) and with the paper's (72 bits):
  it misses (docs/nand.md says why);
- `vth_drift`, `tlc3d48`: a FIT to two of these points (0 P/E at 90 days and
  2000 P/E at 365 days, scripts/nand_drift_fit.py), so those two are its
  inputs and only the other three are a test of it (held out). The drift
  model's steps do not depend on `ecc_bits` (the ECC's reach is inside the
  table's step, docs/nand.md); it runs with `max_retries` = 40, a table
  long enough for the source's mean of 19.9 (any value of at least 20
  gives the same numbers; the default 15 caps that point at 15 steps and
  counts its reads uncorrectable).

Each point is a small simulated read-only run (`detour.run`, the drive
aged to the point's P/E count and data age), its mean steps per flash read
from the summary, beside the formula restated in Python.

Usage: python scripts/nand_benchmark.py [OUT.png]
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nand_drift_fit
from nand_curves import DAY_NS, FITS, rber

SOURCE = "Park et al., ASPLOS 2021 (arXiv:2104.09611), 48-layer 3D TLC"
# Where each number was read (the paper was not); see the docstring.
VIA = "SlugLab/HBFSim ecc_proxy/profile_v1.json"


@dataclass(frozen=True)
class Point:
    pe: int
    days: float
    steps: float
    kind: str  # "mean", or "more_than" / "at_least" (a lower bound)
    via: str
    fit_input: bool = False  # an input of the vth_drift fit (not a test of it)

    def label(self) -> str:
        op = {"mean": "=", "more_than": ">", "at_least": ">="}[self.kind]
        return f"{self.pe} P/E, {self.days:g} d: {op} {self.steps:g}"


POINTS = [
    Point(0, 0, 0.0, "mean", f"{VIA}, measured_anchor"),
    Point(0, 90, 3.0, "more_than", f"{VIA}, source_bounds; Case 85", fit_input=True),
    Point(0, 180, round(0.544 * 7, 2), "at_least", f"{VIA}, source_bounds (54.4% of reads >= 7)"),
    Point(1000, 90, 8.0, "at_least", f"{VIA}, source_bounds"),
    Point(2000, 365, 19.9, "mean", f"{VIA}, measured_anchor", fit_input=True),
]
ECCS = {"default ECC (40 b / 1 KiB)": 40, "paper's ECC (72 b / 1 KiB)": 72}
DRIFT = "vth_drift tlc3d48 (fitted)"
DRIFT_MAX_RETRIES = 40
CODEWORD_BITS, MAX_RETRIES = 1024 * 8, 15
TLC = FITS["tlc3d72 (MQSim fork)"]
# Read-only, small: the point is the drive's age, not the workload's.
PROFILE = {"requests": 300, "footprint_bytes": 2**26, "read_ratio": 1.0}


def formula_steps(pe: float, days: float, ecc_bits: int) -> int:
    """docs/nand.md's retry rule at one (P/E, age), no read disturb."""
    errors = rber(TLC, pe, days * DAY_NS) * CODEWORD_BITS
    if errors <= ecc_bits:
        return 0
    return min(math.ceil(errors / ecc_bits) - 1, MAX_RETRIES)


def drift_formula_steps(pe: float, days: float) -> int:
    """The vth_drift model's steps, restated (scripts/nand_drift_fit.py)."""
    a, b = nand_drift_fit.fit()
    return nand_drift_fit.steps(a, b, pe, days * DAY_NS, DRIFT_MAX_RETRIES)


def simulated_steps(pe: int, days: float, ecc_bits: int | None) -> float:
    """Mean retry steps per flash read of a small read-only run on a drive
    aged to (pe, days): the power law with `ecc_bits`, or (None) the drift
    model."""
    import detour

    overrides = {"nand.initial_pe": pe, "nand.initial_pe_spread": 0.0, "nand.initial_age_days": days}
    if ecc_bits is None:
        overrides |= {"nand.error_model": "vth_drift", "nand.drift_fit": "tlc3d48",
                      "nand.max_retries": DRIFT_MAX_RETRIES}
    else:
        overrides |= {"nand.error_model": "power_law", "nand.fit": "tlc3d72", "nand.ecc_bits": ecc_bits}
    r = detour.run("small", profile="bench-like", profile_overrides=PROFILE, overrides=overrides)
    return float(r.summary.nand.retry_steps_mean)


def within_2x(p: Point, ours: float) -> bool:
    if p.kind == "mean":
        return p.steps / 2 <= ours <= 2 * p.steps
    return ours >= p.steps / 2  # a lower bound says nothing of the top


def ratio(p: Point, ours: float) -> float:
    return ours / p.steps if p.steps else float(ours == 0)


def table() -> list[dict]:
    rows = []
    for p in POINTS:
        for ecc, bits in [*ECCS.items(), (DRIFT, None)]:
            ours = simulated_steps(p.pe, p.days, bits)
            formula = drift_formula_steps(p.pe, p.days) if bits is None else formula_steps(p.pe, p.days, bits)
            rows.append({"point": p, "ecc": ecc, "ours": ours, "formula": formula,
                         "ratio": ratio(p, ours), "within_2x": within_2x(p, ours)})
    return rows


def plot(rows: list[dict], out: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10.5, 4.8))
    ages = list(range(0, 366, 1))
    colours = {0: "tab:blue", 1000: "tab:orange", 2000: "tab:red"}
    for pe, colour in colours.items():
        ax.plot(ages, [drift_formula_steps(pe, d) for d in ages], "-", color=colour, lw=1.4,
                label=f"vth_drift tlc3d48 (fitted), {pe} P/E")
        ax.plot(ages, [formula_steps(pe, d, ECCS["paper's ECC (72 b / 1 KiB)"]) for d in ages], ":",
                color=colour, lw=1.0, label=f"power_law tlc3d72, 72 b/KiB, {pe} P/E")
    for p in POINTS:
        marker = "o" if p.kind == "mean" else "^"
        role = "fit input" if p.fit_input else "held out"
        ax.plot([p.days], [p.steps], marker, ms=10 if p.fit_input else 9, color=colours[p.pe],
                markerfacecolor="white" if p.fit_input else colours[p.pe], markeredgecolor="black",
                markeredgewidth=1.5, label=f"Park et al. {p.label()} ({role})")
    for r in rows:
        if r["ecc"] == DRIFT:
            ax.plot([r["point"].days], [r["ours"]], "x", color="black", ms=7)
    ax.set(xlabel="retention age, days", ylabel="read-retry steps per read", ylim=(0, 22),
           title="[nand] models vs Park et al. (ASPLOS'21), 48-layer 3D TLC\n"
                 "published: triangle = lower bound, hollow = fit input; x: simulated vth_drift runs")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def main(out: str) -> None:
    rows = table()
    print(f"source: {SOURCE}")
    print(f"{'point':<26} {'role':<9} {'model':<28} {'ours':>6} {'formula':>7} {'ratio':>6}  within 2x")
    for r in rows:
        role = "fit" if r["point"].fit_input and r["ecc"] == DRIFT else "held out" if r["ecc"] == DRIFT else "-"
        print(f"{r['point'].label():<26} {role:<9} {r['ecc']:<28} {r['ours']:>6.2f} {r['formula']:>7} "
              f"{r['ratio']:>6.2f}  {'yes' if r['within_2x'] else 'NO'}")
    met = all(r["within_2x"] for r in rows if r["ecc"].startswith("paper"))
    print(f"power_law tlc3d72, every point within 2x with the paper's ECC: {'yes' if met else 'no'}")
    drift = [r for r in rows if r["ecc"] == DRIFT]
    held = all(r["within_2x"] for r in drift if not r["point"].fit_input)
    fitted = all(r["within_2x"] for r in drift if r["point"].fit_input)
    print(f"vth_drift tlc3d48, held-out points within 2x: {'yes' if held else 'no'}; "
          f"fit inputs within 2x: {'yes' if fitted else 'no'}")
    plot(rows, out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/nand-benchmark.png")
