"""MQSim's `workload.xml`: each `IO_Scenario` is one MQSim run, each flow
in it a host queue with its own trace or synthetic generator
(IO_Flow_Parameter_Set.cpp, Host_System.cpp). Each flow is written on its
own (a synthetic flow as a Detour profile spec, open loop; a trace flow as
the trace's path and format), and each scenario as a whole as `[[flows]]`
tables (`scenarioN.toml`, run with `detour fio -d device.toml --flows
scenarioN.toml`): a QUEUE_DEPTH flow as a closed loop keeping its queue
depth outstanding, a BANDWIDTH flow as its open-loop profile, a trace
flow as its trace, all at once on one device, each flow in its share of
the logical space (Host_System.cpp's Logical_Address_Partitioning_Unit)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Optional

from . import Flow, Imported

SECTOR = 512
_CLASSES = ("URGENT", "HIGH", "MEDIUM", "LOW")
_FLOW_TAGS = ("IO_Flow_Parameter_Set_Synthetic", "IO_Flow_Parameter_Set_Trace_Based")
_RESOURCES = (("Channel_IDs", "channels"), ("Chip_IDs", "chips_per_channel"), ("Die_IDs", "dies_per_chip"),
              ("Plane_IDs", "planes_per_die"))


def read_workload(path: Path, imp: Imported, device_reader) -> list:
    """Add the flows of `path` to `imp`; return `[(flow's key prefix, occupancy %, caching mode), ...]`
    for the device-wide settings the flows decide (data cache, preconditioning)."""
    from .mqsim import _xml

    root = _xml(path)
    scenarios = root.findall("IO_Scenario")
    if not scenarios:
        raise ValueError(f"{path}: no <IO_Scenario> under <{root.tag}>: not an MQSim workload file")
    out = []
    imp.scenarios.clear()
    for i, sc in enumerate(scenarios, 1):
        flows = [f for f in sc if f.tag in _FLOW_TAGS]
        for el in sc:
            if el.tag not in _FLOW_TAGS:
                imp.skip(f"workload/scenario {i}/{el.tag}", "", "not a flow MQSim knows")
        if len(flows) > 1:
            imp.set_flows(f"workload/scenario {i}", f"{len(flows)} flows", f"scenario{i}.toml",
                          "MQSim runs these flows at once, sharing the device: so do the scenario's [[flows]] "
                          "tables; each flow is also written on its own")
        tables: list[dict] = []
        imp.scenarios.append((f"scenario{i}", tables))
        for j, el in enumerate(flows, 1):
            name = "flow" if len(scenarios) == 1 and len(flows) == 1 else f"scenario{i}-flow{j}"
            f = _FlowReader(path, el, f"workload/scenario {i}/flow {j}", imp)
            out.append((f.prefix, f.number("Initial_Occupancy_Percentage", 0),
                        f.text("Device_Level_Data_Caching_Mode", "WRITE_CACHE").upper()))
            f.common(len(flows))
            if el.tag.endswith("Synthetic"):
                profile = f.synthetic(len(flows), name)
                imp.flows.append(Flow(name, profile=profile))
                table = f.flow_table(name, profile, j - 1, len(flows))
                if table is not None:
                    tables.append(table | {"priority": f.priority})
            else:
                flow = f.trace(name)
                imp.flows.append(flow)
                tables.append({"name": name, "trace": flow.trace, "priority": f.priority})
            f.rest()
    return out


class _FlowReader:
    def __init__(self, path: Path, el: ET.Element, prefix: str, imp: Imported):
        self.path, self.prefix, self.imp = path, prefix, imp
        self.keys = {c.tag: (c.text or "").strip() for c in el}
        self.seen: set[str] = set()
        self.priority = "high"

    def label(self, key: str) -> str:
        return f"{self.prefix}/{key}"

    def text(self, key: str, default: str) -> str:
        self.seen.add(key)
        return self.keys.get(key, default)

    def number(self, key: str, default: float) -> float:
        v = self.text(key, str(default))
        try:
            return float(v)
        except ValueError:
            raise ValueError(f"{self.path}: {self.label(key)}: cannot read {v!r} as a number") from None

    def common(self, flows_in_scenario: int) -> None:
        dev = self.imp.config["device"]
        for key, dim in _RESOURCES:
            if key not in self.keys:
                continue
            ids = self.text(key, "")
            whole = ",".join(str(n) for n in range(dev[dim]))
            if ids.replace(" ", "") == whole:
                self.imp.same(self.label(key), ids, "the whole device, as Detour's workloads use it")
            else:
                self.imp.skip(self.label(key), ids, "Detour does not confine a workload to part of the device")
        self.priority = self._priority(flows_in_scenario)

    def _priority(self, flows_in_scenario: int) -> str:
        """The flow's NVMe class as `flows[].priority`: MQSim files its
        transactions in the TSU's queue of that class per chip
        (TSU_Priority_OutOfOrder::Schedule); `scheduler.arbitration =
        "nvme_wrr"` (set from Transaction_Scheduling_Policy) serves them."""
        raw = self.text("Priority_Class", "HIGH").strip().upper()
        if raw not in _CLASSES:
            raise ValueError(f"{self.path}: {self.label('Priority_Class')}: {raw!r} is not one of {', '.join(_CLASSES)}")
        if "Priority_Class" in self.keys:
            why = ("one flow: its class matters only against others" if flows_in_scenario == 1 else
                   "the scenario's [[flows]] table carries it; served by scheduler.arbitration (MQSim's "
                   "PRIORITY_OUT_OF_ORDER TSU: URGENT first, then HIGH/MEDIUM/LOW 4:2:1)")
            self.map("Priority_Class", "flows[].priority", why)
        return raw.lower()

    def rest(self) -> None:
        for key in sorted(set(self.keys) - self.seen):
            reason = "MQSim does not read it (it reads Bandwidth)" if key == "Intensity" else \
                "not a key MQSim reads, or one this importer does not know"
            self.imp.skip(self.label(key), self.keys[key], reason)

    def flow_table(self, name: str, profile: dict, index: int, flows_in_scenario: int) -> Optional[dict]:
        """The flow as a `[[flows]]` table: closed loop at its queue depth
        (QUEUE_DEPTH), else its open-loop profile (`profile` = the file
        `write` puts beside it), in its share of the logical space."""
        kind = self.text("Synthetic_Generator_Type", "QUEUE_DEPTH").upper()
        if kind != "QUEUE_DEPTH":
            self.imp.skip(self.prefix, kind, f"left out of scenario{self.prefix.split()[2]}.toml: a [[flows]] table "
                          "names a built-in profile, not a file; run the flow's own profile")
            return None
        dev = self.imp.config["device"]
        physical = 1
        for k in ("channels", "chips_per_channel", "dies_per_chip", "planes_per_die", "blocks_per_plane", "pages_per_block", "page_size"):
            physical *= dev[k]
        bs = profile["size"]
        share = int(physical * (1 - dev["overprovisioning"])) // flows_in_scenario // bs * bs
        table = {"name": name, "rw": "rw" if profile["sequential"] else "randrw",
                 "rwmixread": round(profile["read_ratio"] * 100, 6), "bs": bs,
                 "iodepth": max(1, int(self.number("Average_No_of_Reqs_in_Queue", 1))),
                 "offset_bytes": index * share, "size_bytes": max(bs, profile["footprint_bytes"] // bs * bs)}
        if profile["requests"]:
            table["ios"] = profile["requests"]
        if profile["duration_s"]:
            table["runtime_s"] = profile["duration_s"]
        return table

    def map(self, key: str, detour: str, reason: str = "") -> None:
        self.imp.entries.append(_entry(self.label(key), self.keys.get(key, "(absent)"), detour, reason))

    # -- trace flows ---------------------------------------------------------

    def trace(self, name: str) -> Flow:
        given = self.text("File_Path", "")
        if not given:
            raise ValueError(f"{self.path}: {self.label('File_Path')}: a trace flow needs a File_Path")
        p = Path(given)
        # MQSim opens the path from its working directory; look beside the XML first.
        candidates = [p] if p.is_absolute() else [self.path.parent / p, p]
        found = next((c for c in candidates if c.is_file()), None)
        trace = str(found or candidates[0])
        self.map("File_Path", "--trace", "MQSim's ASCII trace: Detour's `mqsim` format (time_ns device lba sectors op)"
                 + ("" if found else f"; not found at {trace}"))
        unit = self.text("Time_Unit", "NANOSECOND").upper()
        if unit == "NANOSECOND":
            self.imp.same(self.label("Time_Unit"), unit, "Detour reads MQSim traces in ns")
        else:
            self.imp.skip(self.label("Time_Unit"), unit, "MQSim stores Time_Unit but reads every time as ns; "
                          "set host.time_scale (1000 for µs) if the trace really is in another unit")
        pct = self.number("Percentage_To_Be_Executed", 100)
        if pct == 100:
            self.imp.same(self.label("Percentage_To_Be_Executed"), "100", "Detour replays the whole trace")
        else:
            self.imp.skip(self.label("Percentage_To_Be_Executed"), f"{pct:g}",
                          "Detour replays the whole trace: cut it first (e.g. `head -n`)")
        relay = self.number("Relay_Count", 1)
        if relay == 1:
            self.imp.same(self.label("Relay_Count"), "1", "one replay")
        else:
            self.imp.skip(self.label("Relay_Count"), f"{relay:g}", "Detour replays a trace once: concatenate it with shifted times")
        return Flow(name, trace=trace, format="mqsim", trace_found=found is not None)

    # -- synthetic flows -----------------------------------------------------

    def synthetic(self, flows_in_scenario: int, name: str) -> dict:
        spec: dict = {"seed": int(self.number("Seed", 1))}
        self.map("Seed", "seed", "a seed: the same number does not give MQSim's random draws")
        read_ratio = self.number("Read_Percentage", 50) / 100
        spec["read_ratio"] = read_ratio
        self.map("Read_Percentage", "read_ratio", "percent to share")
        spec["size"] = self._size()
        spec["alignment"] = self._alignment()
        spec["footprint_bytes"] = self._footprint(flows_in_scenario, spec["alignment"], spec["size"])
        spec.update(self._addresses())
        spec["requests"], spec["duration_s"] = self._limits()
        spec["arrival"] = {"process": "poisson", "rate_per_s": self._rate(read_ratio, spec["size"])}
        return spec

    def _size(self) -> int:
        sectors = self.number("Average_Request_Size", 8)
        self.map("Average_Request_Size", "size", "sectors of 512 B to bytes")
        dist = self.text("Request_Size_Distribution", "FIXED").upper()
        var = self.number("Variance_Request_Size", 0)
        if dist == "FIXED":
            self.imp.same(self.label("Request_Size_Distribution"), dist, "one size")
        else:
            self.imp.skip(self.label("Request_Size_Distribution"), dist,
                          "every request gets the mean size: Detour's sizes are a weighted list (`size = [[bytes, weight], ...]`)")
        if var and dist != "FIXED":
            self.imp.skip(self.label("Variance_Request_Size"), f"{var:g}", "as Request_Size_Distribution")
        return int(sectors) * SECTOR

    def _alignment(self) -> int:
        aligned = self.text("Generated_Aligned_Addresses", "true").lower() == "true"
        unit = int(self.number("Address_Alignment_Unit", 8)) * SECTOR if aligned else SECTOR
        pow2 = 1 << (max(unit, SECTOR).bit_length() - 1)
        pow2 = min(pow2, 2**20)
        why = "sectors to bytes" if pow2 == unit else f"Detour needs a power of two in 512 B..1 MiB: {pow2} B"
        self.map("Address_Alignment_Unit", "alignment", why)
        self.map("Generated_Aligned_Addresses", "alignment", "false: 512 B (any sector)" if not aligned else "")
        return pow2

    def _footprint(self, flows_in_scenario: int, alignment: int, size: int) -> int:
        dev = self.imp.config["device"]
        physical = 1
        for k in ("channels", "chips_per_channel", "dies_per_chip", "planes_per_die", "blocks_per_plane", "pages_per_block", "page_size"):
            physical *= dev[k]
        logical = int(physical * (1 - dev["overprovisioning"]))
        ws = self.number("Working_Set_Percentage", 100)
        ws = ws if 1 <= ws <= 100 else 100  # Host_System.cpp resets anything outside 1..100 to 100
        share = logical // flows_in_scenario * ws / 100
        self.map("Working_Set_Percentage", "footprint_bytes",
                 "this share of the flow's address range (the logical space split evenly among the scenario's flows, "
                 "Logical_Address_Partitioning_Unit)")
        return max(int(share) // alignment * alignment, -(-size // alignment) * alignment)

    def _addresses(self) -> dict:
        dist = self.text("Address_Distribution", "RANDOM_UNIFORM").upper()
        label = self.label("Address_Distribution")
        if dist != "RANDOM_HOTCOLD" and "Percentage_of_Hot_Region" in self.keys:
            self.imp.same(self.label("Percentage_of_Hot_Region"), self.text("Percentage_of_Hot_Region", ""),
                          "MQSim reads it for RANDOM_HOTCOLD only")
        if dist == "RANDOM_UNIFORM":
            self.imp.entries.append(_entry(label, dist, "zipf_theta", "0: uniform"))
            return {"zipf_theta": 0.0, "sequential": 0.0, "streams": 1}
        if dist == "STREAMING":
            self.imp.entries.append(_entry(label, dist, "sequential", "1: each request continues where the last ended"))
            return {"zipf_theta": 0.0, "sequential": 1.0, "streams": 1}
        hot = self.number("Percentage_of_Hot_Region", 0)
        self.imp.skip(label, dist, f"Detour's address skew is zipf, not a hot region of {hot:g}% taking {100 - hot:g}% "
                      "of the requests: written as uniform; set zipf_theta to skew it")
        self.imp.skip(self.label("Percentage_of_Hot_Region"), f"{hot:g}", "as Address_Distribution")
        return {"zipf_theta": 0.0, "sequential": 0.0, "streams": 1}

    def _limits(self):
        total = int(self.number("Total_Requests_To_Generate", 0))
        stop_ns = self.number("Stop_Time", 0)
        self.map("Total_Requests_To_Generate", "requests", "0: no count limit")
        self.map("Stop_Time", "duration_s", "ns to s; the first limit reached ends the workload in both")
        if total == 0 and stop_ns == 0:
            raise ValueError(f"{self.path}: {self.prefix}: Total_Requests_To_Generate and Stop_Time are both 0: the flow never ends")
        return total, stop_ns / 1e9

    def _rate(self, read_ratio: float, size: int) -> float:
        kind = self.text("Synthetic_Generator_Type", "QUEUE_DEPTH").upper()
        self.seen.update({"Average_No_of_Reqs_in_Queue", "Bandwidth"})
        if kind == "BANDWIDTH":
            bw = float(self.keys.get("Bandwidth", "0") or 0)
            if bw <= 0:
                raise ValueError(f"{self.path}: {self.label('Bandwidth')}: a BANDWIDTH flow needs Bandwidth > 0 (bytes/s)")
            self.map("Synthetic_Generator_Type", "arrival.rate_per_s", "BANDWIDTH: Poisson, as MQSim's exponential gaps")
            self.map("Bandwidth", "arrival.rate_per_s", "bytes/s / request size (Host_System.cpp)")
            return bw / size
        depth = self.number("Average_No_of_Reqs_in_Queue", 1)
        cfg = self.imp.config["device"]
        xfer_us = size / (cfg["channel"]["width_bits"] / 8 * cfg["channel"]["rate_mts"])
        service_us = read_ratio * cfg["flash"]["read_us"] + (1 - read_ratio) * cfg["flash"]["program_us"] + xfer_us
        rate = round(depth / service_us * 1e6, 1)
        self.map("Synthetic_Generator_Type", "flows.iodepth",
                 f"QUEUE_DEPTH keeps {depth:g} requests outstanding: a closed-loop [[flows]] table in the scenario's "
                 f"file; the flow's own profile is open loop, Poisson at depth / one request's service time "
                 f"({service_us:.1f} µs, no contention, no cache): {rate:g}/s")
        self.map("Average_No_of_Reqs_in_Queue", "flows.iodepth", "the closed loop's queue depth")
        return rate


def _entry(key, value, detour, reason):
    from . import Entry

    return Entry(key, value, detour, reason)
