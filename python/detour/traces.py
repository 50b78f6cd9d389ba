"""Trace utilities: the formats Detour reads and writes, statistics of a
trace, conversion between formats, and synthetic workloads (profiles,
generate)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from . import _detour
from .api import Overrides, PathLike, _atomic_write, _override_list, _profile_source


def formats() -> list:
    """Names of the trace formats, in auto-detection priority order."""
    return list(_detour.formats())


def inspect_trace(
    path: PathLike,
    *,
    format: Optional[str] = None,
    skip_malformed: bool = False,
    volume: Optional[int] = None,
    clamp_backwards_time: bool = False,
) -> dict:
    """Read a whole trace and return its statistics (format, read ratio,
    sizes, footprint, duration, rate, volumes, skipped/clamped counts).
    Out-of-order arrivals are reported, not refused: `backwards` requests
    arrive before an earlier line's time, by at most `max_step_back_ns`
    (a `reorder_window_s` for `run` that sorts the trace)."""
    return json.loads(
        _detour.inspect_trace(
            os.fspath(path),
            format=format,
            skip_malformed=skip_malformed,
            volume=volume,
            clamp_backwards_time=clamp_backwards_time,
        )
    )


def convert_trace(
    src: PathLike,
    dst: PathLike,
    to: str,
    *,
    format: Optional[str] = None,
    skip_malformed: bool = False,
    volume: Optional[int] = None,
    clamp_backwards_time: bool = False,
    keep_absolute_time: bool = False,
) -> dict:
    """Convert trace `src` to format `to` in `dst` (written atomically).
    Returns what the reader counted, with `written` requests."""
    info: dict = {}

    def write(tmp: str) -> None:
        n, workload = _detour.convert_trace(
            os.fspath(src),
            tmp,
            to,
            format=format,
            skip_malformed=skip_malformed,
            volume=volume,
            clamp_backwards_time=clamp_backwards_time,
            keep_absolute_time=keep_absolute_time,
        )
        info.update(json.loads(workload), written=n, to=to)

    dst = Path(dst)
    if dst.parent and not dst.parent.exists():
        dst.parent.mkdir(parents=True)
    _atomic_write(dst, write)
    return info


def value_popularity(
    path: Optional[PathLike] = None,
    *,
    profile: Optional[PathLike] = None,
    overrides: Overrides = None,
    day_s: float = 86_400.0,
    points: int = 100,
    format: Optional[str] = None,
    skip_malformed: bool = False,
    volume: Optional[int] = None,
    clamp_backwards_time: bool = False,
) -> dict:
    """Value popularity of a trace (`path`) or a synthetic `profile` (RR-SSD
    rr-4, docs/schemes/rr-ssd.md): `cdf` (values sorted by read count, with
    the cumulative share of reads and writes), `top80_read_values` (share of
    read values serving 80% of reads) and `days` (per `day_s` of trace time:
    new values, reads of yesterday's values and of yesterday's top-80%)."""
    if (path is None) == (profile is None):
        raise ValueError("give exactly one of path and profile")
    if path is not None:
        out = _detour.value_popularity(
            os.fspath(path),
            format=format,
            skip_malformed=skip_malformed,
            volume=volume,
            clamp_backwards_time=clamp_backwards_time,
            day_s=day_s,
            points=points,
        )
    else:
        assert profile is not None  # one of the two, checked above
        name, text = _profile_source(profile)
        out = _detour.value_popularity(
            None, name, spec_toml=text, overrides=_override_list(overrides), day_s=day_s, points=points
        )
    return json.loads(out)


def profiles() -> list:
    """`[(name, description), ...]` of the synthetic workload profiles."""
    return list(_detour.profiles())


def profile_spec(profile: PathLike, overrides: Overrides = None) -> str:
    """The resolved synthetic spec of `profile` (a name or a TOML spec file)
    with `overrides`, as TOML: a starting point for a spec file."""
    name, text = _profile_source(profile)
    return _detour.profile_spec(name, spec_toml=text, overrides=_override_list(overrides))


def generate(profile: PathLike, path: PathLike, to: str = "mqsim", overrides: Overrides = None) -> int:
    """Write the synthetic workload `profile` (a name or a TOML spec file)
    with `overrides` to `path` as trace format `to` (atomically). Returns
    the number of requests written."""
    name, text = _profile_source(profile)
    sets = _override_list(overrides)
    written = []

    def write(tmp: str) -> None:
        written.append(_detour.generate(tmp, to, name, spec_toml=text, overrides=sets))

    dst = Path(path)
    if dst.parent and not dst.parent.exists():
        dst.parent.mkdir(parents=True)
    _atomic_write(dst, write)
    return written[0]
