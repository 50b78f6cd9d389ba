"""HotR's arrival burstiness, fitted on real trace samples, and the joint
calibration of the baseline on both of Sec. II-A's baseline figures
(docs/reproduce.md, "HotR's bursts: issue 49's sixth round").

The shapes come from burst.py (`fit_onoff`, one rule for every paper:
windows of ten mean gaps, on above the median; lengths in mean gaps, so a
shape carries over to a profile at any rate), kept there as constants.

Which sample grounds which profile (HotR Table III; ../shared/traces):
hm is MSR Cambridge hm_0, the paper's own trace, of which
msr_hm_0.sample1000 is a slice; fin2 is UMass Financial2, and the nearest
sample in origin is MQSim's wsrch-small (likely UMass WebSearch, an SPC
trace of the same collection); HPC46 and HPC28 have no sample, and take
hm_0's shape, the only one of the paper's own traces there is.

The joint calibration (`choose_joint`): the mean rate is set, as before,
so the baseline blocks Sec. II-A's 33.0% of reads; the burst intensity
(the peak-to-mean ratio, from 1 = Poisson to the sample's own) is the
second knob, and the point chosen is the one whose slowdown against the
optimal device is nearest Sec. II-A's 42.8% (relative error), among the
unsaturated points whose blocked share is within tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .burst import SHAPES, WINDOW_REQUESTS, OnOff

#: profile -> the sample whose fitted shape (burst.SHAPES) grounds it (module docstring).
SAMPLES = {"fin2": "mqsim_wsrch-small.trace.zst", "hm": "msr_hm_0.sample1000.csv.zst",
           "hpc46": "msr_hm_0.sample1000.csv.zst", "hpc28": "msr_hm_0.sample1000.csv.zst"}


def shape_of(profile: str) -> Optional[OnOff]:
    """The fitted shape grounding `profile`, or None when it has no sample."""
    name = SAMPLES.get(profile)
    return SHAPES[name] if name else None


@dataclass
class JointPoint:
    """One point of the joint search: the burst peak, the rate factor the
    blocked-share calibration chose there, and what the baseline showed."""

    peak: float
    factor: float
    blocked: float
    slowdown: float
    saturated: bool
    blocked_within: bool


def choose_joint(points: List[JointPoint], slowdown_target: float) -> JointPoint:
    """The point of the joint calibration (module docstring): among the
    unsaturated points that met the blocked share, the one whose slowdown
    is nearest the target, relatively; ties go to the lower peak (the less
    bursty shape). With none that met it, the unsaturated point (else any)
    nearest on both figures: the larger of the two relative errors is
    not known here, so blocked points are preferred first."""
    if not points:
        raise ValueError("choose_joint: no points")
    pool = [p for p in points if not p.saturated and p.blocked_within] or \
        [p for p in points if not p.saturated] or list(points)
    return min(pool, key=lambda p: (abs(p.slowdown - slowdown_target) / abs(slowdown_target), p.peak))


#: The burst peaks tried, as fractions of the way from Poisson (1) to the
#: sample's own peak-to-mean ratio; 2.0 stands for the shape's largest
#: peak (off periods empty), one step past the sample.
PEAK_STEPS = (0.0, 0.5, 1.0, 2.0)


def peaks(shape: OnOff) -> List[float]:
    """The peak-to-mean ratios the joint calibration tries (PEAK_STEPS)."""
    return [shape.max_peak() if s >= 2.0 else 1.0 + s * (shape.peak_to_mean - 1.0) for s in PEAK_STEPS]


#: Sec. II-A: "an average of 42.8% performance degradation" of the baseline
#: against the optimal device (IDEAL in hotr.py: docs/reproduce.md, Readings).
SLOWDOWN_TARGET = 42.8


def calibrate_joint(ctx, profiles: Sequence[str], requests: Optional[int], optimal: Mapping[str, object],
                    tol: float = 0.05) -> Dict[str, Dict[str, Any]]:
    """Set each profile's mean rate (on Sec. II-A's 33% blocked, as
    `Context.calibrate` does) at every peak of `peaks`, measure the
    baseline's read slowdown against the `optimal` device there, and keep
    the point `choose_joint` picks: fills `ctx.calibrations` and returns
    profile -> {"points": the JointPoints tried, "chosen": the one kept}; the
    chosen shape is in the calibration's fixed overrides."""
    import json
    from dataclasses import asdict

    from ..api import _spec_dict, run
    from ..calibrate import HOTR_BLOCKED, Calibration, calibrate, saturated
    from .base import write_atomic

    out: Dict[str, Dict[str, Any]] = {}
    fixed = {"requests": requests} if requests else {}
    f = ctx.out / "calibration-joint.json"
    saved = json.loads(f.read_text()) if f.exists() else {}
    for p in profiles:
        sh = shape_of(p)
        # What the joint point depends on: the profile, its length, the rules, the shape and the rule's settings.
        key = json.dumps([p, requests, ctx.compat, asdict(sh) if sh else None, PEAK_STEPS, SLOWDOWN_TARGET,
                          sorted((k, str(v)) for k, v in optimal.items()), tol, WINDOW_REQUESTS])
        if key in saved:
            ctx.calibrations[p] = Calibration.from_json(saved[key]["calibration"])
            pts = [JointPoint(**x) for x in saved[key]["points"]]
            out[p] = {"points": pts, "chosen": pts[saved[key]["chosen"]]}
            continue
        nominal = float(_spec_dict(p, {})["arrival"]["rate_per_s"])
        tried, cals = [], []
        for pk in (peaks(sh) if sh else [1.0]):
            shape = sh.arrival(nominal, pk) if sh and pk > 1.0 else {}
            ctx.say(f"== calibrating {p} at burst peak {pk:.3g}: rate until the baseline's reads blocked is 33")
            c = calibrate(p, HOTR_BLOCKED, "rate", compat=ctx.compat, requests=requests,
                          profile_overrides={**fixed, **shape}, tol=tol)
            ps = {**fixed, **shape, **c.profile_set()}
            lat = {}
            for name, o in (("base", {}), ("opt", optimal)):
                r = run("hotr", profile=p, profile_overrides=ps, scheme="hotr", compat=ctx.compat,
                        overrides={"scheme.hotr.migrate_share": 0.0, **o})
                lat[name] = (float(r.summary["latency_us"]["read"]["mean"]), saturated(r.summary))
            tried.append(JointPoint(pk, c.factor, c.achieved, (lat["base"][0] / lat["opt"][0] - 1) * 100,
                                    c.saturated or lat["base"][1] or lat["opt"][1], c.within))
            cals.append(c)
        best = choose_joint(tried, SLOWDOWN_TARGET)
        i = tried.index(best)
        ctx.calibrations[p] = cals[i]
        out[p] = {"points": tried, "chosen": best}
        saved[key] = {"calibration": cals[i].to_json(), "points": [asdict(x) for x in tried], "chosen": i}
        ctx.out.mkdir(parents=True, exist_ok=True)
        write_atomic(f, (json.dumps(saved, indent=2) + "\n").encode())
    ctx.write_calibrated(profiles)  # the chosen points, each with its shape (a fixed override)
    return out
