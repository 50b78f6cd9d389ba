"""What a real MSR Cambridge slice says about the collision paper's volume
profiles' assumptions (crates/detour-core/src/workload/profiles/table.rs):
their burst shape (assumed: 20 ms bursts, 80 ms idle gaps) and whether
the pages a volume reads are the pages it writes (the profiles draw both
from one footprint, so the scheme's replicas are of write-hot pages).

Measured, not fitted into a profile: the one slice shipped here is hm_0
(/work/shared/traces/msr_hm_0.sample1000.csv.zst, 1,000 consecutive
requests), the same host as HM1 but another volume, so it grounds a
reading, not a calibration. MSR rows are
`filetime(100 ns),host,disk,Read|Write,offset,size,response`.

The burst rule is written down, not tuned: a gap longer than `idle_us`
between two arrivals ends a burst (a burst's length is its first to last
arrival; an idle gap is a gap longer than `idle_us`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Iterable, List, Sequence, Tuple

PAGE_BYTES = 16 * 1024  # the collision device's page (Table 4: 16 KiB)


@dataclass(frozen=True)
class Request:
    t_us: float
    write: bool
    offset: int
    size: int


def read_msr_csv(text: str) -> List[Request]:
    """Parse MSR Cambridge CSV rows (timestamps in 100 ns units)."""
    out = []
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 6:
            continue
        out.append(Request(int(row[0]) / 10.0, row[3].strip().lower() == "write", int(row[4]), int(row[5])))
    return out


@dataclass(frozen=True)
class BurstShape:
    bursts: int
    mean_on_us: float
    mean_off_us: float
    requests_per_burst: float


def burst_shape(times_us: Sequence[float], idle_us: float) -> BurstShape:
    """Bursts split at every gap longer than `idle_us` (see module doc)."""
    if not times_us:
        return BurstShape(0, 0.0, 0.0, 0.0)
    t = sorted(times_us)
    starts, ends, offs = [t[0]], [], []
    for a, b in zip(t, t[1:]):
        if b - a > idle_us:
            ends.append(a)
            starts.append(b)
            offs.append(b - a)
    ends.append(t[-1])
    on = [e - s for s, e in zip(starts, ends)]
    return BurstShape(
        bursts=len(starts),
        mean_on_us=sum(on) / len(on),
        mean_off_us=sum(offs) / len(offs) if offs else 0.0,
        requests_per_burst=len(t) / len(starts),
    )


def _pages(r: Request, page: int) -> Iterable[int]:
    return range(r.offset // page, (r.offset + max(r.size, 1) - 1) // page + 1)


def read_write_overlap(reqs: Sequence[Request], page: int = PAGE_BYTES) -> Tuple[int, int, int]:
    """(pages read, pages written, pages both read and written)."""
    read, written = set(), set()
    for r in reqs:
        (written if r.write else read).update(_pages(r, page))
    return len(read), len(written), len(read & written)
