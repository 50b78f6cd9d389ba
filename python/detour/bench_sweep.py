"""Scaling of a sweep: the same sweep on 1 worker and on N workers.

    detour sweep --bench [--workers 2] [--bench-runs 16] [--bench-requests 200000]
    python -m detour.bench_sweep [RUNS] [REQUESTS] [WORKERS]

Each run is the synthetic `hm` profile (footprint 1 GiB) on the `small`
device, one seed per run, so the runs are distinct; each sweep writes
into a fresh temporary directory. Wall times include everything a sweep
does: resolving the configurations, the pool, the runs, and writing each
record (summary, per-request Parquet) atomically.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict


def sweep_file(path: Path, runs: int, requests: int) -> Path:
    seeds = ", ".join(str(s) for s in range(1, runs + 1))
    path.write_text(
        f'name = "bench"\n'
        f'profiles = [{{profile = "hm", set = {{requests = {requests}, footprint_bytes = 1073741824}}}}]\n'
        f'devices = ["small"]\nseeds = [{seeds}]\n'
    )
    return path


def _spin(n: int) -> int:
    s = 0
    for i in range(n):
        s += i
    return s


def cpu_headroom(workers: int, tasks: int = 8, n: int = 2_000_000) -> float:
    """Speedup of a pure-CPU loop on `workers` processes over 1, now: what
    the machine can give in parallel (below `workers` when other work
    shares the cores), the ceiling for a sweep's speedup."""
    import multiprocessing

    walls = []
    for k in (1, workers):
        with multiprocessing.get_context("fork").Pool(k) as pool:
            pool.map(_spin, [1000] * k)  # started
            t0 = time.perf_counter()
            pool.map(_spin, [n] * tasks, chunksize=1)
            walls.append(time.perf_counter() - t0)
    return walls[0] / walls[1]


def bench_sweep(runs: int = 16, requests: int = 200000, workers: int = 2) -> dict:
    """Run the bench sweep on 1 worker and on `workers`; return the wall
    times, the speedup and the mean wall time of one run."""
    from .sweep import run_sweep

    out: Dict[str, Any] = {"runs": runs, "requests": requests, "workers": workers, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="detour-bench-sweep-") as d:
        f = sweep_file(Path(d) / "bench.toml", runs, requests)
        for n in (1, workers):
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            info = run_sweep(f, Path(d) / f"out-{n}", workers=n)
            wall = time.perf_counter() - t0
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            out[f"worker_cpu_s_{n}"] = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
            out[f"record_write_s_{n}"] = info["record_write_s"]
            if info["ok"] != runs:
                raise RuntimeError(f"bench sweep on {n} workers: {info['ok']} of {runs} runs ok")
            out[f"wall_s_{n}"] = wall
        if workers == 1:
            out["speedup"] = 1.0
        else:
            out["speedup"] = out["wall_s_1"] / out[f"wall_s_{workers}"]
        out["run_s"] = out["wall_s_1"] / runs
    out["cpu_headroom"] = cpu_headroom(workers) if workers > 1 else 1.0
    return out


def report_text(m: dict) -> str:
    w = m["workers"]
    return (
        f"sweep scaling: {m['runs']} runs of {m['requests']:,} requests (hm profile, small device), "
        f"{m['cpus']} CPUs\n"
        f"  1 worker:  {m['wall_s_1']:.2f} s ({m['run_s'] * 1000:.0f} ms per run; workers' CPU "
        f"{m['worker_cpu_s_1']:.2f} s, writing records {m['record_write_s_1']:.2f} s)\n"
        f"  {w} workers: {m[f'wall_s_{w}']:.2f} s (workers' CPU {m[f'worker_cpu_s_{w}']:.2f} s, "
        f"writing records {m[f'record_write_s_{w}']:.2f} s)\n"
        f"  speedup {m['speedup']:.2f}x (a pure-CPU loop on {w} processes speeds up {m['cpu_headroom']:.2f}x "
        f"on this machine now: the ceiling when other work shares the cores)"
    )


if __name__ == "__main__":
    args = [int(x) for x in sys.argv[1:]]
    print(report_text(bench_sweep(*args)))
