"""requests.parquet: the per-request rows a run streamed to a file, read
back lazily, and the exact latency percentiles computed from them.

The summary's percentiles come from a histogram in the core (within
0.05% of the exact value, docs/results.md); `exact_latency` gives the exact
nearest-rank ones from the file:

    >>> detour.exact_latency("out/requests.parquet", "read")["p99"]
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Dict, Iterator, Optional, Sequence

if TYPE_CHECKING:
    import numpy as np

#: The percentiles a summary reports, by their summary names.
PERCENTILES = {"p50": 50.0, "p90": 90.0, "p95": 95.0, "p97": 97.0, "p98": 98.0, "p99": 99.0, "p995": 99.5, "p999": 99.9}


class LazyColumns(Mapping):
    """The columns of a requests.parquet as NumPy arrays, read on first use
    (so a run that streamed a billion rows to disk costs nothing here until
    asked)."""

    def __init__(self, path: "os.PathLike[str]", names: Sequence[str]):
        self.path = os.fspath(path)
        self._names = tuple(names)
        self._arrays: Optional[Dict[str, np.ndarray]] = None

    def _load(self) -> Dict[str, np.ndarray]:
        if self._arrays is None:
            import pyarrow.parquet as pq

            t = pq.read_table(self.path, columns=list(self._names))
            self._arrays = {n: t.column(n).to_numpy(zero_copy_only=False) for n in self._names}
        return self._arrays

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._names:
            raise KeyError(name)
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"LazyColumns({self.path!r})"


def nearest_rank(sorted_values: np.ndarray, p: float) -> float:
    """The nearest-rank percentile: the ceil(p/100 * n)-th smallest value."""
    import math

    n = len(sorted_values)
    if n == 0:
        return 0.0
    k = min(max(math.ceil(p / 100.0 * n), 1), n)
    return float(sorted_values[k - 1])


def exact_latency(path: "os.PathLike[str]", kind: str = "all") -> Dict[str, float]:
    """Exact latency statistics (µs) of the measured requests in a
    requests.parquet: `kind` is "read", "write" or "all"; keys as in the
    summary's `latency_us` (count, mean, min, p50 ... p999, max)."""
    import numpy as np
    import pyarrow.parquet as pq

    if kind not in ("read", "write", "all"):
        raise ValueError(f"kind must be 'read', 'write' or 'all', not {kind!r}")
    # Files written before the `lost` column have no failed requests.
    names = pq.read_schema(os.fspath(path)).names
    cols = ["latency_ns", "is_write", "warmup"] + (["lost"] if "lost" in names else [])
    t = pq.read_table(os.fspath(path), columns=cols)
    lat = t.column("latency_ns").to_numpy()
    keep = ~t.column("warmup").to_numpy(zero_copy_only=False)
    if "lost" in names:
        keep &= ~t.column("lost").to_numpy(zero_copy_only=False)
    w = t.column("is_write").to_numpy(zero_copy_only=False)
    if kind != "all":
        keep &= w if kind == "write" else ~w
    v = np.sort(lat[keep])
    out = {"count": float(len(v)), "mean": float(v.mean()) / 1e3 if len(v) else 0.0}
    out["min"] = float(v[0]) / 1e3 if len(v) else 0.0
    out.update({name: nearest_rank(v, p) / 1e3 for name, p in PERCENTILES.items()})
    out["max"] = float(v[-1]) / 1e3 if len(v) else 0.0
    return out
