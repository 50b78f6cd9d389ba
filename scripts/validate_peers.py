"""The matched benchmark under Detour's default and each peer bundle, side
by side with the peers' own outputs (docs/validation.md).

    .venv/bin/python scripts/validate_peers.py target/bench/t1m.trace [key=value ...]

Runs `bench-matched` on the trace once per bundle (and once per variant in
VARIANTS, which take one setting of a bundle back to show what it does)
and prints markdown tables. The peers' figures are the ones measured with
their own builds (../shared/peers/README.md, 2026-11-24); they are the
targets the table compares with, never an input to a run.
"""

from __future__ import annotations

import sys

import detour

STATS = ("mean", "p50", "p99", "p999")

#: (peer, kind) -> (mean, p50, p99, p99.9), microseconds, from the peers' own runs of t1m
PEERS = {
    ("mqsim", "read"): (223.6, 146.8, 548.7, 627.3),
    ("mqsim", "write"): (625.2, 473.6, 1659.1, 2290.0),
    ("ssdsim", "read"): (203.8, 120.2, 514.8, 583.5),
    ("ssdsim", "write"): (175.1, 53.5, 988.1, 1604.3),
}

#: label -> (compat, extra keys): each takes one rule of a bundle back
VARIANTS = [
    ("none (Detour's default)", "none", []),
    ("mqsim", "mqsim", []),
    ("mqsim, dies independent", "mqsim", ["scheduler.unit=die"]),
    ("mqsim, no host link", "mqsim", ["host.link_gbps=0"]),
    ("mqsim, batches from near the queue's head", "mqsim", ["scheduler.multiplane_scan=near"]),
    ("mqsim, channel first come first served", "mqsim", ["scheduler.channel_order=fcfs"]),
    ("ssdsim", "ssdsim", []),
    ("ssdsim, dies independent", "ssdsim", ["scheduler.unit=die"]),
    ("ssdsim, write done at program", "ssdsim", ["host.write_ack=program"]),
    ("ssdsim, multi-plane reads", "ssdsim", ["scheduler.multiplane_reads=true"]),
    ("ssdsim, no multi-plane", "ssdsim", ["scheduler.multiplane=false"]),
    ("ssdsim, per-die batches", "ssdsim", ["scheduler.chip_program_batches=false"]),
    ("ssdsim, channel first come first served", "ssdsim", ["scheduler.channel_order=fcfs"]),
    ("ssdsim + SSDSim's plane pairing (plane_pairing = level)", "ssdsim", ["scheduler.plane_pairing=level"]),
    ("disksim", "disksim", []),
]


def fmt_row(label: str, lat: dict, peer: tuple | None) -> str:
    cells = []
    for i, k in enumerate(STATS):
        v = lat[k]
        if peer:
            cells.append(f"{v:.1f} ({(v / peer[i] - 1) * 100:+.1f}%)")
        else:
            cells.append(f"{v:.1f}")
    return f"| {label} | " + " | ".join(cells) + " |"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    trace, extra = argv[0], argv[1:]
    results = {}
    for label, compat, keys in VARIANTS:
        r = detour.run("bench-matched", trace=trace, compat=compat, overrides=[*keys, *extra, "run.record_requests=false"])
        results[label] = r.summary["latency_us"]
        print(f"ran {label}", file=sys.stderr)
    for kind in ("read", "write"):
        print(f"\n{kind}s, µs (mean, p50, p99, p99.9; in brackets: against the peer the bundle follows)\n")
        print("| run | mean | p50 | p99 | p99.9 |")
        print("|---|---|---|---|---|")
        for peer in ("mqsim", "ssdsim"):
            print(f"| **{peer} itself** | " + " | ".join(f"{v:.1f}" for v in PEERS[(peer, kind)]) + " |")
        for label, compat, _ in VARIANTS:
            print(fmt_row(label, results[label][kind], PEERS.get((compat, kind))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
