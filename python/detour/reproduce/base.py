"""The pieces every paper's reproduction is built from.

A reproduction runs its experiments as ordinary sweeps (docs/sweeps.md), one
sweep directory per group of runs under OUT/runs/<name>, so it resumes
after a kill, scales out on Ray like any sweep, and leaves records that
`detour results` can read. Each experiment then becomes a `Section`: what
was run, a table with the paper's number beside ours, figures, and notes
that say where we disagree.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .. import _toml
from ..errors import ReproduceError  # re-exported: raised here
from ..sweep import run_sweep
from ..sweep.records import RUNS, write_atomic
from .verdict import Claim


@dataclass
class Section:
    """One experiment's part of the report."""

    id: str
    title: str
    paper: str  # the paper's result, as quoted in the report
    workload: str  # what workloads the numbers come from (synthetic or trace)
    headers: List[str] = field(default_factory=list)
    rows: List[List[Any]] = field(default_factory=list)
    figures: List[Any] = field(default_factory=list)  # (name, matplotlib Figure)
    #: figure name -> the numbers it draws, ours and the paper's (reproduce.figures)
    figure_data: Dict[str, Any] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)  # disagreements and caveats
    # What was measured for the paper's claim; `verdict.judge` turns it
    # into the verdict (a section never states its own).
    claim: Optional[Claim] = None
    #: the same claim measured under Detour's default rules (two-column reports)
    claim_default: Optional[Claim] = None

    def measured(self, paper: Optional[Dict[str, float]] = None, ours: Optional[Dict[str, float]] = None,
                 holds: Optional[tuple] = None, why: str = "", calibrated: Sequence[str] = (),
                 items: Optional[Dict[str, str]] = None, saturated: Sequence[str] = ()) -> None:
        """Record what was measured for the paper's claim (`verdict.Claim`):
        measures as {name: number} in one unit with 0 = no effect, and/or
        the qualitative part holding on (k, n) workloads; `calibrated` names
        the measures that are calibration targets, `items` maps a per-item
        measure to its item, `saturated` the workloads left out."""
        self.claim = Claim(self.id, self.paper, dict(paper or {}), dict(ours or {}), holds, why,
                           list(calibrated), dict(items or {}), sorted(set(saturated)))

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "paper": self.paper, "workload": self.workload,
                "headers": self.headers, "rows": self.rows, "notes": self.notes,
                "figures": [n for n, _ in self.figures]}


@dataclass
class Run:
    """One finished run of a reproduction sweep."""

    spec: dict
    summary: dict
    dir: Path

    @property
    def workload(self) -> str:
        from .tracedir import workload_of

        return self.spec.get("profile") or workload_of(self.spec.get("trace") or "?")

    @property
    def scheme(self) -> str:
        return self.spec.get("scheme") or ""

    @property
    def device(self) -> str:
        return self.spec.get("device") or ""

    def grid(self, key: str) -> Any:
        return (self.spec.get("grid") or {}).get(key)

    def counter(self, name: str, default: float = float("nan")) -> float:
        return float(self.summary.get("scheme_counters", {}).get(name, default))

    def lat(self, kind: str = "all", stat: str = "mean") -> float:
        return float(self.summary["latency_us"][kind][stat])

    def latencies_us(self, kind: str = "all") -> np.ndarray:
        """Response times of the measured requests (warm-up excluded)."""
        import pyarrow.parquet as pq

        t = pq.read_table(self.dir / "requests.parquet", columns=["latency_ns", "is_write", "warmup"])
        lat = t.column("latency_ns").to_numpy()
        keep = ~t.column("warmup").to_numpy(zero_copy_only=False)
        w = t.column("is_write").to_numpy(zero_copy_only=False)
        if kind == "read":
            keep &= ~w
        elif kind == "write":
            keep &= w
        return lat[keep] / 1000.0

    def pair_counts(self) -> Optional[np.ndarray]:
        """Repetition counts of the run's collision pairs, most repeated
        first (None without `metrics.collisions`)."""
        f = self.dir / "collision_pairs.parquet"
        if not f.exists():
            return None
        import pyarrow.parquet as pq

        c = pq.read_table(f, columns=["count"]).column("count").to_numpy().astype(np.int64)
        return np.sort(c)[::-1]

    def columns(self, names: Sequence[str]):
        import pyarrow.parquet as pq

        return pq.read_table(self.dir / "requests.parquet", columns=list(names))


class Runs(list):
    """The runs of one or more sweeps (`+=` keeps the type), with look-ups
    by parameter."""

    def select(self, **want: Any) -> "Runs":
        def ok(r: Run) -> bool:
            for k, v in want.items():
                got = getattr(r, k) if k in ("workload", "scheme", "device") else r.grid(k.replace("__", "."))
                if got != v:
                    return False
            return True

        return Runs(r for r in self if ok(r))

    def one(self, **want: Any) -> Run:
        found = self.select(**want)
        if len(found) != 1:
            raise ReproduceError(f"expected one run with {want}, found {len(found)}")
        return found[0]


def nearest_rank(values: np.ndarray, q: float) -> float:
    """The q-th percentile by nearest rank (the summary's own definition)."""
    if len(values) == 0:
        return float("nan")
    s = np.sort(values)
    k = max(1, int(np.ceil(q / 100.0 * len(s))))
    return float(s[k - 1])


def change(ours: float, base: float) -> float:
    """Relative change in percent: (ours - base) / base x 100."""
    return (ours / base - 1.0) * 100.0 if base else float("nan")


def sweep_toml(name: str, workloads: Sequence[dict], devices: Sequence[str], schemes: Sequence[str] = (),
               seeds: Sequence[int] = (), fixed: Optional[Dict[str, Any]] = None,
               grid: Optional[Mapping[str, Sequence[Any]]] = None) -> str:
    """A sweep file. `workloads` are `{"trace": path}` or profile tables
    `{"profile": name, "set": {...}, "label": ...}`."""
    doc: Dict[str, Any] = {"name": name}
    traces = [w["trace"] for w in workloads if "trace" in w]
    profiles = [w for w in workloads if "profile" in w]
    if traces:
        doc["traces"] = traces
    if profiles:
        doc["profiles"] = profiles
    doc["devices"] = list(devices)
    if schemes:
        doc["schemes"] = list(schemes)
    if seeds:
        doc["seeds"] = list(seeds)
    if fixed:
        doc["set"] = dict(fixed)
    if grid:
        doc["grid"] = {k: list(v) for k, v in grid.items()}
    return _toml.dumps(doc)


@dataclass
class Context:
    """Where and how a reproduction runs."""

    paper: str
    out: Path
    quick: bool = False
    traces: List[Path] = field(default_factory=list)
    workers: Optional[int] = None
    backend: str = "local"
    address: Optional[str] = None
    say: Callable[[str], None] = print
    sweeps_run: List[dict] = field(default_factory=list)
    #: a peer simulator's timing rules for every run (`compat`), or None for Detour's own
    compat: Optional[str] = None
    #: appended to every sweep's name (the second column's runs: "-default")
    suffix: str = ""
    #: profile -> `calibrate.Calibration`: the calibrated point of each
    #: profile, shared by both columns (`calibrate` fills it)
    calibrations: Dict[str, Any] = field(default_factory=dict)
    #: what the calibration table should say about how the search ran
    calibration_notes: List[str] = field(default_factory=list)
    #: settings a reproduction asked for that this build does not have
    missing_options: List[str] = field(default_factory=list)
    #: every warning of every run loaded (`sweep`, `run`, `kind`, `message`)
    run_warnings: List[dict] = field(default_factory=list)

    def calibrate(self, profiles: Sequence[str], obs: Any, knob: str, requests: Optional[int],
                  profile_overrides: Optional[Dict[str, Any]] = None,
                  overrides: Optional[Dict[str, Any]] = None, tol: float = 0.05) -> Dict[str, Any]:
        """Calibrate each profile's `knob` on the baseline observable `obs`
        (detour.calibrate) under this context's timing rules, or reuse the
        points already found (this run's other column, or OUT/calibration.json
        from an earlier run with the same inputs). Nothing with --trace: a
        real trace keeps its own load."""
        from ..calibrate import Calibration, calibrate

        if self.traces:
            return {}
        f = self.out / "calibration.json"
        saved = json.loads(f.read_text()) if f.exists() else {}
        for p in profiles:
            if p in self.calibrations:
                continue
            key = calibration_key(p, obs, knob, requests, self.compat, profile_overrides, overrides)
            if tol != 0.05:  # (the default keeps the keys of earlier runs)
                key = json.dumps([key, tol])
            if key in saved:
                d = dict(saved[key])
                d.setdefault("fixed", {**(profile_overrides or {}),
                                       **({"requests": requests, "duration_s": 0.0} if requests else {})})
                self.calibrations[p] = Calibration.from_json(d, tuple(obs.band) if obs.band else None)
                continue
            self.say(f"== calibrating {p}: {knob} until the baseline's {obs.name} is {obs.target:g}")
            c = calibrate(p, obs, knob, compat=self.compat, requests=requests, profile_overrides=profile_overrides,
                          overrides=overrides, tol=tol, say=self.say)
            self.calibrations[p] = c
            saved[key] = c.to_json()
            self.out.mkdir(parents=True, exist_ok=True)
            write_atomic(f, (json.dumps(saved, indent=2) + "\n").encode())
        self.write_calibrated(profiles)
        return {p: self.calibrations[p] for p in profiles}

    def write_calibrated(self, profiles: Sequence[str]) -> None:
        """Each profile's calibrated point as a profile file, OUT/calibrated/P.toml
        (`detour run --profile` it), with every fixed override it had."""
        cal_dir = self.out / "calibrated"
        cal_dir.mkdir(parents=True, exist_ok=True)
        for p in profiles:
            write_atomic(cal_dir / f"{p}.toml", self.calibrations[p].profile_toml().encode())

    def option(self, device: str, key: str, value: Any) -> Dict[str, Any]:
        """{key: value} if this build of the core knows the setting, else {}
        (and the missing option is listed in the report's meta)."""
        from ..api import config

        try:
            config(device, overrides={key: value})
            return {key: value}
        except Exception:
            if key not in self.missing_options:
                self.missing_options.append(key)
                self.say(f"   (this build has no {key}; running without it)")
            return {}

    def at_load(self, workloads: List[dict], scale: float = 1.0, tag: str = "") -> List[dict]:
        """`workloads` at `scale` x their calibrated point (unchanged when a
        profile has none); `tag` is appended to their labels."""
        out = []
        for w in workloads:
            profile = w.get("profile")
            c = self.calibrations.get(profile) if profile is not None else None
            if c is None:
                out.append(w)
                continue
            out.append({**w, "set": {**w.get("set", {}), **c.profile_set(scale)}, "label": w["label"] + tag})
        return out

    def workloads(self, profiles: Sequence[str], quick_requests: Optional[int], full_requests: Optional[int] = None,
                  extra: Optional[Dict[str, Any]] = None) -> List[dict]:
        """The paper's calibrated profiles, or the user's traces when given.
        A request count of None keeps each profile's own length."""
        if self.traces:
            # Absolute, not resolved: a `--traces` link keeps its name (the paper's workload).
            return [{"trace": os.path.abspath(t)} for t in self.traces]
        n = quick_requests if self.quick else full_requests
        out = []
        for p in profiles:
            s = dict(extra or {})
            if n is not None:
                s["requests"] = n
            out.append({"profile": p, "set": s, "label": p} if s else {"profile": p, "label": p})
        return out

    def describe(self, profiles: Sequence[str], source: str) -> str:
        if self.traces:
            return "real traces: " + ", ".join(Path(t).name + (f" ({Path(t).resolve().name})" if Path(t).is_symlink() else "")
                                               for t in self.traces)
        size = " (cut short: --quick)" if self.quick else ""
        return f"calibrated synthetic profiles {', '.join(profiles)} from {source}{size}, not the paper's traces"

    def sweep(self, name: str, workloads: Sequence[dict], devices: Sequence[str], schemes: Sequence[str] = (),
              seeds: Sequence[int] = (), fixed: Optional[Dict[str, Any]] = None,
              grid: Optional[Mapping[str, Sequence[Any]]] = None) -> Runs:
        """Run (or resume) one sweep and return its runs; any failed run is
        an error, naming the run and its error."""
        if self.compat:
            fixed = {"compat": self.compat, **(fixed or {})}
        name += self.suffix
        d = self.out / "sweeps"
        d.mkdir(parents=True, exist_ok=True)
        f = d / f"{name}.toml"
        write_atomic(f, sweep_toml(name, workloads, devices, schemes, seeds, fixed, grid).encode())
        where = self.out / RUNS / name
        self.say(f"== sweep {name} ({f})")
        info = run_sweep(f, where, workers=self.workers, backend=self.backend, address=self.address,
                         retry_failed=True, echo=None)
        self.say(f"   {info['runs']} runs: {info['executed']} ran, {info['skipped']} already recorded, "
                 f"{info['failed']} failed, {info.get('wall_s', 0):.1f} s")
        self.sweeps_run.append({"name": name, "file": str(f), **{k: info.get(k) for k in ("runs", "executed", "skipped", "failed", "wall_s")}})
        runs = load_runs(where, info["keys"])
        self.run_warnings += [{"sweep": name, "run": r.spec.get("label") or r.dir.name, "kind": w["kind"],
                               "message": w["message"]} for r in runs for w in r.summary.get("warnings") or []]
        return runs


#: The search rule's version: a saved point found by an older rule is searched again
#: (3: the core's `saturated` warning judges quarter means, not three arrivals).
CALIBRATION_RULE = 3


def calibration_key(profile: str, obs: Any, knob: str, requests: Optional[int], compat: Optional[str],
                    profile_overrides: Optional[Dict[str, Any]], overrides: Optional[Dict[str, Any]]) -> str:
    """What a calibration depends on (its entry in OUT/calibration.json):
    the profile, the observable and its baseline runs, knob, length, rules."""
    runs = [[d, sch, sorted((k, str(v)) for k, v in o.items())] for d, sch, o in obs.runs]
    band = list(obs.band) if getattr(obs, "band", None) else None
    key = json.dumps([profile, obs.name, obs.target, runs, knob, requests, compat, profile_overrides, overrides,
                      band, CALIBRATION_RULE], sort_keys=True, default=str)
    keep = getattr(obs, "keep", None)  # a figure every point keeps in range; absent, the earlier keys stand
    return json.dumps([key, keep[0], list(keep[2])]) if keep else key


def load_runs(sweep_dir: Path, keys: Sequence[str]) -> Runs:
    """The records `keys` of a sweep directory (it may hold others: an
    earlier --quick run, other traces)."""
    runs = Runs()
    failed = []
    for key in keys:
        d = Path(sweep_dir) / RUNS / key
        spec = json.loads((d / "spec.json").read_text())
        if (d / "summary.json").exists():
            runs.append(Run(spec, json.loads((d / "summary.json").read_text()), d))
        elif (d / "error.json").exists():
            err = json.loads((d / "error.json").read_text())
            failed.append(f"{spec.get('label')}: {err.get('type')}: {err.get('message')}")
    if failed:
        raise ReproduceError(f"{len(failed)} run(s) of {sweep_dir} failed:\n  " + "\n  ".join(failed))
    return runs


def warnings_section(warnings: Sequence[dict], runs: int) -> Optional[Section]:
    """The runs whose numbers mean less than they seem (the core's
    `warnings`, docs/results.md), listed by the sweep each belongs to, so a
    reader sees which experiments rest on a saturated run or an idle
    scheme; None when no run has one."""
    if not warnings:
        return None
    kinds = Counter(w["kind"] for w in warnings)
    runs_warned = len({(w["sweep"], w["run"]) for w in warnings})
    s = Section("run-warnings", "Runs with warnings", "-",
                f"{runs_warned} of {runs} runs; " + ", ".join(f"{k}: {n}" for k, n in sorted(kinds.items())),
                ["sweep", "run", "kind", "message"], [[w["sweep"], w["run"], w["kind"], w["message"]] for w in warnings])
    s.notes.append("Each sweep's name says which experiment it feeds (report.json's meta.sweeps; the run's label "
                   "gives its settings). Some are meant: a load sweep's top points or a slow flash cell may saturate "
                   "the device, and a baseline run as the scheme with its action turned off (HotR's, labelled "
                   "scheme.hotr.migrate_share=0.0) never acts. Anywhere else, read the numbers of the "
                   "experiment fed by that sweep as the warning says.")
    return s


def mean(xs: Iterable[float]) -> float:
    xs = [x for x in xs if x == x]
    return float(np.mean(xs)) if xs else float("nan")


def per_item(paper: Dict[str, float], ours: Dict[str, float], what: str) -> Tuple[Dict[str, float], Dict[str, float], Dict[str, str]]:
    """(paper, ours, items) for a figure the paper gives per item (volume,
    workload): one measure "<what> (<item>)" per item both have, each
    judged as an item of its own (verdict.py: reproduced when most are)."""
    both = [n for n in paper if n in ours]
    name = {n: f"{what} ({n})" for n in both}
    return ({name[n]: paper[n] for n in both}, {name[n]: ours[n] for n in both}, {name[n]: n for n in both})


def saturated(run: "Run") -> bool:
    """The run carries the core's `saturated` warning (detour.calibrate.saturated):
    its numbers are set by the device's throughput, so no verdict and no bar
    comes from it (docs/reproduce.md, "Verdicts")."""
    from ..calibrate import saturated as summary_saturated

    return summary_saturated(run.summary)


def split_saturated(by: Dict[str, Dict[str, "Run"]], keys: Optional[Sequence[str]] = None) -> tuple:
    """(workloads whose runs `keys` (all, by default) are all unsaturated,
    workloads with a saturated one) of `by` = {workload: {name: Run}}."""
    ok: List[str] = []
    sat: List[str] = []
    for n, d in by.items():
        runs = [d[k] for k in (keys or d)]
        (sat if any(saturated(r) for r in runs) else ok).append(n)
    return ok, sat
