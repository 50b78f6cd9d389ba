"""SSDSim's `ex.out` beside Detour's `requests.parquet`, request by request.

    .venv/bin/python scripts/ssdsim_by_request.py SSDSIM_DIR/ex.out DETOUR_OUT/requests.parquet

What: joins the two on (arrival ns, first sector, sectors, read/write), in
order where several requests share all four, and prints per kind the mean
and the requests per latency bucket of the example's timings: DRAM only
(1 us), one / two / three 2 KiB transfers (51.4 us each), up to 500 us,
over; then the SSDSim latencies of the writes Detour gives exactly
`--at` ns (605,500 by default, the example's cluster; docs/validation.md,
issue 46, h42dyn).

Why: the shipped example's figures (scripts/peer_shipped.py) are means;
where the two differ shows request by request. Detour's side needs
`run.record_requests` (the default of `detour run --out`).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import pyarrow.parquet as pq

BUCKETS = ((2, "dram"), (52, "1 xfer"), (103, "2 xfer"), (155, "3 xfer"), (500, "<=500"), (float("inf"), ">500"))


def bucket(ns: int) -> str:
    return next(name for lim, name in BUCKETS if ns / 1000 <= lim)


def ssdsim_requests(ex_out: Path) -> dict[tuple[int, int, int, int], list[int]]:
    """(arrival, lsn, sectors, op) -> latencies in file order; op 1 is a read."""
    out: dict[tuple[int, int, int, int], list[int]] = {}
    with open(ex_out, encoding="latin-1") as f:
        for line in f:
            p = line.split()
            if len(p) == 7 and p[0].isdigit():
                out.setdefault((int(p[0]), int(p[1]), int(p[2]), int(p[3])), []).append(int(p[6]))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ex_out", type=Path)
    ap.add_argument("requests", type=Path)
    ap.add_argument("--at", type=int, default=605_500, help="Detour write latency (ns) whose SSDSim latencies to list")
    a = ap.parse_args(argv)
    ss = ssdsim_requests(a.ex_out)
    rows = []  # (is_write, sectors, ssdsim ns, detour ns)
    for r in pq.read_table(a.requests).to_pylist():
        key = (r["arrival_ns"], r["offset"] // 512, r["size"] // 512, 0 if r["is_write"] else 1)
        if ss.get(key):
            rows.append((r["is_write"], key[2], ss[key].pop(0), r["latency_ns"]))
    for kind, w in (("reads", False), ("writes", True)):
        rs = [x for x in rows if x[0] == w]
        if not rs:
            continue
        print(
            f"{kind}: {len(rs)}, mean SSDSim {sum(x[2] for x in rs) / len(rs) / 1000:.1f} us, "
            f"Detour {sum(x[3] for x in rs) / len(rs) / 1000:.1f} us"
        )
        for who, i in (("SSDSim", 2), ("Detour", 3)):
            c = collections.Counter(bucket(x[i]) for x in rs)
            print(f"  {who:7}", " / ".join(f"{name} {c[name]}" for _, name in BUCKETS))
    at = [x for x in rows if x[0] and x[3] == a.at]
    print(
        f"Detour writes at {a.at} ns: {len(at)}; sectors {collections.Counter(x[1] for x in at).most_common(3)}; "
        f"SSDSim's latency for them {collections.Counter(x[2] for x in at).most_common(4)}"
    )
    print(f"matched {len(rows)}; left over in ex.out {sum(len(v) for v in ss.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
