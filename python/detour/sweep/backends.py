"""Where a sweep's runs execute: a local process pool, or a Ray cluster.

Either way a worker runs one simulation and returns the record's files as
bytes; the sweep process alone writes records, so an output directory on
the driver's machine is enough (trace files must be readable at the same
path on every Ray node).
"""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import socket
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Callable, Dict, List, Optional

from .records import now

Done = Callable[[dict, dict], None]


def _result(task: dict, rows: str):
    """Run the task; its per-request rows stream into the file `rows`."""
    from .. import _detour
    from ..api import result_from

    cfg = task["config_toml"]
    if "trace" in task:
        r = task.get("reader") or {}
        out = _detour.run(
            cfg,
            trace=task["trace"],
            format=r.get("format"),
            skip_malformed=bool(r.get("skip_malformed", False)),
            volume=r.get("volume"),
            clamp_backwards_time=bool(r.get("clamp_backwards_time", False)),
            requests_parquet=rows,
        )
    else:
        out = _detour.run(cfg, profile=None, profile_toml=task["profile_toml"], profile_overrides=[],
                          requests_parquet=rows)
    return result_from(cfg, out, requests_path=rows)


def execute(task: dict) -> dict:
    """Run one task; never raises for a failed simulation: the error is
    returned as the record's error.json."""
    t0 = time.perf_counter()
    files: Dict[str, bytes] = {}
    try:
        import pyarrow.parquet as pq

        with tempfile.TemporaryDirectory(prefix="detour-run-") as tmp:
            rows = os.path.join(tmp, "requests.parquet")
            r = _result(task, rows)
            files["requests.parquet"] = Path(rows).read_bytes()
        pairs = r.collision_pairs_table()
        if pairs.num_rows:  # only with metrics.collisions
            buf = io.BytesIO()
            pq.write_table(pairs, buf, compression="zstd")
            files["collision_pairs.parquet"] = buf.getvalue()
        ts = r.timeseries_table()
        if ts is not None:  # only with probes.interval_us
            buf = io.BytesIO()
            pq.write_table(ts, buf, compression="zstd")
            files["timeseries.parquet"] = buf.getvalue()
        files["summary.json"] = (json.dumps(r.summary, indent=2, allow_nan=False) + "\n").encode()
        status = "ok"
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # a run's failure is its record, never the sweep's
        files = {"error.json": error_json(e, traceback.format_exc())}
        status = "failed"
    payload = {
        "key": task["key"],
        "status": status,
        "files": files,
        "wall_s": time.perf_counter() - t0,
        "host": socket.gethostname(),
        "pid": os.getpid(),
    }
    if task.get("runs_dir"):  # a local worker writes the record's files itself, in parallel
        from .records import write_tmp

        payload["tmp"] = str(write_tmp(Path(task["runs_dir"]), task["key"], record_files(task, payload)))
        payload["files"] = {name: b"" for name in files}  # names only: the driver needs no data
        if status == "failed":
            payload["files"]["error.json"] = files["error.json"]
    return payload


def record_files(task: dict, payload: dict) -> Dict[str, bytes]:
    """Every file of a record: the run's own (summary and columns, or the
    error) plus spec.json, config.toml and status.json."""
    files = dict(payload["files"])
    files["spec.json"] = (json.dumps(task["spec"], indent=2) + "\n").encode()
    files["config.toml"] = task["config_toml"].encode()
    st = {"status": payload["status"], "wall_s": round(payload["wall_s"], 6), "finished": now(),
          "host": payload.get("host"), "pid": payload.get("pid")}
    files["status.json"] = (json.dumps(st, indent=2) + "\n").encode()
    return files


def error_json(e: BaseException, tb: str = "") -> bytes:
    return (json.dumps({"type": type(e).__name__, "message": str(e), "traceback": tb}, indent=2) + "\n").encode()


def _init_worker(parent: int) -> None:
    """Pool workers die with the sweep process (SIGKILL included) and leave
    Ctrl-C to it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except Exception:  # pragma: no cover
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


class WorkerDied(RuntimeError):
    """A pool worker process died while running this run."""


def run_local(tasks: List[dict], workers: int, done: Done) -> None:
    """Run `tasks` on a pool of `workers` processes; `done(task, payload)`
    is called in this process as each finishes.

    If a worker process dies (a crash, the OOM killer), the pool breaks:
    the unfinished tasks are rerun on a single worker, in order, until the
    one that kills its worker is found; it is recorded as failed
    (`WorkerDied`) and the rest go on in parallel again."""
    from concurrent.futures.process import BrokenProcessPool

    remaining = list(tasks)
    isolate = False
    while remaining:
        finished: set = set()
        try:
            _pool(remaining, 1 if isolate else workers, done, finished)
            return
        except BrokenProcessPool as e:
            remaining = [t for t in remaining if t["key"] not in finished]
            if isolate:  # one worker, tasks in order: the first unfinished one killed it
                t = remaining.pop(0)
                err = WorkerDied(f"the worker process running this run died ({e})")
                done(t, {"key": t["key"], "status": "failed", "wall_s": 0.0, "host": socket.gethostname(),
                         "pid": 0, "files": {"error.json": error_json(err)}})
            isolate = not isolate


def _pool(tasks: List[dict], workers: int, done: Done, finished: set) -> None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    method = "fork" if sys.platform.startswith("linux") else "spawn"
    ctx = multiprocessing.get_context(method)
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(os.getpid(),))
    futures = {ex.submit(execute, t): t for t in tasks}
    try:
        for f in as_completed(futures):
            payload = f.result()
            done(futures[f], payload)
            finished.add(payload["key"])
    except BaseException:
        procs = list((getattr(ex, "_processes", None) or {}).values())
        ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            try:
                p.kill()
            except Exception:  # pragma: no cover
                pass
        raise
    ex.shutdown(wait=True)


def run_ray(tasks: List[dict], address: Optional[str], workers: Optional[int], done: Done) -> None:
    """Run `tasks` on the Ray cluster at `address` (one CPU each), at most
    `workers` at a time when given."""
    try:
        import ray
    except ImportError:
        raise ImportError("--backend ray needs Ray: pip install 'detour[ray]' (or pip install 'ray[default]')") from None
    if not tasks:
        return
    ray.init(address=address, ignore_reinit_error=True, log_to_driver=False, logging_level=logging.WARNING)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(execute)
        limit = workers or len(tasks)
        queue = list(tasks)
        pending: Dict[object, dict] = {}
        while queue or pending:
            while queue and len(pending) < limit:
                t = queue.pop(0)
                pending[remote.remote(t)] = t
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                t = pending.pop(ref)
                try:
                    payload = ray.get(ref)
                except ray.exceptions.RayError as e:  # the worker died, the node went away, ...
                    payload = {"key": t["key"], "status": "failed", "wall_s": 0.0, "host": "", "pid": 0,
                               "files": {"error.json": error_json(e, str(e))}}
                done(t, payload)
    finally:
        ray.shutdown()
