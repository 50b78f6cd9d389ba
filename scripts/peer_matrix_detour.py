"""Detour on the validation matrix's points, and its % error against each peer.

    .venv/bin/python scripts/peer_matrix_detour.py run   [--label L] [--set key=value ...] [--aged-set key=value ...] [--fresh-from L]
    .venv/bin/python scripts/peer_matrix_detour.py table [--label L]
    .venv/bin/python scripts/peer_matrix_detour.py plot  [--label L]
    .venv/bin/python scripts/peer_matrix_detour.py draws --only mqsim --point P --sim mqsim|detour --seeds 0-19 [--mqsim FILE]

What: `run` replays every point of scripts/peer_matrix.py on bench-matched
under `--compat PEER` (plus any `--set` keys, e.g. a rule taken back) and
writes docs/validation/detour-<peer>[-<label>].csv; `table` prints, per
peer, each point's figures as % error against the peer's own run
(docs/validation/peers-<peer>.csv) and counts the points within 10% and
20%; `plot` draws error against load as docs/validation/matrix-<label>.png;
`draws` runs one aged point once per preconditioning draw, the peer (MQSim,
from a copy reading MQSIM_PSEED) or Detour (`run.seed`), into
docs/validation/draws-<peer>-<point>.csv.

An aged point is judged twice. The matrix: the peer's one run (its
preconditioning draw 0) against Detour's one run (`run.seed` 1), marked
`(peer draw-bound, k of n)` when fewer than half of the peer's other draws
come within 10% of its matrix draw on every counted figure (draw_bound).
Over draws, a separate judgement printed below the table and not counted
in it: Detour's average over its draws against the peer's average over its
draws, at the matrix's fetch window, within 10% on every counted figure
(over_draws; issue 46, h43draw). Neither picks a draw.

Why: a bundle matched on one point can carry a cost that only load, mix or
device state expose; the matrix shows where, and by how much.

The traces are the ones the peers ran (same seeds, rates from the peers'
CSV), rewritten if absent. An aged point preconditions as Detour's
importers map the peers' own settings: MQSim's Initial_Occupancy_Percentage
as `ftl.precondition.valid`, SSDSim's `aged ratio` as
`ftl.precondition.invalid` with `layout = "trailing_free"` (make_aged's
layout; before issue 46's h38 round, whole stale blocks made by overwriting
about 0.1% valid, the same count on every plane, see aged_valid_share).
Every `ssdsim` point places its reads' pages before the run, as SSDSim's
pre_process_page (since h39; the ssdsim bundle sets it since h42sbun).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peer_matrix as pm  # noqa: E402

FIGS = ("read_mean", "read_p50", "read_p99", "read_p999", "write_mean", "write_p50", "write_p99", "write_p999")
#: the figures counted for "within x%" (p99.9 is shown but, from ~1-5 k
#: samples per kind, too noisy to count)
COUNTED = ("read_mean", "read_p50", "read_p99", "write_mean", "write_p50", "write_p99")


def peer_keys(peer: str) -> list[str]:
    """Keys `detour import PEER` sets from the matched file that PEER's
    bundle does not, on every point. SSDSim: static allocation, two-plane
    programs and `greed MPW command = 1` make make_level_page's plane
    pairing (issue 46, h40pair; before it, any free plane paired). The
    rules SSDSim applies whatever the file says (pre_process_page, h39;
    get_ppn's GC trigger in pages, h40sgc, and its GC request per host
    page write, h41sage; get_ppn_for_gc's shared active block, h41sage;
    creat_sub_request's reads, h41zipf) were set here too until h42sbun
    moved them into the ssdsim bundle. MQSim: its GC trigger in whole
    blocks, floor(GC_Exec_Threshold x blocks) = 25 of 512 where Detour's
    share rounds up to 26 (issue 46, h39r50), and its fetch window and
    submission queue."""
    if peer == "ssdsim":
        # The ssdsim bundle sets the rules SSDSim applies whatever the file
        # says (pre_process_page, get_ppn's GC trigger and requests,
        # get_ppn_for_gc, creat_sub_request's reads; issue 46, h42sbun);
        # make_level_page's pairing depends on the file, so it is set here
        # as the importer sets it from the matched file (h40pair).
        return ["scheduler.plane_pairing=level"]
    from detour.importers.mqsim import gc_threshold_share

    xml = (pm.CONFIGS / "mqsim-ssdconfig.xml").read_text()
    share = float(re.search(r"<GC_Exec_Threshold>([^<]+)<", xml)[1])  # type: ignore[index]
    blocks = int(re.search(r"<Block_No_Per_Plane>(\d+)<", xml)[1])  # type: ignore[index]
    # MQSim's fetch window and submission queue, as the importer maps them
    # (issue 46, h41fetch; before it, host.queue_depth = 1024 from the
    # preset and every request's latency from its arrival).
    window = int(re.search(r"<Queue_Fetch_Size>(\d+)<", xml)[1])  # type: ignore[index]
    ring = int(re.search(r"<IO_Queue_Depth>(\d+)<", xml)[1])  # type: ignore[index]
    return [f"ftl.gc_threshold={gc_threshold_share(share, blocks)!r}", f"host.queue_depth={window}",
            f"host.submission_queue={ring - 1}"]


def aged_keys(peer: str) -> list[str]:
    if peer == "mqsim":
        # As the importer maps Enabled_Preconditioning with an occupancy:
        # MQSim's steady-state layout (issue 46, h39mq).
        return [f"ftl.precondition.valid={pm.AGED_MQSIM_OCC / 100}", "ftl.precondition.layout=mqsim_steady"]
    # As the importer maps `aged = 1`: make_aged's layout (stale pages
    # written in place, each aged block's last pages left free and written
    # first), no valid page needed. The file's `advanced command = 31`
    # (copyback) with `greed CB command = 0` makes SSDSim's uninterrupt_gc
    # untimed: `ftl.gc_timing`, as the importer maps it. Before issue 46's
    # h38 round: whole stale blocks from overwrites of aged_valid_share().
    # Bits 4 and 8 make gc_direct_erase's erases chip-wide, as the importer
    # maps them (issue 46, h39er; before it, erases per die).
    return [f"ftl.precondition.invalid={pm.AGED_SSDSIM_RATIO}", "ftl.precondition.layout=trailing_free",
            "ftl.gc_timing=stale_erases_only", "scheduler.chip_erase_batches=true"]


def aged_valid_share(target: float = 0.001) -> float:
    """About `target` of bench-matched's logical pages, rounded up to the same
    whole number of pages on every plane. The overwrites that make the stale
    pages are spread over the valid LPNs, pass after pass, so a plane's stale
    pages follow its count of valid LPNs: 0.1% exactly is 7,549 LPNs over 256
    planes, 30 on the first plane of each die and 29 on the second (static
    CWDP), and 1,034 passes turned that one LPN into 16 blocks: 27 free blocks
    on one plane, 43 on the other, the first 1 above its GC trigger, where
    SSDSim's make_aged leaves every plane the same (35 each with this)."""
    import detour

    d = tomllib.loads(detour.config("bench-matched"))["device"]
    planes = d["channels"] * d["chips_per_channel"] * d["dies_per_chip"] * d["planes_per_die"]
    logical = int(planes * d["blocks_per_plane"] * d["pages_per_block"] * (1 - d["overprovisioning"]))
    per_plane = -(-int(target * logical) // planes)
    # half a page above the count, so Detour's floor(share x logical) lands on it
    return (per_plane * planes + 0.5) / logical


def read_csv(path: Path) -> dict[str, dict]:
    with open(path) as f:
        return {r["point"]: r for r in csv.DictReader(f)}


def run(peer: str, label: str, sets: list[str], work: Path, aged_sets: list[str], fresh_from: str = "") -> None:
    """With `fresh_from`, only the aged points run; the fresh ones are
    copied from that label's CSV (a change that only moves aged points)."""
    peer_rows = read_csv(pm.OUT / f"peers-{peer}.csv")
    kept = read_csv(pm.OUT / f"detour-{peer}-{fresh_from}.csv") if fresh_from else {}
    pts = {p["id"]: p for p in pm.points()}
    rows = []
    for pid, prow in peer_rows.items():
        pt = pts[pid]
        if fresh_from and not pt["aged"]:
            rows.append(kept[pid])
            continue
        tr = work / f"{peer}-{pid}.trace"
        if not tr.exists():
            pm.write_trace(tr, pt["mix"], float(prow["rate_iops"]), pm.N_POINT)
        keys = [*peer_keys(peer), *sets, "run.record_requests=false", *([*aged_keys(peer), *aged_sets] if pt["aged"] else [])]
        row = {"point": pid, "rate_iops": prow["rate_iops"], **detour_figures(peer, tr, keys)}
        rows.append(row)
        print(f"{peer} {pid}: read {row['read_mean']} write {row['write_mean']}", file=sys.stderr)
    dest = pm.OUT / (f"detour-{peer}-{label}.csv" if label else f"detour-{peer}.csv")
    with open(dest, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def detour_figures(peer: str, trace: Path, keys: list[str]) -> dict:
    """Detour's read and write mean / p50 / p99 / p99.9 in us on `trace` under `--compat peer` with `keys`."""
    import detour

    r = detour.run("bench-matched", trace=str(trace), compat=peer, overrides=keys)
    lat = r.summary["latency_us"]
    print(f"{peer} {trace.name}: gc {r.summary.get('gc', {})}", file=sys.stderr)
    return {f"{kind}_{k}": (round(v, 1) if (v := lat.get(kind, {}).get(k)) is not None else None)
            for kind in ("read", "write") for k in ("mean", "p50", "p99", "p999")}


def out_path(peer: str, label: str) -> Path:
    """A label's results; a peer whose bundle the label does not change keeps its unlabelled file."""
    p = pm.OUT / f"detour-{peer}-{label}.csv"
    return p if label and p.exists() else pm.OUT / f"detour-{peer}.csv"


def errors(peer: str, label: str) -> list[tuple[str, float, dict]]:
    """(point, load share, {figure: % error}) for every point both sides have."""
    p, d = read_csv(pm.OUT / f"peers-{peer}.csv"), read_csv(out_path(peer, label))
    load = {pt["id"]: pt["load"] for pt in pm.points()}
    out = []
    for pid in p:
        if pid not in d:
            continue
        e = {}
        for f in FIGS:
            a, b = p[pid].get(f), d[pid].get(f)
            if a not in (None, "") and b not in (None, "") and float(a) > 0:
                e[f] = (float(b) / float(a) - 1) * 100
        out.append((pid, load[pid], e))
    return out


#: points past the peer's own knee, shown by a run (a growing queue): their
#: figures say how full the peer's queue got, not a service time. MQSim at
#: r50-4k-uniform@0.5-aged completes 2,158-4,246 requests per 50 ms against
#: 5,201-5,366 arriving once GC and wear levelling start, its host queue
#: growing to 9,710 (docs/validation.md, issue 46, h40mgc).
PEER_SATURATED = {"mqsim": {"r50-4k-uniform@0.5-aged"}}


def draw_bound(peer: str, pid: str) -> str:
    """" (peer draw-bound, k of n)" when fewer than half of the peer's own
    other preconditioning draws of the point (docs/validation/draws-PEER-
    POINT.csv, run with the matrix's settings but its preconditioning seed)
    come within 10% of the matrix's draw on every counted figure: there one
    draw against another cannot tell a 10% difference (issue 46, h42tail75:
    MQSim's `preconditioning_seed`, FTL::Perform_precondition). "" otherwise
    or without such a file."""
    rows, base = draw_rows(peer, pid)
    if base is None:
        return ""
    figs = [f for f in COUNTED if f in base]

    def near(r: dict, ref: dict) -> bool:
        return all(abs(float(r[f]) / float(ref[f]) - 1) <= 0.10 for f in figs)

    others = [r for r in rows if r["sim"] == peer and r["fetch_window"] == base["fetch_window"] and r["seed"] != base["seed"]]
    k = sum(near(r, base) for r in others)
    return f" (peer draw-bound, {k} of {len(others)})" if others and 2 * k < len(others) else ""


def draw_rows(peer: str, pid: str) -> tuple[list[dict], dict | None]:
    """The point's draws file's rows and the peer's matrix draw among them:
    the peer row whose figures are the peer CSV's (to rounding). ([], None)
    without the file; (rows, None) when no peer row is the matrix's."""
    path = pm.OUT / f"draws-{peer}-{pid}.csv"
    if not path.exists():
        return [], None
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    matrix = read_csv(pm.OUT / f"peers-{peer}.csv")[pid]
    figs = [f for f in COUNTED if rows and f in rows[0]]
    base = [r for r in rows if r["sim"] == peer and all(abs(float(r[f]) - float(matrix[f])) < 1 for f in figs)]
    return rows, (base[0] if base else None)


def over_draws(peer: str, pid: str) -> tuple[int, int, dict[str, float]] | None:
    """A second judgement, beside the matrix's one draw against one: Detour's
    average over its draws against the peer's average over its draws, at the
    matrix draw's fetch window, as % error per counted figure, with the two
    draw counts. The point meets it when every counted figure is within 10%.
    None without both sides' draws (issue 46, h43draw)."""
    rows, base = draw_rows(peer, pid)
    if base is None:
        return None
    window = [r for r in rows if r["fetch_window"] == base["fetch_window"]]
    side = {s: [r for r in window if r["sim"] == s] for s in (peer, "detour")}
    if not side[peer] or not side["detour"]:
        return None

    def avg(rs: list[dict], f: str) -> float:
        return sum(float(r[f]) for r in rs) / len(rs)

    errs = {f: (avg(side["detour"], f) / avg(side[peer], f) - 1) * 100 for f in COUNTED if f in base}
    return len(side[peer]), len(side["detour"]), errs


DRAW_COLS = ("sim", "fetch_window", "seed", *(f for f in COUNTED))


def draws(peer: str, pid: str, sim: str, seeds: list[int], work: Path, exe: Path | None, sets: list[str]) -> Path:
    """Run `sim` (the peer or "detour") on aged point `pid` once per
    preconditioning draw in `seeds` and (re)write those rows of
    docs/validation/draws-PEER-POINT.csv, keeping the others. MQSim: a copy
    reading `preconditioning_seed` (FTL::Perform_precondition) from the
    environment variable MQSIM_PSEED, 0 giving the stock run (issue 46,
    h42tail75), with the matrix's config; Detour: the matrix's keys plus
    `sets` (Detour only, e.g. host.queue_depth=1024, the fetch_window
    column) plus `run.seed`, which seeds its steady-state layout
    (sim/steady.rs). Rows are written after each run, so a stopped sweep
    keeps what it ran. main() checks the arguments."""
    import os

    pt = {p["id"]: p for p in pm.points()}[pid]
    prow = read_csv(pm.OUT / f"peers-{peer}.csv")[pid]
    tr = work / f"{peer}-{pid}.trace"
    if not tr.exists():
        pm.write_trace(tr, pt["mix"], float(prow["rate_iops"]), pm.N_POINT)
    base_keys = [*peer_keys(peer), "run.record_requests=false", *aged_keys(peer), *sets]
    window = [k.split("=")[1] for k in base_keys if k.startswith("host.queue_depth=")][-1]
    path = pm.OUT / f"draws-{peer}-{pid}.csv"
    for seed in seeds:
        if sim == "detour":
            figs = detour_figures(peer, tr, [*base_keys, f"run.seed={seed}"])
        else:
            assert exe is not None  # main() requires --mqsim for the peer's draws
            os.environ["MQSIM_PSEED"] = str(seed)
            figs = pm.run_mqsim(exe, tr, True)
        row = {"sim": sim, "fetch_window": window, "seed": str(seed), **{f: str(round(figs[f])) for f in COUNTED}}
        print(f"draw {sim} {pid} seed {seed}: {row}", file=sys.stderr)
        kept = []
        if path.exists():
            with path.open() as fh:
                kept = [r for r in csv.DictReader(fh) if (r["sim"], r["fetch_window"], r["seed"]) != (sim, window, str(seed))]
        order = {peer: 0, "detour": 1}
        out = sorted([*kept, row], key=lambda r: (int(r["fetch_window"]), order.get(r["sim"], 2), int(r["seed"])))
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(DRAW_COLS))
            w.writeheader()
            w.writerows(out)
    return path


def table(peer: str, label: str) -> str:
    errs = errors(peer, label)
    lines = [f"| point | {' | '.join(FIGS)} |", "|---" * (len(FIGS) + 1) + "|"]
    w10 = w20 = 0
    for pid, _, e in errs:
        worst = max((abs(e[f]) for f in COUNTED if f in e), default=0.0)
        w10 += worst <= 10
        w20 += worst <= 20
        mark = "" if worst <= 10 else (" *" if worst <= 20 else " **")
        mark += " (peer saturated)" if pid in PEER_SATURATED.get(peer, set()) else ""
        mark += draw_bound(peer, pid)
        lines.append(f"| {pid}{mark} | " + " | ".join(f"{e[f]:+.0f}" if f in e else "-" for f in FIGS) + " |")
    head = f"{peer} ({out_path(peer, label).name}): {len(errs)} points, {w10} within 10% and {w20} within 20% " \
           f"on every counted figure ({', '.join(COUNTED)}); * = worst 10-20%, ** = over 20%; " \
           f"(peer saturated) = past the peer's own knee (PEER_SATURATED); (peer draw-bound, k of n) = only k of the " \
           f"peer's n other preconditioning draws within 10% of its matrix draw (draws-PEER-POINT.csv)\n"
    return head + "\n" + "\n".join(lines) + draws_table(peer, [pid for pid, _, _ in errs])


def draws_table(peer: str, pids: list[str]) -> str:
    """The over-draws judgement (over_draws) for every point with both sides' draws; "" when none has."""
    found = [(pid, d) for pid in pids if (d := over_draws(peer, pid)) is not None]
    if not found:
        return ""
    lines = [f"\n\nover draws (a separate judgement, not counted above): Detour's average over its preconditioning "
             f"draws against {peer}'s average over its draws (draws-PEER-POINT.csv, the matrix's fetch window), % "
             f"error per counted figure; within 10% = every counted figure within 10%\n",
             f"| point | {peer} draws | detour draws | {' | '.join(COUNTED)} | within 10% |",
             "|---" * (len(COUNTED) + 4) + "|"]
    for pid, (n_peer, n_det, e) in found:
        ok = "yes" if all(abs(v) <= 10 for v in e.values()) else "no"
        lines.append(f"| {pid} | {n_peer} | {n_det} | " + " | ".join(f"{e[f]:+.0f}" for f in COUNTED) + f" | {ok} |")
    return "\n".join(lines)


def plot(label: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, peer in zip(axes, pm.PEERS):
        errs = errors(peer, label)
        for f, m in (("read_mean", "o"), ("read_p99", "^"), ("write_mean", "s"), ("write_p99", "v")):
            xs = [ld for _, ld, e in errs if f in e]
            ys = [max(-100, min(200, e[f])) for _, _, e in errs if f in e]
            ax.scatter(xs, ys, marker=m, s=14, label=f.replace("_", " "), alpha=0.7)
        ax.axhspan(-10, 10, color="0.9", zorder=0)
        ax.set_title(f"{peer}: {out_path(peer, label).stem}", fontsize=9)
        ax.set_xlabel("load, share of the peer's knee")
    axes[0].set_ylabel("Detour vs peer, % (clipped -100..200)")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    out = pm.OUT / f"matrix-{label or 'shipped'}.png"
    fig.savefig(out, dpi=80)
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["run", "table", "plot", "draws"])
    ap.add_argument("--label", default="")
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--aged-set", action="append", default=[], dest="aged_sets", help="key=value for aged points only")
    ap.add_argument("--only", default="")
    ap.add_argument("--fresh-from", default="", help="run only the aged points, the others copied from this label")
    ap.add_argument("--work", type=Path, default=pm.ROOT / "target" / "matrix")
    ap.add_argument("--point", default="", help="draws: the aged point")
    ap.add_argument("--sim", default="detour", help="draws: the peer (MQSim) or detour")
    ap.add_argument("--seeds", default="0-9", help="draws: first-last preconditioning seeds")
    ap.add_argument("--mqsim", type=Path, help="draws: an MQSim reading MQSIM_PSEED (docs/validation.md, h42tail75)")
    a = ap.parse_args(argv)
    peers = [p for p in pm.PEERS if not a.only or p in a.only.split(",")]
    if a.what == "run":
        a.work.mkdir(parents=True, exist_ok=True)
        for p in peers:
            run(p, a.label, a.sets, a.work, a.aged_sets, a.fresh_from)
    elif a.what == "draws":
        aged = {pt["id"] for pt in pm.points() if pt["aged"]}
        if peers != ["mqsim"] or a.point not in aged or a.sim not in ("mqsim", "detour"):
            ap.error(f"draws needs --only mqsim, --point one of {sorted(aged)} and --sim mqsim or detour")
        if a.sim == "mqsim" and (a.mqsim is None or a.sets):
            ap.error("MQSim's draws need --mqsim FILE (a copy reading MQSIM_PSEED) and take no --set")
        if not re.fullmatch(r"\d+-\d+", a.seeds):
            ap.error("--seeds is FIRST-LAST, e.g. 0-19")
        lo, hi = (int(x) for x in a.seeds.split("-"))
        print(draws(peers[0], a.point, a.sim, list(range(lo, hi + 1)), a.work, a.mqsim, a.sets))
    elif a.what == "table":
        for p in peers:
            print(table(p, a.label) + "\n")
    else:
        print(plot(a.label))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
