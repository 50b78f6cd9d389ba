"""Type stubs of the Rust extension `detour._detour` (crates/detour-py).

The extension only converts: TOML text and NumPy arrays in, JSON text and
NumPy arrays out. Use the friendlier wrappers in `detour` (`detour.run`,
`detour.config`, ...) unless you need the raw calls.
"""

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

__version__: str

#: Per-request column names, in the order `run` returns them.
COLUMNS: List[str]

class DetourError(Exception):
    """Base class of every error Detour raises."""

class TraceError(DetourError):
    """A trace line could not be parsed (the message names file and line), or
    an address is outside the device's logical space."""

class ConfigError(DetourError):
    """A configuration key is unknown, of the wrong type or out of range (the
    message names the dotted key)."""

class GeometryError(DetourError):
    """The device geometry cannot be built."""

class SimulationError(DetourError):
    """The simulation cannot go on (for example the live data does not fit)."""

class DetourIOError(DetourError, OSError):
    """A file could not be opened, read or written. `errno`, `strerror` and
    `filename` are set when the operating system gave an error number."""

def config(
    preset: Optional[str] = None,
    file: Optional[str] = None,
    toml: Optional[str] = None,
    overrides: Sequence[str] = ...,
) -> str:
    """Resolve a configuration from layers (preset or built-in defaults, then
    `file`, then `toml` text, then `"key=value"` overrides), validate it and
    return it as a complete TOML document. Raises ConfigError, GeometryError
    or DetourIOError."""

def config_json(config_toml: str) -> str:
    """A complete configuration document (as `config` returns) as JSON."""

def logical_bytes(config_toml: str) -> int:
    """Bytes of logical space a host may address on a configuration (as
    `config` returns): the device's logical pages less what its scheme keeps
    for itself."""

def presets() -> List[Tuple[str, str]]:
    """(name, description) of every device preset."""

def compats() -> List[Tuple[str, str]]:
    """(name, description) of every compatibility bundle (`compat = NAME`)."""

def compat_settings(name: str) -> List[Tuple[str, str, str]]:
    """(key, TOML value, the peer behaviour it follows) of one bundle."""

def schemes() -> List[Tuple[str, str, str, List[str], Optional[str], Optional[str]]]:
    """(name, description, config section or "", activity counters, colour
    or None, baseline or None) of every registered scheme's entry."""

def policies() -> List[Tuple[str, str, str]]:
    """(config key, name, description) of every registered GC victim,
    scheduling and mapping policy."""

def formats() -> List[str]:
    """Trace format names, in auto-detection priority order."""

def run(
    config: str,
    *,
    trace: Optional[str] = None,
    format: Optional[str] = None,
    skip_malformed: bool = False,
    volume: Optional[int] = None,
    clamp_backwards_time: bool = False,
    reorder_window_ns: Optional[int] = None,
    coarse_time: str = "spread",
    profile: Optional[str] = None,
    profile_toml: Optional[str] = None,
    profile_overrides: Sequence[str] = ...,
    requests: Optional[Mapping[str, npt.NDArray[np.generic]]] = None,
    progress: Optional[Callable[[int, int], object]] = None,
    requests_parquet: Optional[str] = None,
) -> Tuple[str, Dict[str, npt.NDArray[np.generic]], str, str, Dict[str, npt.NDArray[np.generic]], Dict[str, Any]]:
    """Run one simulation with the GIL released.

    `config`: a complete TOML document (from `config`). Workload: exactly one
    of `trace` (a file; `format` None detects it; `reorder_window_ns` > 0
    sorts arrivals within that window of trace time, None the reader's
    default of 2 s; `coarse_time` "spread" or "keep"), `profile` / `profile_toml`
    (a synthetic workload, see `profile_spec`, with `profile_overrides`) or
    `requests`, a dict of
    equal-length 1-D arrays `time_ns` (uint64), `offset` (uint64, bytes),
    `size` (uint32, bytes), `is_write` (bool) and optionally `content`
    (uint64) and `volume` (uint32).

    `progress(requests_arrived, sim_time_ns)` is called every 16,384
    arrivals and at the end; if it raises, the run stops and the exception
    propagates. Ctrl-C stops the run and raises KeyboardInterrupt.

    Returns `(summary_json, columns, verify_failures_json, workload_json,
    collision_pairs)`: columns maps each name of COLUMNS to a NumPy array
    (uint64 arrival_ns, latency_ns, offset; uint32 size, bus_ns, array_ns,
    delay_ns; bool is_write, warmup), one row per request in arrival order;
    collision_pairs maps `lpn_a`, `lpn_b`, `count` to uint32 arrays, one row
    per collision pair, most repeated first (empty unless
    `metrics.collisions = true`); timeseries (empty unless
    `probes.interval_us` > 0) holds ints `interval_ns`, `dies`, `chips` and
    arrays `t_ns` (uint64, one per sample), `die_queue` (uint32) and
    `die_busy` (uint8) flattened sample-major (entry s * dies + d), and
    `chip_queue` (uint32) and `chip_busy` (uint8, busy dies) likewise,
    `die_free_blocks` (uint32, the die's free blocks over its planes) like
    `die_queue`, and `buffer_pages` (uint32, one per sample; only with a
    write buffer).
    """

def inspect_trace(
    path: str,
    *,
    format: Optional[str] = None,
    skip_malformed: bool = False,
    volume: Optional[int] = None,
    clamp_backwards_time: bool = False,
) -> str:
    """Read a whole trace; return its statistics as JSON. Times that go back
    are counted (`backwards`, `max_step_back_ns`) and let through, not
    refused, unless `clamp_backwards_time` clamps them."""

def convert_trace(
    src: str,
    dst: str,
    to: str,
    *,
    format: Optional[str] = None,
    skip_malformed: bool = False,
    volume: Optional[int] = None,
    clamp_backwards_time: bool = False,
    keep_absolute_time: bool = False,
) -> Tuple[int, str]:
    """Convert trace `src` to format `to` written to `dst` (replaced).
    Returns `(requests_written, workload_json)`."""

def value_popularity(
    path: Optional[str] = None,
    profile: Optional[str] = None,
    *,
    spec_toml: Optional[str] = None,
    overrides: Sequence[str] = ...,
    format: Optional[str] = None,
    skip_malformed: bool = False,
    volume: Optional[int] = None,
    clamp_backwards_time: bool = False,
    day_s: float = 86400.0,
    points: int = 100,
) -> str:
    """Value popularity of a trace (`path`) or a synthetic profile, as JSON
    (read/write CDFs, top-80% share, per-day new values and persistence)."""

def profiles() -> List[Tuple[str, str]]:
    """(name, description) of every synthetic workload profile."""

def profile_spec(
    profile: Optional[str] = None,
    *,
    spec_toml: Optional[str] = None,
    overrides: Sequence[str] = ...,
) -> str:
    """The synthetic spec of a named `profile`, or of `spec_toml` (a TOML
    spec that may start with `profile = "name"`), with `"key=value"`
    overrides applied (dotted keys such as `arrival.rate_per_s`), validated,
    as a TOML document. Raises ConfigError naming a bad key."""

def generate(
    path: str,
    to: str,
    profile: Optional[str] = None,
    *,
    spec_toml: Optional[str] = None,
    overrides: Sequence[str] = ...,
) -> int:
    """Write the synthetic workload (as `profile_spec` resolves it) to `path`
    as trace format `to`; return the number of requests written."""
