"""Gather a sweep's records into one table: `detour results DIR`.

    from detour.results import gather
    table = gather("out/gc")            # a pyarrow.Table, one row per run
    # also written: out/gc/results.parquet and out/gc/results.csv
    # pd.read_parquet("out/gc/results.parquet")  /  pl.read_parquet(...)

Columns: `key`, `label`, `status` ("ok"/"failed"), `error` ("Type:
message"), the parameters (`workload`, `trace`, `profile`, `device`,
`scheme`, `seed`, then each grid key as its own column, e.g.
`ftl.gc_threshold`), then the main summary fields flattened with dots
(`SUMMARY_FIELDS`), and `wall_s`. Failed runs have nulls for the summary.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

from .sweep.records import RUNS, write_atomic

PARAM_FIELDS = ("workload", "trace", "profile", "device", "scheme", "seed")

#: Summary fields in the table, as dotted paths into summary.json.
SUMMARY_FIELDS = (
    "requests",
    "reads",
    "writes",
    "verify_errors",
    "latency_us.read.mean",
    "latency_us.read.p50",
    "latency_us.read.p99",
    "latency_us.read.p999",
    "latency_us.write.mean",
    "latency_us.write.p99",
    "latency_us.all.mean",
    "latency_us.all.p99",
    "throughput.iops",
    "gc.write_amplification",
    "gc.runs",
    "energy.joules",
    "energy.average_w",
    "read_cache.hit_ratio",
)


def _dig(d: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(d, dict) or part not in d:
            return None
        d = d[part]
    return d


def _read_json(p: Path) -> Optional[dict]:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def rows(out_dir: os.PathLike) -> List[Dict[str, Any]]:
    """One dict per record under `out_dir/runs`, in the sweep's run order."""
    runs = Path(out_dir) / RUNS
    if not runs.is_dir():
        raise FileNotFoundError(f"{out_dir} holds no sweep records (no {runs})")
    out = []
    grid_keys: List[str] = []
    for d in sorted(runs.iterdir()):
        if d.name.startswith(".") or not d.is_dir():
            continue
        spec = _read_json(d / "spec.json") or {}
        status = _read_json(d / "status.json") or {}
        summary = _read_json(d / "summary.json")
        err = _read_json(d / "error.json")
        row: Dict[str, Any] = {
            "key": d.name,
            "label": spec.get("label"),
            "status": "ok" if summary is not None else "failed",
            "error": f"{err.get('type')}: {err.get('message')}" if err else None,
        }
        for f in PARAM_FIELDS:
            row[f] = spec.get(f)
        for k, v in (spec.get("grid") or {}).items():
            if k not in grid_keys:
                grid_keys.append(k)
            row[k] = v
        for f in SUMMARY_FIELDS:
            row[f] = _dig(summary, f) if summary is not None else None
        row["wall_s"] = status.get("wall_s")
        row["_order"] = (spec.get("sweep") or "", spec.get("index", 0), d.name)
        out.append(row)
    out.sort(key=lambda r: r.pop("_order"))
    for r in out:  # every row has every grid column
        for k in grid_keys:
            r.setdefault(k, None)
    return out


def _column(values: List[Any]):
    import pyarrow as pa

    kinds = {type(v) for v in values if v is not None}
    if kinds and kinds <= {int, float} and float in kinds:
        values = [None if v is None else float(v) for v in values]
    elif len(kinds) > 1:  # e.g. a grid key with numbers and strings
        values = [None if v is None else (json.dumps(v) if not isinstance(v, str) else v) for v in values]
    elif kinds == {list}:
        values = [None if v is None else json.dumps(v) for v in values]
    return pa.array(values)


def table(out_dir: os.PathLike):
    """The results as a pyarrow.Table (not written)."""
    import pyarrow as pa

    rs = rows(out_dir)
    names: List[str] = []
    for r in rs:
        for k in r:
            if k not in names:
                names.append(k)
    if not rs:
        return pa.table({n: pa.array([], pa.string()) for n in ("key", "label", "status", "error")})
    return pa.table({n: _column([r.get(n) for r in rs]) for n in names})


def gather(out_dir: os.PathLike):
    """Build the table and write `results.parquet` and `results.csv` into
    `out_dir` (each atomically). Returns the pyarrow.Table."""
    import io

    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    t = table(out_dir)
    out = Path(out_dir)
    buf = io.BytesIO()
    pq.write_table(t, buf, compression="zstd")
    write_atomic(out / "results.parquet", buf.getvalue())
    buf = io.BytesIO()
    pcsv.write_csv(t, buf)
    write_atomic(out / "results.csv", buf.getvalue())
    return t


def summary_text(t, limit: int = 40) -> str:
    """Counts of ok and failed runs and a compact table of the first `limit` rows."""
    from .report import fmt, table as text_table

    rs = t.to_pylist()
    ok = sum(r["status"] == "ok" for r in rs)
    failed = len(rs) - ok
    lines = [f"{len(rs)} runs: {ok} ok, {failed} failed"]
    if not rs:
        return lines[0]
    fixed = {"key", "label", "status", "error", "wall_s", *PARAM_FIELDS, *SUMMARY_FIELDS}
    grid = [k for k in rs[0] if k not in fixed]
    params = [f for f in ("trace", "profile", "device", "scheme", "seed") if any(r.get(f) is not None for r in rs)]
    params = [f for f in params if len({json.dumps(r.get(f)) for r in rs}) > 1] or params[:1]
    cols = params + grid
    shown = ["latency_us.read.mean", "latency_us.read.p99", "latency_us.write.p99", "throughput.iops", "gc.write_amplification",
             "energy.joules"]
    heads = cols + ["read mean", "read p99", "write p99", "IOPS", "WA", "energy J", "status"]
    body = []
    for r in rs[:limit]:
        label = r["status"] if r["status"] == "ok" else f"failed: {r['error']}"[:60]
        if r.get("trace"):
            r = dict(r, trace=os.path.basename(r["trace"]))
        body.append([fmt(r.get(c)) for c in cols] + [fmt(r.get(c)) for c in shown] + [label])
    lines.append(text_table(heads, body))
    if len(rs) > limit:
        lines.append(f"... and {len(rs) - limit} more rows")
    return "\n".join(lines)
