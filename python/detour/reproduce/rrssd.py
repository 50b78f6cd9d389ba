"""RR-SSD (rr-1..rr-12): content-popularity replication on a deduplicating
SSD (CA-SSD), with Oracle, Random, Static, PBLRU and on-line placement, on
the paper's Table II device (preset `rr-ssd`)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict

import numpy as np

from ..plots import grid, labels, scheme_style
from .base import Context, Run, Runs, Section, change, mean, nearest_rank, per_item, saturated
from .rrssd_fig2 import PROBE_US, _chip_window, _max_over_min, binned, fig2_ratio, rr2  # noqa: F401 (re-exported for tests)
from .rrssd_fig4 import PAPER_TOP80, Fig4, calibrate_cached, rr4
from .rrssd_readings import READING, reading_set

TITLE = "RR-SSD: content-popularity selective replication (rr-1..rr-12)"
PAPER_FILE = "rr-ssd-content-popularity-replication.txt"
PROFILES = ["webvm", "homes", "mail", "hadoop", "trans", "desktop"]
SOURCE = "RR-SSD Table III"
#: The synthetic FIU/OSU profiles scale a day to 60 s of trace time; a real
#: trace's day is a day.
PROFILE_DAY_S, TRACE_DAY_S = 60.0, 86_400.0
#: Arrivals compressed 20x (and the day with them): at the profiles' own
#: ~2,000 req/s the 256-die device barely queues and every scheme is within
#: 5% of CA-SSD (docs/schemes/rr-ssd.md); the paper's device queues heavily
#: (rr-1: queueing is 80-90% of write time). The gains depend on this choice.
SCALE = 0.05
INTRO = ("Device: the `rr-ssd` preset (Table II: 8 channels x 8 chips x 4 dies x 2 planes, 4 KiB pages, 75/400/3800 us, "
         "ONFI 533 MT/s, 12 us hashing per written page). Baseline: CA-SSD (`ca-ssd`). Every run in verify mode. "
         f"Arrivals compressed {1 / SCALE:.0f}x (host.time_scale = {SCALE}), the day with them, so the device queues "
         "as the paper's does; replication at the end of each day, budget = the space deduplication saved (alpha = 0) "
         "unless said; copies made on the paper's mirror SSD (their cost reported, not simulated). --quick runs "
         "3 of the profiles' 7 days.")
#: (column, scheme, extra config)
SCHEMES = [("ca-ssd", "ca-ssd", {}), ("rr-ssd", "rr-ssd", {}), ("oracle", "oracle", {}),
           ("random", "rr-ssd", {"scheme.dedup.placement": "random"}),
           ("static", "rr-ssd", {"scheme.dedup.placement": "static"}),
           ("online", "rr-ssd", {"scheme.dedup.placement": "online"}), ("pblru", "pblru", {})]
#: The paper's numbers (EXPERIMENTS.md section 1; Tables I, IV, V).
PAPER_TABLE4 = {  # read RR, total RR, read Oracle, total Oracle (%)
    "webvm": (23.43, 15.71, 26.60, 19.07), "homes": (35.11, 16.89, 45.21, 17.71), "mail": (45.37, 40.26, 57.61, 48.05),
    "hadoop": (11.70, 9.55, 22.73, 19.38), "trans": (19.97, 11.01, 37.23, 21.59), "desktop": (7.83, 5.11, 17.05, 11.95)}
PAPER_TABLE5 = {"webvm": 9.27, "mail": 12.39, "homes": 11.41, "hadoop": 12.16, "trans": 9.87, "desktop": 6.19}
PAPER_TABLE1 = {"mail": (160.9, 7.96, 1253.2, 62.01), "homes": (5.6, 0.28, 39.4, 1.95), "webvm": (2.2, 0.11, 17.2, 0.85)}
#: Why gains differ from the paper's in either direction (docs/schemes/rr-ssd.md).
LOAD = (f"How much replication gains depends on the load (arrivals compressed {1 / SCALE:.0f}x here) and on how "
        "often the profiles' values are read again the next day.")
ALPHAS = [0.0, 10.0, 20.0, 30.0]
NAN = float("nan")
#: The paper's experiment ids (each gets a verdict).
ROWS = [f"rr-{i}" for i in range(1, 13)]
#: An aged device that the footprint fills: the Table II geometry with 16
#: blocks per plane (8 GiB instead of 1 TiB), half the logical space valid,
#: worn by one device's worth of random overwrites with GC (so erase counts,
#: E, differ between blocks and chips), then collected until each plane
#: holds HEADROOM blocks above its GC trigger, as idle-time GC leaves a used
#: device. Filling to the GC trigger instead (the first design) left the
#: replicas no room: every copy opened a block that took a plane to its
#: trigger and GC landed on the host's path, which the paper's 1 TiB device
#: never sees (docs/schemes/rr-ssd.md). HEADROOM comes from CA-SSD's own
#: figures, not RR-SSD's: the largest budget (space deduplication saved,
#: 144 K pages, mail) plus one day's CA-SSD flash writes (77 K pages,
#: trans) is 1.7 blocks per plane; one more block for the copies' own
#: write stream makes 3. Over-provisioning 20% (the preset's 7% leaves 1.1
#: spare blocks a plane at 16 blocks, which GC cannot work in once the
#: logical space fills: Detour refuses such a device, issue 50) leaves 3.2.
HEADROOM = 3
AGED = {"device.blocks_per_plane": 16, "device.overprovisioning": 0.2, "ftl.precondition.valid": 0.5,
        "ftl.precondition.wear": 1.0, "ftl.precondition.headroom_blocks": HEADROOM}
#: The paper's Ideal-All-Chip Replication (Sec. I, Fig. 3): a conventional
#: SSD whose every page is on every chip at no cost, each read served by
#: the least-loaded chip; Oracle without deduplication or hashing.
IDEAL_ALL_CHIP = {"scheme.dedup.deduplicate": False, "scheme.dedup.hash_us": 0.0}
#: Calibration: the peak-to-mean ratio of on/off arrivals (the profiles'
#: mean rate and length kept, so their days stay days), on two baseline
#: figures at once (issue 49): Table III's CA-SSD read speedup over the
#: conventional SSD (per workload, the target), keeping the conventional
#: SSD's read queueing inside Fig. 1's 25-77% (every point outside is passed
#: over). Where no point inside the range reaches Table III's figure, the
#: point inside nearest it (docs/reproduce.md, "Grounding").
KNOB = "burst"
CAL_REQUESTS = 60000
#: Grounded within 10%, as the grounding table counts it (issue 49).
CAL_TOL = 0.10


def _conv_read_queue_share(sums: List[dict]) -> float:
    """The conventional SSD's (the first run's) read queueing share, %."""
    b = sums[0]["breakdown_us"]["read"]
    return b["queue"] / max(sum(b.values()), 1e-9) * 100


def read_queue_share(device: str = "rr-ssd", extra: Optional[Dict[str, Any]] = None):
    """rr-1 (Fig. 1): on the conventional SSD, queueing is 25-77% of read
    service time: the baseline's figure, never RR-SSD's. The search stops
    inside that range (51%, its middle, is the nominal target)."""
    from ..calibrate import Observable

    return Observable("read queueing %", 51.0, "RR-SSD Sec. I / Fig. 1: queueing is 25-77% of the conventional SSD's "
                      "read service time", [(device, "conventional", dict(extra or {}))], _conv_read_queue_share,
                      band=(25.0, 77.0))


def ca_read_speedup(profile: str, device: str = "rr-ssd", extra: Optional[Dict[str, Any]] = None):
    """Table III: CA-SSD's read speedup over the conventional SSD (the
    baseline against a conventional SSD, no replication in either), read as
    conventional / CA-SSD - 1 (TABLE3), the target; Fig. 1's read queueing
    range is kept (`Observable.keep`)."""
    from ..calibrate import Observable

    def speedup(sums: List[dict]) -> float:
        conv, ca = (float(x["latency_us"]["read"]["mean"]) for x in sums)
        return (conv / max(ca, 1e-9) - 1.0) * 100

    lo, hi = read_queue_share().band or (25.0, 77.0)
    return Observable("CA-SSD read speedup over conventional %", float(TABLE3[profile][1]),
                      "RR-SSD Table III: Imp. by CA-SSD, RD (read as a speedup), keeping Fig. 1's 25-77% read queueing",
                      [(device, "conventional", dict(extra or {})), (device, "ca-ssd", dict(extra or {}))], speedup,
                      keep=("conventional read queueing %", _conv_read_queue_share, (lo, hi)))


class PerWorkload(TypedDict):
    """`Section.measured`'s keyword arguments `paper`, `ours` and `items`."""

    paper: Dict[str, float]
    ours: Dict[str, float]
    items: Dict[str, str]


def _per_workload(paper: Dict[str, float], ours: Dict[str, float], what: str) -> PerWorkload:
    """`Section.measured`'s paper, ours and items for a figure the paper
    gives per workload: one measure "<what> (<workload>)" per workload both
    have, each judged as an item (reproduced when most are)."""
    measures, ours_measures, items = per_item(paper, ours, what)
    return {"paper": measures, "ours": ours_measures, "items": items}


#: Fig. 4's calibrated read popularity per profile (set by `experiments`).
FIG4: Dict[str, Fig4] = {}


def profile_set(name: str) -> Dict[str, Any]:
    """Every override a profile runs with: Table III's read column in
    READING, and Fig. 4's calibrated read popularity where it has one."""
    return {**reading_set(name), **(FIG4[name].knobs if name in FIG4 else {})}


def experiments(ctx: Context) -> List[Section]:
    global _T0_NS
    day = TRACE_DAY_S if ctx.traces else PROFILE_DAY_S
    FIG4.clear()
    if not ctx.traces:
        FIG4.update(calibrate_cached(ctx, PROFILES, day, {p: reading_set(p) for p in PROFILES}))
    extra = {"duration_s": 3 * PROFILE_DAY_S} if ctx.quick else {}
    w = ctx.workloads(PROFILES, quick_requests=None, full_requests=None, extra=extra or None)
    for x in w:
        if "profile" in x:
            x["set"] = {**x.get("set", {}), **profile_set(x["profile"])}
    base = {"host.time_scale": SCALE, **AGED}
    for p in PROFILES if not ctx.traces else []:
        ctx.calibrate([p], ca_read_speedup(p, extra=base), KNOB, requests=CAL_REQUESTS,
                      profile_overrides=profile_set(p) or None, tol=CAL_TOL)
    w = ctx.at_load(w)
    desc = ctx.describe(PROFILES, SOURCE) + (f"; Table III's read column read as {READING} (content.read_unique = "
                                             + ", ".join(f"{p} {reading_set(p)['content.read_unique']:g}" for p in PROFILES)
                                             + ")" if not ctx.traces else "")
    if ctx.calibrations:
        lo, hi = read_queue_share().band
        desc += (f"; burstiness calibrated on Table III's CA-SSD read speedup over the conventional SSD, every point "
                 f"keeping the conventional SSD's reads queueing {lo:g}-{hi:g}% of their time (rr-1's range)")
    _T0_NS = day * SCALE * 1e9
    fixed = {**base, "scheme.dedup.period_s": day * SCALE, "run.verify": True}
    cols = {col: ctx.sweep(f"rrssd-{col}", w, ["rr-ssd"], [scheme], fixed={**fixed, **more}) for col, scheme, more in SCHEMES}
    conv = ctx.sweep("rrssd-conventional", w, ["rr-ssd"], ["conventional"], fixed={**fixed, "probes.interval_us": PROBE_US})
    ideal = ctx.sweep("rrssd-ideal", w, ["rr-ssd"], ["oracle"], fixed={**fixed, **IDEAL_ALL_CHIP})
    names = list(dict.fromkeys(r.workload for r in conv))
    weekly = ctx.sweep("rrssd-weekly", w, ["rr-ssd"], ["rr-ssd"], fixed={**fixed, "scheme.dedup.period_s": 7 * day * SCALE})
    # rr-5 measures what one replication window copies, on the paper's device:
    # the aged one's capacity guard skips a week's copies (see rr5).
    paper_dev = {k: v for k, v in fixed.items() if k not in AGED}
    cost = {period: ctx.sweep(f"rrssd-cost-{period}", w, ["rr-ssd"], ["rr-ssd"],
                              fixed={**paper_dev, "scheme.dedup.period_s": days * day * SCALE})
            for period, days in (("daily", 1), ("weekly", 7))}
    alpha_w = [x for x in w if x.get("label") in ("hadoop", "trans")] or w
    alpha = ctx.sweep("rrssd-alpha", alpha_w, ["rr-ssd"], ["rr-ssd"], fixed=fixed,
                      grid={"scheme.dedup.alpha_pct": ALPHAS[1:]})
    every = [r for runs in [*cols.values(), conv, ideal, weekly, *cost.values(), alpha] for r in runs]
    # A workload with any saturated run is left out of every row judged on
    # runs (its numbers are the device's throughput); rr-4 reads the profiles.
    sat = sorted({r.workload for r in every if saturated(r)})
    keep = [n for n in names if n not in sat]
    by = {n: {col: runs.one(workload=n) for col, runs in cols.items()} for n in keep}
    cv = {n: conv.one(workload=n) for n in keep}
    ideal_all = {n: ideal.one(workload=n) for n in keep}
    if not keep:
        return [_saturated_row(rid, sat) for rid in ROWS]
    sections = [rr1(cv, desc, bool(ctx.calibrations)), rr2(cv, desc, day), rr3(by, cv, ideal_all, desc),
                rr4(ctx, names, day, desc, profile_set, READING, FIG4), rr5(by, weekly, cost, desc), rr6(by, desc), rr7(by, desc),
                rr8(by, alpha, desc), rr9(by, desc), rr10(by, desc), rr11(by, desc), rr12(by, desc)]
    sections.insert(0, grounding(ctx, by, cv, sections[3], desc))
    for sec in sections:
        if sat and sec.id != "rr-4" and sec.claim is not None:
            sec.claim.saturated = sat
            sec.notes.append("Saturated, left out of this table and its verdict: " + ", ".join(sat) + ".")
    errors = sum(int(r.summary["verify_errors"]) for r in every)
    gc = {n: int(cv[n].summary["gc"]["erases"]) for n in keep}
    sections[0].notes.append(f"Verify mode over all {len(every)} runs: "
                             f"{errors} errors (Oracle's stand-in reads of imaginary copies are not checked).")
    sections[0].notes.append("Aged device (" + ", ".join(f"{k} = {v}" for k, v in AGED.items()) + "): blocks erased by "
                             "GC on the conventional SSD: " + ", ".join(f"{n} {v}" for n, v in gc.items()) + ".")
    return sections


#: Table III per workload: WR %, and CA-SSD's improvement over the conventional SSD in read and write
#: response time (%). The improvements reach 300% (desktop's reads), which no reduction can: read as
#: conventional / CA-SSD - 1, a speedup in percent.
TABLE3 = {"webvm": (77, 49, 75), "homes": (96, 71, 89), "mail": (77, 53, 61), "hadoop": (30, 100, 150),
          "trans": (55, 82, 100), "desktop": (42, 300, 200)}


def grounding(ctx: Context, by: Dict, cv: Dict, rr4_section: Section, desc: str) -> Section:
    """Every baseline figure RR-SSD prints (Table III per workload, Fig. 4's
    value popularity, Fig. 1's read queueing range), beside the baselines'
    (CA-SSD's, and the conventional SSD's for Table III's CA-SSD gain)."""
    from .grounding import Figure, given, section, write_share

    figs = []
    top80 = {r[0]: r[1] for r in rr4_section.rows}
    for n in by:
        ca, conv = by[n]["ca-ssd"], cv[n]
        if n in TABLE3:
            wr, rd, wg = TABLE3[n]
            figs.append(Figure(n, "write share %", "Table III", wr, write_share(ca), given(ctx, "read_ratio")))
            cal = ctx.calibrations.get(n)
            figs.append(Figure(n, "CA-SSD read speedup over conventional %", "Table III", rd,
                               (conv.lat("read") / ca.lat("read") - 1) * 100,
                               f"calibrated: burst x{cal.factor:.3g}" + ("" if cal.within else " (nearest inside "
                                                                          "Fig. 1's range)") if cal else "-"))
            figs.append(Figure(n, "CA-SSD write speedup over conventional %", "Table III", wg,
                               (conv.lat("write") / ca.lat("write") - 1) * 100, "-"))
        if n in PAPER_TOP80:
            f4 = FIG4.get(n)
            figs.append(Figure(n, "values serving 80% of reads %", "Fig. 4", PAPER_TOP80[n], top80.get(n, NAN),
                               (f"calibrated: {f4.knob_text()}" + (f" (out of reach: at least {f4.bound:.3g}% with "
                                "Table III's read_unique)" if f4.bound >= f4.target else "")) if f4 else
                               given(ctx, "read_unique, zipf (Table III read as " + READING + ")")))
        b = conv.summary["breakdown_us"]["read"]
        cal = ctx.calibrations.get(n)
        figs.append(Figure(n, "conventional read queueing %", "Fig. 1 (25-77%: the middle)", 51.0,
                           b["queue"] / max(sum(b.values()), 1e-9) * 100,
                           f"kept in range by the calibration: burst x{cal.factor:.3g}" if cal else "-",
                           band=(25.0, 77.0)))
    return section(figs, desc, [
        "Table III's CA-SSD gains are the baseline's own figure (CA-SSD against a conventional SSD, no "
        "replication), so they say whether our CA-SSD and load stand for the paper's: the paper's deduplication "
        "removes most read queueing (49-300%), ours far less where the row misses. Fig. 1's read queueing is a "
        "range; a profile inside it is on target (the calibration keeps every point inside).",
        "Burst is calibrated on the CA-SSD read speedup, every point keeping Fig. 1's range, and the read "
        "popularity knobs (read_theta, read_pool) on Fig. 4 (rr-4). Under SSDSim's rules reads go before writes, "
        "so a read waits for at most one program in progress and its batch's transfers (GC aside): deduplication, "
        "which removes the share 1 - u of programs (u: Table III's unique writes), can speed reads up by at most "
        "(t_r + P) / (t_r + u P) - 1 with t_r = 83 us (read and transfer) and P = 462 us (a 400 us program and "
        "eight 7.7 us transfers), whatever the load: webvm 97, homes 41, mail 354, hadoop 44, trans 24, desktop 27% "
        "(paper 49, 71, 53, 100, 82, 300: four out of reach; "
        "docs/reproduce.md). The rows missed here "
        "are the ones the scheme rows that rest on them should be read against."])


def _saturated_row(rid: str, sat: List[str]) -> Section:
    """A row with every workload left out: its verdict is `saturated`."""
    s = Section(rid, rid, "", "every workload's runs saturated")
    s.measured(saturated=sat)
    return s


#: Where the first period with replicas starts, ns of simulated time (set per run of `experiments`).
_T0_NS = 0.0
_CACHE: Dict[str, Any] = {}


def _cols(run) -> Dict[str, np.ndarray]:
    key = str(run.dir)
    if key not in _CACHE:
        t = run.columns(["arrival_ns", "latency_ns", "is_write", "warmup"])
        _CACHE[key] = {n: t.column(n).to_numpy(zero_copy_only=False) for n in t.column_names}
    return _CACHE[key]


def steady(run, kind: str = "read", stat: str = "mean") -> float:
    """A latency statistic (µs) over the measured requests that arrived from
    the first period with replicas on (day 1: day 0 has none, every
    placement equals CA-SSD that day)."""
    c = _cols(run)
    keep = (~c["warmup"]) & (c["arrival_ns"] >= _T0_NS)
    if kind == "read":
        keep &= ~c["is_write"]
    elif kind == "write":
        keep &= c["is_write"]
    lat = c["latency_ns"][keep] / 1e3
    if not len(lat):
        return NAN
    return float(lat.mean()) if stat == "mean" else nearest_rank(lat, float(stat.lstrip("p")))


def tail_write_share(run, q: float = 99.0) -> float:
    """Writes' share (%) of the requests from day 1 at or above the p`q`
    of all of them: which requests form the all-request tail rr-11 judges."""
    c = _cols(run)
    keep = (~c["warmup"]) & (c["arrival_ns"] >= _T0_NS)
    lat, wr = c["latency_ns"][keep], c["is_write"][keep]
    if not len(lat):
        return NAN
    top = lat >= nearest_rank(lat, q)
    return float(wr[top].mean() * 100)


def _gain(run, base, kind: str = "read") -> float:
    """Improvement over `base` from day 1, %."""
    return -change(steady(run, kind), steady(base, kind))


def _read_gain(run, base) -> float:
    return -change(run.lat("read"), base.lat("read"))


def rr1(cv: Dict, desc: str, calibrated: bool = False) -> Section:
    rows = []
    for n, r in cv.items():
        b = r.summary["breakdown_us"]
        for kind in ("read", "write"):
            tot = sum(b[kind].values()) or 1.0
            rows.append([n, kind, b[kind]["queue"] / tot * 100, b[kind]["bus"] / tot * 100,
                         b[kind]["array"] / tot * 100, tot])
    s = Section("rr-1", "Service-time breakdown, conventional SSD", "queueing is 80-90% of write time and 25-77% of read time",
                desc, ["workload", "requests", "queueing %", "channel transfer %", "flash op %", "mean us"], rows)
    wq = [r[2] for r in rows if r[1] == "write"]
    rq = [r[2] for r in rows if r[1] == "read"]
    # The paper gives ranges over its workloads; the rule compares their midpoints with our means.
    s.measured({"write queueing % (range midpoint)": 85.0, "read queueing % (range midpoint)": 51.0},
               {"write queueing % (range midpoint)": mean(wq), "read queueing % (range midpoint)": mean(rq)},
               calibrated=["read queueing % (range midpoint)"] if calibrated else [],
               why="The breakdown follows each request's critical path; how much is queueing depends on the load "
                   f"(arrivals compressed {1 / SCALE:.0f}x)." + (" The read share is an input of the calibration (each "
                   "profile's burstiness is chosen among points where it falls in 25-77%): shown, not judged." if calibrated else ""))
    s.notes.append(f"Queueing: {min(wq):.0f}-{max(wq):.0f}% of write time, {min(rq):.0f}-{max(rq):.0f}% of read time "
                   "(the breakdown follows each request's critical path: docs/results.md).")
    return s


def rr3(by: Dict, cv: Dict, ideal: Dict, desc: str) -> Section:
    rows = [[n, -change(ideal[n].lat("read"), cv[n].lat("read")), -change(ideal[n].lat("all"), cv[n].lat("all")),
             -change(by[n]["oracle"].lat("read"), cv[n].lat("read")), -change(by[n]["oracle"].lat("all"), cv[n].lat("all"))]
            for n in by]
    s = Section("rr-3", "Ideal-All-Chip replication vs the conventional SSD, improvement %",
                "read -17..-57% (mean -38.4%), total -12..-48% (mean -25.3%)", desc,
                ["workload", "read improvement %", "total improvement %", "Oracle on CA-SSD: read %",
                 "Oracle on CA-SSD: total %"], rows)
    s.measured({"read improvement % (mean)": 38.4, "total improvement % (mean)": 25.3},
               {"read improvement % (mean)": mean(r[1] for r in rows), "total improvement % (mean)": mean(r[2] for r in rows)},
               why="Ideal-All-Chip is the conventional SSD with every page on every chip at no cost, each read served "
                   "by the least-loaded chip (oracle with scheme.dedup.deduplicate = false, hash_us = 0). " + LOAD)
    s.notes.append(f"Mean read improvement {mean(r[1] for r in rows):.1f}% (paper 38.4%), total "
                   f"{mean(r[2] for r in rows):.1f}% (paper 25.3%). Ideal-All-Chip as the paper defines it (Sec. I, "
                   "Fig. 3): the conventional SSD's writes, reads from the least-loaded chip. The last two columns are "
                   "Oracle over CA-SSD, whose gain includes deduplication's fewer writes.")
    return s


def _first_window(r: Run) -> float:
    return (r.summary.get("periods") or [{}])[0].get("copies_made", 0)


def rr5(by: Dict, weekly: Runs, cost: Dict[str, Runs], desc: str) -> Section:
    """Judged on the paper's device (4 GiB on 1 TiB: space never stops a
    copy), as the paper measured it. On the aged device the capacity guard
    skips copies once a week's writes have used the head-room above the GC
    trigger, which measures the guard, not a window's work; its counts stay
    as the last two columns."""
    rows = []
    for r in (r for r in cost["weekly"] if r.workload in by):
        n = r.workload
        copy_us = r.counter("rrssd.copy_us", 0.0)
        day0, week0 = _first_window(cost["daily"].one(workload=n)), _first_window(r)
        paper = PAPER_TABLE1.get(n, (NAN,) * 4)
        aged = (_first_window(by[n]["rr-ssd"]) / 1e3, _first_window(weekly.one(workload=n)) / 1e3)
        rows.append([n, day0 / 1e3, day0 * copy_us / 6e7, week0 / 1e3, week0 * copy_us / 6e7, *paper, *aged])
    # Scale-free: how much more the first weekly window copies than the first daily one.
    more = {r[0]: change(r[3], r[1]) for r in rows}
    paper_more = {n: change(p[2], p[0]) for n, p in PAPER_TABLE1.items()}
    s = Section("rr-5", "Replication cost of the first daily and the first weekly window (K copies, minutes)",
                "mail 160.9 K copies / 7.96 min daily vs 1253.2 K / 62 min weekly", desc,
                ["workload", "daily K", "daily min", "weekly K", "weekly min", "paper daily K", "paper daily min",
                 "paper weekly K", "paper weekly min", "aged device: daily K", "aged device: weekly K"], rows)
    s.measured(**_per_workload(paper_more, more, "weekly vs daily copies %"),
               why="--quick runs 3 days, so its weekly window holds 3 days' reads; on a full run the profiles' "
                   "values are mostly read once a day, so a week's window finds fewer new values per day than the "
                   "paper's traces do.")
    s.notes.append("A copy costs read + 2 channel transfers + program, one at a time (490 us on this device); the "
                   "paper's Table I implies about 2.97 ms per copy. Measured on the paper's device (no aging: the "
                   "footprint is 0.4% of it), where space never stops a copy; the last two columns are the aged "
                   "device's, where the capacity guard skips the copies that would take a plane to its GC trigger "
                   "once a week's writes have used the head-room. The single weekly window ends with the run.")
    return s


def rr6(by: Dict, desc: str) -> Section:
    # One panel per workload (RR-SSD and Oracle by day, as the paper's
    # figure), wrapped three to a row.
    rows, (fig, axes) = [], grid(len(by), ncols=3, panel=(3.6, 2.7))
    for ax, (n, d) in zip(axes, by.items()):
        ca, rr, orc = (d[k].summary.get("periods") or [] for k in ("ca-ssd", "rr-ssd", "oracle"))
        for a, b, c in zip(ca, rr, orc):
            if a["read_mean_us"] and a["reads"]:
                g_rr = -change(b["read_mean_us"], a["read_mean_us"])
                g_or = -change(c["read_mean_us"], a["read_mean_us"])
                rows.append([n, int(a["period"]), g_rr, g_or, b["rep_share"] * 100, b["new_share"] * 100])
        mine = [r for r in rows if r[0] == n]
        for col, name in ((2, "RR-SSD"), (3, "Oracle")):
            ax.plot([r[1] + 1 for r in mine], [r[col] for r in mine], marker="o", label=name, **scheme_style(name))
        labels(ax, n, "day", "read improvement (%)")
        ax.xaxis.get_major_locator().set_params(integer=True)  # days are whole
    fig.suptitle("rr-6: read improvement over CA-SSD, per day")
    if axes:
        fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper")
    s = Section("rr-6", "Per-day read improvement over CA-SSD, with Rep and New shares",
                "RR-SSD near 90% of Oracle for mail, homes, webvm", desc,
                ["workload", "day", "RR-SSD %", "Oracle %", "Rep % (reads of replicated values)", "New % (new values)"], rows)
    s.figures.append(("rr-6", fig))
    share = {n: _gain(d["rr-ssd"], d["ca-ssd"]) / _gain(d["oracle"], d["ca-ssd"]) * 100
             if _gain(d["oracle"], d["ca-ssd"]) > 0 else NAN for n, d in by.items()}
    s.notes.append("Day 0 has no replicas (RR-SSD equals CA-SSD that day); the claim is judged on the days after it: "
                   + ", ".join(f"{n} {v:.0f}% of Oracle" for n, v in share.items()) + ".")
    s.measured(**_per_workload({n: 90.0 for n in ("mail", "homes", "webvm")}, share, "RR-SSD gain / Oracle gain %"),
               why="Read gains over CA-SSD from day 1 (steady state: day 0 has no replicas). How close RR-SSD gets "
                   "depends on how many of a day's reads are of values read the day before (Rep) and on the budget.")
    return s


def rr7(by: Dict, desc: str) -> Section:
    rows = []
    for n, d in by.items():
        ca = d["ca-ssd"]
        paper = PAPER_TABLE4.get(n, (NAN,) * 4)
        rows.append([n, _gain(d["rr-ssd"], ca), paper[0], _gain(d["oracle"], ca), paper[2],
                     _gain(d["rr-ssd"], ca, "all"), paper[1], _read_gain(d["rr-ssd"], ca), _read_gain(d["oracle"], ca)])
    s = Section("rr-7", "Improvement over CA-SSD (Table IV), %, from day 1 (whole run, cold start included, at the right)",
                "read: webvm 23.4, homes 35.1, mail 45.4, hadoop 11.7, trans 20.0, desktop 7.8; Oracle 26.6, 45.2, "
                "57.6, 22.7, 37.2, 17.1", desc,
                ["workload", "RR-SSD read", "paper", "Oracle read", "paper Oracle", "RR-SSD total", "paper total",
                 "RR-SSD read, whole run", "Oracle read, whole run"], rows)
    # Table IV is per workload: a workload is one item, judged on RR-SSD's and Oracle's read gains together.
    a = _per_workload({n: p[0] for n, p in PAPER_TABLE4.items()}, {r[0]: r[1] for r in rows}, "RR-SSD read %")
    b = _per_workload({n: p[2] for n, p in PAPER_TABLE4.items()}, {r[0]: r[3] for r in rows}, "Oracle read %")
    s.measured({**a["paper"], **b["paper"]}, {**a["ours"], **b["ours"]}, items={**a["items"], **b["items"]},
               why="Judged from day 1 (the paper's Table IV covers days with replicas; day 0 has none). " + LOAD)
    return s


def rr8(by: Dict, alpha: Runs, desc: str) -> Section:
    rows = []
    for n in (n for n in dict.fromkeys(r.workload for r in alpha) if n in by):
        ca, rr0 = by[n]["ca-ssd"], by[n]["rr-ssd"]
        rows.append([n, 0.0, _gain(rr0, ca), rr0.counter("rrssd.copies_made")])
        for r in alpha.select(workload=n):
            rows.append([n, r.grid("scheme.dedup.alpha_pct"), _gain(r, ca), r.counter("rrssd.copies_made")])
    best = {n: max(r[2] for r in rows if r[0] == n) for n in dict.fromkeys(r[0] for r in rows)}
    s = Section("rr-8", "Read improvement from day 1 vs replication space (alpha, % of the footprint beyond the saved space)",
                "saturates near 20% at ~25% / ~33% (hadoop, trans)", desc,
                ["workload", "alpha %", "read improvement %", "copies"], rows)
    s.measured(**_per_workload({"hadoop": 25.0, "trans": 33.0}, best, "best read improvement over alpha %"),
               why=LOAD)
    return s


def rr9(by: Dict, desc: str) -> Section:
    rows = [[n, _gain(d["rr-ssd"], d["ca-ssd"]), _gain(d["random"], d["ca-ssd"]),
             _gain(d["static"], d["ca-ssd"]), _gain(d["pblru"], d["ca-ssd"])] for n, d in by.items()]
    s = Section("rr-9", "Placement with the same copy counts and space: read improvement over CA-SSD from day 1, %",
                "RR-SSD about 2x Random/Static; PBLRU between", desc,
                ["workload", "RR-SSD (S/(E x Pop))", "Random", "Static", "PBLRU"], rows)
    rr_g, rs_g = mean(r[1] for r in rows), mean((r[2] + r[3]) / 2 for r in rows)
    # RR-SSD "about 2x" Random/Static = +100%; a Random/Static gain of 0 or less makes it unbounded.
    vs = change(rr_g, rs_g) if rs_g > 0 else (float("inf") if rr_g > 0 else float("-inf"))
    between = sum(1 for r in rows if min(r[2], r[3]) <= r[4] <= r[1])
    wide = sum(1 for r in rows if r[1] > 0 and r[1] >= 1.5 * max(r[2], r[3], 0.0))
    s.measured({"RR-SSD gain vs Random/Static gain %": 100.0}, {"RR-SSD gain vs Random/Static gain %": vs},
               holds=(between, len(rows)),
               why="The qualitative part: PBLRU between Random/Static and RR-SSD on every workload. Reads go to the "
                   "least-loaded copy whatever the placement, so placement matters only where copies are few.")
    s.notes.append(f"RR-SSD at least 1.5x both Random and Static on {wide} of {len(rows)} workloads; PBLRU between them "
                   f"on {between} of {len(rows)} (from day 1, on the aged device where S and E differ between chips).")
    return s


def rr10(by: Dict, desc: str) -> Section:
    rows = [[n, _gain(d["online"], d["ca-ssd"]), _gain(d["online"], d["ca-ssd"], "all"),
             _gain(d["rr-ssd"], d["ca-ssd"])] for n, d in by.items()]
    s = Section("rr-10", "On-line replication (S / (E x Pop x QL) during the day) vs end-of-day, from day 1",
                "on-line: read -20.4%, total -8.9% on average", desc,
                ["workload", "on-line read improvement %", "on-line total %", "end-of-day read improvement %"], rows)
    s.measured({"on-line read improvement %": 20.4, "on-line total improvement %": 8.9},
               {"on-line read improvement %": mean(r[1] for r in rows), "on-line total improvement %": mean(r[2] for r in rows)},
               why=LOAD + " On-line copies are programs made during busy periods.")
    s.notes.append(f"On-line, mean over workloads: read {mean(r[1] for r in rows):.1f}%, total "
                   f"{mean(r[2] for r in rows):.1f}% (paper 20.4% and 8.9%). Its copies are programs during busy periods.")
    return s


def _oracle_bound(rows: List[list]) -> str:
    """rr-11's rows: what Oracle (every read on the least-loaded chip, at no
    cost) does to the all-request p99, and which requests stay in its top 1%."""
    per = ", ".join(f"{r[0]} {change(r[4], r[1]):+.1f}" for r in rows)
    writes = ", ".join(f"{r[0]} {r[12]:.0f}" for r in rows)
    return (f"Oracle bounds what read redirection can do to this tail: {mean(change(r[4], r[1]) for r in rows):+.1f}% "
            f"on mean ({per}%), and its top 1% is writes ({writes}% of it) waiting in their chips' queues.")


def rr11(by: Dict, desc: str) -> Section:
    rows = []
    for n, d in by.items():
        ca, rr, orc = (steady(d[c], "all", "p99") for c in ("ca-ssd", "rr-ssd", "oracle"))
        rows.append([n, ca, rr, ca / rr, orc, *(steady(d[c], "read", "p99") for c in ("ca-ssd", "rr-ssd", "oracle")),
                     steady(d["ca-ssd"], "write", "p99"), steady(d["rr-ssd"], "write", "p99"),
                     *(tail_write_share(d[c]) for c in ("ca-ssd", "rr-ssd", "oracle"))])
    s = Section("rr-11", "p99 latency of all requests from day 1", "about 2x lower", desc,
                ["workload", "CA-SSD p99 us", "RR-SSD p99 us", "CA-SSD / RR-SSD", "Oracle p99 us",
                 "reads' p99: CA-SSD", "RR-SSD", "Oracle", "writes' p99: CA-SSD", "RR-SSD",
                 "writes in the top 1%: CA-SSD %", "RR-SSD %", "Oracle %"], rows)
    s.measured({"p99 RR-SSD vs CA-SSD %": -50.0}, {"p99 RR-SSD vs CA-SSD %": mean(change(r[2], r[1]) for r in rows)},
               why="Over all requests, as Sec. IV-B.5 says (\"tail latency (99th percentile) for all requests\"). "
                   "Both tails are about one program long: a read of a value with no copy still waits for the "
                   "program on its chip (reads' p99, RR-SSD / Oracle: " + ", ".join(f"{r[0]} {r[6]:.0f} / {r[7]:.0f}"
                                                                                  for r in rows)
                   + " us), and a write waits for its chip's program before its transfer (writes' p99 under RR-SSD: "
                   + ", ".join(f"{r[0]} {r[9]:.0f}" for r in rows) + " us), which replication does not shorten. "
                   + _oracle_bound(rows))
    return s


def rr12(by: Dict, desc: str) -> Section:
    rows = []
    for n, d in by.items():
        r = d["rr-ssd"]
        made, flash = r.counter("rrssd.copies_made"), r.counter("dedup.pages_written_flash")
        host = flash + r.counter("dedup.write_hits")
        rows.append([n, made / max(flash + made, 1.0) * 100, made / max(host, 1.0) * 100, PAPER_TABLE5.get(n, NAN),
                     made, r.counter("dedup.ratio")])
    s = Section("rr-12", "Replication writes / all writes (Table V), counted two ways", "6-12%", desc,
                ["workload", "copies / flash writes incl. copies % (Table V's, judged)",
                 "copies / host page writes % (a conventional SSD's writes)", "paper %", "copies", "dedup ratio"], rows)
    s.measured(**_per_workload(PAPER_TABLE5, {r[0]: r[1] for r in rows}, "replication writes %"),
               why="Counted as Table V is titled, \"Ratio of Replication Writes to Total Writes\", and as Sec. IV-B.6 "
                   "reads it: \"our proposed mechanism incurs around 10% more writes compared to CA-SSD\" (Table V's "
                   "mean is 10.2%): copies over the pages RR-SSD programs (CA-SSD's flash writes plus the copies). "
                   "With alpha = 0 every value read in a day is copied (one copy per read, up to 63) while the saved "
                   "space lasts, so the count follows how many values each day reads that the day before did not.")
    s.notes.append("Two counts: Table V's (copies / pages programmed for the host and for copies, the "
                   "`rrssd.replication_write_ratio` counter; judged) and copies / page writes the host issued (what a "
                   "conventional SSD would write; judged until issue 49's fifth round: docs/reproduce.md, Readings). "
                   "With alpha = 0 the budget is the space deduplication saved.")
    return s
