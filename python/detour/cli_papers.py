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
