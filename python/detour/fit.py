"""Synthetic profiles that fit the device they run on.

A profile's footprint is calibrated for the device of its paper (HotR's
80 GiB drive, RR-SSD's 16 GiB chips, the collision paper's 1 TB drive),
so on a smaller device most of them would address bytes beyond its
logical space: the run would fold them into it (or stop with "beyond
the logical space" under `host.address = "strict"`; 13 of the 18 did on
`small`), and a folded footprint overlaps itself. `fit_profile` shrinks the footprint to the
device's logical space instead, and the run's summary says so
(`workload.scaled_from_bytes`: the profile's own footprint; null when the
profile ran as written). A footprint set explicitly (`footprint_bytes=`)
is never changed: then the core's fold (or error) stands.

What scaling changes: the same requests, sizes, read ratio and arrival
process over fewer distinct pages, so skewed profiles hit their hot
pages in a larger share of the space and the device fills sooner. For the
paper's own numbers, run a profile on the device it was made for
(`PROFILE_DEVICES`).
"""

from __future__ import annotations

from typing import Optional, Tuple

from . import _detour

#: The presets each built-in profile was calibrated for (docs/workloads.md).
#: Every profile also runs, scaled, on any other preset.
PROFILE_DEVICES = {
    **{p: ("hotr",) for p in ("fin2", "hm", "hpc46", "hpc28")},
    **{p: ("cr5m-ssd1", "cr5m-ssd2", "cr5m-ssd3") for p in ("financial1", "radius9", "atto", "build", "exchange")},
    **{p: ("rr-ssd",) for p in ("webvm", "homes", "mail", "hadoop", "trans", "desktop")},
    **{p: ("collisions",) for p in ("msr-patterned", "msr-random", "msr-hm1", "msr-proj3", "msr-usr1", "msr-web2",
                                    "msr-proj4", "msr-src2-1", "msr-src1-1", "msr-mds1")},
    "bench-like": ("bench-matched",),
}


def fit_profile(cfg: str, spec: dict, overrides: list) -> Tuple[list, Optional[int]]:
    """`(overrides, scaled_from)`: the profile overrides with the footprint
    shrunk to the logical space of config `cfg` when the profile's (`spec`,
    already resolved) exceeds it, and the profile's own footprint then
    (None when nothing changed)."""
    footprint = int(spec.get("footprint_bytes", 0))
    limit = _detour.logical_bytes(cfg)
    if footprint <= limit or any(str(o).split("=", 1)[0].strip() == "footprint_bytes" for o in overrides):
        return overrides, None
    align = int(spec.get("alignment", 4096))
    return [*overrides, f"footprint_bytes={limit // align * align}"], footprint


def note(scaled_from: Optional[int], spec_footprint: int, device: str) -> str:
    """The line `detour run` prints when a footprint was scaled."""
    if scaled_from is None:
        return ""
    gib = 2**30
    return (f"note: the profile's footprint ({scaled_from / gib:,.1f} GiB) exceeds {device}'s logical space: "
            f"scaled to {spec_footprint / gib:,.2f} GiB (summary workload.scaled_from_bytes)")
