"""Speed and memory benchmark: each run in a fresh Python process, so its
peak resident memory (getrusage ru_maxrss) is the run's own.

    detour bench --trace t1m.trace --device bench-matched [--repeat 5]

On a laptop or a shared machine the CPU clock moves from minute to minute
(this project's machine measured 1.7-2.9 GHz within one day), so a
single wall time can be off by a quarter: `repeat` runs the trace several
times in turn and reports the median run, the spread, and fails if the runs
disagree on any result (they are deterministic).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Optional, Sequence

from ._detour import DetourError


def _rss_mib() -> float:
    # Linux reports KiB, macOS bytes.
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / (1024 * 1024) if sys.platform == "darwin" else r / 1024


def bench(
    trace,
    device: str = "bench-matched",
    overrides: Sequence[str] = (),
    format: Optional[str] = None,
    scheme: Optional[str] = None,
    repeat: int = 1,
) -> dict:
    """Run `trace` on `device` in a fresh subprocess, `repeat` times in
    turn, and return the measurements of the median run (by wall time):
    requests, wall seconds of the run, requests per second, peak memory
    (MiB) and the memory before the run, plus latencies. With `repeat` > 1
    also `wall_s_runs` (every run's wall time, in run order), `wall_s_min`,
    `wall_s_max`, and `peak_rss_mib` is the largest of the runs'."""
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be a whole number of runs, at least 1 (got {repeat!r})")
    args = {"trace": os.fspath(trace), "device": device, "overrides": list(overrides), "format": format, "scheme": scheme}
    runs = [_run_once(args) for _ in range(repeat)]
    if repeat == 1:
        return runs[0]
    _check_agree(runs)
    walls = [r["wall_s"] for r in runs]
    # median_low: the figures are one real run's, never an average of two.
    median = statistics.median_low(walls)
    m = dict(next(r for r in runs if r["wall_s"] == median))
    m.update(
        runs=repeat,
        wall_s_runs=walls,
        wall_s_min=min(walls),
        wall_s_max=max(walls),
        peak_rss_mib=max(r["peak_rss_mib"] for r in runs),
    )
    return m


# What a run computes (as opposed to how long it took): equal in every run.
_RESULTS = ("requests", "events", "sim_time_s", "latency_us", "gc")


def _check_agree(runs: list) -> None:
    for i, r in enumerate(runs[1:], start=2):
        diff = [k for k in _RESULTS if r[k] != runs[0][k]]
        if diff:
            raise DetourError(
                f"run {i} of the benchmark disagrees with run 1 on {', '.join(diff)}: "
                "the same trace and configuration must give the same results"
            )


def _run_once(args: dict) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "detour.bench", json.dumps(args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.strip().splitlines() if line.strip()]
        msg = lines[-1] if lines else f"benchmark process exited with {proc.returncode}"
        raise DetourError(msg.removeprefix("detour: error: "))
    return json.loads(proc.stdout)


def _child(args: dict) -> dict:
    from .api import run

    base = _rss_mib()
    t0 = time.perf_counter()
    r = run(args["device"], trace=args["trace"], format=args["format"], overrides=args["overrides"], scheme=args["scheme"])
    wall = time.perf_counter() - t0
    s = r.summary
    return {
        "trace": args["trace"],
        "device": args["device"],
        "overrides": args["overrides"],
        "requests": len(r),
        "wall_s": wall,
        "requests_per_s": len(r) / wall if wall > 0 else 0.0,
        "peak_rss_mib": _rss_mib(),
        "rss_before_run_mib": base,
        "events": s["events"],
        "sim_time_s": s["sim_time_s"],
        "latency_us": {k: {q: s["latency_us"][k][q] for q in ("mean", "p50", "p99", "p999")} for k in ("read", "write")},
        "gc": {"runs": s["gc"]["runs"], "erases": s["gc"]["erases"], "write_amplification": s["gc"]["write_amplification"]},
    }


if __name__ == "__main__":
    try:
        print(json.dumps(_child(json.loads(sys.argv[1]))))
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:  # reported by the parent as `detour: error: ...`
        print(f"detour: error: {e}", file=sys.stderr)
        sys.exit(2)
