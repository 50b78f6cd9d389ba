"""MQSim's `ssdconfig.xml` and `workload.xml` to a Detour device and workload.

Each key is handled by one line of the tables below: the Detour key it
sets and how its text converts, or the reason it has no counterpart. The
meanings were read from MQSim's source (CMU-SAFARI/MQSim @ 7ec40e3, the
version docs/validation.md compares with); docs/from-mqsim.md has the map
as a table and the differences in meaning.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable, Optional

from ..registry import gc_policies
from . import Imported, spelled_out
from .workload import read_workload

SECTOR = 512

# MQSim's own defaults (Device_Parameter_Set.cpp, Flash_Parameter_Set.cpp,
# Host_Parameter_Set.cpp) for the keys that shape the device: a file that
# leaves one out gets MQSim's value, not Detour's.
DEFAULTS = {
    "Flash_Channel_Count": "8", "Chip_No_Per_Channel": "4", "Flash_Channel_Width": "1",
    "Channel_Transfer_Rate": "300", "Die_No_Per_Chip": "2", "Plane_No_Per_Die": "2",
    "Block_No_Per_Plane": "2048", "Page_No_Per_Block": "256", "Page_Capacity": "8192",
    "Overprovisioning_Ratio": "0.07", "GC_Exec_Threshold": "0.05", "Flash_Technology": "MLC",
    "Page_Read_Latency_LSB": "75000", "Page_Read_Latency_CSB": "75000", "Page_Read_Latency_MSB": "75000",
    "Page_Program_Latency_LSB": "750000", "Page_Program_Latency_CSB": "750000",
    "Page_Program_Latency_MSB": "750000", "Block_Erase_Latency": "3800000",
    "Plane_Allocation_Scheme": "CWDP", "Transaction_Scheduling_Policy": "OUT_OF_ORDER",
    "PCIe_Lane_Bandwidth": "0.4", "PCIe_Lane_Count": "4", "HostInterface_Type": "NVME",
    "Caching_Mechanism": "ADVANCED", "Data_Cache_Capacity": str(512 * 2**20), "Seed": "123",
    "IO_Queue_Depth": "1024", "Queue_Fetch_Size": "512", "Enabled_Preconditioning": "true",
    "Data_Cache_DRAM_Row_Size": "8192", "Data_Cache_DRAM_Data_Rate": "800", "Data_Cache_DRAM_Data_Busrt_Size": "4",
    "Data_Cache_DRAM_tRCD": "13", "Data_Cache_DRAM_tCL": "13", "Data_Cache_DRAM_tRP": "13",
    "Ideal_Mapping_Table": "false", "CMT_Capacity": str(2 * 2**20), "CMT_Sharing_Mode": "SHARED",
}

# PCIe_Link::estimate_transfer_time: 128-byte payloads in 156-byte packets.
PCIE_PAYLOAD_SHARE = 128 / 156

_DIRECT: dict[str, tuple[str, Callable, str]] = {
    # key: (detour key, convert, reason)
    "Flash_Channel_Count": ("device.channels", int, ""),
    "Chip_No_Per_Channel": ("device.chips_per_channel", int, ""),
    "Die_No_Per_Chip": ("device.dies_per_chip", int, ""),
    "Plane_No_Per_Die": ("device.planes_per_die", int, ""),
    "Block_No_Per_Plane": ("device.blocks_per_plane", int, ""),
    "Page_No_Per_Block": ("device.pages_per_block", int, ""),
    "Page_Capacity": ("device.page_size", int, "bytes of user data per page"),
    "Flash_Channel_Width": ("device.channel.width_bits", lambda v: 8 * int(v), "MQSim gives bytes, Detour bits"),
    "Channel_Transfer_Rate": ("device.channel.rate_mts", float, "MT/s in both"),
    "Block_Erase_Latency": ("device.flash.erase_us", lambda v: int(v) / 1000, "ns to µs"),
    "Overprovisioning_Ratio": ("device.overprovisioning", float,
                               "both hide this share of the physical pages (Address_Mapping_Unit_Base: logical = physical x (1 - ratio))"),
    "Queue_Fetch_Size": ("host.queue_depth", int,
                         "the device keeps at most this many requests of a submission queue in flight, fetching the next as one completes "
                         "(Input_Stream_Manager_NVMe, Host_Interface_NVMe.cpp: On_the_fly_requests < Queue_fetch_size); "
                         "per flow in MQSim, Detour has one host queue"),
    "IO_Queue_Depth": ("host.submission_queue", lambda v: max(int(v) - 1, 1),
                       "the NVMe submission queue is a ring of this many entries holding at most one less unfetched "
                       "(NVME_SQ_FULL, IO_Flow_Base.h); the rest wait at the host, and the device response time counts from the "
                       "entry into it (Enqueue_time; host.latency_from, set by the mqsim bundle)"),
    "Seed": ("run.seed", int, "a seed: the same number does not give MQSim's random draws"),
}

_NOT_MODELLED = {
    "Enable_ResponseTime_Logging": "Detour writes every request's latency to requests.parquet instead",
    "ResponseTime_Logging_Period_Length": "as above",
    "GC_Hard_Threshold": "Detour has one GC threshold (ftl.gc_threshold); MQSim's switch of preemptible GC to urgent below this one is not modelled (scheduler.gc_priority holds for the run, set from Preemptible_GC_Enabled)",
    "Dynamic_Wearleveling_Enabled": "Detour takes free blocks in order, not by erase count (static wear levelling is mapped)",
    "Block_PE_Cycles_Limit": "MQSim only sizes its erase-count histogram with it (FTL.cpp, Stats.cpp) and retires no block; Detour's wear-out limit is nand.pe_limit (docs/nand.md), off unless set",
    "Preferred_suspend_erase_time_for_read": "suspension stays off: MQSim's TSU never suspends in practice (docs/validation.md, compat mqsim)",
    "Preferred_suspend_erase_time_for_write": "as above", "Preferred_suspend_write_time_for_read": "as above",
    "Suspend_Erase_Time": "as above", "Suspend_Program_Time": "as above",
    "CMD_Suspension_Support": "as above",
    "Page_Metadat_Capacity": "Detour does not model the out-of-band area",
}

_SAME = {
    "Memory_Type": ("FLASH", "Detour models NAND flash"),
    "Flash_Comm_Protocol": ("NVDDR2", "Detour's channel moves width x rate per second plus command_ns per operation"),
    "Data_Cache_Sharing_Mode": ("SHARED", "one write buffer shared by every flow; per-flow partitions are not modelled"),
}


_NOT_MODELLED = spelled_out(_NOT_MODELLED)


def _xml(path: Path) -> ET.Element:
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as e:
        line, col = e.position
        raise ValueError(f"{path}: line {line}, column {col}: not well-formed XML ({e})") from None


def _leaves(root: ET.Element) -> dict:
    """`{name: (section, text)}` of every leaf element (MQSim's keys are unique)."""
    out = {}
    for parent in root.iter():
        for el in parent:
            if len(el) == 0:
                out[el.tag] = (parent.tag, (el.text or "").strip())
    return out


class _Reader:
    def __init__(self, path: Path, imp: Imported):
        self.path, self.imp = path, imp
        self.keys = _leaves(_xml(path))
        self.seen: set = set()

    def text(self, key: str) -> str:
        self.seen.add(key)
        if key in self.keys:
            return self.keys[key][1]
        return DEFAULTS[key]

    def label(self, key: str) -> str:
        section = self.keys[key][0] if key in self.keys else "absent, MQSim's default"
        return f"{section}/{key}"

    def convert(self, key: str, fn: Callable):
        v = self.text(key)
        try:
            return fn(v)
        except ValueError:
            raise ValueError(f"{self.path}: {key}: cannot read {v!r} as a number") from None

    def set(self, key: str, dotted: str, fn: Callable, reason: str = "") -> None:
        self.imp.set(self.label(key), self.convert(key, fn), dotted, self.text(key), reason)

    def skip(self, key: str, reason: str) -> None:
        if key in self.keys:
            self.imp.skip(self.label(key), self.text(key), reason)


def read(ssdconfig: "os.PathLike[str] | str", workload: "os.PathLike[str] | str | None" = None) -> Imported:
    path = Path(ssdconfig)
    imp = Imported("mqsim", [path] + ([Path(workload)] if workload is not None else []))
    imp.config.update({"name": f"mqsim:{path.stem}", "compat": "mqsim"})
    imp.set("(MQSim's address handling)", "fold", "host.address", "fold",
            "MQSim folds an address beyond a flow's range back into it (IO_Flow_Trace_Based: start_lsa + lba % range)")
    r = _Reader(path, imp)
    for key, (dotted, fn, reason) in _DIRECT.items():
        r.set(key, dotted, fn, reason)
    _timings(r)
    _host(r)
    _ftl(r)
    flows = read_workload(Path(workload), imp, r) if workload is not None else None
    _cache(r, flows)
    _preconditioning(r, flows)
    for key, reason in _NOT_MODELLED.items():
        r.skip(key, reason)
    for key, (value, reason) in _SAME.items():
        if key in r.keys:
            (r.imp.same if r.text(key).upper() == value else r.imp.skip)(r.label(key), r.text(key), reason)
    for key in sorted(set(r.keys) - r.seen - set(_NOT_MODELLED)):
        r.skip(key, "not a key MQSim reads, or one this importer does not know")
    return imp


def _timings(r: _Reader) -> None:
    tech = r.text("Flash_Technology").upper()
    used = {"SLC": ["LSB"], "MLC": ["LSB", "MSB"], "TLC": ["LSB", "CSB", "MSB"]}.get(tech)
    if used is None:
        raise ValueError(f"{r.path}: Flash_Technology: {tech!r} is not SLC, MLC or TLC")
    r.imp.set(r.label("Flash_Technology"), "custom", "device.flash.cell", tech,
              "the times below are MQSim's; Detour's `cell` would reset them to its own presets")
    for op, dotted in (("Read", "device.flash.read_us"), ("Program", "device.flash.program_us")):
        keys = [f"Page_{op}_Latency_{b}" for b in used]
        ns = [r.convert(k, int) for k in keys]
        mean_us = sum(ns) / len(ns) / 1000
        why = f"ns to µs; MQSim uses {'/'.join(used)} pages in turn (page % {len(used)})"
        why += "" if len(set(ns)) == 1 else ", Detour has one time per operation: the mean"
        for k in keys:
            r.imp.set(r.label(k), mean_us, dotted, r.text(k), why)
        for b in {"LSB", "CSB", "MSB"} - set(used):
            if f"Page_{op}_Latency_{b}" in r.keys:
                r.imp.same(r.label(f"Page_{op}_Latency_{b}"), r.text(f"Page_{op}_Latency_{b}"),
                           f"a {tech} device has no {b} pages: MQSim does not use it either")


def _host(r: _Reader) -> None:
    kind = r.text("HostInterface_Type").upper()
    if kind != "NVME":
        r.skip("HostInterface_Type", "Detour models an NVMe-like host (one queue, PCIe link); SATA's NCQ is not modelled")
        r.skip("PCIe_Lane_Bandwidth", "SATA host: the link is not used")
        r.skip("PCIe_Lane_Count", "SATA host: the link is not used")
        return
    if "SATA_Processing_Delay" in r.keys:
        r.imp.same(r.label("SATA_Processing_Delay"), r.text("SATA_Processing_Delay"),
                   "the host interface is NVMe: MQSim does not use it either")
    gbps = r.convert("PCIe_Lane_Bandwidth", float) * r.convert("PCIe_Lane_Count", int) * PCIE_PAYLOAD_SHARE
    why = "lanes x GB/s x 128/156 (payload per PCIe packet, PCIe_Link): one FIFO per direction, as MQSim's link"
    for k in ("PCIe_Lane_Bandwidth", "PCIe_Lane_Count"):
        r.imp.set(r.label(k), round(gbps, 6), "host.link_gbps", r.text(k), why)
    r.imp.set(r.label("HostInterface_Type"), round(gbps, 6), "host.link_gbps", kind, "NVMe over PCIe")


def _ftl(r: _Reader) -> None:
    order = r.text("Plane_Allocation_Scheme").upper()
    if len(order) == 4 and sorted(order) == sorted("CWDP"):
        r.imp.set(r.label("Plane_Allocation_Scheme"), "static", "ftl.allocation", order,
                  "MQSim places a page by its LPN (Address_Mapping_Unit_Page_Level)")
        r.imp.set(r.label("Plane_Allocation_Scheme"), order, "ftl.order",
                  order, "same letters, same meaning: the first varies fastest with the LPN")
    else:
        r.skip("Plane_Allocation_Scheme", f"{order!r} spreads over a subset of C/W/D/P; Detour's ftl.order is a permutation of all four")
    policy = r.text("Transaction_Scheduling_Policy").upper()
    if policy in ("PRIORITY_OUT_OF_ORDER", "OUT_OF_ORDER"):
        r.imp.set(r.label("Transaction_Scheduling_Policy"), "priority", "scheduler.order", policy,
                  "reads before writes per chip (TSU_OutOfOrder / TSU_Priority_OutOfOrder)")
        arb, why = (("nvme_wrr", "per chip, URGENT first, then HIGH/MEDIUM/LOW by weighted round robin 4:2:1 "
                     "(TSU_Priority_OutOfOrder::get_next_read_service_queue)") if policy == "PRIORITY_OUT_OF_ORDER" else
                    ("fifo", "TSU_OutOfOrder keeps one user queue per chip: flows' classes are not read"))
        r.imp.set(r.label("Transaction_Scheduling_Policy"), arb, "scheduler.arbitration", policy, why)
    else:
        r.skip("Transaction_Scheduling_Policy", f"{policy}: Detour's queues are by class (priority) or FCFS; FLIN's fairness is not modelled")
    mapping = r.text("Address_Mapping").upper() if "Address_Mapping" in r.keys else "PAGE_LEVEL"
    r.seen.add("Address_Mapping")
    if mapping == "PAGE_LEVEL":
        r.imp.same(r.label("Address_Mapping"), mapping, "Detour's FTL is page-level")
    else:
        r.skip("Address_Mapping", "Detour's FTL is page-level only")
    _mapping_table(r)
    _gc_threshold(r)
    _gc_policy(r)
    _wear_leveling(r)
    key = "Use_Copyback_for_GC"
    if key in r.keys and r.text(key).lower() == "false":
        r.imp.same(r.label(key), "false", "Detour's GC copies through the controller")
    else:
        r.skip(key, "Detour's GC copies through the controller")
    _gc_priority(r)
    r.imp.set("(MQSim's GC_and_WL_Unit)", "mqsim", "ftl.gc_concurrency", "10",
              "SSD_Device.cpp builds GC_and_WL_Unit_Page_Level with max_ongoing_gc_reqs_per_plane = 10 whatever the file "
              "says: every block a write takes below the GC trigger starts another victim, up to 10 per plane "
              "(Check_gc_required), and an erase's end starts one only below 10 free blocks")


def _gc_priority(r: _Reader) -> None:
    """Preemptible_GC_Enabled (MQSim's default true): off, GC_is_in_urgent_mode
    (GC_and_WL_Unit_Page_Level.cpp) is always true and the TSU serves a
    chip's GC transactions before user ones; on, only while a plane's free
    pool is under GC_Hard_Threshold, which is not modelled."""
    key = "Preemptible_GC_Enabled"
    on = key not in r.keys or r.text(key).lower() != "false"
    if on:
        r.imp.set(r.label(key), "background", "scheduler.gc_priority", "true",
                  "preemptible GC runs behind user work; MQSim's switch to urgent under GC_Hard_Threshold is not modelled")
    else:
        r.imp.set(r.label(key), "urgent", "scheduler.gc_priority", "false",
                  "GC_is_in_urgent_mode is always true: the TSU serves a chip's GC reads, writes and erases before user work")


def _mapping_table(r: _Reader) -> None:
    """MQSim's cached mapping table (Address_Mapping_Unit_Page_Level.cpp): off
    with Ideal_Mapping_Table (MQSim's default is false), else CMT_Capacity
    bytes of single entries, which ftl.cmt_granularity = "entry" models."""
    ideal = r.text("Ideal_Mapping_Table").lower() == "true"
    if ideal:
        r.imp.same(r.label("Ideal_Mapping_Table"), "true", "Detour's default mapping is ideal (ftl.mapping = \"dram\": the whole table in DRAM)")
        for key in ("CMT_Capacity", "CMT_Sharing_Mode"):
            if key in r.keys:
                r.imp.same(r.label(key), r.text(key), "unused with the ideal mapping table, in MQSim too (every lookup hits)")
        return
    r.imp.set(r.label("Ideal_Mapping_Table"), "cmt", "ftl.mapping", "false",
              "a cached mapping table: a miss reads its translation page from flash (request_mapping_entry)")
    r.imp.set(r.label("Ideal_Mapping_Table"), "entry", "ftl.cmt_granularity", "false",
              "MQSim's CMT holds single entries (Cached_Mapping_Table), as compat = \"mqsim\" sets too")
    raw = r.text("CMT_Capacity")
    kib = max(1, r.convert("CMT_Capacity", int) // 1024)
    why = "bytes to KiB; entries of ceil((2 log2(physical pages) + sectors per page) / 8) bytes each (CMT_entry_size)"
    if int(raw) % 1024:
        why += f"; rounded down to {kib} KiB (Detour's size is in whole KiB)"
    r.imp.set(r.label("CMT_Capacity"), kib, "ftl.cmt_size_kib", raw, why)
    mode = r.text("CMT_Sharing_Mode").upper()
    if mode == "SHARED":
        r.imp.same(r.label("CMT_Sharing_Mode"), mode, "Detour's table is one, shared by every flow")
    else:
        r.skip("CMT_Sharing_Mode", f"{mode}: per-flow partitions of the table are not modelled; Detour's one table is shared by every flow")


def gc_threshold_share(share: float, blocks: int) -> float:
    """Detour's `ftl.gc_threshold` for MQSim's GC_Exec_Threshold `share` on
    planes of `blocks` blocks: MQSim's count (see _gc_threshold) over the
    blocks, moved just under it if Detour's product would round up past it."""
    k = max(int(share * blocks), 1, 10)
    v = k / blocks
    if math.ceil(v * blocks) > k:
        v = math.nextafter(v, 0.0)
    return v


def _gc_threshold(r: _Reader) -> None:
    """MQSim's trigger in blocks: GC_and_WL_Unit_Base's constructor truncates
    the share times the plane's blocks (at least 1, and at least
    max_ongoing_gc_reqs_per_plane, 10, GC_and_WL_Unit_Page_Level.h) and
    Check_gc_required starts GC when the free pool is below it; Detour's
    trigger is the share times the blocks rounded up, so it gets that count
    over the blocks (a float just under it if the product would round up)."""
    key = "GC_Exec_Threshold"
    share = r.convert(key, float)
    blocks = r.convert("Block_No_Per_Plane", int)
    k = max(int(share * blocks), 1, 10)
    r.imp.set(r.label(key), gc_threshold_share(share, blocks), "ftl.gc_threshold", r.text(key),
              f"both start GC on a plane whose free blocks fall below {k} (MQSim: floor({share:g} x {blocks}), "
              "at least 10; GC_and_WL_Unit_Base, Check_gc_required); Detour's share is given as that count over the blocks")


def _gc_policy(r: _Reader) -> None:
    key = "GC_Block_Selection_Policy"
    policy = r.text(key).upper() if key in r.keys else "RGA"
    r.seen.add(key)
    blocks = int(r.text("Block_No_Per_Plane")) if "Block_No_Per_Plane" in r.keys else 2048
    if policy == "GREEDY":
        r.imp.set(r.label(key), "greedy", "ftl.gc_policy", policy, "the block with the fewest valid pages")
    elif policy == "RGA":
        # GC_and_WL_Unit_Page_Level.cpp: rga_set_size = log2(block_no_per_plane)
        d = max(1, int(math.log2(blocks)))
        why = f"RGA: the fewest valid pages among log2({blocks}) = {d} blocks drawn at random (rga_set_size)"
        r.imp.set(r.label(key), "random", "ftl.gc_policy", policy, why)
        r.imp.set(r.label(key), d, "ftl.gc_choices", policy, why)
    elif policy == "FIFO":
        r.imp.set(r.label(key), "fifo", "ftl.gc_policy", policy, "the oldest written block")
    else:
        r.skip(key, f"{policy}: Detour's GC policies are {', '.join(gc_policies())}")


def _wear_leveling(r: _Reader) -> None:
    """MQSim runs static wear levelling whatever the file says: SSD_Device.cpp
    builds GC_and_WL_Unit_Page_Level with (..., max_rho, 10, Seed++), so the
    seed lands in its dynamic_wearleveling_enabled parameter and the static
    flag and threshold keep their defaults (true, 100;
    GC_and_WL_Unit_Page_Level.h). Its check compares block numbers, not
    erase counts (Get_min_max_erase_difference): `ftl.wear_leveling = "mqsim"`."""
    given = r.text("Static_Wearleveling_Enabled") if "Static_Wearleveling_Enabled" in r.keys else "(absent)"
    r.seen.update(("Static_Wearleveling_Enabled", "Static_Wearleveling_Threshold"))
    r.imp.set(r.label("Static_Wearleveling_Enabled"), "mqsim", "ftl.wear_leveling", given,
              "MQSim's SSD_Device.cpp never passes this flag or Static_Wearleveling_Threshold on (the seed fills "
              "the dynamic flag's place), so static wear levelling runs with its defaults, true and 100, and its "
              "check subtracts the numbers of the plane's first most- and least-erased blocks "
              "(Flash_Block_Manager_Base::Get_min_max_erase_difference; Detour's ftl/gc/wear.rs)")
    r.imp.set(r.label("Static_Wearleveling_Threshold"), 100, "ftl.wear_threshold",
              r.text("Static_Wearleveling_Threshold") if "Static_Wearleveling_Threshold" in r.keys else "(absent)",
              "not passed on by SSD_Device.cpp: the constructor's default, 100")


def _cache(r: _Reader, flows: Optional[list]) -> None:
    """MQSim's data cache is a write-back LRU buffer that evicts only when
    full (Data_Cache_Manager_Flash_Advanced): `[write_buffer]` with
    `host.write_ack = "buffer"`, when the flows turn write caching on."""
    mechanism = r.text("Caching_Mechanism").upper()
    modes = {m for _, _, m in (flows or [])} or {"WRITE_CACHE"}
    for prefix, _, mode in flows or []:
        r.imp.same(f"{prefix}/Device_Level_Data_Caching_Mode", mode, "decides the write buffer below (one per device)")
    if "Caching_Mechanism" in r.keys and mechanism != "ADVANCED":
        r.skip("Caching_Mechanism", f"{mechanism}: only the ADVANCED cache is imported")
        r.skip("Data_Cache_Capacity", f"{mechanism}: only the ADVANCED cache is imported")
        return _no_dram(r)
    r.imp.same(r.label("Caching_Mechanism"), mechanism, "the write-back cache below")
    if not modes & {"WRITE_CACHE", "WRITE_READ_CACHE"}:
        if "READ_CACHE" in modes and r.convert("Data_Cache_Capacity", int) > 0:
            _read_cache(r, "separate", "READ_CACHE: the cache holds pages read from flash, no writes")
            r.set("Data_Cache_Capacity", "read_cache.size_mib", lambda v: int(v) / 2**20, "MQSim's data cache serving reads, bytes to MiB")
            return _no_dram(r)
        r.skip("Data_Cache_Capacity", f"the flows' Device_Level_Data_Caching_Mode ({', '.join(sorted(modes))}) caches nothing")
        return _no_dram(r)
    why = "MQSim's data cache (write-back; the flows cache writes" + ("" if flows else " by MQSim's default") + ")"
    mib = r.convert("Data_Cache_Capacity", int) / 2**20
    r.set("Data_Cache_Capacity", "write_buffer.size_mib", lambda v: int(v) / 2**20, why + ", bytes to MiB")
    label, raw = r.label("Data_Cache_Capacity"), r.text("Data_Cache_Capacity")
    if mib > 0:
        r.imp.set(label, "buffer", "host.write_ack", raw, "a cached write completes when its data is in DRAM")
        r.imp.set(label, "lru", "write_buffer.policy", raw, "Evict_one_slot_lru")
        r.imp.set(label, 1.0, "write_buffer.flush_at", raw, "MQSim evicts only when a write finds the cache full")
        _dram(r)
        if "WRITE_READ_CACHE" in modes:
            _read_cache(r, "shared", "WRITE_READ_CACHE: one cache holds written pages and pages read from flash")
    else:
        _no_dram(r)
    if len(modes) > 1:
        r.imp.skip("workload/Device_Level_Data_Caching_Mode", ", ".join(sorted(modes)),
                   "flows differ; Detour's buffer holds every write (one setting per device)")


_DRAM = {
    # key: (detour key, convert)
    "Data_Cache_DRAM_Data_Rate": ("write_buffer.dram.rate_mts", float),
    "Data_Cache_DRAM_Data_Busrt_Size": ("write_buffer.dram.burst_bytes", int),
    "Data_Cache_DRAM_Row_Size": ("write_buffer.dram.row_bytes", int),
    "Data_Cache_DRAM_tRCD": ("write_buffer.dram.trcd_ns", int),
    "Data_Cache_DRAM_tCL": ("write_buffer.dram.tcl_ns", int),
    "Data_Cache_DRAM_tRP": ("write_buffer.dram.trp_ns", int),
}


def _dram(r: _Reader) -> None:
    """The data cache's DRAM is one first-come-first-served channel timed by
    estimate_dram_access_time (Data_Cache_Manager_Flash_Advanced::
    service_dram_access_request, Data_Cache_Manager_Base.h): each write's
    data, and each read's cached part, waits its turn on it."""
    for key, (dotted, fn) in _DRAM.items():
        r.set(key, dotted, fn, "the data cache's DRAM timing (one access at a time, first come, first served)")


def _no_dram(r: _Reader) -> None:
    for key in _DRAM:
        r.skip(key, "no write buffer is imported, so Detour times no DRAM access (a read cache hit costs ftl.buffer_read_ns)")


def _read_cache(r: _Reader, mode: str, why: str) -> None:
    """MQSim's data cache serves reads (Data_Cache_Manager_Flash_Advanced,
    process_new_user_request) and keeps what the flash returned: Detour's
    `[read_cache]` (docs/nand.md)."""
    r.imp.set(r.label("Data_Cache_Capacity"), mode, "read_cache.mode", r.text("Data_Cache_Capacity"), why)


def _preconditioning(r: _Reader, flows: Optional[list]) -> None:
    on = r.text("Enabled_Preconditioning").lower() == "true"
    label = r.label("Enabled_Preconditioning")
    if not flows:
        r.imp.skip(label, str(on).lower(), "the fill is each flow's Initial_Occupancy_Percentage, in workload.xml: "
                   "give it to import the fill" if on else "no preconditioning; Detour starts empty too")
        return
    occupancy = max(o for _, o, _ in flows)
    for prefix, occ, _ in flows:
        key = f"{prefix}/Initial_Occupancy_Percentage"
        if not on:
            r.imp.same(key, f"{occ:g}", "Enabled_Preconditioning is false, so MQSim ignores it; Detour starts empty too")
        else:
            r.imp.set(key, occupancy / 100, "ftl.precondition.valid", f"{occ:g}",
                      "the largest flow's, as MQSim takes it")
    if on:
        r.imp.set(label, occupancy / 100, "ftl.precondition.valid", "true", "the flows' Initial_Occupancy_Percentage")
        if occupancy > 0:
            # FTL::Perform_precondition places the pages by the steady-state
            # distribution of valid pages per block (uniform traffic: the
            # trace flows' address distribution after peers/README.md's fix).
            r.imp.set(label, "mqsim_steady", "ftl.precondition.layout", "true",
                      "MQSim places the valid pages by its steady-state model of valid pages per block "
                      "(Allocate_address_for_preconditioning), the rest of each block stale")
    else:
        r.imp.same(label, "false", "no preconditioning; Detour starts empty too")
