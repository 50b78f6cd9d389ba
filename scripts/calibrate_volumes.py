"""Calibrate the collision paper's MSR volume profiles (msr-hm1, ...) to the
paper's Tables 2 and 3: four generator knobs, each mainly moving one
observable of the *baseline* (the original FTL with collision accounting,
under MQSim's rules as the paper measured them), never the scheme's gain.

    .venv/bin/python scripts/calibrate_volumes.py [msr-hm1 ...] [--iters 14]

Prints, per volume, each knob's value to write into VOLUMES
(crates/detour-core/src/workload/profiles/table.rs) and the target and
reached value of each observable (docs/schemes/collisions.md, "Calibration").

knob            observable               search
rate_per_s      mean_occ                 log-log secant (OCC rises with load)
footprint_pages mean_repetition          log-log secant (fewer pages, more repeats)
zipf_theta      top5pct_pair_share       linear secant
die_skew        reads_rsd                linear secant (>= 0)

All four move at once each iteration, each on its own secant (a diagonal
Newton step); the knobs interact (skew adds repeats, load adds accidental
pairs), so the loop runs until all four are within 5% or the iterations run
out, and keeps the point with the smallest worst relative error.
"""

from __future__ import annotations

import argparse
import math
import sys

from detour.api import run
from detour.reproduce.collisions import VOLUMES

#: observable -> (knob, log-space?, default slope d obs / d knob, bounds)
KNOBS = {
    "mean_occ": ("rate_per_s", True, 1.0, (1e3, 5e6)),
    "mean_repetition": ("footprint_pages", True, -1.0, (64, 4_194_304)),
    "top5pct_pair_share": ("pair_theta", False, 0.3, (0.0, 4.0)),
    "reads_rsd": ("zipf_theta", False, 0.2, (0.0, 3.0)),
}
COMPAT = "mqsim"


def pair_count(pages: int) -> int:
    """As table.rs's `volume`: every other page in a pair, 16..65536."""
    return max(16, min(65536, pages // 4))


def start(name: str) -> dict:
    """The profile's knobs as table.rs has them now."""
    from detour.api import _spec_dict

    s = _spec_dict(name, {})
    return {"rate_per_s": float(s["arrival"]["rate_per_s"]), "footprint_pages": s["footprint_bytes"] // 16384,
            "zipf_theta": float(s["zipf_theta"]), "pair_theta": float(s["pairs"]["theta"])}


def measure(name: str, k: dict) -> dict:
    o = {"arrival.rate_per_s": k["rate_per_s"], "footprint_bytes": int(k["footprint_pages"]) * 16384,
         "pairs.count": pair_count(int(k["footprint_pages"])), "zipf_theta": k["zipf_theta"],
         "pairs.theta": k["pair_theta"]}
    r = run("collisions", profile=name, profile_overrides=o, overrides={"metrics.collisions": True}, compat=COMPAT)
    return r.summary["collisions"]


def tf(obs: str, x: float) -> float:
    return math.log(x) if KNOBS[obs][1] else x


def calibrate(name: str, iters: int, say=print) -> tuple:
    goal = VOLUMES[name]
    k = start(name)
    hist = {o: [] for o in KNOBS}  # (knob, observable) per iteration
    best = None
    for it in range(iters):
        c = measure(name, k)
        err = {o: c[o] / goal[o] - 1 for o in KNOBS}
        worst = max(abs(e) for e in err.values())
        say(f"{name} it {it}: " + ", ".join(f"{KNOBS[o][0]}={k[KNOBS[o][0]]:.4g} {o}={c[o]:.4g} ({err[o]:+.1%})"
                                            for o in KNOBS))
        if best is None or worst < best[0]:
            best = (worst, dict(k), {o: c[o] for o in KNOBS})
        if worst < 0.05:
            break
        for o, (knob, logs, slope, (lo, hi)) in KNOBS.items():
            x, y = tf(o, k[knob]), tf(o, c[o])
            hist[o].append((x, y))
            if len(hist[o]) >= 2:
                (x0, y0), (x1, y1) = hist[o][-2], hist[o][-1]
                if abs(x1 - x0) > 1e-9 and (y1 - y0) / (x1 - x0) * slope > 0:
                    slope = (y1 - y0) / (x1 - x0)
            step = (tf(o, goal[o]) - y) / slope
            step = max(-1.0, min(1.0, step)) if logs else max(-0.5, min(0.5, step))
            nx = x + step
            nx = math.exp(nx) if logs else nx
            k[knob] = min(hi, max(lo, nx))
        k["footprint_pages"] = int(round(k["footprint_pages"] / 16) * 16)
    return goal, best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("volumes", nargs="*")
    ap.add_argument("--iters", type=int, default=14)
    a = ap.parse_args(argv)
    names = a.volumes or list(VOLUMES)
    out = []
    for n in names:
        goal, (worst, k, got) = calibrate(n, a.iters)
        out.append((n, goal, k, got))
    print("\n| volume | knob | value | target | reached |\n|---|---|---|---|---|")
    for n, goal, k, got in out:
        for o, (knob, *_rest) in KNOBS.items():
            print(f"| {n} | {knob} | {k[knob]:.6g} | {o} {goal[o]:g} | {got[o]:.4g} ({got[o] / goal[o] - 1:+.1%}) |")
    print("\nVOLUMES knobs:")
    for n, goal, k, got in out:
        print(f"{n}: rate_per_s: {k['rate_per_s']:.1f}, footprint_pages: {int(k['footprint_pages'])}, "
              f"pair_theta: {k['pair_theta']:.4f}, zipf_theta: {k['zipf_theta']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
