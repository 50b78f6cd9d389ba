"""`detour fio`: closed-loop jobs in fio's vocabulary, and fio-like output.

A job is one `[[flows]]` entry of the configuration (docs/workloads.md,
"Closed loop"): `numjobs` streams, each keeping `iodepth` requests
outstanding. This module turns fio's option spellings (`4k`, `2s`,
`500ms`) into the entry's keys, runs it through `detour.run(flows=...)`,
and prints each flow's IOPS, bandwidth and latency the way fio does.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Optional

from . import _toml
from .errors import CliError

RW_MODES = ("read", "write", "randread", "randwrite", "rw", "readwrite", "randrw")
_SIZE_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
# Seconds per unit as a (multiplier, divisor) pair: dividing keeps 100us exactly 1e-4.
_TIME_UNITS = {"": (1, 1), "s": (1, 1), "ms": (1, 1000), "us": (1, 1_000_000), "m": (60, 1), "h": (3600, 1)}


def parse_size(text: str) -> int:
    """Bytes from fio's spelling: `4096`, `4k`, `4KiB`, `1m`, `2g` (powers of 1024, as fio's default kb_base)."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmgtb]?)(?:i?b)?\s*", str(text).lower())
    if not m:
        raise argparse.ArgumentTypeError(f"expected a size such as 4096, 4k or 1m, not {text!r}")
    return int(m.group(1)) * _SIZE_UNITS[m.group(2)]


def parse_time(text: str) -> float:
    """Seconds from fio's spelling: `2` (seconds), `2s`, `500ms`, `100us`, `1m`."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|us|s|m|h)?\s*", str(text).lower())
    if not m:
        raise argparse.ArgumentTypeError(f"expected a time such as 2s, 500ms or 1m, not {text!r}")
    mul, div = _TIME_UNITS[m.group(2) or ""]
    return float(m.group(1)) * mul / div


def job(rw: str = "randread", bs: int = 4096, iodepth: int = 1, *, numjobs: int = 1, rwmixread: float = 50.0,
        runtime_s: float = 0.0, ios: int = 0, ramp_s: float = 0.0, think_us: float = 0.0,
        offset_bytes: int = 0, size_bytes: int = 0, name: str = "") -> dict:
    """One closed-loop flow (a `[[flows]]` table) with fio's meanings; keys
    left at their default are left out, so the core's defaults apply."""
    given = dict(name=name, rw=rw, bs=bs, iodepth=iodepth, numjobs=numjobs, rwmixread=rwmixread,
                 runtime_s=runtime_s, ios=ios, ramp_s=ramp_s, think_us=think_us,
                 offset_bytes=offset_bytes, size_bytes=size_bytes)
    defaults = dict(name="", rw="randread", bs=4096, iodepth=1, numjobs=1, rwmixread=50.0, runtime_s=0.0, ios=0,
                    ramp_s=0.0, think_us=0.0, offset_bytes=0, size_bytes=0)
    return {k: v for k, v in given.items() if v != defaults[k] or k in ("rw", "bs", "iodepth")}


def flows_toml(flows: list) -> str:
    """The `[[flows]]` tables of a config for `flows` (dicts of FlowConfig keys)."""
    for i, f in enumerate(flows):
        if not isinstance(f, dict):
            raise ValueError(f"flows[{i}] must be a mapping of flow keys (see detour.fio.job), not {type(f).__name__}")
    return _toml.dumps({"flows": [dict(f) for f in flows]})


def _fmt_rate(v: float) -> str:
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if v >= scale:
            return f"{v / scale:.{1 if v / scale < 100 else 0}f}{unit}"
    return f"{v:.0f}"


def report(summary) -> str:
    """Each flow's figures, laid out as fio prints a job's."""
    lines = []
    for f in summary.get("flows") or []:
        how = f"closed loop, iodepth={f['iodepth']}, jobs={f['jobs']}" if f["kind"] == "closed" else "open loop"
        lines.append(f"{f['name']}: ({how}): {f['requests']} requests in {f['duration_s']:.3f} s")
        for kind, mib in (("read", f["read_mib_s"]), ("write", f["write_mib_s"])):
            lat = f["latency_us"][kind]
            if not lat["count"]:
                continue
            iops = lat["count"] / f["duration_s"] if f["duration_s"] > 0 else 0.0
            lines.append(f"  {kind}: IOPS={_fmt_rate(iops)}, BW={mib:.1f}MiB/s ({mib * 1.048576:.1f}MB/s)")
            lines.append(f"    lat (usec): min={lat['min']:.1f}, mean={lat['mean']:.1f}, p50={lat['p50']:.1f}, "
                         f"p99={lat['p99']:.1f}, p99.9={lat['p999']:.1f}, max={lat['max']:.1f}")
        lines.append(f"  all: IOPS={_fmt_rate(f['iops'])}, BW={f['bandwidth_mb_s']:.1f}MB/s")
    from .report import device_lines

    # The device's side, as `detour run` prints it: GC, buffer, warnings.
    lines.extend("device: " + line for line in device_lines(summary))
    return "\n".join(lines)


def add_parser(sub) -> None:
    """The `fio` subcommand's options (registered by detour.cli)."""
    from .cli import _add_device

    p = sub.add_parser("fio", help="closed-loop fio-like jobs on one device: IOPS, bandwidth, latency per flow")
    _add_device(p, "small")
    p.add_argument("--rw", choices=RW_MODES, default="randread", help="direction and pattern (default: randread)")
    p.add_argument("--bs", type=parse_size, default=4096, metavar="SIZE", help="block size, e.g. 4k (default: 4k)")
    p.add_argument("--iodepth", type=int, default=1, metavar="N", help="requests each job keeps outstanding (default: 1)")
    p.add_argument("--numjobs", type=int, default=1, metavar="N", help="jobs (streams), each at --iodepth (default: 1)")
    p.add_argument("--rwmixread", type=float, default=50.0, metavar="PCT", help="percent reads for rw/randrw (default: 50)")
    p.add_argument("--runtime", type=parse_time, default=0.0, metavar="TIME", help="measured time after the ramp, e.g. 2s")
    p.add_argument("--number-ios", dest="ios", type=int, default=0, metavar="N",
                   help="requests per job, ramp included (fio's number_ios); --runtime or this is needed")
    p.add_argument("--ramp", type=parse_time, default=0.0, metavar="TIME", help="leading time left out of the statistics")
    p.add_argument("--thinktime", type=float, default=0.0, metavar="US", help="µs between a completion and the next issue")
    p.add_argument("--offset", type=parse_size, default=0, metavar="SIZE", help="first byte of the region addressed")
    p.add_argument("--size", type=parse_size, default=0, metavar="SIZE", help="bytes addressed (default: to the end)")
    p.add_argument("--name", default="", help="the flow's name in the summary (default: flow1)")
    p.add_argument("--flows", metavar="TOML", help="a file of [[flows]] tables, run instead of the job options (several tenants)")
    p.add_argument("--out", "-o", metavar="DIR", help="also write summary.json, requests.parquet and config.toml here")


def cmd(a: argparse.Namespace) -> None:
    from .api import run

    if a.flows:
        try:
            flows = _toml.loads(Path(a.flows).read_text()).get("flows")
        except _toml.TOMLDecodeError as e:
            raise CliError(f"{a.flows}: {e}") from None
        if not isinstance(flows, list) or not flows:
            raise CliError(f"{a.flows} has no [[flows]] tables")
    else:
        if a.runtime <= 0 and a.ios <= 0:
            raise CliError("give --runtime or --number-ios (a closed loop needs a limit)")
        flows = [job(a.rw, a.bs, a.iodepth, numjobs=a.numjobs, rwmixread=a.rwmixread, runtime_s=a.runtime,
                     ios=a.ios, ramp_s=a.ramp, think_us=a.thinktime, offset_bytes=a.offset, size_bytes=a.size,
                     name=a.name)]
    out: Optional[Path] = Path(a.out) if a.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    r = run(a.device, flows=flows, overrides=a.overrides, scheme=a.scheme,
            requests_parquet=out / "requests.parquet" if out is not None else None)
    print(report(r.summary))
    if out is not None:
        r.write(out)
        print(f"wrote {out / 'summary.json'}, {out / 'requests.parquet'}, {out / 'config.toml'}")
