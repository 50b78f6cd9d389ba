"""`detour reproduce collisions`: the read-collision paper's experiments
rc-1..rc-8 (../shared/EXPERIMENTS.md section 3) on synthetic profiles or on
traces, written as CSV tables and a Markdown report beside the paper's
numbers. Definitions: docs/schemes/collisions.md.

Everything here arranges runs and tables; the simulation and the counting
are in the Rust core.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from .api import Result, run
from .report import table

#: The paper's Table 2 (rc-1, rc-2) and Table 3 (rc-3), for the report.
PAPER_TABLE2 = {
    "RR8": dict(ops=967430, occ=7.8, expected=83.7, measured=86.0, imbalanced=100.0, pairs=2382491, repetition=1.00),
    "HM1": dict(ops=1010317, occ=14.2, expected=66.2, measured=61.3, imbalanced=99.9, pairs=26823, repetition=37.89),
    "PROJ3": dict(ops=3010108, occ=19.8, expected=55.1, measured=60.6, imbalanced=100.0, pairs=170431, repetition=24.69),
    "USR1": dict(ops=177531189, occ=5.1, expected=69.3, measured=53.5, imbalanced=97.1, pairs=12678038, repetition=12.47),
    "WEB2": dict(ops=22755762, occ=3.7, expected=65.6, measured=32.0, imbalanced=99.9, pairs=540624, repetition=9.20),
}
PAPER_NOTES = [
    "rc-3 (Table 3): reads-per-die RSD HM1 0.168, PROJ3 0.121, USR1 0.086, WEB2 0.047 ... SRC2-1 0.016",
    "rc-4: 5% of pairs give 80% of collisions for HM1, USR1, WEB2",
    "rc-5: gain saturates past l_R = 5 and l_M = 0.2%; up to -14.6% read latency (HM1)",
    "rc-6: PRXY0 -37% mean; 12 traces > 10%; p99 up to -53%, 15 traces >= 20%; 2 traces ~+1%",
    "rc-7: PRXY0 imbalanced collisions 1,621,471 -> 887,017 (-45.3%) with 24,602 replications; USR0 +4.2%",
    "rc-8: host write latency overhead < 0.01%",
]

#: Default workloads: (label, profile, profile overrides, config overrides).
#: rr8 is the paper's RR8: random 4 KiB reads, all arriving at once and
#: admitted eight at a time.
PROFILES = [
    ("msr-patterned", "msr-patterned", {}, []),
    ("msr-patterned-200", "msr-patterned", {"pairs.count": 200}, []),
    ("msr-random", "msr-random", {}, []),
    ("rr8", "msr-random", {"arrival.rate_per_s": 1e9}, ["host.queue_depth=8"]),
]
L_R = (1, 2, 5, 10, 100)
L_M = (0.0000001, 0.00001, 0.002, 0.02)  # 0.00001% (about 7 pages of 1 TB) .. 2%


def _pct(new: float, old: float) -> float:
    return 100.0 * (new / old - 1.0) if old else 0.0


def _write_csv(path: Path, header: Sequence[str], rows: List[list]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def reproduce(
    out: Path,
    device: str = "collisions",
    overrides: Sequence[str] = (),
    traces: Sequence[str] = (),
    requests: int = 100_000,
    say: Callable[[str], None] = print,
) -> Path:
    """Run rc-1..rc-8 and write table2.csv, schemes.csv, sensitivity.csv,
    one `<workload>_pairs.parquet` per workload and report.md into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    workloads = [(Path(t).name, dict(trace=t), []) for t in traces] or [
        (label, dict(profile=p, profile_overrides={"requests": requests, **o}), extra) for label, p, o, extra in PROFILES
    ]
    t2, schemes, sens = [], [], []
    for label, source, extra in workloads:
        say(f"{label}: conventional")
        base = run(device, overrides=[*overrides, *extra, "metrics.collisions=true"], **source)
        c = base.summary["collisions"]
        _pairs_parquet(base, out / f"{label}_pairs.parquet")
        t2.append([
            label, c["reads"], round(c["mean_occ"], 2), round(100 * c["expected_ratio"], 1), round(100 * c["collision_ratio"], 1),
            round(c["measured_to_expected"], 3), round(100 * c["expected_time_share"], 1), round(100 * c["time_share_colliding"], 1),
            round(100 * c["imbalanced_share"], 1), c["imbalanced_pairs"], round(c["mean_repetition"], 2),
            round(c["reads_rsd"], 3), round(100 * c["top5pct_pair_share"], 1),
        ])
        # The paper's setting first, then each sweep; each setting runs once.
        settings = dict.fromkeys([(5, 0.002)] + [(r, 0.02) for r in L_R] + [(5, m) for m in L_M])
        for l_r, l_m in settings:
            say(f"{label}: collisions l_R={l_r} l_M={l_m}")
            r = run(
                device,
                overrides=[*overrides, *extra, "metrics.collisions=true", "scheme.name=collisions",
                           f"scheme.collisions.l_r={l_r}", f"scheme.collisions.l_m={l_m}"],
                **source,
            )
            row = _compare(label, l_r, l_m, base, r)
            (schemes if (l_r, l_m) == (5, 0.002) else sens).append(row)
    _write_csv(out / "table2.csv", T2_HEADER, t2)
    _write_csv(out / "schemes.csv", CMP_HEADER, schemes)
    _write_csv(out / "sensitivity.csv", CMP_HEADER, sens)
    (out / "report.md").write_text(_report(t2, schemes, sens, device, traces))
    return out


T2_HEADER = [
    "workload", "die_reads", "mean_occ", "expected_pct", "measured_pct", "measured_to_expected",
    "expected_time_share_pct", "time_share_pct", "imbalanced_share_pct", "imbalanced_pairs",
    "mean_repetition", "reads_rsd", "top5pct_pair_share_pct",
]
CMP_HEADER = [
    "workload", "l_r", "l_m", "imbalanced_before", "imbalanced_after", "imbalanced_change_pct",
    "read_mean_change_pct", "read_p99_change_pct", "write_mean_change_pct", "replications",
]


def _compare(label: str, l_r: int, l_m: float, base: Result, r: Result) -> list:
    b, c = base.summary, r.summary
    rep = c["scheme_counters"].get("collisions.replications", 0)
    return [
        label, l_r, l_m, b["collisions"]["imbalanced"], c["collisions"]["imbalanced"],
        round(_pct(c["collisions"]["imbalanced"], b["collisions"]["imbalanced"]), 2),
        round(_pct(r.latency("read", "mean"), base.latency("read", "mean")), 2),
        round(_pct(r.latency("read", "p99"), base.latency("read", "p99")), 2),
        round(_pct(r.latency("write", "mean"), base.latency("write", "mean")), 3),
        int(rep),
    ]


def _pairs_parquet(r: Result, path: Path) -> None:
    import pyarrow.parquet as pq

    pq.write_table(r.collision_pairs_table(), path, compression="zstd")


def _report(t2: list, schemes: list, sens: list, device: str, traces: Sequence[str]) -> str:
    paper = [[k, v["ops"], v["occ"], v["expected"], v["measured"], v["imbalanced"], v["pairs"], v["repetition"]]
             for k, v in PAPER_TABLE2.items()]
    src = "traces " + ", ".join(traces) if traces else "synthetic profiles " + ", ".join(p[0] for p in PROFILES)
    parts = [
        "# Read collisions: rc-1..rc-8",
        f"Device `{device}`; {src}. Definitions: docs/schemes/collisions.md. "
        "Our collision ratio is per read; the paper's RR8 numbers match the time share instead (see the docs).",
        "## rc-1..rc-4 (ours)",
        "```\n" + table(T2_HEADER, t2) + "\n```",
        "## Table 2 (the paper's, for comparison)",
        "```\n" + table(["workload", "die_ops", "mean_occ", "expected_pct", "measured_pct", "imbalanced_pct", "pairs", "mean_repetition"], paper) + "\n```",
        "## rc-6..rc-8: collisions (l_R = 5, l_M = 0.2%) against the conventional FTL",
        "```\n" + table(CMP_HEADER, schemes) + "\n```",
        "## rc-5: sensitivity (l_R with l_M = 2%; l_M with l_R = 5)",
        "```\n" + table(CMP_HEADER, sens) + "\n```",
        "## What the paper reported",
        "\n".join(f"- {n}" for n in PAPER_NOTES),
    ]
    return "\n\n".join(parts) + "\n"
