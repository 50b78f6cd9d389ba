#!/usr/bin/env python3
"""Write the demo workload bundled with the package (python/detour/data/demo.trace).

Deterministic: pure Python `random.Random(SEED)`, so every Python 3 writes the
same bytes. Run it from the repository root to regenerate the file:

    python3 python/tools/make_demo_trace.py python/detour/data/demo.trace

The workload, in MQSim/DiskSim ASCII (`time_ns device lba_sectors size_sectors op`,
op 1 = read, 0 = write): 20,000 requests, 70% reads, Poisson arrivals at
10,000 IOPS (about 2 s), 4 KiB-aligned starts over a 256 MiB region with
Zipf(0.9) popularity over 64 KiB extents, sizes 4/8/16/32/64 KiB with
weights 40/20/20/10/10%. It fits the `small` preset with room to spare and
loads the dies enough for reads to queue behind programs.
"""

import bisect
import random
import sys

SEED = 20240611
N = 20_000
IOPS = 10_000.0
READ_FRACTION = 0.70
REGION_PAGES = 256 * 1024 * 1024 // 4096
EXTENT_PAGES = 16  # 64 KiB
ZIPF_S = 0.9
SIZES_KIB = [4, 8, 16, 32, 64]
SIZE_WEIGHTS = [40, 20, 20, 10, 10]


def main(out: str) -> None:
    rng = random.Random(SEED)
    extents = REGION_PAGES // EXTENT_PAGES
    cdf, acc = [], 0.0
    for k in range(1, extents + 1):
        acc += 1.0 / k**ZIPF_S
        cdf.append(acc)
    order = list(range(extents))
    rng.shuffle(order)  # scatter the popular extents over the region
    t = 0.0
    lines = ["# Detour demo workload (MQSim ASCII): written by python/tools/make_demo_trace.py"]
    for i in range(N):
        if i:
            t += rng.expovariate(IOPS / 1e9)
        size_pages = rng.choices(SIZES_KIB, weights=SIZE_WEIGHTS)[0] // 4
        extent = order[bisect.bisect_left(cdf, rng.random() * acc)]
        page = extent * EXTENT_PAGES + rng.randrange(EXTENT_PAGES)
        page = min(page, REGION_PAGES - size_pages)
        op = 1 if rng.random() < READ_FRACTION else 0
        lines.append(f"{int(t)} 0 {page * 8} {size_pages * 8} {op}")
    with open(out, "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "python/detour/data/demo.trace")
