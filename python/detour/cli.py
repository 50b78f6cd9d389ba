"""The `detour` command line. Every subcommand is documented in docs/cli.md.

Errors print `detour: error: <message>` (never a traceback; set
DETOUR_DEBUG=1 to see one) and exit with status 2 for a usage error (the
command line itself is wrong) or 1 for a failed run (a missing file, a bad
configuration or trace, a failed simulation), so scripts can tell the two
apart; Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from . import __version__, report
from ._detour import DetourError
from .cli_papers import add_parsers as add_paper_parsers, cmd_calibrate, cmd_reproduce
from .errors import CliError, ReproduceError, describe
from .fio import add_parser as add_fio_parser, cmd as cmd_fio

EXIT_FAILED = 1  # the command was well formed but could not be carried out
EXIT_USAGE = 2  # argparse's own status for a bad command line
EXIT_INTERRUPTED = 130


def _runs(text: str) -> int:
    """A count of runs: a whole number, at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of runs, at least 1, not {text!r}")
    return n


def _detour_compats() -> list:
    from .api import compats

    return compats()


def _add_device(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument(
        "--device",
        "-d",
        default=default,
        metavar="PRESET|TOML",
        help=f"a device preset (see `detour presets`) or a TOML config file (default: {default})",
    )
    p.add_argument(
        "--set",
        "-s",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config key, e.g. --set ftl.gc_threshold=0.1 (repeatable)",
    )
    p.add_argument("--scheme", help="the scheme (see `detour schemes`); same as --set scheme.name=S")
    p.add_argument(
        "--compat",
        choices=[n for n, _ in _detour_compats()],
        help="a peer simulator's timing rules (docs/validation.md), applied before --set; same as --set compat=NAME",
    )


def _add_reader(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", "-f", help="trace format (default: detected; see `detour traces formats`)")
    p.add_argument("--skip-malformed", action="store_true", help="skip and count malformed lines instead of stopping")
    p.add_argument("--volume", type=int, metavar="N", help="keep only requests of this device / volume / LUN")
    p.add_argument(
        "--clamp-backwards-time",
        action="store_true",
        help="give a request that arrives before the previous one the previous time (unsorted traces)",
    )


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not v >= 0:
        raise argparse.ArgumentTypeError(f"expected seconds of trace time, at least 0, not {text!r}")
    return v


def _add_run_reader(p: argparse.ArgumentParser) -> None:
    """Options of a run's workload beyond the reader's."""
    p.add_argument("--reorder-window", type=_seconds, default=None, metavar="S",
                   help="sort arrivals within S seconds of trace time (default 2; 0 for none; "
                        "`detour traces inspect` prints the window that sorts a trace)")
    p.add_argument("--keep-coarse-time", dest="coarse_time", action="store_const", const="keep", default="spread",
                   help="keep requests that share a coarse timestamp (whole seconds) at one instant "
                        "instead of spreading them over its resolution (seeded by run.seed)")
    p.add_argument("--no-fit", dest="fit", action="store_false",
                   help="run a profile as written even if its footprint exceeds the device (its addresses then fold "
                        "into it, or are an error with --set host.address=strict)")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="detour",
        description="Detour: a trace-driven NAND-flash SSD simulator.",
        epilog="Results are documented in docs/results.md; every command in docs/cli.md.",
    )
    ap.add_argument("--version", action="version", version=f"detour {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _parser_run(sub)
    add_fio_parser(sub)
    _parser_analyze(sub)
    _parser_listings(sub)
    _parser_traces(sub)
    _parser_import(sub)
    _parser_demo(sub)
    _parser_bench(sub)
    _parser_sweep(sub)
    _parser_results(sub)
    add_paper_parsers(sub)
    return ap


def _parser_run(sub) -> None:
    p = sub.add_parser("run", help="simulate one trace or synthetic profile on one device")
    _add_device(p, "small")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--trace", "-t", metavar="FILE", help="a trace file (plain, .gz or .zst)")
    src.add_argument("--profile", "-p", metavar="NAME|TOML", help="a synthetic workload profile (see `detour profiles`) or a spec file")
    _add_reader(p)
    p.add_argument(
        "--profile-set",
        dest="profile_overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one key of the synthetic profile (repeatable)",
    )
    _add_run_reader(p)
    p.add_argument("--verify", action="store_true", help="check every read returns the latest data (run.verify)")
    p.add_argument("--out", "-o", metavar="DIR",
                   help="write summary.json, requests.parquet, config.toml here (without it: print the summary, write nothing)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")


def _parser_analyze(sub) -> None:
    p = sub.add_parser("analyze", help="analyse one run: `collisions` prints the read-collision paper's Table 2 row and Table 3 value")
    p.add_argument("what", choices=["collisions"], help="the analysis")
    p.add_argument("trace_file", nargs="?", metavar="TRACE", help="a trace file (the same as --trace)")
    _add_device(p, "collisions")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--trace", "-t", metavar="FILE", help="a trace file (plain, .gz or .zst)")
    src.add_argument("--profile", "-p", metavar="NAME|TOML", help="a synthetic workload profile or a spec file")
    _add_reader(p)
    p.add_argument("--profile-set", dest="profile_overrides", action="append", default=[], metavar="KEY=VALUE", help="override one key of the profile (repeatable)")
    _add_run_reader(p)
    p.add_argument("--out", "-o", metavar="DIR", help="also write the run's files (summary.json, collision_pairs.parquet, ...) here")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _parser_listings(sub) -> None:
    p = sub.add_parser("config", help="print the resolved configuration as TOML")
    _add_device(p, "small")

    sub.add_parser("presets", help="list the device presets")
    sub.add_parser("schemes", help="list the schemes")
    sub.add_parser("policies", help="list the GC victim, scheduling and mapping policies")
    p = sub.add_parser("profiles", help="list the synthetic workload profiles, or show one's spec")
    p.add_argument("--show", metavar="NAME|TOML", help="print this profile's resolved spec as TOML")
    p.add_argument("--profile-set", dest="profile_overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override one key of the shown spec (repeatable)")


def _parser_traces(sub) -> None:
    t = sub.add_parser("traces", help="inspect and convert traces")
    tsub = t.add_subparsers(dest="traces_command", metavar="SUBCOMMAND")
    tsub.required = True
    tsub.add_parser("formats", help="list the trace formats")
    p = tsub.add_parser("inspect", help="statistics of a trace")
    p.add_argument("file")
    _add_reader(p)
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p = tsub.add_parser("convert", help="convert a trace to another format")
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--to", required=True, metavar="FORMAT", help="output format")
    _add_reader(p)
    p.add_argument("--keep-absolute-time", action="store_true", help="keep the trace's own time origin")
    p = tsub.add_parser("popularity", help="value popularity of a trace or profile (RR-SSD rr-4)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--trace", "-t", metavar="FILE", help="a trace file with content hashes")
    src.add_argument("--profile", "-p", metavar="NAME|TOML", help="a synthetic profile or spec file")
    p.add_argument("--profile-set", dest="profile_overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override one key of the profile (repeatable)")
    _add_reader(p)
    p.add_argument("--day-s", type=float, default=86_400.0, help="length of a day in trace seconds (default 86400; the FIU profiles use 60)")
    p.add_argument("--points", type=int, default=20, help="points of the CDF to print (default 20)")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p = tsub.add_parser("generate", help="write a synthetic workload as a trace")
    p.add_argument("output")
    p.add_argument("--profile", "-p", required=True, metavar="NAME|TOML", help="a profile (see `detour profiles`) or a spec file")
    p.add_argument("--profile-set", dest="profile_overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override one key of the profile, e.g. requests=10000 (repeatable)")
    p.add_argument("--to", default="mqsim", metavar="FORMAT", help="output format (default: mqsim)")


def _parser_import(sub) -> None:
    p = sub.add_parser("import", help="a peer simulator's setup as a Detour device (and workload): mqsim, ssdsim")
    p.add_argument("peer", choices=("mqsim", "ssdsim"), help="whose files: mqsim (ssdconfig.xml [workload.xml]) or ssdsim (page.parameters)")
    p.add_argument("files", nargs="+", metavar="FILE", help="mqsim: ssdconfig.xml [workload.xml]; ssdsim: the parameter file")
    p.add_argument("--out", "-o", required=True, metavar="DIR", help="write device.toml, the flows' profiles and import.json here")


def _parser_demo(sub) -> None:
    p = sub.add_parser("demo", help="every scheme on the setting its paper targets, against its baseline: table, figure, lines")
    p.add_argument("--out", "-o", default="detour-demo", metavar="DIR", help="output directory (default: detour-demo)")
    p.add_argument("--device", "-d", default="small", metavar="PRESET|TOML", help="device (default: small)")


def _parser_bench(sub) -> None:
    p = sub.add_parser("bench", help="requests/s and peak memory of one run, in a fresh process")
    p.add_argument("--trace", "-t", required=True, metavar="FILE")
    p.add_argument("--format", "-f", help="trace format (default: detected)")
    _add_device(p, "bench-matched")
    p.add_argument("--repeat", "-r", type=_runs, default=1, metavar="N",
                   help="run it N times in turn and report the median run and the spread (default 1)")
    p.add_argument("--json", action="store_true", help="print the measurements as JSON")


def _parser_sweep(sub) -> None:
    p = sub.add_parser("sweep", help="run a sweep file's cross product of runs, resumably (docs/sweeps.md)")
    p.add_argument("file", nargs="?", metavar="SWEEP.toml", help="the sweep file")
    p.add_argument("--out", "-o", metavar="DIR", help="the output directory: one record per run under DIR/runs")
    p.add_argument("--workers", "-j", type=int, metavar="N", help="parallel runs (default: every core; with Ray: no limit)")
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="local process pool (default) or a Ray cluster")
    p.add_argument("--address", metavar="HOST:PORT", help="the Ray cluster's address (with --backend ray; default: RAY_ADDRESS or auto)")
    p.add_argument("--retry-failed", action="store_true", help="rerun the runs recorded as failed")
    p.add_argument("--check", action="store_true", help="validate the file and resolve every run's configuration; run nothing")
    p.add_argument("--bench", action="store_true",
                   help="measure scaling instead: a 16-run sweep on 1 and on --workers (default 2) workers")
    p.add_argument("--bench-runs", type=int, default=16, metavar="N", help="runs of the --bench sweep (default 16)")
    p.add_argument("--bench-requests", type=int, default=200000, metavar="N", help="requests per --bench run (default 200000)")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")


def _parser_results(sub) -> None:
    p = sub.add_parser("results", help="gather a sweep's records into results.parquet and results.csv")
    p.add_argument("dir", metavar="DIR", help="the sweep's output directory")
    p.add_argument("--rows", type=int, default=40, metavar="N", help="rows of the printed table (default 40)")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")


def cmd_run(a: argparse.Namespace) -> None:
    if a.out is None:  # print the summary, write nothing
        r = _run_args(a, a.overrides, verify=True if a.verify else None, progress=not (a.no_progress or a.quiet),
                      requests_parquet=None)
        if not a.quiet:
            print(report.summary_text(r.summary))
        return
    t0 = time.perf_counter()
    out = Path(a.out)
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        # The core streams the rows into the file as requests complete.
        r = _run_args(a, a.overrides, verify=True if a.verify else None, progress=not (a.no_progress or a.quiet),
                      requests_parquet=out / "requests.parquet")
    except BaseException:
        if created:  # a failed run leaves nothing behind
            shutil.rmtree(out, ignore_errors=True)
        raise
    wall = time.perf_counter() - t0
    r.write(out)
    if not a.quiet:
        print(report.summary_text(r.summary))
        scaled = r.summary.workload.get("scaled_from_bytes")
        if scaled:
            from .fit import note

            print(note(scaled, r.summary.workload.spec["footprint_bytes"], r.summary.device))
        extra = f", {out / 'collision_pairs.parquet'}" if "collisions" in r.summary else ""
        print(f"wrote {out / 'summary.json'}, {out / 'requests.parquet'}, {out / 'config.toml'}{extra} ({wall:.2f} s)")


def _run_args(a: argparse.Namespace, overrides, **kw):
    """One run from `run`-style arguments (device, trace or profile, reader options)."""
    from .api import run

    if a.profile_overrides and not a.profile:
        raise CliError("--profile-set needs --profile")
    return run(a.device, trace=a.trace, format=a.format, skip_malformed=a.skip_malformed, volume=a.volume,
               clamp_backwards_time=a.clamp_backwards_time, reorder_window_s=a.reorder_window,
               coarse_time=a.coarse_time, fit=a.fit,
               profile=a.profile, profile_overrides=a.profile_overrides or None, overrides=overrides,
               scheme=a.scheme, **kw)


def cmd_analyze(a: argparse.Namespace) -> None:
    if a.trace_file and (a.trace or a.profile):
        raise CliError("give the trace once: TRACE, --trace or --profile")
    a.trace = a.trace or a.trace_file
    if not (a.trace or a.profile):
        raise CliError("give a trace (TRACE or --trace) or --profile")
    r = _run_args(a, [*a.overrides, "metrics.collisions=true"], progress=not a.no_progress)
    print(report.collisions_table(r.summary))
    if a.out:
        out = r.write(a.out)
        print(f"wrote {out / 'summary.json'}, {out / 'collision_pairs.parquet'}, {out / 'requests.parquet'}, {out / 'config.toml'}")


def cmd_config(a: argparse.Namespace) -> None:
    from .api import config

    if a.compat:
        from .api import compat_settings

        print(f"# compat = {a.compat!r}: these keys, then the file's and --set's")
        for key, value, because in compat_settings(a.compat):
            print(f"#   {key} = {value}  ({because})")
    cfg = config(a.device, overrides=a.overrides, scheme=a.scheme)
    print("# " + report.capacity_text(cfg))
    sys.stdout.write(cfg)



def cmd_presets(a: argparse.Namespace) -> None:
    from .api import presets

    print(report.table(["preset", "description"], presets()))


def cmd_policies(a: argparse.Namespace) -> None:
    from . import _detour

    print(report.table(["config key", "policy", "description"], _detour.policies()))


def cmd_schemes(a: argparse.Namespace) -> None:
    from .registry import schemes

    rows = [(e.name, e.about, f"[scheme.{e.section}]" if e.section else "", e.baseline or "-") for e in schemes()]
    print(report.table(["scheme", "description", "config section", "baseline"], rows))


def cmd_profiles(a: argparse.Namespace) -> None:
    from . import traces

    if a.show:
        sys.stdout.write(traces.profile_spec(a.show, a.profile_overrides))
    elif a.profile_overrides:
        raise CliError("--profile-set needs --show")
    else:
        from .fit import PROFILE_DEVICES

        rows = [(n, d, ", ".join(PROFILE_DEVICES.get(n, ()))) for n, d in traces.profiles()]
        print(report.table(["profile", "description", "made for (runs scaled on others)"], rows))


def _reader_kwargs(a: argparse.Namespace) -> dict:
    return dict(
        format=a.format,
        skip_malformed=a.skip_malformed,
        volume=a.volume,
        clamp_backwards_time=a.clamp_backwards_time,
    )


def cmd_traces(a: argparse.Namespace) -> None:
    from . import traces

    if a.traces_command == "formats":
        for f in traces.formats():
            print(f)
    elif a.traces_command == "inspect":
        st = traces.inspect_trace(a.file, **_reader_kwargs(a))
        if a.json:
            print(json.dumps(st, indent=2))
            return
        rows = [
            ["format", st["format"]],
            ["requests", st["requests"]],
            ["reads / writes", f"{st['reads']:,} / {st['writes']:,} (read ratio {st['read_ratio']:.3f})"],
            ["bytes read / written", f"{st['bytes_read']:,} / {st['bytes_written']:,}"],
            ["mean size", f"{st['mean_size_bytes']:,.0f} B"],
            ["footprint", f"{st['footprint_pages']:,} pages of 4 KiB ({st['footprint_bytes'] / 2**20:,.1f} MiB)"],
            ["duration", f"{st['duration_s']:.3f} s"],
            ["rate", f"{st['rate_per_s']:,.1f} requests/s"],
            ["volumes", report.volumes_text(st["volumes"])],
            ["sizes", ", ".join(f"{b['label']}: {b['count']:,}" for b in st["size_histogram"]) or "-"],
        ]
        if st.get("backwards"):
            step = st["max_step_back_ns"] / 1e9
            rows.append(["out of order", f"{st['backwards']:,} requests arrive before an earlier line's time; the largest "
                                         f"step back is {step:.6g} s (run with --reorder-window {step:.6g} to sort, "
                                         f"or --clamp-backwards-time)"])
        if st.get("time_resolution_ns"):
            rows.append(["time resolution", f"{st['time_resolution_ns'] / 1e9:g} s: `run` spreads the requests of each "
                                            f"instant over it (--keep-coarse-time keeps them)"])
        for k in ("skipped_malformed", "clamped", "filtered_out", "ignored"):
            if st.get(k):
                rows.append([k.replace("_", " "), st[k]])
        print(report.table([a.file, ""], rows))
    elif a.traces_command == "convert":
        info = traces.convert_trace(
            a.input, a.output, a.to, keep_absolute_time=a.keep_absolute_time, **_reader_kwargs(a)
        )
        print(f"wrote {info['written']:,} requests as {a.to} to {a.output} (read as {info['format']})")
    elif a.traces_command == "popularity":
        _cmd_popularity(a, traces)
    elif a.traces_command == "generate":
        n = traces.generate(a.profile, a.output, to=a.to, overrides=a.profile_overrides)
        print(f"wrote {n:,} requests of {a.profile} as {a.to} to {a.output}")


def _cmd_popularity(a: argparse.Namespace, traces) -> None:
    if a.trace:
        p = traces.value_popularity(a.trace, day_s=a.day_s, points=a.points, **_reader_kwargs(a))
    else:
        p = traces.value_popularity(profile=a.profile, overrides=a.profile_overrides, day_s=a.day_s, points=a.points)
    if a.json:
        print(json.dumps(p, indent=2))
        return
    print(f"{p['read_pages']:,} page reads, {p['write_pages']:,} page writes, {p['distinct_values']:,} distinct values; "
          f"{100 * p['top80_read_values']:.1f}% of the read values serve 80% of the reads")
    rows = [[f"{100 * c['values']:.0f}%", f"{100 * c['reads']:.1f}%", f"{100 * c['writes']:.1f}%"] for c in p["cdf"]]
    print(report.table(["values (by read count)", "reads", "writes"], rows))
    rows = [[d["day"], f"{d['reads']:,}", f"{d['writes']:,}", f"{d['new_values']:,}", f"{100 * d['read_yesterday']:.1f}%",
             f"{100 * d['yesterday_top80']:.1f}%", f"{100 * d['new_read_share']:.1f}%"] for d in p["days"]]
    print(report.table(["day", "reads", "writes", "new values", "read yesterday", "yesterday's top 80%", "new reads"], rows))


def cmd_import(a: argparse.Namespace) -> None:
    from .importers import import_mqsim, import_ssdsim

    most = 2 if a.peer == "mqsim" else 1
    if len(a.files) > most:
        raise CliError(f"import {a.peer} takes {'ssdconfig.xml [workload.xml]' if most == 2 else 'one parameter file'}, "
                       f"not {len(a.files)} files")
    imp = import_mqsim(*a.files) if a.peer == "mqsim" else import_ssdsim(a.files[0])
    from .api import config

    out = imp.write(a.out)
    config(out / "device.toml")  # the written device must resolve: a ConfigError names the key
    print(imp.summary_text(out))


def cmd_demo(a: argparse.Namespace) -> None:
    from .demo import demo

    demo(a.out, device=a.device)


def cmd_bench(a: argparse.Namespace) -> None:
    from .bench import bench

    overrides = list(a.overrides) + ([f"scheme.name={json.dumps(a.scheme)}"] if a.scheme else [])
    m = bench(a.trace, device=a.device, overrides=overrides, format=a.format, repeat=a.repeat)
    if a.json:
        print(json.dumps(m, indent=2))
        return
    sets = " ".join(f"--set {o}" for o in a.overrides)
    lat = m["latency_us"]
    print(f"bench: {Path(a.trace).name} on {a.device} {sets}".rstrip())
    runs = f" (median of {m['runs']} runs: {m['wall_s_min']:.2f}-{m['wall_s_max']:.2f} s)" if "runs" in m else ""
    print(
        f"  {m['requests']:,} requests in {m['wall_s']:.2f} s{runs}: {m['requests_per_s']:,.0f} requests/s, "
        f"peak memory {m['peak_rss_mib']:,.0f} MiB ({m['rss_before_run_mib']:,.0f} MiB before the run)"
    )
    print(
        f"  read mean {lat['read']['mean']:.1f} p50 {lat['read']['p50']:.1f} p99 {lat['read']['p99']:.1f} "
        f"p99.9 {lat['read']['p999']:.1f} us; write mean {lat['write']['mean']:.1f} p99 {lat['write']['p99']:.1f} us; "
        f"GC runs {m['gc']['runs']:,}, write amplification {m['gc']['write_amplification']:.3f}"
    )


def cmd_sweep(a: argparse.Namespace) -> None:
    if a.bench:
        from .bench_sweep import bench_sweep, report_text

        m = bench_sweep(runs=a.bench_runs, requests=a.bench_requests, workers=a.workers or 2)
        print(report_text(m))
        return
    if not a.file:
        raise CliError("give a sweep file (or --bench)")
    from .sweep import plan, run_sweep

    if a.check:
        _sweep, runs = plan(a.file)
        print(f"{a.file}: {len(runs)} runs, every configuration valid")
        return
    if not a.out:
        raise CliError("--out DIR is required")
    if a.address and a.backend != "ray":
        raise CliError("--address needs --backend ray")
    echo = None if a.quiet else (lambda s: print(s, flush=True))
    info = run_sweep(a.file, a.out, workers=a.workers, backend=a.backend, address=a.address,
                     retry_failed=a.retry_failed, echo=echo)
    if not a.quiet:
        print(
            f"ran {info['executed']} ({info['ok']} ok, {info['failed']} failed), skipped {info['skipped']} "
            f"already recorded, in {info['wall_s']:.1f} s; `detour results {a.out}` for the table"
        )


def cmd_results(a: argparse.Namespace) -> None:
    from .results import gather, summary_text

    t = gather(a.dir)
    if not a.quiet:
        print(summary_text(t, limit=a.rows))
        out = Path(a.dir)
        print(f"wrote {out / 'results.parquet'} and {out / 'results.csv'}")


COMMANDS = {
    "run": cmd_run,
    "analyze": cmd_analyze,
    "config": cmd_config,
    "presets": cmd_presets,
    "schemes": cmd_schemes,
    "policies": cmd_policies,
    "profiles": cmd_profiles,
    "traces": cmd_traces,
    "import": cmd_import,
    "demo": cmd_demo,
    "bench": cmd_bench,
    "sweep": cmd_sweep,
    "results": cmd_results,
    "reproduce": cmd_reproduce,
    "calibrate": cmd_calibrate,
    "fio": cmd_fio,
}


def _error(msg: str, status: int) -> int:
    msg = " ".join(line.strip() for line in msg.strip().splitlines())
    print(f"detour: error: {msg}", file=sys.stderr)
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)  # exits EXIT_USAGE on a bad command line
    # A bundle is a layer under the user's own --set keys.
    if getattr(args, "compat", None) and hasattr(args, "overrides"):
        args.overrides = [f"compat={args.compat}", *args.overrides]
    try:
        COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("detour: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `detour ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except CliError as e:
        return _error(str(e), EXIT_USAGE)
    except OSError as e:  # DetourIOError too
        if os.environ.get("DETOUR_DEBUG"):
            raise
        return _error(describe(e), EXIT_FAILED)
    except (DetourError, ReproduceError, ValueError, TypeError, ImportError) as e:
        if os.environ.get("DETOUR_DEBUG"):
            raise
        return _error(str(e), EXIT_FAILED)
    except Exception as e:  # never a traceback for the user
        if os.environ.get("DETOUR_DEBUG"):
            raise
        return _error(f"{type(e).__name__}: {e} (set DETOUR_DEBUG=1 for a traceback)", EXIT_FAILED)
    return 0


if __name__ == "__main__":
    sys.exit(main())
