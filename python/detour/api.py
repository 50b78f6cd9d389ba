"""The Python API: resolve a configuration, run a simulation, keep its results.

    >>> import detour
    >>> r = detour.run("small", trace="my.trace", overrides=["run.verify=true"])
    >>> r.summary["latency_us"]["read"]["p99"]
    >>> r.to_pandas().latency_ns.describe()
    >>> r.write("out/")          # out/summary.json, out/requests.parquet
    >>> r.collision_pairs_table()   # with metrics.collisions = true

Everything here converts and arranges; the simulation is in the Rust core.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Mapping, Optional, Union

from . import _detour, _toml
from .schema import Summary

PathLike = Union[str, "os.PathLike[str]"]
Overrides = Union[Iterable[str], Mapping[str, Any], None]
ProgressArg = Union[bool, Callable[[int, int], Any], None]

#: Per-request columns as the core produces them, in order.
COLUMNS = tuple(_detour.COLUMNS)

if TYPE_CHECKING:
    import numpy as np

    # The schema's Summary is a dict subclass made when the module loads
    # (detour/schema.py), which a type checker cannot see into.
    SummaryType = Dict[str, Any]
else:
    SummaryType = Summary

#: NumPy dtypes of the `requests=` input columns (see `run`). NumPy itself
#: is imported where it is used: `detour run` writing Parquet from the core
#: never needs it, and it is a third of the command's memory.
REQUEST_DTYPES = {
    "time_ns": "uint64",
    "offset": "uint64",
    "size": "uint32",
    "is_write": "bool",
    "content": "uint64",
    "volume": "uint32",
}


def _override_list(overrides: Overrides) -> list:
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [f"{k}={_toml.value(v)}" for k, v in overrides.items()]
    return [str(o) for o in overrides]


def is_path(arg: PathLike, base: Optional[PathLike] = None) -> bool:
    """True when a device or profile argument names a file rather than a
    built-in preset or profile: it ends in .toml, has a directory part, or
    is an existing file (relative to `base` when given, e.g. a sweep
    file's folder). The one place Detour makes this guess."""
    s = os.fspath(arg)
    if s.endswith(".toml") or "/" in s or os.sep in s:
        return True
    return os.path.isfile(os.path.join(os.fspath(base), s) if base is not None else s)


def capacity(cfg: str) -> dict:
    """What a resolved configuration (`config()`'s TOML) adds up to: raw
    flash and host-addressable bytes (after over-provisioning and what the
    scheme keeps for itself), dies, planes, block and page sizes.
    `detour config` prints it above the TOML."""
    d = _toml.loads(cfg)["device"]
    # spare chips (device.spare_chips, HotR's staging chip) are raw flash the host never addresses
    spare = d.get("spare_chips", 0)
    chips = d["channels"] * d["chips_per_channel"] + spare
    dies = chips * d["dies_per_chip"]
    planes = dies * d["planes_per_die"]
    block = d["pages_per_block"] * d["page_size"]
    raw = planes * d["blocks_per_plane"] * block
    logical = _detour.logical_bytes(cfg)
    return {"raw_bytes": raw, "logical_bytes": logical, "raw_gib": raw / 2**30, "logical_gib": logical / 2**30,
            "logical_share": logical / raw if raw else 0.0, "channels": d["channels"],
            "chips": chips, "spare_chips": spare, "dies": dies, "planes": planes,
            "blocks": planes * d["blocks_per_plane"], "block_bytes": block, "page_bytes": d["page_size"]}


def config(
    device: PathLike = "small",
    *,
    toml: Optional[str] = None,
    overrides: Overrides = None,
    scheme: Optional[str] = None,
    verify: Optional[bool] = None,
    compat: Optional[str] = None,
) -> str:
    """Resolve and validate a configuration; return it as a complete TOML document.

    `device` is a preset name (`detour.presets()`) or a path to a TOML file
    (which may start from a preset with a top-level `preset = "name"`).
    Then `toml` text, then `overrides` (`["key=value", ...]` or a mapping),
    then `scheme` (`scheme.name`) and `verify` (`run.verify`) are applied.
    `compat` names a peer simulator whose timing rules (`compats()`) are
    applied before `overrides`, so those still win.
    Raises `ConfigError` naming the offending key.
    """
    sets = _override_list(overrides)
    if compat is not None:
        sets.insert(0, f"compat={_toml.value(compat)}")
    if scheme is not None:
        sets.append(f"scheme.name={_toml.value(scheme)}")
    if verify is not None:
        sets.append(f"run.verify={_toml.value(bool(verify))}")
    if is_path(device):
        return _detour.config(file=os.fspath(device), toml=toml, overrides=sets)
    return _detour.config(preset=os.fspath(device), toml=toml, overrides=sets)


def presets() -> list:
    """`[(name, description), ...]` of the built-in devices."""
    return list(_detour.presets())


def compats() -> list:
    """`[(name, description), ...]` of the peer simulators' timing bundles."""
    return list(_detour.compats())


def compat_settings(name: str) -> list:
    """`[(key, value, because), ...]`: what bundle `name` sets, and why."""
    return list(_detour.compat_settings(name))


def schemes() -> list:
    """`[(name, description), ...]` of every registered scheme, in the
    registry's order (`schemes/mod.rs`)."""
    from .registry import schemes as entries

    return [(e.name, e.about) for e in entries()]


@dataclass(repr=False)
class Result:
    """One run's results.

    - `summary`: the summary (`detour.schema.Summary`): a dict as in
      summary.json whose fields are also attributes with their docs,
      `r.summary.latency_us.read.p99` (see docs/results.md), including
      `config` (the resolved configuration), `workload` (where the requests
      came from and what the reader skipped or clamped), `verify_failures`
      and `detour_version`.
    - `columns`: per-request NumPy arrays, one row per request in arrival
      order (`COLUMNS`); when the run streamed them to a file
      (`requests_parquet=`), read from it on first use.
    - `requests_path`: that file, if any.
    - `verify_failures`: the first reads that returned wrong data.
    - `config_toml`: the resolved configuration as TOML (to rerun exactly).
    - `collision_pairs`: with `metrics.collisions = true`, NumPy arrays
      `lpn_a`, `lpn_b`, `count`: every read-collision pair and how often it
      was recorded, most repeated first (docs/schemes/collisions.md).
    - `timeseries`: with `probes.interval_us` > 0, the sampled per-die and
      per-chip queue lengths and busy states (`timeseries_table()`).
    """

    summary: SummaryType
    columns: dict
    verify_failures: list = field(default_factory=list)
    config_toml: str = ""
    collision_pairs: dict = field(default_factory=dict)
    requests_path: Optional[Path] = None
    timeseries: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.summary, Summary):
            self.summary = Summary(self.summary)
        if self.requests_path is not None and not self.columns:
            from .requests_file import LazyColumns

            self.columns = LazyColumns(self.requests_path, COLUMNS)

    def __len__(self) -> int:
        if self.requests_path is not None:
            return int(self.summary.get("requests", 0)) + int(self.summary.get("warmup_requests", 0))
        return len(self.columns["arrival_ns"]) if self.columns else 0

    def __repr__(self) -> str:
        # Short on purpose: a notebook echoes it, and the arrays and the
        # whole config would fill the screen.
        return f"Result({self.summary!r}, {len(self):,} request rows)"

    def _repr_html_(self) -> str:
        from .report import summary_html

        return summary_html(self.summary, rows=len(self))

    def plot(self, title: str = ""):
        """A Matplotlib figure: latency CDFs of reads and writes, and the
        mean time per part of the critical path. Displays in a notebook;
        `.savefig(path)` to keep it."""
        from .plots import result_figure

        return result_figure(self, title)

    def latency(self, kind: str = "all", stat: str = "mean") -> float:
        """A latency statistic in µs, e.g. `r.latency("read", "p99")`."""
        return float(self.summary["latency_us"][kind][stat])

    def queue_ns(self) -> np.ndarray:
        """Queueing time per request: latency - delay - bus - array (>= 0)."""
        import numpy as np

        c = self.columns
        parts = c["bus_ns"].astype(np.int64) + c["array_ns"] + c["delay_ns"]
        return np.maximum(c["latency_ns"].astype(np.int64) - parts, 0).astype(np.uint64)

    def to_arrow(self):
        """The per-request columns as a `pyarrow.Table` (plus derived `queue_ns`)."""
        import pyarrow as pa

        if self.requests_path is not None:
            import pyarrow.parquet as pq

            table = pq.read_table(self.requests_path)
        else:
            arrays = {name: self.columns[name] for name in COLUMNS}
            arrays["queue_ns"] = self.queue_ns()
            table = pa.table(arrays)
        meta = {b"detour.summary": json.dumps(self.summary).encode()}
        return table.replace_schema_metadata(meta)

    def collision_pairs_table(self):
        """The collision pairs as a `pyarrow.Table` (lpn_a, lpn_b, count),
        most repeated first; empty when collision accounting was off."""
        import numpy as np
        import pyarrow as pa

        names = ("lpn_a", "lpn_b", "count")
        return pa.table({n: self.collision_pairs.get(n, np.zeros(0, np.uint32)) for n in names})

    def timeseries_table(self):
        """The `[probes]` samples as a `pyarrow.Table`, one row per sample
        and die: `t_ns`, `die`, `chip`, `queue` and `busy` (the die's
        outstanding commands, and 1 when it is working), `chip_queue`,
        `chip_host_queue` (of those, the host's requests: no GC or scheme
        background work) and `chip_busy` (its chip's, repeated on each of
        the chip's dies: with `scheduler.unit = "chip"` a die's own figures
        are its chip's),
        `free_blocks` (the die's, over its planes) and, with a write
        buffer, `buffer_pages` (the buffer's, repeated on each die). None
        when the probe was off."""
        ts = self.timeseries
        if not ts:
            return None
        import numpy as np
        import pyarrow as pa

        dies, chips = int(ts["dies"]), int(ts["chips"])
        n = len(ts["t_ns"])
        per_chip = dies // max(chips, 1)
        die = np.tile(np.arange(dies, dtype=np.uint32), n)
        chip = die // per_chip
        row_chip = np.repeat(np.arange(n, dtype=np.int64) * chips, dies) + chip
        cols = {
            "t_ns": np.repeat(np.asarray(ts["t_ns"], dtype=np.uint64), dies), "die": die, "chip": chip,
            "queue": ts["die_queue"], "busy": ts["die_busy"],
            "chip_queue": np.asarray(ts["chip_queue"])[row_chip],
            "chip_host_queue": np.asarray(ts["chip_host_queue"])[row_chip],
            "chip_busy": np.asarray(ts["chip_busy"])[row_chip],
            "free_blocks": ts["die_free_blocks"]}
        if "buffer_pages" in ts:
            cols["buffer_pages"] = np.repeat(np.asarray(ts["buffer_pages"], dtype=np.uint32), dies)
        return pa.table(cols)

    def to_pandas(self):
        """The per-request columns as a `pandas.DataFrame` (needs pandas)."""
        try:
            import pandas  # noqa: F401
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        return self.to_arrow().to_pandas()

    def to_polars(self):
        """The per-request columns as a `polars.DataFrame` (needs polars)."""
        try:
            import polars
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_polars() needs polars: pip install polars") from e
        return polars.from_arrow(self.to_arrow())

    def write(self, out_dir: PathLike) -> Path:
        """Write `summary.json`, `requests.parquet` and `config.toml` into
        `out_dir` (created if needed), `collision_pairs.parquet` when
        collision accounting was on and `timeseries.parquet` when the probe
        was. Each file is written to a temporary
        name in the same directory and renamed, so a reader never sees a
        half-written file. Returns the directory."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        dest = out / "requests.parquet"
        if self.requests_path is None:
            import pyarrow.parquet as pq

            _atomic_write(dest, lambda p: pq.write_table(self.to_arrow(), p, compression="zstd"))
        elif not dest.exists() or not dest.samefile(self.requests_path):
            src = self.requests_path
            _atomic_write(dest, lambda p: shutil.copyfile(src, p))
        _atomic_write(out / "config.toml", lambda p: Path(p).write_text(self.config_toml))
        ts = self.timeseries_table()
        if ts is not None:
            import pyarrow.parquet as pq

            _atomic_write(out / "timeseries.parquet", lambda p: pq.write_table(ts, p, compression="zstd"))
        if "collisions" in self.summary:
            import pyarrow.parquet as pq

            table = self.collision_pairs_table()
            _atomic_write(out / "collision_pairs.parquet", lambda p: pq.write_table(table, p, compression="zstd"))
        text = json.dumps(self.summary, indent=2, allow_nan=False) + "\n"
        _atomic_write(out / "summary.json", lambda p: Path(p).write_text(text))
        return out


def _atomic_write(dest: Path, write: Callable[[str], Any]) -> None:
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _profile_source(profile: PathLike):
    """(name, None) for a profile name, (None, text) for a TOML spec file."""
    s = os.fspath(profile)
    if is_path(s):
        try:
            return None, Path(s).read_text()
        except OSError as e:
            raise _detour.DetourIOError(e.errno, e.strerror, s) from None
    return s, None


def _profile_requests(profile: PathLike, overrides: Overrides) -> Optional[int]:
    """The request count a profile will generate (None if time-limited or unknown)."""
    try:
        return _spec_dict(profile, overrides).get("requests") or None
    except Exception:  # the run itself reports a bad profile
        return None


def _spec_dict(profile: PathLike, overrides: Overrides) -> dict:
    name, text = _profile_source(profile)
    return _toml.loads(_detour.profile_spec(name, spec_toml=text, overrides=_override_list(overrides)))


def _requests_arrays(requests: Any) -> dict:
    """Accept a mapping of array-likes (or a pandas DataFrame / pyarrow Table)."""
    import numpy as np

    if hasattr(requests, "to_pydict") and not isinstance(requests, Mapping):  # pyarrow.Table
        requests = {name: requests.column(name).to_numpy() for name in requests.column_names}
    elif hasattr(requests, "columns") and hasattr(requests, "to_numpy"):  # pandas.DataFrame
        requests = {name: requests[name].to_numpy() for name in requests.columns}
    out = {}
    for name, values in dict(requests).items():
        dtype = REQUEST_DTYPES.get(name)
        if dtype is None:
            raise ValueError(f"requests has an unknown column {name!r}; expected {', '.join(REQUEST_DTYPES)}")
        arr = np.asarray(values)
        if arr.dtype != np.dtype(dtype):
            if dtype != "bool" and arr.size and (np.issubdtype(arr.dtype, np.number) and (arr < 0).any()):
                raise ValueError(f"requests[{name!r}] has negative values")
            arr = arr.astype(dtype)
        out[name] = np.ascontiguousarray(arr)
    return out


@dataclass(frozen=True)
class RunOptions:
    """What `run` simulates besides the device: every keyword of `run`.

    Device (as in `config()`): `toml`, `overrides`, `scheme`, `verify`,
    `compat`.

    Workload, exactly one of:
    - `trace`: a trace file (plain, gzip or zstd), its `format` detected
      unless given (`detour.formats()`); `skip_malformed` skips and counts
      bad lines, `volume` keeps one device/LUN, `reorder_window_s` sorts
      arrivals within that many seconds of trace time (None: 2 s, enough
      for interleaved multi-volume traces; 0: none), `clamp_backwards_time`
      raises what is still out of order to the previous time;
      `coarse_time` "spread" (default) spreads requests sharing a coarse
      timestamp (whole seconds) over its resolution, seeded by `run.seed`,
      "keep" keeps them at one instant (docs/workloads.md);
    - `profile`: a synthetic workload profile (`detour.profiles()`) or a
      TOML spec file (which may start `profile = "name"`), with
      `profile_overrides` (`["key=value", ...]` or a mapping, dotted keys
      such as `arrival.rate_per_s`); with `fit` (the default) a footprint
      larger than the device's logical space is scaled to it, and
      `summary.workload.scaled_from_bytes` says so (detour/fit.py);
    - `requests`: a mapping (or DataFrame) of equal-length columns
      `time_ns`, `offset`, `size` (bytes), `is_write`, and optionally
      `content`, `volume`.

    `flows`: closed-loop tenants sharing the device (fio-like jobs, the
    config's `[[flows]]`: a list of mappings such as
    `detour.fio_job("randread", 4096, 32, runtime_s=1)`; docs/workloads.md);
    with `flows` the workload above may be left out, and the summary's
    `flows` holds each flow's IOPS, bandwidth and latency.

    `requests_parquet`: a file to stream the per-request rows to as
    requests complete (row groups written on a second thread); memory then
    stays flat however long the trace, and `Result.columns` reads the file
    on first use.

    `progress`: None (quiet), True (a tqdm bar with an ETA, shown when the
    run lasts over a second) or a callable `f(requests_arrived, sim_time_ns)`.
    """

    trace: Optional[PathLike] = None
    format: Optional[str] = None
    skip_malformed: bool = False
    volume: Optional[int] = None
    clamp_backwards_time: bool = False
    reorder_window_s: Optional[float] = None
    coarse_time: str = "spread"
    profile: Optional[PathLike] = None
    profile_overrides: Overrides = None
    requests: Any = None
    toml: Optional[str] = None
    overrides: Overrides = None
    scheme: Optional[str] = None
    verify: Optional[bool] = None
    progress: ProgressArg = None
    compat: Optional[str] = None
    fit: bool = True
    requests_parquet: Optional[PathLike] = None
    flows: Optional[list] = None

    def with_flows(self) -> RunOptions:
        """The flows folded into the config's TOML; with no other workload,
        an empty request table beside them."""
        if not self.flows:
            return self
        from .fio import flows_toml

        toml = (self.toml + "\n" if self.toml else "") + flows_toml(list(self.flows))
        alone = self.trace is None and self.profile is None and self.requests is None
        empty: Dict[str, list] = {name: [] for name in ("time_ns", "offset", "size", "is_write")}
        return replace(self, toml=toml, requests=empty if alone else self.requests, flows=None)

    def check_workload(self) -> None:
        if sum(x is not None for x in (self.trace, self.profile, self.requests)) != 1:
            raise ValueError("give exactly one workload: trace=, profile= or requests= (or flows=)")


def run(device: PathLike = "small", options: Optional[RunOptions] = None, **fields: Any) -> Result:
    """Simulate one workload on one device and return its `Result`.

    `options` is a `RunOptions`; its fields may be given as keywords
    instead (`run("small", trace="t.csv", scheme="hotr")`), or beside it to
    replace some of them. Ctrl-C stops the run cleanly and raises
    KeyboardInterrupt.
    """
    opts = replace(options, **fields) if options is not None else RunOptions(**fields)
    opts = opts.with_flows()
    opts.check_workload()
    cfg = config(device, toml=opts.toml, overrides=opts.overrides, scheme=opts.scheme, verify=opts.verify,
                 compat=opts.compat)
    sink = os.fspath(opts.requests_parquet) if opts.requests_parquet is not None else None
    callback, bar = _progress(opts)
    try:
        out, scaled_from = _simulate(cfg, opts, callback, sink)
    finally:
        if bar is not None:
            bar.close()
    result = result_from(cfg, out, requests_path=sink)
    if opts.profile is not None:
        result.summary["workload"]["scaled_from_bytes"] = scaled_from
    return result


def _progress(opts: RunOptions) -> tuple[Optional[Callable[[int, int], Any]], Any]:
    """The progress callback for the core, and the bar to close after."""
    progress = opts.progress
    # The bar is drawn only on a terminal (Ctrl-C is honoured either way).
    if not (progress is True and sys.stderr.isatty()):
        return (progress if callable(progress) else None), None
    from .progress import ProgressBar, count_lines

    total: Optional[int]
    if opts.trace is not None:
        total = count_lines(opts.trace)
    elif opts.requests is not None:
        total = len(next(iter(dict(opts.requests).values()), ()))
    else:
        total = _profile_requests(opts.profile, opts.profile_overrides) if opts.profile is not None else None
    bar = ProgressBar(total)
    return bar, bar


def _simulate(cfg: str, opts: RunOptions, callback: Any, sink: Optional[str]) -> tuple[Any, Optional[int]]:
    """What `_detour.run` returns for the options' workload, and the
    footprint a profile was scaled from (None when it was not)."""
    if opts.trace is not None:
        window = opts.reorder_window_s
        out = _detour.run(
            cfg,
            trace=os.fspath(opts.trace),
            format=opts.format,
            skip_malformed=opts.skip_malformed,
            volume=opts.volume,
            clamp_backwards_time=opts.clamp_backwards_time,
            reorder_window_ns=None if window is None else _window_ns(window),
            coarse_time=opts.coarse_time,
            progress=callback,
            requests_parquet=sink,
        )
        return out, None
    if opts.profile is not None:
        name, spec_toml = _profile_source(opts.profile)
        sets, scaled_from = _override_list(opts.profile_overrides), None
        if opts.fit:
            from .fit import fit_profile

            spec = _toml.loads(_detour.profile_spec(name, spec_toml=spec_toml, overrides=sets))
            sets, scaled_from = fit_profile(cfg, spec, sets)
        out = _detour.run(cfg, profile=name, profile_toml=spec_toml, profile_overrides=sets, progress=callback,
                          requests_parquet=sink)
        return out, scaled_from
    out = _detour.run(cfg, requests=_requests_arrays(opts.requests), progress=callback, requests_parquet=sink)
    return out, None


def _window_ns(seconds: float) -> int:
    if not seconds >= 0:
        raise ValueError(f"reorder_window_s must be >= 0 seconds, not {seconds!r}")
    return int(round(seconds * 1e9))  # noqa: RUF046 (seconds may be a NumPy float, whose round() is a float)


def result_from(cfg: str, out, requests_path: Optional[PathLike] = None) -> "Result":
    """A `Result` from what `_detour.run` returned for the config `cfg`: the
    summary gains the verify failures, the resolved config, the workload's
    description and the version."""
    summary_json, columns, failures_json, workload_json, pairs, timeseries = out
    failures = json.loads(failures_json)
    summary = json.loads(summary_json)
    summary["verify_failures"] = failures
    summary["config"] = json.loads(_detour.config_json(cfg))
    summary["workload"] = json.loads(workload_json)
    summary["workload"].setdefault("scaled_from_bytes", None)
    summary["detour_version"] = _detour.__version__
    return Result(
        summary=summary, columns=dict(columns), verify_failures=failures, config_toml=cfg, collision_pairs=dict(pairs),
        requests_path=Path(requests_path) if requests_path is not None else None,
        timeseries=dict(timeseries),
    )
