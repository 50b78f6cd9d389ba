"""Bring a peer simulator's setup to Detour: `detour import mqsim
ssdconfig.xml [workload.xml]` and `detour import ssdsim page.parameters`.

An import reads every key of the peer's files and says what became of it:
mapped to a Detour key (with the value it got, and why when the meaning
shifts on the way) or not mapped (with the reason). Nothing is dropped
silently: a key the importer does not know is listed as unknown. The
device is written as a TOML config that starts with the peer's `compat`
bundle (docs/validation.md), so the timing rules follow the peer's too;
the workload (MQSim only) as one synthetic profile per flow, or the trace
path and the reader settings to replay it with. The key map and the
differences in meaning are in docs/from-mqsim.md.

    >>> imp = detour.import_mqsim("ssdconfig.xml", "workload.xml")
    >>> imp.unmapped            # [Entry(peer_key, value, None, reason), ...]
    >>> imp.write("imported/")  # device.toml, one profile per synthetic flow, import.json
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from .. import _toml

# Sections in the order `detour config` prints them.
_SECTION_ORDER = ("name", "compat", "device", "scheduler", "ftl", "host", "write_buffer", "scheme", "run", "metrics")

#: `Entry.detour` of a peer key whose behaviour is Detour's own, with no key to set.
BUILT_IN = "(built in)"


@dataclass(frozen=True)
class Entry:
    """What became of one key of the peer's files.

    `key` is the peer's name (with its section, e.g. `Flash_Parameter_Set/
    Page_Capacity` or `workload/scenario 1/flow 2/Read_Percentage`), `value`
    its text, `detour` the Detour key it set (None when not mapped) and
    `reason` why it maps so, or why it does not. `detour` is `BUILT_IN`
    when Detour always behaves so."""

    key: str
    value: str
    detour: Optional[str]
    reason: str = ""


@dataclass
class Flow:
    """One workload flow: a trace to replay (`trace`, `format`,
    `reader` options) or a synthetic profile (`profile`: a spec dict)."""

    name: str
    trace: Optional[str] = None
    format: Optional[str] = None
    profile: Optional[dict] = None
    trace_found: bool = True

    def command(self, device: str, source: str, out_dir: str) -> str:
        """The `detour run` line that runs this flow (`source`: the trace or
        the profile file) on the imported device."""
        if self.trace is not None:
            return f"detour run -d {device} -t {source} -f {self.format} -o {out_dir}/{self.name}"
        return f"detour run -d {device} -p {source} -o {out_dir}/{self.name}"


@dataclass
class Imported:
    """An imported setup: `config` (the Detour config tree, nested dicts),
    `entries` (every peer key and what became of it), `flows` (the
    workload, MQSim only), `peer` (`mqsim` or `ssdsim`) and `sources`
    (the files read)."""

    peer: str
    sources: list
    config: dict = field(default_factory=dict)
    entries: list = field(default_factory=list)
    flows: list = field(default_factory=list)
    #: MQSim's IO_Scenarios: (name, [[flows]] tables run at once)
    scenarios: list = field(default_factory=list)

    # -- building --------------------------------------------------------

    def set(self, key: str, value: Any, dotted: str, raw: str, reason: str = "") -> None:
        """Map peer key `key` (text `raw`) to Detour key `dotted` = `value`."""
        node = self.config
        *parents, leaf = dotted.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
        self.entries.append(Entry(key, raw, dotted, reason))

    def same(self, key: str, raw: str, reason: str) -> None:
        """Record peer key `key` as matching Detour's built-in behaviour (no key to set)."""
        self.entries.append(Entry(key, raw, BUILT_IN, reason))

    def set_flows(self, key: str, raw: str, where: str, reason: str) -> None:
        """Record peer key `key` as mapped to the `[[flows]]` tables of file `where`."""
        self.entries.append(Entry(key, raw, f"flows ({where})", reason))

    def skip(self, key: str, raw: str, reason: str) -> None:
        """Record peer key `key` as not mapped, and why."""
        self.entries.append(Entry(key, raw, None, reason))

    # -- reading ---------------------------------------------------------

    @property
    def mapped(self) -> list:
        return [e for e in self.entries if e.detour is not None]

    @property
    def unmapped(self) -> list:
        return [e for e in self.entries if e.detour is None]

    def device_toml(self) -> str:
        """The device as a Detour TOML config, the unmapped keys listed in
        comments at its top (so the file says what it leaves out)."""
        head = [f"# Imported from {self.peer}: {', '.join(map(str, self.sources))} (`detour import {self.peer}`).",
                "# Key map and differences in meaning: docs/from-mqsim.md. Not mapped:"]
        head += [f"#   {e.key} = {e.value}: {e.reason}" for e in self.unmapped] or ["#   (nothing)"]
        order = {k: i for i, k in enumerate(_SECTION_ORDER)}
        tree = dict(sorted(self.config.items(), key=lambda kv: order.get(kv[0], len(order))))
        return "\n".join(head) + "\n\n" + _toml.dumps(tree)

    def report(self) -> dict:
        """Everything as one JSON-able dict (what `import.json` holds)."""
        return {
            "peer": self.peer,
            "sources": [str(s) for s in self.sources],
            "mapped": [asdict(e) for e in self.mapped],
            "unmapped": [asdict(e) for e in self.unmapped],
            "flows": [asdict(f) for f in self.flows],
            "scenarios": dict(self.scenarios),
        }

    def summary_text(self, out_dir: "os.PathLike[str] | str") -> str:
        """What `detour import` prints after `write(out_dir)`: the counts, the
        keys not mapped with their reasons, and how to run each flow."""
        from ..report import table

        out = Path(out_dir)
        lines = [f"{len(self.mapped)} keys mapped, {len(self.unmapped)} not mapped; "
                 f"{out / 'device.toml'} starts from compat = {self.peer!r} (its timing rules, docs/validation.md)"]
        if self.unmapped:
            lines += ["", table(["not mapped", "value", "why"], [[e.key, e.value, e.reason] for e in self.unmapped])]
        for f in self.flows:
            where = f.trace if f.trace is not None else out / f"{f.name}.toml"
            missing = "" if f.trace_found else "   (trace not found: fix the path)"
            lines.append(f"{f.name}: {f.command(str(out / 'device.toml'), str(where), 'out')}{missing}")
        for name, _ in self.scenarios:
            lines.append(f"{name}, its flows at once: detour fio -d {out / 'device.toml'} --flows {out / (name + '.toml')} "
                         f"-o out/{name}")
        lines.append(f"wrote {out / 'device.toml'}, {out / 'import.json'}"
                     + "".join(f", {out / (f.name + '.toml')}" for f in self.flows if f.profile is not None)
                + "".join(f", {out / (name + '.toml')}" for name, _ in self.scenarios))
        return "\n".join(lines)

    def write(self, out_dir: "os.PathLike[str] | str") -> Path:
        """Write `device.toml`, one `<flow>.toml` profile per synthetic flow
        and `import.json` into `out_dir` (created). Returns the directory."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "device.toml").write_text(self.device_toml())
        for f in self.flows:
            if f.profile is not None:
                text = f"# {self.peer} flow {f.name} (`detour import {self.peer}`)\n" + _toml.dumps(f.profile)
                (out / f"{f.name}.toml").write_text(text)
        for name, tables in self.scenarios:
            (out / f"{name}.toml").write_text(f"# {self.peer} {name}, its flows at once (`detour import {self.peer}`)\n"
                                              + _toml.dumps({"flows": tables}))
        (out / "import.json").write_text(json.dumps(self.report(), indent=2) + "\n")
        return out


def spelled_out(reasons: dict) -> dict:
    """"as above" replaced by the reason above it: a key may be absent from a
    file, so the one printed above it need not be its neighbour here."""
    out, last = {}, ""
    for k, v in reasons.items():
        out[k] = last = last if v == "as above" else v
    return out


def import_mqsim(ssdconfig: "os.PathLike[str] | str", workload: "os.PathLike[str] | str | None" = None) -> Imported:
    """Read MQSim's `ssdconfig.xml` (and `workload.xml`) into an `Imported`."""
    from .mqsim import read

    return read(ssdconfig, workload)


def import_ssdsim(parameters: "os.PathLike[str] | str") -> Imported:
    """Read SSDSim's parameter file (`page.parameters`) into an `Imported`."""
    from .ssdsim import read

    return read(parameters)
