"""Speed and memory benchmark: one run in a fresh Python process, so its
peak resident memory (getrusage ru_maxrss) is the run's own.

    detour bench --trace t1m.trace --device bench-matched
"""

from __future__ import annotations

import json
import os
import resource
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
) -> dict:
    """Run `trace` on `device` in a fresh subprocess and return its
    measurements: requests, wall seconds of the run, requests per second,
    peak memory (MiB) and the memory before the run, plus latencies."""
    args = {"trace": os.fspath(trace), "device": device, "overrides": list(overrides), "format": format, "scheme": scheme}
    proc = subprocess.run(
        [sys.executable, "-m", "detour.bench", json.dumps(args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.strip().splitlines() if l.strip()]
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
