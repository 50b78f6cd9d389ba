"""Records of a sweep's runs under its output directory, and their keys.

    OUT/runs/<key>/        one finished run (present = complete: it is
                           written as OUT/runs/.tmp-<key>-<pid>/ and renamed)
        spec.json          the run's parameters (human-readable)
        config.toml        its resolved configuration
        status.json        {"status": "ok"|"failed", "wall_s", "finished", ...}
        summary.json, requests.parquet       when it succeeded
        error.json         {"type", "message", "traceback"} when it failed
    OUT/sweep.log          one JSON line per run executed (key, label, status)
    OUT/sweep.json         the last invocation: counts, backend, wall time
    OUT/.trace-hashes.json sha256 of each trace, keyed by path + size + mtime
    OUT/.lock              held while a sweep writes here

A run's key is the sha256 of its full resolved configuration and its
inputs: the trace's content hash (and reader options) or the resolved
synthetic spec, the scheme and the seed.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import IO, Dict, Optional

RUNS = "runs"
TMP_PREFIX = ".tmp-"
OLD_PREFIX = ".old-"
HASH_CACHE = ".trace-hashes.json"
LOG = "sweep.log"
CHUNK = 1 << 20


def file_sha256(path: str) -> str:
    """sha256 of a file's content, streamed in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(CHUNK)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


class TraceHashes:
    """Content hashes of trace files, computed once per file per sweep and
    cached in OUT/.trace-hashes.json keyed by path, size and mtime."""

    def __init__(self, out: Path):
        self.path = out / HASH_CACHE
        self.computed = 0
        try:
            self.cache: Dict[str, dict] = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.cache = {}
        self.memo: Dict[str, Optional[str]] = {}

    def get(self, path: str) -> Optional[str]:
        """The file's sha256, or None if it cannot be read (the run then
        fails and says why)."""
        if path in self.memo:
            return self.memo[path]
        try:
            st = os.stat(path)
            hit = self.cache.get(path)
            if hit and hit.get("size") == st.st_size and hit.get("mtime_ns") == st.st_mtime_ns:
                digest = hit["sha256"]
            else:
                digest = file_sha256(path)
                self.computed += 1
                self.cache[path] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest}
        except OSError:
            digest = None
        self.memo[path] = digest
        return digest

    def save(self) -> None:
        write_atomic(self.path, json.dumps(self.cache, indent=1, sort_keys=True).encode())


def run_key(config_toml: str, workload: dict, scheme: Optional[str], seed: Optional[int]) -> str:
    """sha256 of the canonical JSON of a run's configuration and inputs."""
    doc = {"config": config_toml, "workload": workload, "scheme": scheme, "seed": seed}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def write_tmp(runs: Path, key: str, files: Dict[str, bytes]) -> Path:
    """Write a record's files, each fsynced, into a new temporary
    directory OUT/runs/.tmp-<key>-<pid> (a pool worker does this, so
    records are written in parallel); `Store.commit` renames it."""
    tmp = Path(runs) / f"{TMP_PREFIX}{key}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    for name, data in files.items():
        with open(tmp / name, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    return tmp


def write_atomic(dest: Path, data: bytes) -> None:
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, dest)


class Store:
    """The records directory of one sweep output."""

    def __init__(self, out: os.PathLike):
        self.out = Path(out)
        self.runs = self.out / RUNS
        self._lock: Optional[IO[str]] = None

    def open(self) -> "Store":
        """Create the directory, take its lock (one sweep at a time), and
        remove what a killed sweep left half-written."""
        self.runs.mkdir(parents=True, exist_ok=True)
        lock = open(self.out / ".lock", "w")  # noqa: SIM115 (held open for the sweep: it is the lock)
        self._lock = lock
        try:
            # a POSIX lock: held by this process only, not by forked pool workers
            fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            self._lock = None
            raise OSError(f"another sweep is writing to {self.out} (it holds {self.out / '.lock'})") from None
        self.remove_leftovers()
        return self

    def remove_leftovers(self) -> None:
        """Remove half-written record directories. Only the lock holder may
        call this: a worker killed with its pool (or a killed sweep) can
        leave one behind after writing it but before it was committed."""
        for d in self.runs.iterdir():
            if d.name.startswith((TMP_PREFIX, OLD_PREFIX)):
                shutil.rmtree(d, ignore_errors=True)

    def close(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def status(self, key: str) -> Optional[str]:
        """"ok", "failed" or None (no record)."""
        d = self.runs / key
        if (d / "summary.json").exists():
            return "ok"
        if (d / "error.json").exists():
            return "failed"
        return None

    def write(self, key: str, files: Dict[str, bytes], replace_failed: bool = False) -> bool:
        """Write a record: `write_tmp`, then `commit`."""
        return self.commit(key, write_tmp(self.runs, key, files), replace_failed)

    def commit(self, key: str, tmp: Path, replace_failed: bool = False) -> bool:
        """Rename a temporary record directory to OUT/runs/<key>: one
        atomic step. Returns False if a record was already there (it is
        kept; the new one is dropped). With `replace_failed` a failed
        record is replaced."""
        dest = self.runs / key
        old = None
        if replace_failed and self.status(key) == "failed":
            old = self.runs / f"{OLD_PREFIX}{key}-{os.getpid()}"
            os.rename(dest, old)
        try:
            os.rename(tmp, dest)
        except OSError:
            if not dest.exists():
                raise
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        finally:
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        _fsync_dir(self.runs)
        return True

    def log(self, entry: dict) -> None:
        with open(self.out / LOG, "a") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")
            f.flush()
            os.fsync(f.fileno())


def _fsync_dir(d: Path) -> None:
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
