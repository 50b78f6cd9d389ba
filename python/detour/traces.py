"""Trace utilities: the formats Detour reads and writes, statistics of a
trace, and conversion between formats."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from . import _detour
from .api import PathLike, _atomic_write


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
    sizes, footprint, duration, rate, volumes, skipped/clamped counts)."""
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
    info = {}

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
