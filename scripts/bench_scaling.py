"""Issue 32's scaling check: `bench-like` at 1 M and 100 M requests from the
workload's own steady state, in interleaved rounds (docs/benchmarks-log.md).

    .venv/bin/python scripts/bench_scaling.py [--rounds 2] [--big 100000000]

Each run is a child process. The rate is taken between the first progress
call and the last, so start-up and preconditioning stay outside it; CPU is
the child's (its reader thread included); peak memory is the child's.
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SETTINGS = {"ftl.precondition.valid": 0.6, "ftl.precondition.to_gc_threshold": True,
            "ftl.precondition.steady_writes": 3}


def one(n: int, parquet: str) -> dict:
    import detour

    marks = []
    t0 = time.perf_counter()
    r = detour.run("bench-matched", profile="bench-like", profile_overrides={"requests": n}, overrides=SETTINGS,
                   progress=lambda done, _ns: marks.append((time.perf_counter(), time.process_time(), done)),
                   requests_parquet=parquet)
    (w0, c0, n0), (w1, c1, n1) = marks[0], marks[-1]
    s = r.summary
    return {"n": n, "pre_s": w0 - t0, "us_wall": (w1 - w0) / (n1 - n0) * 1e6, "us_cpu": (c1 - c0) / (n1 - n0) * 1e6,
            "events_per_req": s["events"] / s["requests"], "wa": s["gc"]["write_amplification"],
            "warnings": len(s["warnings"]), "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--small", type=int, default=1_000_000)
    ap.add_argument("--big", type=int, default=100_000_000)
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        with tempfile.TemporaryDirectory() as d:
            print(json.dumps(one(a.child, str(Path(d) / "r.parquet"))))
        return
    rows = []
    for rnd in range(1, a.rounds + 1):
        for n in (a.small, a.small, a.big, a.small, a.small):
            out = subprocess.run([sys.executable, __file__, "--child", str(n)], capture_output=True, text=True, check=True)
            row = {"round": rnd, **json.loads(out.stdout)}
            rows.append(row)
            print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}), flush=True)
    small = [r for r in rows if r["n"] == a.small]
    wall, cpu = statistics.median(r["us_wall"] for r in small), statistics.median(r["us_cpu"] for r in small)
    for r in rows:
        if r["n"] == a.big:
            print(f"round {r['round']}: {a.big:,} requests take {r['us_wall'] / wall:.2f}x the {a.small:,}-request median "
                  f"a request in wall time, {r['us_cpu'] / cpu:.2f}x in CPU; peak {r['peak_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
