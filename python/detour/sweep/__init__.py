"""Sweeps: the cross product of workloads, devices, schemes, seeds and a
parameter grid, one record per run, resumable (docs/sweeps.md).

    from detour.sweep import run_sweep
    report = run_sweep("gc.toml", "out/gc", workers=2)
    # then: detour.results.gather("out/gc") -> one row per run

Every run's configuration is resolved before anything runs, so a bad
value fails at once naming the run and the key. Runs whose record exists
(ok or failed) are skipped, so a killed sweep resumes where it stopped;
`retry_failed=True` reruns the failed ones.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from .. import _detour
from .backends import execute, record_files, run_local, run_ray
from .records import Store, TraceHashes, now, run_key, write_atomic
from .spec import Run, Sweep, SweepError, expand, load, resolve, spec_record

__all__ = ["Run", "Sweep", "SweepError", "execute", "load", "plan", "run_sweep"]


def plan(path: os.PathLike) -> "tuple[Sweep, List[Run]]":
    """Load the sweep file and resolve every run's configuration (raises
    SweepError on the first problem). Keys are not set yet (`run_sweep`
    hashes the traces)."""
    sweep = load(path)
    runs = expand(sweep)
    cache: Dict = {}
    for r in runs:
        resolve(sweep, r, cache)
    return sweep, runs


def _workload_identity(run: Run, digest: Optional[str]) -> dict:
    w = run.workload
    if w.kind == "trace":
        ident = {"kind": "trace", "sha256": digest, "reader": w.reader}
        if digest is None:  # unreadable: its path stands in, and the run will fail saying why
            ident["path"] = w.path
        return ident
    return {"kind": "profile", "spec": run.profile_toml}


def _task(run: Run) -> dict:
    t: Dict[str, Any] = {"key": run.key, "label": run.label, "config_toml": run.config_toml}
    if run.workload.kind == "trace":
        t["trace"] = run.workload.path
        t["reader"] = run.workload.reader
    else:
        t["profile_toml"] = run.profile_toml
    return t


def run_sweep(
    path: os.PathLike,
    out: os.PathLike,
    *,
    workers: Optional[int] = None,
    backend: str = "local",
    address: Optional[str] = None,
    retry_failed: bool = False,
    echo: Optional[Callable[[str], None]] = None,
) -> dict:
    """Run the sweep file `path` into directory `out`; return counts:
    `runs` (distinct), `skipped`, `executed`, `ok`, `failed`, `wall_s`."""
    t0 = time.perf_counter()
    say = echo or (lambda s: None)
    if backend not in ("local", "ray"):
        raise SweepError(f"unknown backend {backend!r} (expected local or ray)")
    if workers is not None and workers < 1:
        raise SweepError("--workers must be at least 1")
    sweep, runs = plan(path)

    store = Store(out).open()
    try:
        hashes = TraceHashes(store.out)
        seen: Dict[str, Run] = {}
        specs: Dict[str, dict] = {}
        duplicates = 0
        for r in runs:
            trace = r.workload.path if r.workload.kind == "trace" else None
            digest = hashes.get(trace) if trace is not None else None
            cfg = json.loads(_detour.config_json(r.config_toml))
            scheme, seed = cfg.get("scheme", {}).get("name"), cfg.get("run", {}).get("seed")
            r.key = run_key(r.config_toml, _workload_identity(r, digest), scheme, seed)
            if r.key in seen:
                duplicates += 1
                continue
            seen[r.key] = r
            specs[r.key] = spec_record(sweep, r, digest)
        hashes.save()
        write_atomic(store.out / "sweep.toml", sweep.text.encode())

        todo: List[Run] = []
        skipped = 0
        for key, r in seen.items():
            st = store.status(key)
            if st == "ok" or (st == "failed" and not retry_failed):
                skipped += 1
            else:
                todo.append(r)
        n_workers = workers or (os.cpu_count() or 1)
        if backend == "local":
            n_workers = max(1, min(n_workers, len(todo) or 1))
        where = f"on Ray at {address or 'auto'}" if backend == "ray" else f"on {n_workers} worker{'s' * (n_workers > 1)}"
        say(
            f"sweep {sweep.name}: {len(seen)} runs"
            + (f" ({duplicates} duplicate{'s' * (duplicates > 1)} merged)" if duplicates else "")
            + f", {skipped} already recorded, {len(todo)} to run {where}"
        )
        counts = {"executed": 0, "ok": 0, "failed": 0}
        write_s = [0.0]
        info = {
            "sweep": sweep.name,
            "sweep_file": str(Path(path).resolve()),
            "runs": len(seen),
            "duplicates": duplicates,
            "skipped": skipped,
            "to_run": len(todo),
            "backend": backend,
            "address": address,
            "workers": n_workers if backend == "local" else workers,
            "started": now(),
            "finished": None,
            "trace_hashes_computed": hashes.computed,
            "keys": list(seen),  # this sweep's records, in run order (the directory may hold others)
        }
        write_atomic(store.out / "sweep.json", (json.dumps({**info, **counts}, indent=2) + "\n").encode())

        def done(task: dict, payload: dict) -> None:
            key = task["key"]
            status = payload["status"]
            tw = time.perf_counter()
            if payload.get("tmp"):
                written = store.commit(key, Path(payload["tmp"]), replace_failed=retry_failed)
            else:
                written = store.write(key, record_files(task, payload), replace_failed=retry_failed)
            write_s[0] += time.perf_counter() - tw
            if written:
                store.log({"key": key, "label": task["label"], "status": status,
                           "wall_s": round(payload["wall_s"], 6), "finished": now()})
                counts["executed"] += 1
                counts[status] += 1
            files = payload["files"]
            msg = f"[{counts['executed'] + skipped}/{len(seen)}] {status:6} {task['label']} ({payload['wall_s']:.2f} s)"
            if status == "failed":
                err = json.loads(files["error.json"])
                msg += f": {err['type']}: {err['message']}"
            say(msg)

        tasks = [_task(r) for r in todo]
        for t in tasks:
            t["spec"] = specs[t["key"]]
            if backend == "local":
                t["runs_dir"] = str(store.runs)
        if backend == "local":
            run_local(tasks, n_workers, done)
        else:
            run_ray(tasks, address, workers, done)
        store.remove_leftovers()  # from workers killed when a crashing run broke the pool
        wall = time.perf_counter() - t0
        info.update(counts, finished=now(), wall_s=round(wall, 3), record_write_s=round(write_s[0], 3))
        write_atomic(store.out / "sweep.json", (json.dumps(info, indent=2) + "\n").encode())
        return info
    finally:
        store.close()
