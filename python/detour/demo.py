"""The embedded demo: every scheme on the setting its paper targets, on the
`small` device, against its own baseline on the same workload.

    detour demo --out detour-demo

Each scheme exists for one situation: HotR, Rails and TTFlash for reads
blocked behind programs on a busy device, the collision scheme for reads
that keep landing on one die in pairs, the deduplicating schemes for
workloads whose pages repeat values, the channel-RAID family for parity and
mirrors. The bundled trace (`data/demo.trace`, MQSim format, no content
hashes, a fresh device) gives most of them nothing to do, so each `Case`
names the workload and device its paper describes, the metric the paper
reports, and the sign the paper finds. The demo writes one table
(`comparison.txt`), one figure (`comparison.png`: each scheme's change
against its baseline) and, for each scheme, a line saying whether it helped
and why, computed from the run's numbers by `verdict`.

    Case --run--> scheme run ----\\
         --run--> baseline run ---+--> gain % --verdict--> line
                   (shared by the cases on one workload)
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import plots, registry, report
from .api import Result, run
from .reproduce.hotr import KIND as HOTR_KIND

DEMO_DEVICE = "small"
#: Requests per run (the bundled trace has 20,000; profiles are cut to it).
DEMO_REQUESTS = 20_000
#: A change smaller than this (in %) reads as "no change": the runs are one
#: seed each, and the aged fin2 baseline's all-request mean moves 0.7%
#: between generator seeds 1, 2 and 3.
NOISE_PCT = 1.0

#: The aged device of docs/benchmarks.md: half the logical space valid, then
#: overwritten until every plane is one block above its GC threshold, so the
#: run's own writes start garbage collection within its first seconds.
AGED = {"ftl.precondition.valid": 0.5, "ftl.precondition.to_gc_threshold": True}


@dataclass(frozen=True)
class Workload:
    """What a group of cases runs on: the bundled trace (`profile` None) or
    a generator profile, and the device settings its baseline shares."""

    about: str
    profile: Optional[str] = None
    profile_set: Tuple[Tuple[str, Any], ...] = ()
    device_set: Tuple[Tuple[str, Any], ...] = ()
    #: The profile's scaled day (s), which the schemes of `[scheme.dedup]`
    #: take as their replication period (docs/workloads.md, "Scaled days").
    day_s: Optional[float] = None


def _rr_day(requests: int) -> float:
    # The RR profiles replay 7 scaled days, their requests in bursts of
    # 20,000 req/s; cut to `requests` they are (about) one burst of
    # requests / 20,000 s, so the day shrinks with them and RR-SSD's
    # end-of-day replication still sees the paper's 7 days (Fig. 9).
    return requests / 20_000 / 7


def workloads(requests: int = DEMO_REQUESTS) -> Dict[str, Workload]:
    return {
        # HotR Table III's fin2 (its page classes, 17.6% writes) on an aged
        # device: programs and GC copies are what blocks reads (HotR Sec. II-A).
        "fin2-aged": Workload("fin2 profile (HotR Table III), aged device with GC running", "fin2",
                              (("requests", requests),), tuple(AGED.items())),
        # The collision paper's read-dominant volume with planted same-die
        # pairs; its pair page is the device's (docs/workloads.md).
        "msr-patterned": Workload("msr-patterned profile: 95% reads, 30% of them in same-die pairs",
                                  "msr-patterned", (("requests", requests), ("pairs.page_bytes", 4096))),
        # RR-SSD Table III's webvm: 58% of writes repeat a value, reads
        # concentrate on popular values (Fig. 4).
        "webvm": Workload("webvm profile (RR-SSD Table III): content hashes, 42% unique writes", "webvm",
                          (("requests", requests), ("content.day_s", _rr_day(requests))), day_s=_rr_day(requests)),
        # The channel-RAID family needs no premise beyond writes that are
        # smaller than a stripe, which the bundled trace has.
        "trace": Workload("the bundled trace (MQSim format, 70% reads, 4-64 KiB requests)"),
    }


@dataclass(frozen=True)
class Case:
    """One scheme on its paper's setting. `metric` is the latency the paper
    reports ((kind, stat) of `summary.latency_us`); `paper` the sign it finds
    against `baseline` (-1 faster, +1 slower, 0 the same; None: no paper, a
    scheme without a case of its own); `counters` the scheme counters that
    show the mechanism, the first one registered as the scheme's activity
    where it has one; `helped` / `hurt` say why with them ({0}, {1}: their
    values; {share}: the first over the metric's requests). The baseline
    is the scheme's registry entry's."""

    scheme: str
    workload: str
    setting: str
    metric: Tuple[str, str]
    paper: Optional[int]
    claim: str
    counters: Tuple[str, ...] = ()
    helped: str = ""
    hurt: str = ""
    overrides: Dict[str, Any] = field(default_factory=dict)
    #: Where the demo is known not to show the paper's sign: what was
    #: measured about it (the test checks the sign is still not the paper's,
    #: so the note cannot outlive its truth).
    contrary: str = ""

    @property
    def baseline(self) -> str:
        return registry.scheme(self.scheme).baseline or "conventional"


ALL = ("all", "mean")
#: HotR's Fig. 5 "response time" as the reproductions read it (reads':
#: `detour.reproduce.hotr.KIND`, argued in docs/reproduce.md, "Readings"),
#: imported so the demo and hr-3 can never read the paper two ways. Rails
#: and TTFlash are Fig. 5's other bars, on the same measure.
HOTR_METRIC = (HOTR_KIND, "mean")
#: A partial-stripe write reads pages back to compute parity (reconstruct-
#: write or read-modify-write, whichever reads fewer): the cost of parity.
PARITY = ("stripe_writes_rcw", "stripe_writes_rmw", "prereads_per_write")
PARITY_COST = "{0:,} reconstruct-writes and {1:,} read-modify-writes read {2:.2f} pages back per page written"
CASES: List[Case] = [
    Case("hotr", "fin2-aged", "4ch x 2 chips + a spare staging chip on a channel of its own (HotR abstract, Sec. I)",
         HOTR_METRIC, -1, "HotR Fig. 5: mean response time -21.8% on average",
         ("hotr.staging_hits", "hotr.migrations", "hotr.reads_blocked", "hotr.reads_redirected_staging"),
         "{3:,} of the {2:,} reads that found their die writing went to the spare chip's copies instead; "
         "{0:,} reads ({share}) were of staged pages",
         "its {1:,} migrations added programs, and only {3:,} of the {2:,} reads that found their die writing "
         "went to a staging copy",
         # The R-LRU keeps the hottest pages staged (Sec. III-B), on "a dedicated spare flash chip" (abstract,
         # Sec. I) beside the device's chips: the host keeps the baseline's chips and logical space. Staged in
         # the aged device's over-provisioned space instead (staging = "op"), the copies cost GC copies and
         # erases on the host's dies and HotR read +0.4% (docs/schemes/hotr.md).
         {"scheme.hotr.replace": True, "device.spare_chips": 1, "scheme.hotr.staging": "spare-chip"}),
    Case("rails", "fin2-aged", "4ch x 4 chips: a mirror for every chip (Rails 4+4, HotR Sec. IV-B)",
         HOTR_METRIC, -1, "HotR Fig. 5: Rails the fastest of all", ("rails.reads_read_half", "rails.swaps"),
         "{0:,} reads ({share}) went to the half that was not writing ({1:,} role swaps)",
         "every write programs both halves; {0:,} reads ({share}) went to the half not writing",
         {"device.chips_per_channel": 4}),
    Case("ttflash", "fin2-aged", "5ch x 2 chips: 4+1 parity stripes (HotR Sec. IV-B)", HOTR_METRIC, +1,
         "HotR Fig. 5, 8: TTFlash slower than the baseline (its rebuilds add reads)",
         ("ttflash.reads_reconstructed", "ttflash.reconstruction_reads"),
         "{0:,} blocked reads ({share}) were rebuilt from parity at a cost of {1:,} flash reads",
         "{0:,} rebuilt reads ({share}) cost {1:,} extra flash reads, and every write programs parity too",
         {"device.channels": 5, "scheme.ttflash.width": 5}),
    Case("collisions", "msr-patterned", "4ch x 2 chips x 2 dies = the profile's stride of 16 dies",
         ("read", "mean"), -1, "collision paper, abstract: mean read latency down on the MSR traces, by up to 37%",
         ("collisions.replications", "collisions.replica_reads"),
         "{0:,} pages of colliding pairs were replicated to less loaded dies; {1:,} reads went to a replica",
         "its {0:,} replica programs cost more than the {1:,} reads served by a replica saved"),
    Case("pure", "trace", "4ch x 2 chips, no redundancy", ALL, 0,
         "CR5M paper: the unprotected baseline, the conventional FTL under another name",
         (), "", ""),
    Case("cr1", "trace", "8ch x 2 chips: mirrored channels (CR5M Table III)", ALL, -1,
         "CR5M Sec. IV-B: CR1 the fastest (twice the chips)", ("mirror_reads",),
         "{0:,} reads ({share}) went to the mirror channel", "{0:,} reads ({share}) went to the mirror channel, "
         "and every write programs two channels", {"device.channels": 8}),
    Case("cr4", "trace", "4ch x 2 chips: 3 data channels + 1 parity channel", ALL, +1,
         "CR5M Sec. IV-B: parity makes CR4 slower than the pure SSD, the slowest of all by its parity channel", PARITY, "", PARITY_COST + ", all on one channel"),
    Case("cr5", "trace", "4ch x 2 chips: rotating parity", ALL, +1,
         "CR5M Sec. IV-B: parity makes CR5 slower than the pure SSD", PARITY, "", PARITY_COST),
    Case("cr5m", "trace", "4ch x 3 chips: one hidden mirror chip per channel (CR5M Table III)", ALL, -1,
         "CR5M Sec. IV-B: mean response time -6..-25.8% against CR5", ("mirror_chip_writes", "stripe_writes_mw"),
         "{0:,} small writes went to a mirror chip instead of a parity update",
         "{0:,} small writes went to a mirror chip, and flushing them back to parity cost more",
         {"device.chips_per_channel": 3, "scheme.raid.mirror_write": "interleaved"}),
    Case("ca-ssd", "webvm", "4ch x 2 chips, content-addressed FTL", ("write", "mean"), -1,
         "RR-SSD Table III: CA-SSD cuts write response time", ("dedup.write_hits",),
         "{0:,} written pages ({share}) repeated a stored value and cost no program",
         "only {0:,} written pages ({share}) repeated a stored value"),
    Case("rr-ssd", "webvm", "CA-SSD + popular values replicated each scaled day", ("read", "mean"), -1,
         "RR-SSD Table IV: read service time -23.9% on average against CA-SSD",
         ("dedup.replica_reads", "dedup.replicas"),
         "{0:,} reads ({share}) went to the least-loaded of {1:,} replicas",
         "its replica programs cost more than the {0:,} reads ({share}) served by a replica saved"),
    Case("oracle", "webvm", "CA-SSD + every value on every die, for free", ("read", "mean"), -1,
         "RR-SSD Fig. 3, 9: Ideal-All-Chip replication, the bound of read redirection", ("oracle.shadow_reads",),
         "{0:,} reads ({share}) went to a less loaded die than their own", ""),
    Case("pblru", "webvm", "CA-SSD + blocked pages copied on-line (PBLRU)", ("read", "mean"), -1,
         "RR-SSD Fig. 11: PBLRU improves reads, less than RR-SSD", ("pblru.copies_made", "dedup.replica_reads"),
         "{0:,} blocked pages were copied; {1:,} reads went to a copy",
         "its {0:,} copies cost programs, and {1:,} reads went to a copy"),
]


def all_cases() -> List[Case]:
    """`CASES`, then a plain case for every registered scheme that has none
    (a scheme just added, before anyone wrote its paper's case): the
    bundled trace against its baseline, its activity counters shown, no
    paper sign claimed."""
    have = {c.scheme for c in CASES}
    plain = [Case(e.name, "trace", "the demo device as it is", ALL, None, "no paper case yet", e.activity)
             for e in registry.schemes() if e.baseline and e.name not in have]
    return CASES + plain


@dataclass
class Row:
    """One case's outcome."""

    case: Case
    result: Result
    base: Result
    gain_pct: float
    counts: Tuple[float, ...]
    line: str = ""

    @property
    def agrees(self) -> bool:
        return self.case.paper is None or _sign(self.gain_pct) == self.case.paper


def _sign(gain_pct: float) -> int:
    return 0 if abs(gain_pct) < NOISE_PCT else (-1 if gain_pct < 0 else 1)


WORD = {-1: "helped", 0: "no change", 1: "hurt"}


def verdict(row: Row) -> str:
    """The rule behind each line: the gain's sign (|gain| < NOISE_PCT is no
    change) says whether the scheme helped; the case's `helped` or `hurt`
    sentence, filled with the run's counters, says why; the paper's sign
    says whether this is what the paper reports."""
    c, s = row.case, _sign(row.gain_pct)
    kind, stat = c.metric
    head = f"{c.scheme}: {WORD[s]} ({row.gain_pct:+.1f}% {kind} {stat} vs {c.baseline})"
    why = c.helped if s < 0 else c.hurt
    if why:
        # pages, as the counters count them (a request may be several)
        what = "written" if kind == "write" else "read"
        n = row.result.summary["pages"]["host_" + what]
        share = f"{row.counts[0] / n:.1%} of the pages {what}" if n else "-"
        head += ": " + why.format(*row.counts, share=share)
    elif s == 0 and not c.counters:
        head += ": it runs the conventional FTL's placement and nothing else"
    if kind == "all":  # which side moved: the reads a scheme redirects, or the writes it adds to
        parts = (f"{k}s {gain_pct(row.result, row.base, (k, stat)):+.1f}%" for k in ("read", "write"))
        head += f" [{', '.join(parts)}]"
    if c.paper is None:
        return f"{head}. ({c.claim})."
    if row.agrees:
        return f"{head}. The paper's sign ({c.claim})."
    note = contrary_note(row)
    return f"{head}. NOT the paper's sign ({c.claim})" + (f": {note}." if note else ".")


def contrary_note(row: Row) -> str:
    """The case's `contrary` note filled from the run: its counters ({0},
    {1}, ...), {share} of the first over the pages read, {4} the fourth
    over the third, and, against the baseline, the change in GC copies,
    erases and all programs, and {blocked_share}: the third counter over
    the pages read."""
    c = row.case
    if not c.contrary:
        return ""
    gc, bgc = row.result.summary["gc"], row.base.summary["gc"]
    programs = [g["programs_host"] + g["programs_gc"] + g["programs_aux"] for g in (gc, bgc)]
    n = row.result.summary["pages"]["host_read"]
    counts = tuple(row.counts) + (("-",) if len(row.counts) < 4 else
                                  (f"{row.counts[3] / row.counts[2]:.1%}" if row.counts[2] else "-",))

    def pct(k: int) -> str:
        return f"{row.counts[k] / n:.1%}" if n and len(row.counts) > k else "-"

    return c.contrary.format(*counts, share=pct(0), blocked_share=pct(2),
                             gc_moves=int(gc["moves"] - bgc["moves"]), gc_erases=int(gc["erases"] - bgc["erases"]),
                             programs_pct=(programs[0] / programs[1] - 1) * 100 if programs[1] else 0.0)


def _key(scheme: str, wl: str, overrides: Dict[str, Any]) -> Tuple:
    return (scheme, wl, tuple(sorted(overrides.items())))


def _run(cache: dict, scheme: str, wl_key: str, wl: Workload, overrides: Dict[str, Any], trace: Path,
         device: str, progress: bool) -> Result:
    key = _key(scheme, wl_key, overrides)
    if key not in cache:
        src = ({"profile": wl.profile, "profile_overrides": dict(wl.profile_set)} if wl.profile
               else {"trace": trace})
        cfg = {**dict(wl.device_set), **overrides}
        if wl.day_s and _section(scheme) == "dedup":
            cfg["scheme.dedup.period_s"] = wl.day_s
        cache[key] = run(device, scheme=scheme, overrides=cfg or None, verify=True, progress=progress, **src)
    return cache[key]


def gain_pct(r: Result, base: Result, metric: Tuple[str, str]) -> float:
    """The change of `metric` against the baseline, in % (negative = faster)."""
    kind, stat = metric
    a, b = r.summary["latency_us"][kind][stat], base.summary["latency_us"][kind][stat]
    return (a / b - 1.0) * 100 if b else float("nan")


def run_cases(device: str = DEMO_DEVICE, trace=None, requests: int = DEMO_REQUESTS, progress: bool = False,
              cases: Optional[List[Case]] = None) -> Tuple[List[Row], dict]:
    """Run every case and its baseline (each distinct run once); returns
    the rows and {(scheme, workload, overrides): Result}."""
    cache: Dict[Tuple, Result] = {}
    wls, rows = workloads(requests), []
    with (_given(trace) if trace is not None else demo_trace()) as full, _first(full, requests) as path:
        for c in cases or all_cases():
            wl = wls[c.workload]
            r = _run(cache, c.scheme, c.workload, wl, c.overrides, path, device, progress)
            b = _run(cache, c.baseline, c.workload, wl, _own(c.baseline, c.workload), path, device, progress)
            counts = tuple(_number(r.summary["scheme_counters"].get(k, 0.0)) for k in c.counters)
            row = Row(c, r, b, gain_pct(r, b, c.metric), counts)
            row.line = verdict(row)
            rows.append(row)
    return rows, cache


def _section(scheme: str) -> str:
    return registry.scheme(scheme).section


def _number(v: float):
    # counts print as integers ("1,551"), ratios as they are
    return int(v) if float(v).is_integer() else float(v)


def _own(scheme: str, wl: str) -> Dict[str, Any]:
    # A baseline that is itself a case on the workload (cr5 for cr5m) runs
    # on its own setting.
    return next((c.overrides for c in CASES if c.scheme == scheme and c.workload == wl), {})



def idle(r: Result) -> Optional[str]:
    """The core's `scheme_idle` warning (every activity counter the scheme
    registers stayed 0), or None."""
    return next((w["message"] for w in r.summary.get("warnings", []) if w["kind"] == "scheme_idle"), None)


HEADERS = ("scheme", "baseline", "workload", "setting", "metric", "baseline us", "scheme us", "change %", "paper",
           "counter", "value", "baseline J", "scheme J")


def table(rows: List[Row]) -> str:
    out = []
    wls = workloads()
    for row in rows:
        c = row.case
        kind, stat = c.metric
        base, ours = (r.summary["latency_us"][kind][stat] for r in (row.base, row.result))
        out.append([c.scheme, c.baseline, c.workload, c.setting, f"{kind} {stat}", f"{base:.1f}",
                    f"{ours:.1f}", f"{row.gain_pct:+.1f}", {-1: "faster", 0: "same", 1: "slower", None: "-"}[c.paper],
                    c.counters[0] if c.counters else "-", f"{row.counts[0]:,.0f}" if c.counters else "-",
                    *(report.fmt((r.summary.get("energy") or {}).get("joules")) for r in (row.base, row.result))])
    text = report.table(list(HEADERS), out)
    used = dict.fromkeys(r.case.workload for r in rows)
    return text + "\n\nworkloads:\n" + "\n".join(f"  {k}: {wls[k].about}" for k in used)


@contextmanager
def demo_trace() -> Iterator[Path]:
    """The path of the bundled demo trace."""
    with resources.as_file(resources.files("detour").joinpath("data", "demo.trace")) as p:
        yield Path(p)


def demo(out_dir="detour-demo", device: str = DEMO_DEVICE, trace=None, echo=print, progress: bool = False,
         requests: int = DEMO_REQUESTS) -> List[Row]:
    """Run every case (`all_cases()`) with its baseline; write each run's results
    to `out_dir/<scheme>@<workload>/`, the table and the lines to
    `out_dir/comparison.txt` and the figure to `out_dir/comparison.png`.
    Returns the rows."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows, cache = run_cases(device, trace, requests, progress)
    # one run per (scheme, workload): a baseline that is also a case runs
    # on that case's setting (`_own`)
    for (scheme, wl, _ov), r in cache.items():
        r.write(out / f"{scheme}@{wl}")
    header = (f"Detour demo: each scheme on its paper's setting on the `{device}` device, {requests:,} requests "
              f"a run, against its own baseline on the same workload (latencies in µs; change < 0 is faster)")
    lines = [r.line for r in rows]
    idles = [f"  {r.case.scheme}: {idle(r.result)}" for r in rows if idle(r.result)]
    text = table(rows) + "\n\n" + "\n".join(lines) + ("\n\nidle:\n" + "\n".join(idles) if idles else "")
    (out / "comparison.txt").write_text(header + "\n\n" + text + "\n")
    png = plots.demo_gains(rows, out / "comparison.png", title=f"Each scheme against its baseline on `{device}`")
    errors = {n: r.summary["verify_errors"] for n, r in cache.items() if r.summary["verify_errors"]}
    if echo:
        echo(header)
        echo("")
        echo(text)
        echo("")
        if errors:
            echo(f"verify errors: {errors}")
        echo(f"wrote {png} and per-run results in {out}/<scheme>@<workload>/")
    return rows


@contextmanager
def _given(trace) -> Iterator[Path]:
    yield Path(trace)


@contextmanager
def _first(trace: Path, requests: int) -> Iterator[Path]:
    """The trace cut to its first `requests` requests (a line each in
    MQSim's format, after `#` comments), so every workload of a run has the
    same count."""
    lines, n = [], 0
    with open(trace) as f:
        for ln in f:
            n += not ln.startswith("#")
            if n > requests:
                break
            lines.append(ln)
    if n <= requests:  # the whole trace
        yield trace
        return
    with tempfile.TemporaryDirectory() as tmp:
        cut = Path(tmp) / trace.name
        cut.write_text("".join(lines))
        yield cut


def main(argv: Optional[list] = None) -> int:  # pragma: no cover - `detour demo` is the entry point
    from .cli import main as cli_main

    return cli_main(["demo", *(argv or [])])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
