"""The sweep file: parse, validate, expand into runs, resolve every run's
configuration before anything runs.

A sweep file is TOML (docs/sweeps.md)::

    traces   = ["msr_hm_0.csv.gz"]            # paths, relative to the sweep file
    profiles = ["mail", {profile = "oltp", set = {requests = 20000}}]
    devices  = ["small", "my-device.toml"]    # presets or TOML files
    schemes  = ["conventional"]
    seeds    = [1, 2]
    verify   = false

    [set]                                     # fixed overrides, every run
    "host.queue_depth" = 32

    [grid]                                    # dotted key -> values: the cross product
    "ftl.gc_threshold" = [0.05, 0.1]

    [profile_set]                             # fixed profile overrides, every profile
    requests = 20000

    [reader]                                  # trace reader options, every trace
    format = "msr"
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .. import _detour, _toml
from ..api import _profile_source, config as resolve_config, is_path
from ..errors import describe

TOP_KEYS = ("name", "traces", "profiles", "devices", "schemes", "seeds", "verify", "set", "grid", "profile_set", "reader")
PROFILE_KEYS = ("profile", "set", "label")
READER_KEYS = ("format", "skip_malformed", "volume", "clamp_backwards_time")


class SweepError(ValueError):
    """The sweep file is invalid, or one of its runs has a bad configuration
    (the message names the file, the run and the key)."""


def toml_value(v: Any) -> str:
    """`_toml.value`, failing as the sweep file's error."""
    try:
        return _toml.value(v)
    except ValueError as e:
        raise SweepError(str(e)) from None


def flatten(table: Any, where: str, leaf_is_list: bool = False) -> Dict[str, Any]:
    """`{"ftl": {"gc_threshold": x}}` -> `{"ftl.gc_threshold": x}` (quoted
    dotted keys stay as they are)."""
    if not isinstance(table, dict):
        raise SweepError(f"{where} must be a table of dotted keys")
    out: Dict[str, Any] = {}
    for k, v in table.items():
        if isinstance(v, dict):
            for k2, v2 in flatten(v, where, leaf_is_list).items():
                out[f"{k}.{k2}"] = v2
        else:
            out[k] = v
    return out


@dataclass
class Workload:
    """A trace file or a synthetic profile, as named in the sweep file."""

    kind: str  # "trace" | "profile"
    label: str
    path: Optional[str] = None  # trace: absolute path
    reader: Dict[str, Any] = field(default_factory=dict)
    profile: Optional[str] = None  # profile: name or absolute spec path
    profile_set: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Run:
    """One point of the cross product, its configuration resolved."""

    index: int
    workload: Workload
    device: str  # as written in the sweep file
    device_path: str  # preset name or absolute path
    scheme: Optional[str]
    seed: Optional[int]
    grid: Dict[str, Any]
    config_toml: str = ""
    profile_toml: Optional[str] = None  # resolved spec, for profiles
    profile_overrides: List[str] = field(default_factory=list)
    profile_set: Dict[str, Any] = field(default_factory=dict)
    key: str = ""

    @property
    def label(self) -> str:
        parts = [self.workload.label, self.device]
        if self.scheme is not None:
            parts.append(self.scheme)
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        parts += [f"{k}={v}" for k, v in self.grid.items()]
        return " ".join(parts)


@dataclass
class Sweep:
    path: Path
    name: str
    workloads: List[Workload]
    devices: List[str]
    schemes: List[Optional[str]]
    seeds: List[Optional[int]]
    verify: Optional[bool]
    fixed: Dict[str, Any]
    grid: Dict[str, List[Any]]
    text: str = ""


def _list(doc: dict, key: str, where: str, kinds: Tuple[type, ...]) -> list:
    v = doc.get(key, [])
    if not isinstance(v, list):
        raise SweepError(f"{where}: '{key}' must be an array")
    for x in v:
        if not isinstance(x, kinds) or (isinstance(x, bool) and bool not in kinds):
            raise SweepError(f"{where}: '{key}' has {x!r}; expected {' or '.join(k.__name__ for k in kinds)}")
    return v


def _abspath(base: Path, p: str) -> str:
    return os.path.normpath(os.path.join(base, os.path.expanduser(p)))


def load(path: os.PathLike) -> Sweep:
    """Read and validate a sweep file (structure only; `plan` resolves runs)."""
    path = Path(path)
    where = str(path)
    text = path.read_text()
    try:
        doc = _toml.loads(text)
    except _toml.TOMLDecodeError as e:
        raise SweepError(f"{where}: not valid TOML: {e}") from None
    for k in doc:
        if k not in TOP_KEYS:
            raise SweepError(f"{where}: unknown key '{k}' (expected one of: {', '.join(TOP_KEYS)})")
    base = path.resolve().parent

    reader = doc.get("reader", {})
    if not isinstance(reader, dict):
        raise SweepError(f"{where}: 'reader' must be a table")
    for k in reader:
        if k not in READER_KEYS:
            raise SweepError(f"{where}: unknown key 'reader.{k}' (expected one of: {', '.join(READER_KEYS)})")

    profile_set = flatten(doc.get("profile_set", {}), f"{where}: 'profile_set'")
    workloads: List[Workload] = []
    for t in _list(doc, "traces", where, (str,)):
        workloads.append(Workload("trace", label=t, path=_abspath(base, t), reader=dict(reader)))
    for i, p in enumerate(_list(doc, "profiles", where, (str, dict))):
        if isinstance(p, str):
            p = {"profile": p}
        for k in p:
            if k not in PROFILE_KEYS:
                raise SweepError(f"{where}: unknown key 'profiles[{i}].{k}' (expected one of: {', '.join(PROFILE_KEYS)})")
        if not isinstance(p.get("profile"), str):
            raise SweepError(f"{where}: 'profiles[{i}]' needs profile = \"NAME\" or a spec file path")
        name = p["profile"]
        if is_path(name, base):
            name = _abspath(base, name)
        sets = dict(profile_set)
        sets.update(flatten(p.get("set", {}), f"{where}: 'profiles[{i}].set'"))
        label = p.get("label") or p["profile"]
        if not isinstance(label, str):
            raise SweepError(f"{where}: 'profiles[{i}].label' must be a string")
        workloads.append(Workload("profile", label=label, profile=name, profile_set=sets))
    if not workloads:
        raise SweepError(f"{where}: give at least one workload: 'traces' or 'profiles'")

    devices = _list(doc, "devices", where, (str,))
    if not devices:
        raise SweepError(f"{where}: 'devices' must name at least one preset or TOML file")
    schemes = _list(doc, "schemes", where, (str,)) or [None]
    seeds = _list(doc, "seeds", where, (int,)) or [None]
    verify = doc.get("verify")
    if verify is not None and not isinstance(verify, bool):
        raise SweepError(f"{where}: 'verify' must be true or false")
    name = doc.get("name", path.stem)
    if not isinstance(name, str):
        raise SweepError(f"{where}: 'name' must be a string")
    fixed = flatten(doc.get("set", {}), f"{where}: 'set'")
    grid = flatten(doc.get("grid", {}), f"{where}: 'grid'")
    for k, v in grid.items():
        if not isinstance(v, list) or not v:
            raise SweepError(f"{where}: grid key '{k}' must be a non-empty array of values")
    for _k, v in list(fixed.items()) + [(k, x) for k, vs in grid.items() for x in vs]:
        toml_value(v)  # a clear error for tables inside arrays etc.
    return Sweep(
        path=path,
        name=name,
        workloads=workloads,
        devices=devices,
        schemes=schemes,
        seeds=seeds,
        verify=verify,
        fixed=fixed,
        grid=grid,
        text=text,
    )


def _device_path(base: Path, d: str) -> str:
    return _abspath(base, d) if is_path(d, base) else d


def expand(sweep: Sweep) -> List[Run]:
    """The cross product workloads x devices x schemes x seeds x grid, in
    that order (the grid's first key varies slowest)."""
    base = sweep.path.resolve().parent
    keys = list(sweep.grid)
    runs: List[Run] = []
    points = list(itertools.product(*(sweep.grid[k] for k in keys)))
    for w, d, s, seed, point in itertools.product(sweep.workloads, sweep.devices, sweep.schemes, sweep.seeds, points):
        runs.append(Run(len(runs), w, d, _device_path(base, d), s, seed, dict(zip(keys, point))))
    return runs


def resolve(sweep: Sweep, run: Run, profile_cache: Dict[Any, str]) -> None:
    """Resolve `run`'s configuration and profile spec, or raise SweepError
    naming the run and the key."""
    overrides = [f"{k}={toml_value(v)}" for k, v in sweep.fixed.items()]
    overrides += [f"{k}={toml_value(v)}" for k, v in run.grid.items()]
    # A compatibility bundle is a layer under every other key, wherever it is written.
    overrides.sort(key=lambda o: not o.startswith("compat="))
    if run.seed is not None:
        overrides.append(f"run.seed={run.seed}")
    try:
        run.config_toml = resolve_config(run.device_path, overrides=overrides, scheme=run.scheme, verify=sweep.verify)
    except (_detour.DetourError, OSError) as e:
        raise SweepError(f"{sweep.path}: run {run.index} ({run.label}): {_said(e)}") from None
    w = run.workload
    if w.kind == "profile" and w.profile is not None:  # a profile workload always names one
        sets = dict(w.profile_set)
        if run.seed is not None and "seed" not in sets:
            sets["seed"] = run.seed
        run.profile_set = sets
        run.profile_overrides = [f"{k}={toml_value(v)}" for k, v in sets.items()]
        ck = (w.profile, tuple(run.profile_overrides))
        if ck not in profile_cache:
            try:
                name, text = _profile_source(w.profile)
                profile_cache[ck] = _detour.profile_spec(name, spec_toml=text, overrides=run.profile_overrides)
            except (_detour.DetourError, OSError) as e:
                raise SweepError(f"{sweep.path}: run {run.index} ({run.label}): profile {w.profile}: {_said(e)}") from None
        run.profile_toml = profile_cache[ck]


def _said(e: Exception) -> str:
    return describe(e) if isinstance(e, OSError) else str(e)


def spec_record(sweep: Sweep, run: Run, trace_sha256: Optional[str]) -> dict:
    """spec.json: the run's parameters, human-readable."""
    w = run.workload
    cfg = json.loads(_detour.config_json(run.config_toml))
    spec = {
        "key": run.key,
        "sweep": sweep.name,
        "index": run.index,
        "label": run.label,
        "workload": w.kind,
        "trace": w.path if w.kind == "trace" else None,
        "trace_sha256": trace_sha256,
        "reader": w.reader if w.kind == "trace" else None,
        "profile": w.label if w.kind == "profile" else None,
        "profile_set": run.profile_set if w.kind == "profile" else None,
        "device": run.device,
        "scheme": cfg.get("scheme", {}).get("name"),
        "compat": cfg.get("compat"),
        "seed": cfg.get("run", {}).get("seed"),
        "verify": cfg.get("run", {}).get("verify"),
        "grid": run.grid,
        "set": sweep.fixed,
    }
    return spec
