"""File errors in Detour's words, for the command line and for messages
that wrap them: Python's `str(OSError)` reads "[Errno 2] No such file or
directory: 'x'", which names neither what Detour was doing nor how to fix
it (issue 34)."""

from __future__ import annotations

import errno


class CliError(Exception):
    """A usage problem found after argument parsing (the command line exits 2)."""

_WHAT = {
    errno.ENOENT: "no such file or directory",
    errno.EISDIR: "is a directory, not a file",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "not permitted",
    errno.EEXIST: "already exists",
    errno.ENOSPC: "no space left on the device",
    errno.EROFS: "on a read-only file system",
}


def describe(e: OSError) -> str:
    """`<path>: <what went wrong>` for an OSError that names a file (its own
    message otherwise, e.g. the sweep lock's)."""
    if e.filename is None:
        return str(e)
    what = (_WHAT.get(e.errno) if e.errno is not None else None) or (e.strerror or str(e)).lower()
    where = f"{e.filename} -> {e.filename2}" if e.filename2 else str(e.filename)
    return f"{where}: {what}"


class ReproduceError(RuntimeError):
    """A reproduction could not run: a sweep failed or a run is missing."""
