"""The paper commands of the `detour` command line: `detour calibrate` and
`detour reproduce` (docs/cli.md, docs/reproduce.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import report
from .errors import CliError

#: `detour calibrate --observable`: the baseline figures a paper reports
OBSERVABLES = {
    "hotr-blocked": "HotR: % of the baseline's reads blocked by a write (33.0)",
    "cr5-vs-cr4": "CR5M: CR5's mean response vs CR4's on SSD1, % (-17.5, the middle of 9-26% faster)",
}


def add_parsers(sub) -> None:
    """`detour calibrate` and `detour reproduce` on the command line's subparsers."""
    _parser_calibrate(sub)
    _parser_reproduce(sub)


def _parser_calibrate(sub) -> None:
    p = sub.add_parser("calibrate", help="scale one knob of a profile until the baseline shows a figure its paper "
                       "reports about the baseline (docs/reproduce.md, Calibration)")
    p.add_argument("profile", metavar="PROFILE", help="a synthetic workload profile or a spec file")
    p.add_argument("--observable", "-O", choices=sorted(OBSERVABLES), required=True,
                   help="the baseline figure to hit: " + "; ".join(f"{k}: {v}" for k, v in sorted(OBSERVABLES.items())).replace("%", "%%"))
    p.add_argument("--knob", "-k", choices=("rate", "burst", "skew"), default="rate",
                   help="rate (arrival rate factor), burst (peak-to-mean of on/off arrivals at the profile's mean "
                        "rate) or skew (zipf theta)")
    p.add_argument("--target", type=float, help="another value of the same baseline figure (default: the paper's)")
    p.add_argument("--compat", metavar="PEER", help="the timing rules of the runs (a bundle of `detour config --compat`)")
    p.add_argument("--requests", type=int, metavar="N", help="cut the profile to N requests for the search")
    p.add_argument("--tol", type=float, default=0.05, help="relative tolerance on the target (default 0.05)")
    p.add_argument("--profile-set", dest="profile_overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override one key of the profile (repeatable)")
    p.add_argument("--set", dest="config_sets", action="append", default=[], metavar="KEY=VALUE",
                   help="override one configuration key of the baseline runs (repeatable), e.g. device.blocks_per_plane=32")
    p.add_argument("--out", "-o", metavar="FILE", help="write the calibration as JSON (knob, target, achieved, points tried)")


def _parser_reproduce(sub) -> None:
    p = sub.add_parser("reproduce", help="run a paper's experiments and write a report beside its numbers (docs/reproduce.md)")
    p.add_argument("paper", metavar="PAPER", help="hotr, cr5m, ... or all (`detour reproduce --list`)", nargs="?")
    p.add_argument("--out", "-o", metavar="DIR", help="output directory (default: reproduce/<paper>)")
    p.add_argument("--quick", action="store_true", help="short workloads: a few minutes on 2 cores")
    p.add_argument("--trace", action="append", default=[], metavar="FILE",
                   help="run the experiments on this real trace instead of the calibrated profiles (repeatable)")
    p.add_argument("--traces", metavar="DIR",
                   help="run each experiment on the real traces the paper names, found in DIR by their published "
                        "file names (hm_0.csv, Financial1.spc, ...), each under the paper's name for it")
    p.add_argument("--workers", "-j", type=int, metavar="N", help="parallel runs (default: every core)")
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="local process pool (default) or a Ray cluster")
    p.add_argument("--address", metavar="HOST:PORT", help="the Ray cluster's address (with --backend ray)")
    p.add_argument("--compat", metavar="PEER", default="paper",
                   help="timing rules: paper (the default: the simulator the paper ran on, judged, with Detour's "
                        "default rules beside it), none (Detour's own only), or a bundle of `detour config --compat`")
    p.add_argument("--list", action="store_true", help="list the papers")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the report's path")


def _parse_set(kv: str) -> tuple:
    """KEY=VALUE with VALUE read as TOML (anything unparsable is a string)."""
    from . import _toml

    if "=" not in kv:
        raise CliError(f"expected KEY=VALUE, got {kv!r}")
    k, v = kv.split("=", 1)
    try:
        return k.strip(), _toml.loads(f"v = {v}")["v"]
    except Exception:
        return k.strip(), v


def cmd_calibrate(a: argparse.Namespace) -> None:
    import dataclasses
    import json

    from .calibrate import HOTR_BLOCKED, calibrate, calibration_table, cr5_vs_cr4

    obs = HOTR_BLOCKED if a.observable == "hotr-blocked" else cr5_vs_cr4()
    if a.target is not None:
        obs = dataclasses.replace(obs, target=a.target)
    sets = dict(_parse_set(kv) for kv in a.profile_overrides)
    conf = dict(_parse_set(kv) for kv in a.config_sets)
    c = calibrate(a.profile, obs, a.knob, compat=a.compat, requests=a.requests, profile_overrides=sets or None,
                  overrides=conf or None, tol=a.tol, say=print)
    print(report.table(*calibration_table([c])))
    print("profile overrides at the calibrated point: " + ", ".join(f"{k}={v}" for k, v in c.profile_set().items()))
    if a.out:
        Path(a.out).write_text(json.dumps(c.to_json(), indent=2) + "\n")
        print(f"wrote {a.out}")
    if not c.within:
        raise CliError(f"calibration missed its target: {c.achieved:.3g} vs {c.target:g} (tol {a.tol:g}); "
                       "the knob's range may not reach it")


def cmd_reproduce(a: argparse.Namespace) -> None:
    from .reproduce import PAPERS, reproduce, reproduce_all

    if a.list or not a.paper:
        from .reproduce import _module

        print(report.table(["paper", "experiments"], [[p, _module(p).TITLE] for p in PAPERS]))
        return
    if a.address and a.backend != "ray":
        raise CliError("--address needs --backend ray")
    if a.paper != "all" and a.paper not in PAPERS:
        raise CliError(f"unknown paper {a.paper!r}; known: {', '.join(PAPERS)}, all")
    say = (lambda s: None) if a.quiet else (lambda s: print(s, flush=True))
    kw = dict(quick=a.quick, traces=a.trace, workers=a.workers, backend=a.backend, address=a.address, say=say,
              compat=a.compat, traces_dir=a.traces)
    if a.paper == "all":
        page = reproduce_all(Path(a.out or "reproduce"), **kw)
    else:
        page = reproduce(a.paper, Path(a.out or f"reproduce/{a.paper}"), **kw)
    if a.quiet:
        print(page)
