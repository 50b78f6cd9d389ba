"""The validation matrix: operating points, their traces, and the peers' runs.

    python3 scripts/peer_matrix.py knees  --mqsim DIR --ssdsim DIR   # find each mix's knee
    python3 scripts/peer_matrix.py peers  --mqsim DIR --ssdsim DIR   # run every point
    .venv/bin/python scripts/peer_matrix_detour.py                   # Detour on the same points

What: every point is a workload (read share, request sizes, address skew,
arrival rate, fresh or aged device) written as a 5-column trace that both
peers read (`time_ns dev sector sectors op`, op 1 = read). The arrival rate
is a share of the peer's own knee for that workload, found by `knees`, so a
sweep spans light load to just below the peer's saturation.

Why: the compat bundles were matched on one point (t1m); a missing or extra
cost shows only when load, mix or device state move (issue 46).

The peers are built outside the repository (docs/validation.md, "The
matrix", says how, with the two patches described in words). Their
outputs, numbers only, go to docs/validation/peers-<peer>.csv, with the
knees in docs/validation/knees.json; everything here is deterministic (fixed
seeds), so a rerun rewrites the same files.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "validation"
CONFIGS = OUT / "peer-configs"
PEERS = ("mqsim", "ssdsim")

#: mix -> (read share, sizes, skew); sizes: "4k" | "mixed" (uniform over
#: 4..64 KiB, t1m's) | "seq" (128 KiB requests, one sequential stream);
#: skew: Zipf exponent over 4 KiB pages (0 = uniform)
MIXES = {
    "r70-mixed-zipf": (0.70, "mixed", 0.9),
    "r95-mixed-zipf": (0.95, "mixed", 0.9),
    "r30-mixed-zipf": (0.30, "mixed", 0.9),
    "r05-mixed-zipf": (0.05, "mixed", 0.9),
    "r50-4k-uniform": (0.50, "4k", 0.0),
    "r90-4k-uniform": (0.90, "4k", 0.0),
    "r70-4k-zipf": (0.70, "4k", 0.9),
    "r70-seq128k": (0.70, "seq", 0.0),
}
LOADS = (0.25, 0.5, 0.75, 0.9)
#: aged points: (mix, load); the device holds stale pages so GC runs
AGED = (("r70-mixed-zipf", 0.25), ("r70-mixed-zipf", 0.75), ("r50-4k-uniform", 0.5))
#: MQSim: Initial_Occupancy_Percentage (its preconditioning brings the
#: device to the workload's steady state); SSDSim: `aged ratio` (make_aged
#: marks that share of each plane's pages invalid). Detour maps them as its
#: importers do (ftl.precondition.valid / .invalid).
AGED_MQSIM_OCC, AGED_SSDSIM_RATIO = 50, 0.93
N_POINT, N_KNEE = 60_000, 10_000
SPACE_GIB, SEED = 16, 46


def points() -> list[dict]:
    """Every operating point: id, mix, load share, aged flag."""
    pts = [{"id": f"{m}@{l:g}", "mix": m, "load": l, "aged": False} for m in MIXES for l in LOADS]
    pts += [{"id": f"{m}@{l:g}-aged", "mix": m, "load": l, "aged": True} for m, l in AGED]
    return pts


def write_trace(path: Path, mix: str, iops: float, n: int, seed: int = SEED) -> None:
    """A Poisson-arrival trace of `mix` at `iops`, ending with a newline (SSDSim drops an unterminated last line)."""
    read_frac, sizes, skew = MIXES[mix]
    rng = np.random.default_rng(seed)
    npages = SPACE_GIB * (1 << 30) // 4096
    t = np.cumsum(rng.exponential(1e9 / iops, n)).astype(np.int64)
    t -= t[0]
    if sizes == "seq":
        size_pages = np.full(n, 32)
        start = (np.concatenate(([0], np.cumsum(size_pages)[:-1])) % (npages - 32)).astype(np.int64)
    else:
        size_pages = np.ones(n, np.int64) if sizes == "4k" else rng.choice([1, 2, 4, 8, 16], n)
        if skew > 0:
            w = 1.0 / np.power(np.arange(1, npages + 1, dtype=np.float64), skew)
            cdf = np.cumsum(w)
            cdf /= cdf[-1]
            start = rng.permutation(npages)[np.searchsorted(cdf, rng.random(n))]
        else:
            start = rng.integers(0, npages, n)
        start = np.minimum(start, npages - size_pages)
    ops = (rng.random(n) < read_frac).astype(np.int8)
    with open(path, "w") as f:
        f.write("".join(f"{a} 0 {s * 8} {z * 8} {o}\n" for a, s, z, o in zip(t, start, size_pages, ops)))


def stats(rows: list[tuple[int, float]], span_ns: float) -> dict:
    """Per-request figures from (is_read, latency_ns) pairs: mean, p50, p99, p99.9 in us, and IOPS."""
    out = {"n": len(rows), "iops": len(rows) / (span_ns / 1e9) if span_ns > 0 else 0.0}
    for kind, flag in (("read", 1), ("write", 0)):
        lat = np.array([v for r, v in rows if r == flag], dtype=np.float64) / 1000.0
        for k, f in (("mean", np.mean), ("p50", lambda a: np.percentile(a, 50)),
                     ("p99", lambda a: np.percentile(a, 99)), ("p999", lambda a: np.percentile(a, 99.9))):
            out[f"{kind}_{k}"] = round(float(f(lat)), 1) if len(lat) else None
    return out


def run_mqsim(exe: Path, trace: Path, aged: bool) -> dict:
    """MQSim on `trace` with the matched config; needs the per-request log patch (MQSIM_REQLOG)."""
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "ssd.xml").write_text((CONFIGS / "mqsim-ssdconfig.xml").read_text().replace("@PRECOND@", str(aged).lower()))
        occ = AGED_MQSIM_OCC if aged else 0
        (d / "wl.xml").write_text((CONFIGS / "mqsim-workload.xml").read_text()
                                  .replace("@OCC@", str(occ)).replace("@TRACE@", str(trace)))
        env = dict(os.environ, MQSIM_REQLOG=str(d / "req.log"))
        subprocess.run([str(exe), "-i", "ssd.xml", "-w", "wl.xml"], cwd=d, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rows, last = [], 0
        for line in open(d / "req.log"):
            op, lat, now = line.split()[:3]  # a copy may log more columns after these
            rows.append((int(op), float(lat)))
            last = max(last, int(now))
    return stats(rows, last - first_arrival(trace))


def run_ssdsim(exe: Path, trace: Path, aged: bool) -> dict:
    """SSDSim on `trace`; it reads page.parameters from its folder and the trace name (< 30 bytes) from stdin."""
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "page.parameters").write_text((CONFIGS / "ssdsim-page.parameters").read_text()
                                           .replace("@AGED@", "1" if aged else "0")
                                           .replace("@AGED_RATIO@", str(AGED_SSDSIM_RATIO)))
        shutil.copy(trace, d / "t.trace")
        # main() returns 1 even on success, so the exit code says nothing
        subprocess.run([str(exe)], cwd=d, input=b"t.trace\n", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rows, last = [], 0
        with open(d / "ex.out") as f:
            next(f)
            for line in f:
                p = line.split()
                if len(p) == 7 and p[0].isdigit():
                    rows.append((int(p[3]), float(p[6])))
                    last = max(last, int(p[5]))
    return stats(rows, last - first_arrival(trace))


def first_arrival(trace: Path) -> int:
    with open(trace) as f:
        return int(f.readline().split()[0])


RUNNERS = {"mqsim": (run_mqsim, "MQSim"), "ssdsim": (run_ssdsim, "ssd")}


def find_knee(peer: str, exe: Path, mix: str, work: Path) -> float:
    """The rate at which the peer saturates on `mix`: rates climb x1.5 from 2,000 IOPS until the mean
    latency of N_KNEE requests exceeds 3x its value at the lightest rate; the knee is then the geometric
    mean of the last rate under and the first over (one bisection step)."""
    run = RUNNERS[peer][0]

    def mean_at(rate: float) -> float:
        tr = work / f"knee-{mix}.trace"
        write_trace(tr, mix, rate, N_KNEE)
        s = run(exe, tr, False)
        print(f"  {peer} {mix} {rate:.0f} IOPS: {s}", file=sys.stderr)
        rm, wm = s["read_mean"] or 0.0, s["write_mean"] or 0.0
        rf = MIXES[mix][0]
        return rf * rm + (1 - rf) * wm

    base = mean_at(2000.0)
    lo, hi = 2000.0, None
    while hi is None and lo < 5e6:
        r = lo * 1.5
        m = mean_at(r)
        print(f"  {peer} {mix} {r:.0f} IOPS: mean {m:.1f} us (light {base:.1f})", file=sys.stderr)
        if m > 3 * base:
            hi = r
        else:
            lo = r
    mid = (lo * hi) ** 0.5
    return mid if mean_at(mid) <= 3 * base else lo


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["knees", "peers", "traces"])
    ap.add_argument("--mqsim", type=Path, help="folder holding the built, patched MQSim")
    ap.add_argument("--ssdsim", type=Path, help="folder holding the built, patched SSDSim (`ssd`)")
    ap.add_argument("--work", type=Path, default=ROOT / "target" / "matrix", help="where traces go")
    ap.add_argument("--only", default="", help="comma-separated peers")
    a = ap.parse_args(argv)
    a.work.mkdir(parents=True, exist_ok=True)
    peers = [p for p in PEERS if getattr(a, p) and (not a.only or p in a.only.split(","))]
    knees_file = OUT / "knees.json"
    knees = json.loads(knees_file.read_text()) if knees_file.exists() else {}
    if a.what == "knees":
        for p in peers:
            exe = getattr(a, p) / RUNNERS[p][1]
            found = {m: round(find_knee(p, exe, m, a.work)) for m in MIXES}
            # re-read: the peers' searches may run side by side, one process each
            knees = json.loads(knees_file.read_text()) if knees_file.exists() else {}
            knees[p] = found
            knees_file.write_text(json.dumps(knees, indent=1, sort_keys=True) + "\n")
        return 0
    for p in (peers if a.what == "peers" else PEERS):
        rows = []
        for pt in points():
            rate = knees[p][pt["mix"]] * pt["load"]
            tr = a.work / f"{p}-{pt['id']}.trace"
            if not tr.exists():
                write_trace(tr, pt["mix"], rate, N_POINT)
            if a.what == "traces":
                continue
            t0 = time.time()
            s = RUNNERS[p][0](getattr(a, p) / RUNNERS[p][1], tr, pt["aged"])
            print(f"{p} {pt['id']}: {time.time() - t0:.1f} s", file=sys.stderr)
            rows.append({"point": pt["id"], "rate_iops": round(rate), **s})
        if rows:
            with open(OUT / f"peers-{p}.csv", "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
