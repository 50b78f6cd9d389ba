"""The embedded demo: the bundled workload (`data/demo.trace`, 20,000
requests in MQSim format, see python/tools/make_demo_trace.py) on the
`small` device under every scheme, compared in a table and a plot.

    detour demo --out detour-demo
"""

from __future__ import annotations

from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Iterator, Optional

from . import plots, report
from .api import Result, run, schemes

DEMO_DEVICE = "small"


@contextmanager
def demo_trace() -> Iterator[Path]:
    """The path of the bundled demo trace."""
    with resources.as_file(resources.files("detour").joinpath("data", "demo.trace")) as p:
        yield Path(p)


def demo(out_dir="detour-demo", device: str = DEMO_DEVICE, trace=None, echo=print, progress: bool = False) -> dict:
    """Run the demo workload (or `trace`) under every scheme; write each run's
    results to `out_dir/<scheme>/`, the table to `out_dir/comparison.txt` and
    the plot to `out_dir/comparison.png`. Returns {scheme: Result}."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results: dict = {}
    with (_given(trace) if trace is not None else demo_trace()) as path:
        for name, _desc in schemes():
            # The demo trace (MQSim format) has no content hashes: the dedup
            # schemes run on unique synthetic values, asked for explicitly
            # (they refuse such a trace otherwise; docs/schemes/rr-ssd.md).
            r: Result = run(device, trace=path, scheme=name, verify=True, progress=progress,
                            overrides={"scheme.rrssd.synthetic_content": True})
            r.write(out / name)
            results[name] = r
    rows = [report.comparison_row(n, r.summary) for n, r in results.items()]
    text = report.table(report.COMPARISON_HEADERS, rows)
    first = next(iter(results.values())).summary
    header = (
        f"Detour demo: {first['requests']:,} requests from {Path(first['workload']['source']).name} "
        f"on the `{device}` device, every scheme (latencies in µs)"
    )
    (out / "comparison.txt").write_text(header + "\n\n" + text + "\n")
    png = plots.comparison(results, out / "comparison.png", title=f"{Path(first['workload']['source']).name} on {device}")
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


@contextmanager
def _given(trace) -> Iterator[Path]:
    yield Path(trace)


def main(argv: Optional[list] = None) -> int:  # pragma: no cover - `detour demo` is the entry point
    from .cli import main as cli_main

    return cli_main(["demo", *(argv or [])])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
