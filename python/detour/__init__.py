"""Detour: a trace-driven NAND-flash SSD simulator.

The simulator is a Rust library (`detour-core`); this package drives it::

    import detour
    r = detour.run("small", trace="my.trace", scheme="conventional")
    print(r.summary["latency_us"]["read"]["p99"])
    r.write("out")                      # summary.json, requests.parquet, config.toml

- `run`, `RunOptions`, `Result`, `config`, `presets`, `schemes`, `compats`:
  simulate (`detour.api`)
- `fio_job`: one closed-loop flow in fio's vocabulary, for `run(flows=[...])`
  (`detour.fio`, docs/workloads.md "Closed-loop flows")
- `exact_latency`: exact latency percentiles from a requests.parquet (`detour.requests_file`)
- `Summary`: a run's summary, typed: `r.summary.latency_us.read.p99` (`detour.schema`)
- `formats`, `inspect_trace`, `convert_trace`: traces (`detour.traces`)
- `profiles`, `profile_spec`, `generate`: synthetic workloads (`detour.traces`)
- `import_mqsim`, `import_ssdsim`: a peer simulator's setup as a Detour
  device and workload (`detour.importers`, docs/from-mqsim.md)
- `value_popularity`: value-popularity analysis of a trace or profile (`detour.traces`)
- exceptions: `DetourError` and its subclasses `TraceError`, `ConfigError`,
  `GeometryError`, `SimulationError`, `DetourIOError` (also an `OSError`);
  Ctrl-C during a run raises `KeyboardInterrupt`.

The command line is `detour` (`detour --help`); results are documented in
docs/results.md.
"""

from typing import TYPE_CHECKING

from ._detour import (
    ConfigError,
    DetourError,
    DetourIOError,
    GeometryError,
    SimulationError,
    TraceError,
    __version__,
)

# The rest is imported on first use (PEP 562), so a command such as
# `detour run` loads only the modules it needs: less start-up time and
# memory.
_LAZY = {
    "Summary": "schema",
    **dict.fromkeys(["COLUMNS", "Result", "RunOptions", "compat_settings", "compats", "config", "presets", "run", "schemes"], "api"),
    **dict.fromkeys(["import_mqsim", "import_ssdsim"], "importers"),
    "exact_latency": "requests_file",
    "fio_job": "fio:job",
    **dict.fromkeys(
        ["convert_trace", "formats", "generate", "inspect_trace", "profile_spec", "profiles", "value_popularity"], "traces"
    ),
}

if TYPE_CHECKING:
    from .api import COLUMNS, Result, RunOptions, compat_settings, compats, config, presets, run, schemes
    from .fio import job as fio_job
    from .importers import import_mqsim, import_ssdsim
    from .requests_file import exact_latency
    from .schema import Summary
    from .traces import convert_trace, formats, generate, inspect_trace, profile_spec, profiles, value_popularity


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'detour' has no attribute {name!r}")
    import importlib

    module, _, attr = module.partition(":")
    value = getattr(importlib.import_module(f".{module}", __name__), attr or name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "COLUMNS",
    "ConfigError",
    "DetourError",
    "DetourIOError",
    "GeometryError",
    "Result",
    "RunOptions",
    "SimulationError",
    "Summary",
    "TraceError",
    "__version__",
    "config",
    "convert_trace",
    "formats",
    "generate",
    "exact_latency",
    "fio_job",
    "import_mqsim",
    "import_ssdsim",
    "inspect_trace",
    "profile_spec",
    "profiles",
    "presets",
    "compats",
    "compat_settings",
    "run",
    "schemes",
    "value_popularity",
]
