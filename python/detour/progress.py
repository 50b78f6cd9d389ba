"""Progress display for long runs: a tqdm bar with an ETA, shown only when
the run lasts over a second, fed by the core's progress hook (called every
few thousand requests with the count of requests that have arrived)."""

from __future__ import annotations

import os
import sys
from typing import Optional

#: Traces up to this size (uncompressed) get their lines counted for the bar's total.
COUNT_LINES_MAX_BYTES = 2 << 30

_COMPRESSED_MAGIC = (b"\x1f\x8b", b"\x28\xb5\x2f\xfd")

#: Bytes read at a time when counting lines: under the C allocator's 128 KiB
#: threshold for mapping blocks of their own, since freeing a large mapped
#: block raises that threshold for the rest of the process, and the
#: simulation's large tables would then come from the heap and stay resident.
_CHUNK = 1 << 16


def count_lines(path, limit: int = COUNT_LINES_MAX_BYTES) -> Optional[int]:
    """Lines in a plain-text trace (about its request count), or None when
    counting is not cheap: compressed, larger than `limit`, or unreadable."""
    try:
        size = os.path.getsize(path)
        if size > limit:
            return None
        n = 0
        last = b"\n"
        with open(path, "rb") as f:
            head = f.read(4)
            if any(head.startswith(m) for m in _COMPRESSED_MAGIC):
                return None
            f.seek(0)
            while True:
                chunk = f.read(_CHUNK)
                if not chunk:
                    break
                n += chunk.count(b"\n")
                last = chunk[-1:]
        return n + (last != b"\n")
    except OSError:
        return None


class ProgressBar:
    """A callable for `run(progress=...)` that drives a tqdm bar on stderr."""

    def __init__(self, total: Optional[int] = None, desc: str = "simulating", delay: float = 1.0):
        from tqdm import tqdm

        self._bar = tqdm(
            total=total,
            desc=desc,
            unit="req",
            unit_scale=True,
            delay=delay,
            dynamic_ncols=True,
            file=sys.stderr,
            disable=None,  # off when stderr is not a terminal
        )
        self._done = 0

    def __call__(self, requests_arrived: int, sim_time_ns: int) -> None:
        step = requests_arrived - self._done
        if step > 0:
            if self._bar.total is not None and requests_arrived > self._bar.total:
                self._bar.total = requests_arrived
            self._bar.set_postfix_str(f"sim {sim_time_ns / 1e9:.2f} s", refresh=False)
            self._bar.update(step)
            self._done = requests_arrived

    def close(self) -> None:
        self._bar.close()
