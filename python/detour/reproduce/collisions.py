"""Patterned read collisions (rc-1..rc-8): collision accounting on the
paper's Table 4 device (preset `collisions`) and the replication scheme
against the original FTL."""

from __future__ import annotations

from typing import Dict, List

import numpy as np

from ..plots import _figure, labels
from .base import Context, Runs, Section, change

TITLE = "Patterned read collisions: analysis and replication (rc-1..rc-8)"
PAPER_FILE = "patterned-read-collisions.txt"
INTRO = ("Device: the `collisions` preset (Table 4: 1 TB TLC, 8 channels x 2 dies, 16 KiB pages, 60/700/3500 us, "
         "50 us P/E suspension, OP 7%, CWDP static allocation). Collision accounting is `metrics.collisions = true`; "
         "its definitions (a read joining a die that holds another outstanding host read; imbalanced when that die's "
         "outstanding commands are at least 2 above the minimum; the expected ratio computed analytically for "
         "uniformly random dies) are in docs/schemes/collisions.md. The scheme is `collisions` over the "
         "conventional FTL, compared with the conventional FTL on the same requests.")
PROFILES = ["msr-patterned", "msr-random"]
SOURCE = "the paper's Sec. II (planted same-die pairs) and its RR8 baseline"
L_R = [1, 2, 5, 10, 100]
#: l_M as a share of the physical pages: down to about 7 pages of the 1 TB
#: device, since so few pages are replicated that larger limits never bind.
L_M = [0.0000001, 0.00001, 0.002, 0.02]
#: The paper's Table 2 rows (mean OCC, expected %, measured %, mean repetition).
PAPER_TABLE2 = {"RR8": (7.8, 83.7, 86.0, 1.00), "HM1": (14.2, 66.2, 61.3, 37.89), "PROJ3": (19.8, 55.1, 60.6, 24.69),
                "USR1": (5.1, 69.3, 53.5, 12.47), "WEB2": (3.7, 65.6, 32.0, 9.20)}
#: The traced MSR volumes of Tables 2 and 3, as the baseline observables the
#: profiles msr-<volume> are calibrated to (scripts/calibrate_volumes.py):
#: mean OCC and mean repetition (Table 2), the share of pair occurrences from
#: the top 5% of pairs (Fig. 4: 80% for HM1, USR1, WEB2; the others are
#: assumed, docs/schemes/collisions.md) and the RSD of reads per die (Table 3).
VOLUMES = {
    "msr-hm1": {"mean_occ": 14.2, "mean_repetition": 37.89, "top5pct_pair_share": 0.80, "reads_rsd": 0.168},
    "msr-proj3": {"mean_occ": 19.8, "mean_repetition": 24.69, "top5pct_pair_share": 0.31, "reads_rsd": 0.121},
    "msr-usr1": {"mean_occ": 5.1, "mean_repetition": 12.47, "top5pct_pair_share": 0.80, "reads_rsd": 0.086},
    "msr-web2": {"mean_occ": 3.7, "mean_repetition": 9.20, "top5pct_pair_share": 0.80, "reads_rsd": 0.047},
    "msr-proj4": {"mean_occ": 12.5, "mean_repetition": 4.56, "top5pct_pair_share": 0.79, "reads_rsd": 0.021},
    "msr-src2-1": {"mean_occ": 4.8, "mean_repetition": 1.73, "top5pct_pair_share": 0.45, "reads_rsd": 0.016},
    "msr-src1-1": {"mean_occ": 2.4, "mean_repetition": 1.51, "top5pct_pair_share": 0.37, "reads_rsd": 0.023},
    "msr-mds1": {"mean_occ": 4.0, "mean_repetition": 1.54, "top5pct_pair_share": 0.38, "reads_rsd": 0.018},
}
#: The paper's experiment ids (each gets a verdict).
ROWS = [f"rc-{i}" for i in range(1, 9)]
#: Why per-trace numbers of the paper cannot be compared here.
NO_MSR = "The paper's per-trace numbers are for MSR Cambridge volumes, which cannot be shipped; run with --trace to compare."


def _workloads(ctx: Context, n: int) -> List[dict]:
    """The profiles (planted pairs with 2,000 and 200 pairs, random reads),
    or the user's traces."""
    if ctx.traces:
        return ctx.workloads([], n)
    return [{"profile": "msr-patterned", "label": "msr-patterned", "set": {"requests": n}},
            {"profile": "msr-patterned", "label": "msr-patterned-200", "set": {"requests": n, "pairs.count": 200}},
            {"profile": "msr-random", "label": "msr-random", "set": {"requests": n}}]


def experiments(ctx: Context) -> List[Section]:
    n = 50000 if ctx.quick else 500000
    w = _workloads(ctx, n)
    desc = ctx.describe(PROFILES, SOURCE)
    on = {"metrics.collisions": True}
    base = ctx.sweep("collisions-base", w, ["collisions"], ["conventional", "collisions"], fixed=on)
    # RR8: random 4 KiB reads all arriving at once, admitted eight at a time.
    rr8_w = [{"profile": "msr-random", "label": "RR8", "set": {"requests": n // 5, "arrival.rate_per_s": 1e9}}]
    rr8 = ctx.sweep("collisions-rr8", rr8_w, ["collisions"], ["conventional"], fixed={**on, "host.queue_depth": 8})
    sens_w = w[:1]
    lr = ctx.sweep("collisions-lr", sens_w, ["collisions"], ["collisions"], fixed={**on, "scheme.collisions.l_m": 0.02},
                   grid={"scheme.collisions.l_r": L_R})
    lm = ctx.sweep("collisions-lm", sens_w, ["collisions"], ["collisions"], fixed=on,
                   grid={"scheme.collisions.l_m": L_M})
    names = list(dict.fromkeys(r.workload for r in base))
    by = {nm: {s: base.one(workload=nm, scheme=s) for s in ("conventional", "collisions")} for nm in names}
    rr = rr8.one(workload="RR8")
    return [rc1(by, rr, desc), rc2(by, rr, desc), rc3(by, desc), rc4(by, desc),
            rc5(by, lr, lm, names[0], desc), rc6(by, desc), rc7(by, desc), rc8(by, desc)]


def _c(run) -> Dict:
    return run.summary.get("collisions") or {}


def rc1(by: Dict, rr8, desc: str) -> Section:
    rows = []
    for nm, d in list(by.items()) + [("RR8", {"conventional": rr8})]:
        c = _c(d["conventional"])
        rows.append([nm, int(c["reads"]), c["mean_occ"], c["expected_ratio"] * 100, c["collision_ratio"] * 100,
                     c["expected_time_share"] * 100, c["time_share_colliding"] * 100, c["imbalanced_share"] * 100,
                     int(c["imbalanced_pairs"]), c["mean_repetition"]])
    s = Section("rc-1", "Collision statistics per workload (Table 2), original FTL",
                "e.g. HM1: OCC 14.2, expected 66.2%, measured 61.3%, mean repetition 37.89; RR8 (random 4 KiB reads "
                "at OCC 8): 83.7% / 86.0%", desc,
                ["workload", "die reads", "mean OCC", "expected % (per read)", "measured % (per read)",
                 "expected % (time share)", "measured % (time share)", "imbalanced %", "imbalanced pairs",
                 "mean repetition"], rows)
    r8 = rows[-1]
    nan = float("nan")
    for k, (occ, exp, meas, rep) in PAPER_TABLE2.items():
        rows.append([f"paper {k}", nan, occ, nan, nan, exp, meas, nan, nan, rep])
    s.notes.append(f"RR8 (msr-random at queue depth 8): per read {r8[4]:.1f}% measured vs {r8[3]:.1f}% expected; as a "
                   f"share of time with some die holding two reads {r8[6]:.1f}% vs {r8[5]:.1f}% (paper 86.0% vs 83.7%). "
                   "The paper's RR8 figures match the time-share reading; a per-read ratio cannot exceed "
                   "1 - (15/16)^7 = 36% at 8 outstanding reads on 16 dies (docs/schemes/collisions.md). The paper's "
                   "rows put its expected and measured ratios in the time-share columns for that reason.")
    s.measured({"RR8 measured time share %": 86.0, "RR8 expected time share %": 83.7, "RR8 mean repetition": 1.0},
               {"RR8 measured time share %": r8[6], "RR8 expected time share %": r8[5], "RR8 mean repetition": r8[9]},
               why="The paper's RR8 figures are read as shares of time with some die holding two reads "
                   "(docs/schemes/collisions.md). " + NO_MSR)
    return s


def rc2(by: Dict, rr8, desc: str) -> Section:
    rows = [[nm, _c(d["conventional"])["measured_to_expected"]] for nm, d in by.items()]
    rows.append(["RR8", _c(rr8)["measured_to_expected"]])
    s = Section("rc-2", "Measured / expected collisions (Fig. 3)", "all but PROJ3 below 1.0", desc,
                ["workload", "measured / expected"], rows)
    below = sum(1 for r in rows[:-1] if r[1] < 1.0)
    s.measured(holds=(below, len(rows) - 1),
               why="The planted pairs are there to collide more than random placement would; " + NO_MSR)
    s.notes.append("The planted-pair profile collides more than random placement would (ratio above 1), which is what "
                   "the pairs are for; the paper's MSR traces mostly collided less than random, because their reads "
                   "spread over dies better than random ones. Random reads sit at about 1.")
    return s


def rc3(by: Dict, desc: str) -> Section:
    rows = [[nm, _c(d["conventional"])["reads_rsd"]] for nm, d in by.items()]
    s = Section("rc-3", "Relative standard deviation of reads per die (Table 3)",
                "HM1 0.168, PROJ3 0.121, USR1 0.086, WEB2 0.047 ... SRC2-1 0.016", desc, ["workload", "reads RSD"], rows)
    s.measured({"reads RSD (HM1)": 0.168}, {}, why=NO_MSR + " Our workloads' RSDs are in the table.")
    return s


def rc4(by: Dict, desc: str) -> Section:
    rows, fig = [], _figure(6, 3.4)
    ax = fig.subplots()
    for nm, d in by.items():
        c = _c(d["conventional"])
        rows.append([nm, int(c["imbalanced_pairs"]), c["top5pct_pair_share"] * 100])
        counts = d["conventional"].pair_counts()
        if counts is not None and len(counts):
            ax.plot(np.arange(1, len(counts) + 1) / len(counts) * 100, np.cumsum(counts) / counts.sum() * 100, label=nm)
    labels(ax, "rc-4: how few pairs make most collisions", "collision pairs, most repeated first (%)",
           "collisions covered (%)")
    ax.legend(title="workload")
    s = Section("rc-4", "Repetition of collision pairs, sorted (Fig. 4)",
                "5% of pairs give 80% of collisions for HM1, USR1, WEB2", desc,
                ["workload", "imbalanced pairs", "share of pair occurrences from the top 5% of pairs %"], rows)
    s.figures.append(("rc-4", fig))
    # Only the patterned workloads make the paper's claim: random reads have no repeating pairs to speak of.
    top = {r[0]: r[2] for r in rows if r[0] != "msr-random"}
    s.measured({f"top 5% of pairs' share % ({n})": 80.0 for n in top}, {f"top 5% of pairs' share % ({n})": v for n, v in top.items()},
               why="The planted-pair profile sets how pairs repeat; " + NO_MSR)
    return s


def _read_change(run, base) -> float:
    return change(run.lat("read"), base.lat("read"))


def rc5(by: Dict, lr: Runs, lm: Runs, name: str, desc: str) -> Section:
    base = by[name]["conventional"]
    rows = [[f"l_R = {v}", "l_M = 2%", _read_change(lr.one(scheme__collisions__l_r=v), base),
             lr.one(scheme__collisions__l_r=v).counter("collisions.replications", 0.0)] for v in L_R]
    rows += [["l_R = 5", f"l_M = {v * 100:g}%", _read_change(lm.one(scheme__collisions__l_m=v), base),
              lm.one(scheme__collisions__l_m=v).counter("collisions.replications", 0.0)] for v in L_M]
    s = Section("rc-5", f"Sensitivity to l_R and l_M ({name}): mean read latency vs the original FTL",
                "gain saturates past l_R = 5 and l_M = 0.2%; up to -14.6% read latency (HM1)", desc,
                ["l_R", "l_M", "mean read change %", "replications"], rows)
    lr_gain = [-r[2] for r in rows[:len(L_R)]]
    saturates = lr_gain[-1] <= lr_gain[2] + 0.5
    s.measured({"best read change %": -14.6}, {"best read change %": min(r[2] for r in rows)},
               holds=(int(saturates), 1),
               why="The qualitative part: the gain saturates near l_R = 5. Pairs repeat less in the profile than in HM1.")
    s.notes.append(f"Best gain {max(lr_gain):.1f}% (paper up to 14.6% on HM1). "
                   + ("It keeps growing past l_R = 5 here: with many planted pairs, five entries per die churn before "
                      "slow pairs build slack." if not saturates else "It saturates near l_R = 5, as in the paper."))
    return s


def rc6(by: Dict, desc: str) -> Section:
    rows = []
    for nm, d in by.items():
        b, c = d["conventional"], d["collisions"]
        rows.append([nm, b.lat("read"), c.lat("read") / b.lat("read"), b.lat("read", "p99"),
                     c.lat("read", "p99") / b.lat("read", "p99")])
    s = Section("rc-6", "Mean and p99 read latency normalised to the original FTL",
                "PRXY0 -37% mean; 12 traces > 10%; p99 up to -53%, 15 traces >= 20%; 2 traces ~+1%", desc,
                ["workload", "original read mean us", "scheme / original (mean)", "original read p99 us",
                 "scheme / original (p99)"], rows)
    s.measured({"best mean read change %": -37.0, "best p99 read change %": -53.0},
               {"best mean read change %": min((r[2] - 1) * 100 for r in rows),
                "best p99 read change %": min((r[4] - 1) * 100 for r in rows)},
               holds=(sum(1 for r in rows if r[2] <= 1.01), len(rows)),
               why="The qualitative part: no workload more than 1% slower. Pairs repeat thousands of times in the "
                   "MSR traces, far fewer in the profiles.")
    s.notes.append("Gains are smaller than the paper's on MSR traces, where pairs repeat thousands of times; on "
                   "random reads the scheme should change nothing (its overhead bound).")
    return s


def rc7(by: Dict, desc: str) -> Section:
    rows = []
    for nm, d in by.items():
        b, c = _c(d["conventional"]), _c(d["collisions"])
        rows.append([nm, int(b["imbalanced"]), int(c["imbalanced"]), change(c["imbalanced"], b["imbalanced"]),
                     int(d["collisions"].counter("collisions.replications", 0.0))])
    s = Section("rc-7", "Imbalanced collisions before / after, and replications (Table 5)",
                "PRXY0 1,621,471 -> 887,017 (-45.3%) with 24,602 replications; USR0 +4.2%", desc,
                ["workload", "original", "with the scheme", "change %", "replications"], rows)
    s.measured({"best imbalanced collisions change %": -45.3}, {"best imbalanced collisions change %": min(r[3] for r in rows)},
               why="Pairs repeat less in the profiles than in PRXY0, so fewer are worth a replica. " + NO_MSR)
    return s


def rc8(by: Dict, desc: str) -> Section:
    rows = []
    for nm, d in by.items():
        b, c = d["conventional"], d["collisions"]
        if b.summary["writes"]:
            rows.append([nm, b.lat("write"), c.lat("write"), change(c.lat("write"), b.lat("write"))])
    s = Section("rc-8", "Host write latency overhead", "< 0.01%", desc,
                ["workload", "original write mean us", "with the scheme", "change %"], rows)
    s.measured(holds=(sum(1 for r in rows if r[3] < 0.01), len(rows)),
               why="The qualitative part is the paper's bound: host writes less than 0.01% slower on every workload.")
    s.notes.append("Replicas are programmed at background priority; writes can even get faster when fewer reads "
                   "wait on collided dies.")
    return s
