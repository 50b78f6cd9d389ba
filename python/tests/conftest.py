"""Shared fixtures: tiny traces written by the tests themselves (the suite
never depends on ../shared), and a way to call the `detour` command."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TINY_REQUESTS = 300


def write_mqsim_trace(path: Path, n: int = TINY_REQUESTS, seed: int = 7, span_pages: int = 4096) -> Path:
    """`n` requests in MQSim ASCII (`time_ns dev lba sectors op`, op 1 = read)."""
    rng = random.Random(seed)
    t = 0
    lines = []
    for _ in range(n):
        t += int(rng.expovariate(1 / 50_000))  # 20k IOPS
        pages = rng.choice([1, 1, 2, 4, 8])
        page = rng.randrange(span_pages - pages)
        op = 1 if rng.random() < 0.7 else 0
        lines.append(f"{t} 0 {page * 8} {pages * 8} {op}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def tiny_trace(tmp_path: Path) -> Path:
    return write_mqsim_trace(tmp_path / "tiny.trace")


def detour_command() -> list:
    """The installed `detour` script next to this Python, else `python -m detour`."""
    script = Path(sys.executable).with_name("detour")
    if script.exists():
        return [str(script)]
    found = shutil.which("detour")
    return [found] if found else [sys.executable, "-m", "detour"]


def run_cli(*args, cwd=None, timeout=300) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("DETOUR_DEBUG", None)
    return subprocess.run(
        [*detour_command(), *map(str, args)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def cli():
    return run_cli
