"""The embedded demo: the bundled workload (`data/demo.trace`, 20,000
requests in MQSim format, see python/tools/make_demo_trace.py) on the
`small` device under every scheme, compared in a table and a plot.

    detour demo --out detour-demo
"""

from __future__ import annotations

from contextlib import contextmanager
from importlib import resources
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, Optional

from . import plots, report
from .api import Result, run, schemes

DEMO_DEVICE = "small"
#: The demo's 20,000 requests, and the same count of each profile a scheme
#: needs instead of the bundled trace.
DEMO_REQUESTS = 20_000


@dataclass
class Setup:
    """What a scheme's paper gives it, on the demo's `small` device (4
    channels x 2 chips): more chips, or a workload with its premise."""

    why: str
    overrides: Dict[str, Any] = field(default_factory=dict)
    profile: Optional[str] = None  # run on this synthetic profile (cut to DEMO_REQUESTS) instead of the trace


SETUPS = {
    # HotR's premise: few mixed pages (9.6% on average, Sec. II-C); the
    # bundled trace has about 60%. The fin2 profile has the paper's classes.
    "hotr": Setup("fin2 profile: 9.6% mixed pages, HotR's premise (the bundled trace has ~60%)", profile="fin2"),
    # Rails 4+4 mirrors every chip: twice the chips for the same usable capacity.
    "rails": Setup("4ch x 4 chips: a mirror for every chip (Rails 4+4)", {"device.chips_per_channel": 4}),
    # TTFlash 4+1: one parity chip per four data chips.
    "ttflash": Setup("5ch x 2 chips: 4+1 parity stripes", {"device.channels": 5, "scheme.ttflash.width": 5}),
    # CR5M Table III: CR1 has twice the channels, CR5M one more chip per channel.
    "cr1": Setup("8ch x 2 chips: mirrored channels (CR5M Table III)", {"device.channels": 8}),
    "cr5m": Setup("4ch x 3 chips: one hidden mirror chip per channel (CR5M Table III)", {"device.chips_per_channel": 3}),
}
#: The baseline each scheme is compared with in the demo, and the counter
#: that shows the scheme did anything, with what explains a zero.
BASELINE = {"hotr": "conventional", "rails": "conventional", "ttflash": "conventional", "collisions": "conventional",
            "pure": "conventional", "cr1": "pure", "cr4": "pure", "cr5": "pure", "cr5m": "cr5", "ca-ssd": "conventional",
            "rr-ssd": "ca-ssd", "oracle": "ca-ssd", "pblru": "ca-ssd"}
DEDUP = ("ca-ssd", "rr-ssd", "oracle", "pblru")
NO_CONTENT = "the bundled trace (MQSim format) carries no content hashes, so every write is a new value"
ACTIVITY = {
    "hotr": ("hotr.reads_redirected_staging", "no blocked read found its page staged"),
    "rails": ("rails.swaps", "the run ended before the first swap"),
    "ttflash": ("ttflash.reads_reconstructed", "no blocked read could be rebuilt"),
    "cr1": ("mirror_reads", "no read went to a mirror"),
    "cr5m": ("mirror_chip_writes", "no partial-stripe write found its mirror chip idle"),
    "collisions": ("collisions.replications", "no collision pair repeated often enough to be replicated (the trace has "
                   "no planted pairs; the `msr-patterned` profile has)"),
    "ca-ssd": ("dedup.write_hits", NO_CONTENT + ": nothing to deduplicate"),
    "rr-ssd": ("rrssd.copies_made", "no replica was made (" + NO_CONTENT + "; its replica space is what "
               "deduplication saves)"),
    "pblru": ("pblru.copies_made", "no replica was made (" + NO_CONTENT + "; its replica space is what deduplication "
              "saves)"),
    "oracle": ("oracle.shadow_reads", "no read had a less loaded die to go to"),
}


#: Settings that follow a paper more closely, used when this build of the
#: core has them (older builds run without).
IF_AVAILABLE = {
    "cr5m": {"scheme.raid.mirror_write": "interleaved"},  # CR5M counts a mirroring write as one write
    "hotr": {"scheme.hotr.replace": True},  # the R-LRU keeps the hottest pages staged
}


def _overrides(name: str, device: str) -> Dict[str, Any]:
    from .api import config

    out = dict(SETUPS[name].overrides) if name in SETUPS else {}
    if name in DEDUP:
        # The bundled trace has no content hashes: the dedup schemes run on
        # unique synthetic values, asked for explicitly (they refuse such a
        # trace otherwise; docs/schemes/rr-ssd.md).
        out["scheme.dedup.synthetic_content"] = True
    for k, v in IF_AVAILABLE.get(name, {}).items():
        try:
            config(device, overrides={k: v})
            out[k] = v
        except Exception:
            pass
    return out


def inactive(name: str, summary: dict) -> Optional[str]:
    """Why `name` did nothing on this run (its activity counter is 0), or None."""
    key, why = ACTIVITY.get(name, (None, ""))
    if key is None:
        return None
    return why if not summary.get("scheme_counters", {}).get(key, 0.0) else None


@contextmanager
def demo_trace() -> Iterator[Path]:
    """The path of the bundled demo trace."""
    with resources.as_file(resources.files("detour").joinpath("data", "demo.trace")) as p:
        yield Path(p)


def demo(out_dir="detour-demo", device: str = DEMO_DEVICE, trace=None, echo=print, progress: bool = False) -> dict:
    """Run the demo workload (or `trace`) under every scheme, each on the
    configuration its paper gives it (`SETUPS`); write each run's results to
    `out_dir/<scheme>/`, the table to `out_dir/comparison.txt` and the plot
    to `out_dir/comparison.png`. A scheme whose activity counter stays at 0
    is listed as inactive, with why, instead of a row of numbers. Returns
    {scheme: Result} (HotR's baseline on its profile as "conventional@fin2")."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results: dict = {}
    with (_given(trace) if trace is not None else demo_trace()) as path:
        for name, _desc in schemes():
            su = SETUPS.get(name, Setup(""))
            src = ({"profile": su.profile, "profile_overrides": {"requests": DEMO_REQUESTS}} if su.profile
                   else {"trace": path})
            r: Result = run(device, scheme=name, overrides=_overrides(name, device) or None, verify=True,
                            progress=progress, **src)
            r.write(out / name)
            results[name] = r
            if su.profile:  # its baseline on the same workload
                b = run(device, scheme=BASELINE[name], verify=True, progress=progress, **src)
                key = f"{BASELINE[name]}@{su.profile}"
                b.write(out / key)
                results[key] = b
    first = results["conventional"].summary
    rows, idle = [], []
    for n, r in results.items():
        why = inactive(n, r.summary)
        if why:
            idle.append(f"  {n}: inactive on this workload: {why}")
            continue
        base = f"{BASELINE[n]}@{SETUPS[n].profile}" if n in SETUPS and SETUPS[n].profile else BASELINE.get(n)
        if "@" in n:
            setup = f"{n.split('@')[1]} profile, 4ch x 2 chips: HotR's baseline"
        else:
            setup = SETUPS[n].why if n in SETUPS else "the bundled trace, 4ch x 2 chips"
        rows.append(report.comparison_row(n, r.summary) + [_vs(r, results.get(base)), base or "-", setup])
    text = report.table(list(report.COMPARISON_HEADERS) + ["mean vs baseline %", "baseline", "setup"], rows)
    if idle:
        text += "\n\n" + "\n".join(idle)
    header = (
        f"Detour demo: {first['requests']:,} requests from {Path(first['workload']['source']).name} "
        f"on the `{device}` device, every scheme on what its paper gives it (latencies in µs)"
    )
    (out / "comparison.txt").write_text(header + "\n\n" + text + "\n")
    shown = {n: r for n, r in results.items() if not inactive(n, r.summary)}
    png = plots.comparison(shown, out / "comparison.png", title=f"{Path(first['workload']['source']).name} on {device}")
    errors = {n: r.summary["verify_errors"] for n, r in results.items() if r.summary["verify_errors"]}
    if echo:
        echo(header)
        echo("")
        echo(text)
        echo("")
        if errors:
            echo(f"verify errors: {errors}")
        echo(f"wrote {png} and per-scheme results in {out}/<scheme>/")
    return results


def _vs(r: Result, base: Optional[Result]) -> float:
    if base is None:
        return float("nan")
    return (r.latency("all") / base.latency("all") - 1.0) * 100


@contextmanager
def _given(trace) -> Iterator[Path]:
    yield Path(trace)


def main(argv: Optional[list] = None) -> int:  # pragma: no cover - `detour demo` is the entry point
    from .cli import main as cli_main

    return cli_main(["demo", *(argv or [])])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
