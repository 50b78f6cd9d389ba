"""HotR (hr-1..hr-7): hot read replication vs Rails and TTFlash on the
paper's 80 GB TLC device (preset `hotr`)."""

from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

from .base import Context, Runs, Section, change, mean, nearest_rank, saturated, split_saturated
from .tracedir import workload_of

TITLE = "HotR: hot read data replication (hr-1..hr-7)"
PAPER_FILE = "hotr-hot-read-replication.txt"
INTRO = ("Device: the `hotr` preset (HotR Table II: 80 GB TLC, 8 planes per package, 2048 blocks per plane, "
         "64 pages per block, 15% reserved, greedy GC at 5%). Baseline: the page-mapped FTL (run as `hotr` with "
         "migrate_share = 0, which plans exactly what `conventional` plans and also counts blocked reads). "
         "Ideal: the baseline where a read suspends any program or erase at no cost and without limit. "
         "Interference-free (hr-5's reference for Rails, not judged): the ideal where host reads also pass every "
         "queued write.")
PROFILES = ["fin2", "hm", "hpc46", "hpc28"]
SOURCE = "HotR Table III"
CELLS = ["slc", "mlc", "tlc", "qlc"]
IDEAL = {"scheduler.suspension": True, "scheduler.suspend_us": 0.0, "scheduler.resume_us": 0.0,
         "scheduler.max_suspends": 1000}
#: A device whose reads no write delays at all: IDEAL, and host reads also
#: pass every queued write (under DiskSim's FCFS queues IDEAL's reads still
#: wait for the writes queued ahead of them). Not the paper's optimal (hr-1
#: keeps IDEAL); shown beside Rails in hr-5, whose read half has no writes
#: to wait for, as the bound Rails' reads are measured against (issue 49).
FREE = {**IDEAL, "scheduler.order": "priority", "scheduler.read_priority": True}
#: Space relative to the baseline, for the cost-latency product (hr-5). Sec.
#: IV-B: "The cost is mainly on the extra storage space that each scheme
#: consumes, normalized to the baseline system without any extra space
#: overhead". Rails "uses 4+4 RAID1" (a mirror for every chip: 2) and TTFlash
#: "4+1 RAID5" (one parity chip per four: 5/4). HotR's cost is what it
#: migrates: "10% hot read data pages are migrated in HotR", and "only hot read
#: data pages are migrated to the staging space that cost much smaller space
#: overhead than the Rails and TTFlash schemes" (not a whole chip per four data
#: chips, which would equal TTFlash's): 1 + 0.10. (The paper's own figures
#: agree: 1.10 x (1 - 0.218) = 0.86, its -13.9% vs the baseline.)
SPACE = {"baseline": 1.0, "hotr": 1.10, "rails": 2.0, "ttflash": 5 / 4}
#: The HotR run hr-3..hr-6 judge: Fig. 7 is computed "based on the latency and cost
#: results obtained from the trace-driven experiments presented earlier in this
#: section", the runs behind Fig. 5 and Fig. 6 ("The significant performance
#: improvement comes from the fact that an average of 17.8% user read requests
#: are redirected to the staging space, as indicated in Figure 6"), so one HotR
#: set-up serves Figs. 5-7. hr-4 (Fig. 6) runs it on the dedicated spare chip
#: (abstract, Sec. I), and so do hr-3 (Fig. 5: the same runs, by the sentence
#: above), hr-5 (Fig. 7) and hr-6 (Fig. 8: the tails "under the different
#: workloads" of the same schemes): "chip" is `by`'s key for those runs; HotR
#: staging in over-provisioned space ("hotr") is shown beside, never judged.
JUDGED_HOTR = "chip"
#: Rails and TTFlash at the baseline's usable capacity, with the hardware the
#: paper implies (its cost column): Rails 4+4 mirrors every chip, so twice
#: the packages (5 ch x 8); TTFlash 4+1 adds a parity package per four
#: (5 ch x 5, stripes of 5 over chips). The `hotr` preset is 5 ch x 4.
HARDWARE = {"rails": {"device.chips_per_channel": 8}, "ttflash": {"device.chips_per_channel": 5}}
#: HotR's staging on a spare chip beside the device's (docs/schemes/hotr.md).
SPARE_CHIP = {"device.spare_chips": 1, "scheme.hotr.staging": "spare-chip"}
#: The load sweep around the calibrated point (x the calibrated rate).
LOADS = [0.5, 0.71, 1.41, 2.0]
#: What each profile is calibrated on: the rate on the baseline's blocked-read
#: share, jointly with the burst peak on its slowdown (hotr_burst).
KNOB = "rate"
PERCENTILES = [95, 97, 98, 99, 99.5]
#: The paper's experiment ids (each gets a verdict).
ROWS = [f"hr-{i}" for i in range(1, 8)]
#: Which requests the paper's "response time" covers: reads (docs/reproduce.md,
#: "Readings"). Its Sec. II measures reads' slowdown, Sec. IV-B explains Fig. 5's
#: gain "from the point of view of read requests", and Fig. 8's tails fall
#: "consistently and significantly", which the tails of all requests of an
#: 80%-write trace cannot do under a scheme that only touches reads. Every row
#: uses this reading; the all-request one is shown beside it, never judged.
KIND, OTHER = "read", "all"


def experiments(ctx: Context) -> List[Section]:
    quick_n = 20000
    w = with_shape(ctx, ctx.workloads(PROFILES, quick_requests=quick_n), quick_n)
    w = ctx.at_load(w)
    desc = ctx.describe(PROFILES, SOURCE)
    if ctx.calibrations:
        desc += ("; each at its calibrated load and burst shape (the baseline's reads blocked = 33%, its reads "
                 "42.8% slower than the ideal device's: hotr_burst)")
    dev = ["hotr"]
    # The R-LRU keeps the most recently and frequently read pages (Sec. III-B): a hotter page may replace a
    # colder one in the staged set, when the core has the option.
    hot = ctx.option("hotr", "scheme.hotr.replace", True)
    base = ctx.sweep("hotr-baseline", w, dev, ["hotr"], fixed={"scheme.hotr.migrate_share": 0.0})
    ideal = ctx.sweep("hotr-ideal", w, dev, ["hotr"], fixed={"scheme.hotr.migrate_share": 0.0, **IDEAL})
    free = ctx.sweep("hotr-free", w, dev, ["hotr"], fixed={"scheme.hotr.migrate_share": 0.0, **FREE})
    schemes = ctx.sweep("hotr-schemes", w, dev, ["hotr"], fixed=hot or None)
    for sch, hw in HARDWARE.items():
        schemes += ctx.sweep(f"hotr-{sch}", w, dev, [sch], fixed=hw)
    flash = flash_runs(ctx, w, hot)
    # hr-4 on the paper's dedicated spare chip ("a dedicated spare flash chip", abstract and Sec. I): a 21st
    # package beside the preset's 20, on a channel of its own, the host keeping all 20 and their logical space;
    # the R-LRU as in every other HotR run.
    chip = ctx.sweep("hotr-spare", w, dev, ["hotr"], fixed={**SPARE_CHIP, **(hot or {})})
    names = [r.workload for r in base]
    by = {n: {"baseline": base.one(workload=n), "ideal": ideal.one(workload=n),
              **{s: schemes.one(workload=n, scheme=s) for s in ("hotr", "rails", "ttflash")}} for n in names}
    for n in names:
        by[n]["chip"] = chip.one(workload=n)
        by[n]["free"] = free.one(workload=n)
    out = [hr1(by, desc, bool(ctx.calibrations)), hr2(by, desc, not ctx.traces), hr3(by, desc), hr4(by, desc, bool(hot)), hr5(by, desc),
           hr6(by, desc), hr7(flash, names, desc)]
    if ctx.calibrations and not ctx.suffix:  # under the judged rules only
        out.append(load_sweep(ctx, w, by, desc))
    return [grounding(ctx, by, desc)] + out


def with_shape(ctx: Context, w: List[dict], quick_n: int) -> List[dict]:
    """Calibrate the profiles jointly on Sec. II-A's two baseline figures
    (hotr_burst.calibrate_joint: the mean rate on 33% of reads blocked, the
    burst peak of the sample-fitted on/off shape on the 42.8% slowdown
    against the optimal device, IDEAL), once per run, and add each profile's
    chosen on/off shape (kept in its calibration's fixed overrides) to its
    workload. A trace keeps its own arrivals."""
    from .hotr_burst import calibrate_joint

    if ctx.traces:
        return w
    todo = [p for p in PROFILES if p not in ctx.calibrations]
    if todo:
        joint = calibrate_joint(ctx, todo, quick_n if ctx.quick else None, IDEAL)
        for p, j in joint.items():
            pts = "; ".join(f"peak {q.peak:.3g}: rate x{q.factor:.3g}, blocked {q.blocked:.1f}%, "
                            f"slower than ideal {q.slowdown:.1f}%" + (" (saturated)" if q.saturated else "")
                            for q in j["points"])
            ctx.calibration_notes.append(f"{p} (joint, Sec. II-A's 33% blocked and 42.8% slower): {pts}; chosen "
                                         f"peak {j['chosen'].peak:.3g}.")
    out = []
    for x in w:
        c = ctx.calibrations.get(x.get("profile", ""))
        shape = {k: v for k, v in (c.fixed if c else {}).items() if k.startswith("arrival.")}
        out.append({**x, "set": {**x.get("set", {}), **shape}} if shape else x)
    return out


#: HotR Table III per trace: write ratio %, average request size (KB, read as KiB as the profiles do).
TABLE3 = {"fin2": (17.6, 4.6), "hm": (72.9, 8.3), "hpc46": (60.0, 6.3), "hpc28": (80.0, 6.3)}


def grounding(ctx: Context, by: Dict, desc: str) -> Section:
    """Every baseline figure HotR prints (Table III per trace; Sec. II-A's
    blocked share), beside the baseline run's (docs/reproduce.md, Grounding)."""
    from .grounding import Figure, given, mean_size_kib, section, write_share

    figs = []
    for n, d in by.items():
        b = d["baseline"]
        if n in TABLE3:
            figs.append(Figure(n, "write share %", "Table III", TABLE3[n][0], write_share(b), given(ctx, "read_ratio")))
            figs.append(Figure(n, "mean request size KiB", "Table III", TABLE3[n][1], mean_size_kib(b),
                               given(ctx, "size")))
        figs.append(Figure(n, "mixed pages %", "Sec. II-B (Fig. 1c, the average)", 9.6, page_classes(b)["mixed"],
                           "the trace itself" if ctx.traces else "profile input: page classes, footprint"))
        cal = ctx.calibrations.get(n)
        figs.append(Figure(n, "reads blocked %", "Sec. II-A (the average, imposed per trace)", 33.0, _blocked(b),
                           f"calibrated: rate x{cal.factor:.3g}" if cal else "-"))
        figs.append(Figure(n, "slower than ideal %", "Sec. II-A (the average, imposed per trace)", 42.8,
                           change(b.lat(KIND), d["ideal"].lat(KIND)),
                           f"calibrated: burst peak {_peak(cal.fixed):.3g}" if cal else "-"))
    return section(figs, desc, ["Sec. II-A's 33.0% is the paper's average over its traces (max 55.9%); each profile's "
                                "mean rate is set so its baseline blocks that share, and its burst peak (an on/off "
                                "shape fitted on a real trace sample: hotr_burst) so its reads are nearest Sec. "
                                "II-A's 42.8% slower than the ideal device's (hr-1). Table III's I/O counts are the "
                                "traces' lengths; the profiles run their own (docs/workloads.md)."])


def _peak(fixed: Dict) -> float:
    """The peak-to-mean ratio of a calibration's on/off shape (1: Poisson)."""
    if fixed.get("arrival.process") != "onoff":
        return 1.0
    on, off = fixed["arrival.mean_on_s"], fixed["arrival.mean_off_s"]
    mean_rate = (fixed["arrival.rate_per_s"] * on + fixed["arrival.off_rate_per_s"] * off) / (on + off)
    return fixed["arrival.rate_per_s"] / mean_rate


#: hr-7's loads (x the calibrated rate), tried in turn for a workload until
#: no flash type's baseline is saturated there.
FLASH_LOADS = [1.0, 0.5, 0.25]


def flash_runs(ctx: Context, w: List[dict], hot: Dict) -> Dict[str, Tuple[Runs, str, float]]:
    """hr-7's runs per workload: name -> (runs, label, load). The paper
    compares flash types on one trace each, and its QLC speedups are finite,
    so its QLC baseline kept up with the load; at the rate calibrated on TLC
    QLC's 3 ms programs cannot. A workload whose baseline saturates at some
    flash type is run again at the next lower load of FLASH_LOADS: the
    baseline's saturation warning decides, never HotR's result."""
    grid: Dict[str, list] = {"device.flash.cell": CELLS, "scheme.hotr.migrate_share": [0.0, 0.1]}
    out: Dict[str, Tuple[Runs, str, float]] = {}
    todo = w
    for k in FLASH_LOADS:
        ws = todo if k == 1.0 else ctx.at_load(todo, k, f"@{k:g}x")
        runs = ctx.sweep("hotr-flash" if k == 1.0 else f"hotr-flash-{k:g}x", ws, ["hotr"], ["hotr"],
                         fixed=hot or None, grid=grid)
        left = []
        for orig, x in zip(todo, ws):
            out[_name(orig)] = (runs, _name(x), k)
            if any(saturated(r) for r in runs.select(workload=_name(x), scheme__hotr__migrate_share=0.0)):
                left.append(orig)
        todo = left
        if not todo or not ctx.calibrations:
            break
    return out


def _name(w: dict) -> str:
    """A sweep workload's name in its runs (`Run.workload`): a profile's
    label, a trace's file name."""
    return w["label"] if "label" in w else workload_of(w["trace"])


def load_sweep(ctx: Context, w: List[dict], by: Dict, desc: str) -> Section:
    """hr-load (ours, no verdict): the baseline's blocked share and HotR's
    gain at 0.5x..2x of each profile's calibrated rate."""
    ws = [x for k in LOADS for x in ctx.at_load(with_shape(ctx, ctx.workloads(PROFILES, quick_requests=20000), 20000),
                                                 k, f"@{k:g}x")]
    runs = ctx.sweep("hotr-load", ws, ["hotr"], ["hotr"], fixed=ctx.option("hotr", "scheme.hotr.replace", True) or None,
                     grid={"scheme.hotr.migrate_share": [0.0, 0.1]})
    rows = []
    for n in by:
        for k in sorted(LOADS + [1.0]):
            if k == 1.0:
                b, h = by[n]["baseline"], by[n]["hotr"]
            else:
                b = runs.one(workload=f"{n}@{k:g}x", scheme__hotr__migrate_share=0.0)
                h = runs.one(workload=f"{n}@{k:g}x", scheme__hotr__migrate_share=0.1)
            rows.append([n, k, _blocked(b), b.lat("all"), change(h.lat("all"), b.lat("all")),
                         change(h.lat("read"), b.lat("read"))])
    s = Section("hr-load", "Load sweep (ours, not the paper's): 0.5x..2x of the calibrated rate",
                "(no paper figure: how the conclusion depends on load)", desc,
                ["workload", "x calibrated rate", "baseline reads blocked %", "baseline mean us",
                 "HotR mean vs baseline %", "HotR read mean vs baseline %"], rows)
    lo, hi = min(LOADS), max(LOADS)
    at = {k: mean(r[5] for r in rows if r[1] == k) for k in (lo, 1.0, hi)}
    s.notes.append(f"1x is the calibrated point used by hr-1..hr-7. HotR's read mean vs the baseline, averaged "
                   f"over the workloads: {at[lo]:+.1f}% at {lo:g}x, {at[1.0]:+.1f}% at 1x, {at[hi]:+.1f}% at {hi:g}x "
                   "(paper -21.8%). Saturated runs are listed under 'Runs with warnings'.")
    return s


def _blocked(r) -> float:
    return r.counter("hotr.reads_blocked") / max(r.counter("hotr.reads"), 1.0) * 100


def hr1(by: Dict, desc: str, calibrated: bool = False) -> Section:
    ok, sat = split_saturated(by, ("baseline", "ideal"))
    rows = []
    for n, d in by.items():
        b, i = d["baseline"], d["ideal"]
        rows.append([n, _blocked(b), b.lat("read"), i.lat("read"), change(b.lat("read"), i.lat("read")), n in sat])
    s = Section("hr-1", "Reads blocked by a write, and slowdown vs an ideal device",
                "33.0% of reads blocked on average (max 55.9%); 42.8% slower than ideal on average (74.6% Fin2)",
                desc, ["workload", "blocked %", "read mean us", "ideal read mean us", "slower than ideal %",
                       "saturated"], rows)
    judged = [r for r in rows if r[0] in ok]
    avg_b, avg_s = mean(r[1] for r in judged), mean(r[4] for r in judged)
    rows.append(["mean", avg_b, mean(r[2] for r in judged), mean(r[3] for r in judged), avg_s, False])
    why = ("A read counts as blocked when its die is programming or erasing as it is planned; with "
           "read priority on, a queued read only waits for the operation in progress.")
    if calibrated:
        why += (" Both figures are the calibration's targets (each profile's mean rate was set so the baseline blocks "
                "33% of reads, and its burst peak, from 1 to its trace sample's, so its reads are nearest 42.8% "
                "slower than the ideal device's: hotr_burst, docs/reproduce.md): shown, not judged.")
    else:
        why += (" The profiles keep the dies lightly loaded (the paper gives no arrival rates), so fewer reads meet "
                "a write.")
    ours = {"reads blocked %": avg_b, "slower than ideal %": avg_s} if judged else {}
    s.measured({"reads blocked %": 33.0, "slower than ideal %": 42.8}, ours, why=why,
               calibrated=["reads blocked %", "slower than ideal %"] if calibrated else [], saturated=sat)
    s.notes.append(f"Ours: {avg_b:.1f}% blocked and {avg_s:.1f}% slower on average over the unsaturated workloads, "
                   "paper 33.0% and 42.8%. " + why)
    return s


def page_classes(run) -> Dict[str, float]:
    """Read-intensive / write-intensive / mixed shares of the pages accessed
    at least twice, by the >90% rule (HotR Sec. II)."""
    t = run.columns(["offset", "size", "is_write"])
    off = t.column("offset").to_numpy()
    size = t.column("size").to_numpy().astype(np.uint64)
    wr = t.column("is_write").to_numpy(zero_copy_only=False)
    first, last = off // 4096, (off + np.maximum(size, 1) - 1) // 4096
    n = (last - first + 1).astype(np.int64)
    pages = np.repeat(first, n) + (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))
    writes = np.repeat(wr, n)
    uniq, inv = np.unique(pages, return_inverse=True)
    w = np.bincount(inv, weights=writes.astype(float), minlength=len(uniq))
    tot = np.bincount(inv, minlength=len(uniq)).astype(float)
    keep = tot >= 2
    w, tot = w[keep], tot[keep]
    r = tot - w
    ri, wi = (r > 0.9 * tot).sum(), (w > 0.9 * tot).sum()
    k = max(len(tot), 1)
    return {"pages": float(len(tot)), "read": ri / k * 100, "write": wi / k * 100, "mixed": (len(tot) - ri - wi) / k * 100}


def hr2(by: Dict, desc: str, calibrated: bool = False) -> Section:
    rows = []
    for n, d in by.items():
        c = page_classes(d["baseline"])
        rows.append([n, int(c["pages"]), c["read"], c["write"], c["mixed"]])
    avg = mean(r[4] for r in rows)
    s = Section("hr-2", "Page classes by the >90% rule", "mixed pages 9.6% on average", desc,
                ["workload", "pages (>= 2 accesses)", "read-intensive %", "write-intensive %", "mixed %"], rows)
    why = "The profiles' read and write address distributions overlap more or less than the paper's traces."
    if calibrated:
        why = ("The mixed share is a profile input (the HotR profiles' page classes are set from Sec. II-B's 9.6% and "
               "their footprint chosen so the >90% rule finds it): shown, not judged (issue 49). " + why)
    s.measured({"mixed pages %": 9.6}, {"mixed pages %": avg}, why=why,
               calibrated=["mixed pages %"] if calibrated else [])
    s.notes.append(f"Mixed pages: {avg:.1f}% on average (paper 9.6%). Pages touched once are left out, since one "
                   "access is always >90% one kind.")
    return s


def hr3(by: Dict, desc: str) -> Section:
    ok, sat = split_saturated(by, ("baseline", JUDGED_HOTR, "rails", "ttflash"))
    rows = []
    for n, d in by.items():
        b, ba = d["baseline"].lat(KIND), d["baseline"].lat(OTHER)
        rows.append([n, b] + [d[x].lat(KIND) / b for x in ("rails", "ttflash", JUDGED_HOTR)]
                    + [change(d[JUDGED_HOTR].lat(OTHER), ba), d["hotr"].lat(KIND) / b, n in sat])
    judged = [r for r in rows if r[0] in ok]
    hotr_avg = mean((r[4] - 1) * 100 for r in judged)
    s = Section("hr-3", "Mean read response time normalised to the baseline",
                "HotR -21.8% on average, up to -54.0%; Rails best; TTFlash worst", desc,
                ["workload", "baseline read mean us", "Rails", "TTFlash", "HotR",
                 "HotR all-request mean vs baseline % (other reading)", "HotR staging in op space (not judged)",
                 "saturated"], rows)
    order = sum(1 for r in judged if r[2] <= r[4] <= r[3])
    rails = [r[2] for r in judged] or [float("nan")]
    s.measured({"HotR read mean vs baseline %": -21.8}, {"HotR read mean vs baseline %": hotr_avg} if judged else {},
               holds=(order, len(judged)), saturated=sat,
               why="The paper's average response time read as reads' (docs/reproduce.md, Readings), HotR on its "
                   "dedicated spare chip as in hr-4 (Fig. 5's gain \"comes from\" Fig. 6's redirections). The qualitative "
                   f"part is the order Rails < HotR < TTFlash on every workload; Rails' read mean is {min(rails):.2f}-"
                   f"{max(rails):.2f}x the baseline's.")
    s.notes.append(f"HotR: {hotr_avg:+.1f}% on average over reads (paper -21.8%); the order Rails < HotR < TTFlash holds "
                   f"on {order} of {len(judged)} unsaturated workloads. Over all requests (the other reading, not "
                   f"judged) HotR's mean moves {mean(r[5] for r in judged):+.1f}% on average: writes, which HotR does "
                   "not touch, are 73-80% of the requests on hm, hpc46 and hpc28. HotR stages on its dedicated spare chip, "
                   "the runs hr-4 judges (the paper: \"The significant performance improvement comes from the fact that "
                   "an average of 17.8% user read requests are redirected to the staging space, as indicated in Figure "
                   f"6\"); staging in over-provisioned space (not judged): {mean((r[6] - 1) * 100 for r in judged):+.1f}%.")
    return s


def hr4(by: Dict, desc: str, replace: bool = False) -> Section:
    ok, sat = split_saturated(by, ("baseline", "chip", "rails"))
    rows = []
    for n, d in by.items():
        h, b, ra = d["chip"], d["baseline"], d["rails"]
        red, avoided = _redirected(h)
        rows.append([n, _blocked(b), red, avoided, ra.counter("rails.reads_blocked") / max(ra.counter("rails.reads"), 1) * 100,
                     *_redirected(d["hotr"]), n in sat])
    judged = [r for r in rows if r[0] in ok]
    avg, avoided = mean(r[2] for r in judged), mean(r[3] for r in judged)
    s = Section("hr-4", "Reads redirected, and reads blocked in the baseline",
                "HotR redirects 17.8% of reads on average; avoids 63% of conflicted reads", desc,
                ["workload", "baseline blocked %", "HotR redirected %", "HotR blocked reads redirected %",
                 "Rails reads still blocked %",
                 "op staging: redirected %", "op staging: blocked reads redirected %", "saturated"], rows)
    s.notes.append("Judged on HotR staging on the paper's dedicated spare chip (device.spare_chips = 1, "
                   "scheme.hotr.staging = \"spare-chip\": a 21st package on a channel of its own, the host keeping the "
                   "preset's 20 and their logical space). The two 'op staging' columns (not judged): the other rows' "
                   "HotR, staging in over-provisioned space on the same dies.")
    s.measured({"reads redirected %": 17.8, "blocked reads redirected %": 63.0},
               {"reads redirected %": avg, "blocked reads redirected %": avoided} if judged else {}, saturated=sat,
               why="Only a blocked read of a page already staged is redirected. HotR stages at most 10% of the pages "
                   "read, each copied from a read found blocked after its first read listed it (Sec. III-C; "
                   "scheme.hotr.migrate_on)" + (
                       " (a hotter page replacing a colder one in a full staged set: scheme.hotr.replace)" if replace
                       else ", and a full staged set takes no hotter newcomer (scheme.hotr.replace is not in this "
                            "build)") + ", so the staged pages see only part of the blocked reads.")
    s.notes.append(f"HotR redirects {avg:.1f}% of flash reads on average (paper 17.8%) and "
                   f"{avoided:.0f}% of the reads that found their die writing (paper 63%). Only a "
                   "blocked read of a page already staged is redirected; the 10% of pages staged cover only part of "
                   "the blocked reads at these profiles' skew. Rails sends every read to its read half, so its "
                   "'redirected' share is all reads; the column gives the reads that still found their die writing.")
    return s


def _redirected(h) -> Tuple[float, float]:
    """(% of reads redirected to staging, % of blocked reads redirected)."""
    red = h.counter("hotr.reads_redirected_staging")
    return red / max(h.counter("hotr.reads"), 1.0) * 100, red / max(h.counter("hotr.reads_blocked"), 1.0) * 100


def hr5(by: Dict, desc: str) -> Section:
    keys = ("baseline", JUDGED_HOTR, "rails", "ttflash")
    ok, sat = split_saturated(by, keys)
    rows = []
    for n, d in by.items():
        prod = {kind: {k: SPACE.get(k, SPACE["hotr"]) * d[k].lat(kind) / d["baseline"].lat(kind)
                       for k in keys + ("hotr",)} for kind in (KIND, OTHER)}
        rows.append([n] + [prod[KIND][k] for k in keys]
                    + [prod[OTHER][JUDGED_HOTR], prod[KIND]["hotr"], d["rails"].lat(KIND) / d["baseline"].lat(KIND),
                       d["free"].lat(KIND) / d["baseline"].lat(KIND), n in sat])
    judged = [r for r in rows if r[0] in ok]
    best = sum(1 for r in judged if r[2] <= min(r[1], r[3], r[4]))
    s = Section("hr-5", "Cost-latency product (space x mean read latency, both relative to the baseline)",
                "HotR best: 31.6% better than Rails, 65.7% than TTFlash, 13.9% than baseline", desc,
                ["workload", "baseline", "HotR", "Rails", "TTFlash", "HotR, all-request mean (other reading)",
                 "HotR staging in op space (not judged)", "Rails read mean / baseline's",
                 "interference-free read mean / baseline's", "saturated"], rows)
    vs = {k: mean(change(r[2], r[i]) for r in judged) for k, i in (("Rails", 3), ("TTFlash", 4), ("baseline", 1))}
    # Rails' read mean the paper's figures imply: HotR's product 1 - 13.9%, Rails' HotR's / (1 - 31.6%), space 2.
    rails_paper = (1 - 0.139) / (1 - 0.316) / SPACE["rails"]
    s.measured({f"HotR product vs {k} %": p for k, p in (("Rails", -31.6), ("TTFlash", -65.7), ("baseline", -13.9))},
               {f"HotR product vs {k} %": v for k, v in vs.items()} if judged else {},
               holds=(best, len(judged)), saturated=sat,
               why="The product is space x read mean (the paper's response time read as reads': docs/reproduce.md), "
                   "HotR on its spare chip as in hr-4 (Figs. 5-7 come from the same runs). Rails' read mean is "
                   f"{_span(r[3] / SPACE['rails'] for r in judged)}x the baseline's here; the paper's own products "
                   f"put it at {rails_paper:.2f}x (HotR's {1 - 0.139:.3f} / (1 - 0.316) / 2). Rails' reads are not "
                   "faster than a device without interference: one where reads also pass every queued write "
                   f"(FREE) reads at {_span(r[8] for r in judged)}x the baseline's, so the baseline's reads spend "
                   "most of their time queued behind writes at the calibrated load. The calibration meets both of "
                   "Sec. II-A's baseline figures (33% blocked, 42.8% slower than the ideal device, which suspends "
                   "the write in progress; hr-1), with arrivals as bursty as the trace samples or less "
                   "(hotr_burst), and the gap stays: the ideal device's reads still wait for the writes queued "
                   "ahead of them, which Rails' read half has none of.")
    s.notes.append(f"HotR has the lowest product on {best} of {len(judged)} unsaturated workloads. HotR stages on its "
                   "dedicated spare chip, as in hr-4 (the paper's Fig. 7 uses the latencies of the runs behind Figs. 5 "
                   "and 6); the op-staging column (not judged) is HotR staging in over-provisioned space. Space (the "
                   "paper's cost, \"the extra storage space that each scheme consumes\"): baseline 1, HotR 1.10 (\"10% "
                   "hot read data pages are migrated\"), Rails 2 (\"4+4 RAID1\": run on 5 ch x 8 packages, the "
                   "baseline's usable capacity), TTFlash 5/4 (\"4+1 RAID5\": run on 5 ch x 5 packages).")
    return s


def _span(xs) -> str:
    xs = list(xs)
    return f"{min(xs):.2f}-{max(xs):.2f}" if xs else "-"


def hr6(by: Dict, desc: str) -> Section:
    ok, sat = split_saturated(by, ("baseline", JUDGED_HOTR, "rails", "ttflash"))
    rows = []
    for n, d in by.items():
        for kind in (KIND, OTHER):
            for sch in ("rails", "hotr", "baseline", "ttflash"):
                # "hotr": HotR on its spare chip, the runs of hr-3..hr-5 (JUDGED_HOTR).
                lat = d[JUDGED_HOTR if sch == "hotr" else sch].latencies_us(kind)
                rows.append([n, kind, sch] + [nearest_rank(lat, q) for q in PERCENTILES] + [n in sat])
    s = Section("hr-6", "Tail latency, us (reads: judged; all requests: the other reading)",
                "Rails < HotR < baseline < TTFlash (TTFlash > 500 ms on Fin2, HPC 46)", desc,
                ["workload", "requests", "scheme"] + [f"p{q:g}" for q in PERCENTILES] + ["saturated"], rows)
    held = {}
    for kind in (KIND, OTHER):
        k = 0
        for n in ok:
            p99 = {r[2]: r[6] for r in rows if r[0] == n and r[1] == kind}
            k += p99["rails"] <= p99["hotr"] <= p99["baseline"] <= p99["ttflash"]
        held[kind] = k
    s.measured(holds=(held[KIND], len(ok)), saturated=sat,
               why="The paper's tails read as reads' (docs/reproduce.md, Readings). Over all requests (not judged) "
                   f"the order holds on {held[OTHER]} of {len(ok)}: there the tail is writes, which Rails doubles and "
                   "HotR does not touch.")
    op = sum(1 for n in ok if {r[2]: r[6] for r in rows if r[0] == n and r[1] == KIND}["hotr"]
             <= nearest_rank(by[n]["hotr"].latencies_us(KIND), 99))
    s.notes.append(f"The paper's p99 order Rails <= HotR <= baseline <= TTFlash holds over reads on {held[KIND]} of "
                   f"{len(ok)} unsaturated workloads, and over all requests on {held[OTHER]} of {len(ok)}. HotR stages "
                   "on its dedicated spare chip, the runs of hr-3..hr-5; its read p99 is at or below that of HotR "
                   f"staging in over-provisioned space (not judged) on {op} of {len(ok)}.")
    return s


def hr7(flash: Dict[str, Tuple[Runs, str, float]], names: List[str], desc: str) -> Section:
    rows: List[list]  # [workload, load, speedup per cell..., saturated cells]
    rows, sat, cells_sat = [], [], set()
    for n in names:
        runs, label, k = flash[n]
        sp = []
        for c in CELLS:
            b = runs.one(workload=label, device__flash__cell=c, scheme__hotr__migrate_share=0.0)
            h = runs.one(workload=label, device__flash__cell=c, scheme__hotr__migrate_share=0.1)
            sp.append(b.lat(KIND) / h.lat(KIND))
            if saturated(b) or saturated(h):
                cells_sat.add((n, c))
        if any((n, c) in cells_sat for c in CELLS):
            sat.append(n)
        rows.append([n, k] + sp + [", ".join(c.upper() for c in CELLS if (n, c) in cells_sat) or "-"])
    judged = [r for r in rows if r[0] not in sat]
    grows = sum(1 for r in judged if r[4] >= r[2] and r[5] >= r[2])
    lowered = [f"{r[0]} at {r[1]:g}x" for r in rows if r[1] != 1.0]
    why = "Slower programs block reads longer, so redirection is worth more; but HotR's migrations are programs too."
    if lowered:
        why += (" Run at a lower load than the calibrated one (" + ", ".join(lowered) + "): at the calibrated rate some "
                "flash type's baseline was saturated (QLC's 3 ms programs), where the device's throughput, not "
                "the flash type, sets the latencies.")
    if sat:
        why += " Still saturated at the lowest load tried, left out: " + ", ".join(f"{r[0]} ({r[-1]})" for r in rows
                                                                                  if r[0] in sat) + "."
    s = Section("hr-7", "HotR read speedup (baseline / HotR read mean) by flash type",
                "grows with bits per cell", desc,
                ["workload", "x calibrated rate"] + [c.upper() for c in CELLS] + ["saturated"], rows)
    s.measured(holds=(grows, len(judged)), why=why, saturated=sat)
    s.notes.append(f"TLC and QLC beat SLC on {grows} of {len(judged)} unsaturated workloads. " + why)
    return s
