"""Detour: a trace-driven NAND-flash SSD simulator.

The simulator is a Rust library (`detour-core`); this package drives it::

    import detour
    r = detour.run("small", trace="my.trace", scheme="conventional")
    print(r.summary["latency_us"]["read"]["p99"])
    r.write("out")                      # summary.json, requests.parquet, config.toml

- `run`, `Result`, `config`, `presets`, `schemes`, `compats`: simulate (`detour.api`)
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

from ._detour import (
    ConfigError,
    DetourError,
    DetourIOError,
    GeometryError,
    SimulationError,
    TraceError,
    __version__,
)
from .schema import Summary
from .api import COLUMNS, Result, compat_settings, compats, config, presets, run, schemes
from .fio import job as fio_job
from .importers import import_mqsim, import_ssdsim
from .requests_file import exact_latency
from .traces import convert_trace, formats, generate, inspect_trace, profile_spec, profiles, value_popularity

__all__ = [
    "COLUMNS",
    "ConfigError",
    "DetourError",
    "DetourIOError",
    "GeometryError",
    "Result",
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
