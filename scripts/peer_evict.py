"""MQSim's data cache when it evicts: a small cache, write-hot traces, MQSim beside `detour import mqsim`.

    .venv/bin/python scripts/peer_evict.py --mqsim DIR --peers   # MQSim, then Detour
    .venv/bin/python scripts/peer_evict.py                       # Detour only (MQSim's rows kept)

What: the matrix's MQSim config (docs/validation/peer-configs/mqsim-ssdconfig.xml,
fresh device) with Data_Cache_Capacity = 4 MiB (1,024 pages) and the flow's
Device_Level_Data_Caching_Mode = WRITE_CACHE, on two traces of 30,000
requests at 20,000 IOPS (Poisson), 70% writes over 4,096 pages (16 MiB, four
times the cache): "partial", writes of 1, 2, 4 or 8 sectors inside one page,
and "full", whole-page writes; reads are 4 KiB. Each page is written about
3.4 times a second, so after its first write in a window it is hot (in
MQSim's bloom filter) and stays in DRAM, and the cache fills with hot pages:
from then on a write to a page not cached evicts the least recently used
slot (Data_Cache_Manager_Flash_Advanced::write_to_destage_buffer). MQSim
needs the per-request log patch (docs/validation.md, "The peers' builds").
Writes docs/validation/evict.csv.

Why: no matrix point or shipped example evicts (issue 46).
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peer_matrix as pm

OUT = pm.OUT / "evict.csv"
FIELDS = ("run", "trace", "iops", "read_mean", "read_p50", "read_p99", "write_mean", "write_p50", "write_p99")
N, IOPS, PAGES, SEED, CACHE = 30_000, 20_000.0, 4096, 40, 4 * 2**20


def write_trace(path: Path, partial: bool) -> None:
    """MQSim's trace format (`time_ns dev lba sectors op`, op 1 = read)."""
    rng = np.random.default_rng(SEED)
    t = np.cumsum(rng.exponential(1e9 / IOPS, N)).astype(np.int64)
    t -= t[0]
    page = rng.integers(0, PAGES, N)
    read = rng.random(N) < 0.3
    if partial:
        size = rng.choice([1, 2, 4, 8], N)
        off = (rng.integers(0, 8, N) // size) * size
        size, off = np.where(read, 8, size), np.where(read, 0, off)
    else:
        size, off = np.full(N, 8), np.zeros(N, np.int64)
    with open(path, "w") as f:
        f.write("".join(f"{a} 0 {p * 8 + o} {z} {int(r)}\n" for a, p, o, z, r in zip(t, page, off, size, read)))


def configs(d: Path, trace: Path) -> None:
    xml = (pm.CONFIGS / "mqsim-ssdconfig.xml").read_text().replace("@PRECOND@", "false")
    (d / "ssd.xml").write_text(xml.replace("<Data_Cache_Capacity>268435456<", f"<Data_Cache_Capacity>{CACHE}<"))
    wl = (pm.CONFIGS / "mqsim-workload.xml").read_text().replace("@OCC@", "0").replace("@TRACE@", str(trace))
    (d / "wl.xml").write_text(wl.replace("TURNED_OFF", "WRITE_CACHE"))


def row(run: str, trace: str, s: dict) -> dict:
    return {"run": run, "trace": trace, "iops": round(s["iops"], 1)} | {k: s[k] for k in FIELDS[3:]}


def mqsim(exe: Path, d: Path, trace: Path, name: str) -> dict:
    subprocess.run([str(exe), "-i", "ssd.xml", "-w", "wl.xml"], cwd=d, check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, MQSIM_REQLOG=str(d / "req.log")))
    with open(d / "req.log") as f:
        log = [line.split() for line in f]
    got = [(int(a), float(b)) for a, b, _ in log]
    return row("MQSim", name, pm.stats(got, max(int(n) for _, _, n in log) - pm.first_arrival(trace)))


def detour_run(d: Path, trace: Path, name: str) -> dict:
    import detour

    subprocess.run([sys.executable, "-m", "detour", "import", "mqsim", str(d / "ssd.xml"), str(d / "wl.xml"),
                    "--out", str(d / "imp")], check=True, stdout=subprocess.DEVNULL)
    r = detour.run(str(d / "imp" / "device.toml"), trace=str(trace), format="mqsim", overrides=["run.record_requests=false"])
    lat = r.summary["latency_us"]
    s = {"iops": r.summary["throughput"]["iops"]} | {f"{k}_{q}": round(lat[k][q], 1) for k in ("read", "write")
                                                      for q in ("mean", "p50", "p99")}
    return row("Detour, as imported", name, s)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mqsim", type=Path, help="MQSim's folder (its MQSim binary, with the per-request log)")
    ap.add_argument("--peers", action="store_true", help="run MQSim too (else keep its rows)")
    a = ap.parse_args(argv)
    old = []
    if OUT.exists():
        with open(OUT) as f:
            old = list(csv.DictReader(f))
    rows = [] if a.peers else [r for r in old if r["run"] == "MQSim"]
    with tempfile.TemporaryDirectory() as w:
        for name, partial in (("partial", True), ("full", False)):
            d = Path(w) / name
            d.mkdir()
            trace = d / "t.trace"
            write_trace(trace, partial)
            configs(d, trace)
            if a.peers:
                rows.append(mqsim(a.mqsim / "MQSim", d, trace, name))
            rows.append(detour_run(d, trace, name))
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
