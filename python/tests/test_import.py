"""`detour import mqsim|ssdsim`: the peers' own shipped example configs
(fixtures/mqsim: MQSim's ssdconfig.xml and workload.xml, MIT; fixtures/ssdsim:
SSDSim's page.parameters, BSD-style; each beside its licence) import, resolve,
run, and every key of them is accounted for."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import detour
import pytest
from conftest import run_cli, write_mqsim_trace
from detour import _toml
from detour.importers import BUILT_IN, import_mqsim, import_ssdsim

FIX = Path(__file__).parent / "fixtures"
MQ_CONFIG, MQ_WORKLOAD = FIX / "mqsim" / "ssdconfig.xml", FIX / "mqsim" / "workload.xml"
SSDSIM = FIX / "ssdsim" / "page.parameters"


def _resolved(imp, tmp_path: Path) -> dict:
    out = imp.write(tmp_path / "imp")
    return _toml.loads(detour.config(out / "device.toml"))


def test_mqsim_shipped_config_maps_the_device(tmp_path):
    imp = import_mqsim(MQ_CONFIG)
    cfg = _resolved(imp, tmp_path)
    dev = cfg["device"]
    assert (dev["channels"], dev["chips_per_channel"], dev["dies_per_chip"], dev["planes_per_die"]) == (8, 4, 2, 2)
    assert (dev["blocks_per_plane"], dev["pages_per_block"], dev["page_size"]) == (2048, 256, 8192)
    assert dev["overprovisioning"] == pytest.approx(0.07)
    assert (dev["flash"]["read_us"], dev["flash"]["program_us"], dev["flash"]["erase_us"]) == (75.0, 750.0, 3800.0)
    assert (dev["channel"]["width_bits"], dev["channel"]["rate_mts"]) == (8, 333.0)
    assert cfg["compat"] == "mqsim" and cfg["scheduler"]["unit"] == "chip"  # the bundle applied under the file's keys
    # MQSim's trigger: floor(0.05 x 2048) = 102 blocks (GC_and_WL_Unit_Base), as a share.
    assert cfg["ftl"]["gc_threshold"] == 102 / 2048 and cfg["ftl"]["order"] == "CWDP"
    assert cfg["host"]["link_gbps"] == pytest.approx(4 * 1.0 * 128 / 156, rel=1e-5)
    # Queue_Fetch_Size is the fetch window; IO_Queue_Depth's ring holds one less unfetched (NVME_SQ_FULL).
    assert cfg["host"]["queue_depth"] == 512 and cfg["host"]["submission_queue"] == 65534
    assert cfg["host"]["latency_from"] == "submission_queue" and cfg["host"]["address"] == "fold"
    # The 256 MiB data cache is a write buffer that acknowledges writes.
    assert cfg["write_buffer"]["size_mib"] == 256.0 and cfg["host"]["write_ack"] == "buffer"
    assert cfg["write_buffer"]["policy"] == "lru" and cfg["run"]["seed"] == 321
    # Its DRAM is timed as MQSim times it (100 MT/s, 1-byte bursts, 8 KiB rows, 13 ns).
    assert cfg["write_buffer"]["dram"] == {"rate_mts": 100.0, "burst_bytes": 1, "row_bytes": 8192,
                                           "trcd_ns": 13, "tcl_ns": 13, "trp_ns": 13}


def test_mqsim_every_key_is_accounted_for_and_unmapped_ones_have_reasons(tmp_path):
    imp = import_mqsim(MQ_CONFIG, MQ_WORKLOAD)
    leaves = {el.tag for el in ET.parse(MQ_CONFIG).getroot().iter() if len(el) == 0}
    named = {e.key.rsplit("/", 1)[-1] for e in imp.entries}
    assert leaves <= named, f"keys neither mapped nor listed: {sorted(leaves - named)}"
    unmapped = {e.key.rsplit("/", 1)[-1]: e for e in imp.unmapped}
    for key in ("GC_Hard_Threshold", "Page_Metadat_Capacity", "Intensity"):
        assert key in unmapped and len(unmapped[key].reason) > 10, key
    assert all(e.reason and e.reason != "as above" for e in imp.unmapped)
    assert "Queue_Fetch_Size" not in unmapped and "IO_Queue_Depth" not in unmapped
    assert "Flash_Channel_Count" not in unmapped and "Page_Capacity" not in unmapped and "Priority_Class" not in unmapped
    # The device file lists them too, one comment line each.
    text = (imp.write(tmp_path / "imp") / "device.toml").read_text()
    assert "#   Device_Parameter_Set/GC_Hard_Threshold = " in text
    report = json.loads((tmp_path / "imp" / "import.json").read_text())
    assert len(report["unmapped"]) == len(imp.unmapped) and len(report["flows"]) == 5


def test_mqsim_synthetic_flows_become_profiles_that_run(tmp_path):
    imp = import_mqsim(MQ_CONFIG, MQ_WORKLOAD)
    names = [f.name for f in imp.flows]
    assert names == ["scenario1-flow1", "scenario1-flow2", "scenario2-flow1", "scenario2-flow2", "scenario3-flow1"]
    reads = imp.flows[2].profile
    assert reads["read_ratio"] == 1.0 and reads["size"] == 8 * 512 and reads["alignment"] == 16 * 512
    assert reads["duration_s"] == 10.0 and reads["seed"] == 798
    # 50% working set of the flow's half of the logical space.
    logical = 8 * 4 * 2 * 2 * 2048 * 256 * 8192 * (1 - 0.07)
    assert reads["footprint_bytes"] == pytest.approx(logical / 2 * 0.5, rel=1e-3)
    out = imp.write(tmp_path / "imp")
    r = detour.run(out / "device.toml", profile=out / "scenario2-flow1.toml", profile_overrides={"requests": 2000})
    assert r.summary["reads"] == 2000 and r.summary["writes"] == 0
    assert r.latency("read", "mean") > 75  # at least tR
    w = detour.run(out / "device.toml", profile=out / "scenario1-flow1.toml", profile_overrides={"requests": 2000})
    assert w.summary["writes"] == 2000 and w.summary["write_buffer"]["write_pages"] == 2000
    assert w.latency("write", "mean") < 75  # acknowledged from DRAM, not after a 750 µs program


def test_mqsim_scenario_runs_its_flows_at_once_closed_loop_in_one_command(tmp_path):
    imp = import_mqsim(MQ_CONFIG, MQ_WORKLOAD)
    mapped = {e.key.rsplit("/", 1)[-1]: e for e in imp.mapped}
    assert mapped["Synthetic_Generator_Type"].detour == "flows.iodepth"
    assert {e.key for e in imp.mapped if e.detour and e.detour.startswith("flows (")} == {
        "workload/scenario 1", "workload/scenario 2"}
    out = imp.write(tmp_path / "imp")
    tables = _toml.loads((out / "scenario1.toml").read_text())["flows"]
    assert [(t["iodepth"], t["rwmixread"]) for t in tables] == [(16, 0.0), (2, 0.0)]
    # each flow in its half of the logical space (Logical_Address_Partitioning_Unit)
    assert tables[1]["offset_bytes"] >= tables[0]["offset_bytes"] + tables[0]["size_bytes"]
    short = tmp_path / "s1.toml"
    short.write_text(_toml.dumps({"flows": [dict(t, runtime_s=0.02) for t in tables]}))
    p = subprocess.run([sys.executable, "-m", "detour", "fio", "-d", str(out / "device.toml"), "--flows", str(short)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "scenario1-flow1: (closed loop, iodepth=16" in p.stdout and "scenario1-flow2: (closed loop, iodepth=2" in p.stdout


def test_mqsim_priority_classes_and_arbitration_are_imported(tmp_path):
    # Scenario 2: an URGENT and a HIGH flow; PRIORITY_OUT_OF_ORDER arbitrates
    # their classes per chip (TSU_Priority_OutOfOrder.cpp).
    imp = import_mqsim(MQ_CONFIG, MQ_WORKLOAD)
    assert imp.config["scheduler"]["arbitration"] == "nvme_wrr"
    mapped = {e.key: e for e in imp.mapped}
    assert mapped["workload/scenario 2/flow 1/Priority_Class"].detour == "flows[].priority"
    out = imp.write(tmp_path / "imp")
    tables = _toml.loads((out / "scenario2.toml").read_text())["flows"]
    assert [t["priority"] for t in tables] == ["urgent", "high"]


def test_mqsim_trace_flow_is_found_beside_the_workload_and_replays(tmp_path):
    shutil.copy(MQ_CONFIG, tmp_path / "ssdconfig.xml")
    shutil.copy(MQ_WORKLOAD, tmp_path / "workload.xml")
    (tmp_path / "traces").mkdir()
    write_mqsim_trace(tmp_path / "traces" / "tpcc-small.trace")
    imp = import_mqsim(tmp_path / "ssdconfig.xml", tmp_path / "workload.xml")
    flow = imp.flows[-1]
    assert flow.trace_found and flow.format == "mqsim" and Path(flow.trace).is_file()
    out = imp.write(tmp_path / "imp")
    r = detour.run(out / "device.toml", trace=flow.trace, format=flow.format)
    assert r.summary["requests"] == 300


def test_ssdsim_shipped_parameters_import_and_run(tmp_path):
    imp = import_ssdsim(SSDSIM)
    cfg = _resolved(imp, tmp_path)
    dev = cfg["device"]
    assert (dev["channels"], dev["chips_per_channel"], dev["dies_per_chip"], dev["planes_per_die"]) == (2, 2, 2, 2)
    assert (dev["blocks_per_plane"], dev["pages_per_block"], dev["page_size"]) == (2048, 64, 2048)
    assert (dev["flash"]["read_us"], dev["flash"]["program_us"], dev["flash"]["erase_us"]) == (20.0, 200.0, 1500.0)
    assert dev["channel"]["rate_mts"] == 40.0 and dev["channel"]["command_ns"] == 7 * 25
    assert cfg["compat"] == "ssdsim" and cfg["ftl"]["gc_threshold"] == pytest.approx(0.3)
    assert cfg["ftl"]["allocation"] == "dynamic" and cfg["write_buffer"]["pages"] == 131074 // 2048
    assert cfg["host"]["write_ack"] == "buffer" and cfg["scheduler"]["multiplane_reads"] is False
    assert cfg["ftl"]["precondition"]["place_reads"] == "before_run"  # pre_process_page, always
    # creat_sub_request, always: reads of a queued write's page go to the flash, same-page reads merge
    assert cfg["ftl"]["pending_reads_from_flash"] is True and cfg["ftl"]["read_merge"] == "queued"
    assert cfg["ftl"]["gc_trigger"] == "free_pages"  # get_ppn's free_page check, always
    assert cfg["ftl"]["gc_write_point"] == "host"  # get_ppn_for_gc's one active block, always
    assert cfg["ftl"]["gc_start"] == "host_writes"  # a GC request per host write below, always
    # advanced command = 31, greed CB command = 0: untimed uninterrupt_gc,
    # and gc_direct_erase's INTERLEAVE_TWO_PLANE erases chip-wide
    assert cfg["ftl"]["gc_timing"] == "stale_erases_only" and cfg["scheduler"]["chip_erase_batches"] is True
    # dynamic allocation: SSDSim's plane pairing (static branch) is not taken
    assert cfg["scheduler"]["plane_pairing"] == "any"
    keys = {m.group(1).rstrip() for line in SSDSIM.read_bytes().decode("latin-1").splitlines()
            if (m := re.match(r"^([^# ][^=]*)=", line))}
    named = {e.key for e in imp.entries}
    assert keys <= named, f"keys neither mapped nor listed: {sorted(keys - named)}"
    unmapped = {e.key for e in imp.unmapped}
    assert {"subpage page", "t_DBSY", "erase limit", "dram voltage"} <= unmapped
    # all-dynamic allocation binds a write's chip when a free chip takes it; Detour's when planned
    assert "dynamic_allocation" in unmapped
    # SSDSim's update reads are a setting the import leaves off until that binding is modelled (h43dyn)
    reasons = {e.key: e.reason for e in imp.unmapped}
    assert 'partial_write_back = "read_first"' in reasons["subpage page"]
    assert cfg["write_buffer"]["partial_write_back"] == "program"
    assert "t_PROG" not in unmapped and "channel number" not in unmapped
    out = imp.write(tmp_path / "run")
    r = detour.run(out / "device.toml", profile="bench-like",
                   profile_overrides={"requests": 1000, "footprint_bytes": 2**28, "arrival.rate_per_s": 500})
    assert r.summary["requests"] == 1000 and r.latency("read", "p50") >= 20.0  # tR; buffer hits take 1 µs


def test_ssdsim_static_allocation_modes_become_orders(tmp_path):
    text = SSDSIM.read_bytes().decode("latin-1")
    text = text.replace("allocation=0;", "allocation=1;").replace("static_allocation=2;", "static_allocation=0;")
    p = tmp_path / "static.parameters"
    p.write_bytes(text.encode("latin-1"))
    cfg = _resolved(import_ssdsim(p), tmp_path)
    assert cfg["ftl"]["allocation"] == "static" and cfg["ftl"]["order"] == "WDPC"  # chip fastest (pagemap.c mode 0)
    # two-plane programs, greed MPW command = 1: make_level_page's static branch
    assert cfg["scheduler"]["plane_pairing"] == "level"
    p.write_bytes(text.replace("greed MPW command=1;", "greed MPW command=0;").encode("latin-1"))
    assert _resolved(import_ssdsim(p), tmp_path)["scheduler"]["plane_pairing"] == "any"


def test_errors_name_the_file_and_the_key_or_line(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<Execution_Parameter_Set>\n<Device_Parameter_Set>\n</Execution_Parameter_Set>\n")
    with pytest.raises(ValueError, match=r"bad\.xml: line 3"):
        import_mqsim(bad)
    text = MQ_CONFIG.read_text().replace("<Flash_Channel_Count>8<", "<Flash_Channel_Count>eight<")
    (tmp_path / "c.xml").write_text(text)
    with pytest.raises(ValueError, match=r"c\.xml: Flash_Channel_Count: cannot read 'eight'"):
        import_mqsim(tmp_path / "c.xml")
    p = tmp_path / "p.parameters"
    p.write_bytes(SSDSIM.read_bytes().replace(b"t_PROG = 200000;", b"t_PROG = fast;"))
    with pytest.raises(ValueError, match=r"p\.parameters: line \d+: t_PROG: cannot read"):
        import_ssdsim(p)
    p.write_bytes(SSDSIM.read_bytes().replace(b"chip number[1] = 2;", b"chip number[1] = 3;"))
    with pytest.raises(ValueError, match=r"chip number\[0\.\.1\] = \[2, 3\]"):
        import_ssdsim(p)


def test_built_in_entries_set_no_key():
    imp = import_mqsim(MQ_CONFIG)
    assert any(e.detour == BUILT_IN for e in imp.entries)
    assert BUILT_IN not in _toml.dumps(imp.config)


def test_cli_import_writes_and_lists(tmp_path):
    p = run_cli("import", "mqsim", str(MQ_CONFIG), str(MQ_WORKLOAD), "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    assert "not mapped" in p.stdout and "GC_Hard_Threshold" in p.stdout and "trace not found" in p.stdout
    assert (tmp_path / "o" / "device.toml").is_file() and (tmp_path / "o" / "scenario2-flow2.toml").is_file()
    p = run_cli("import", "ssdsim", str(SSDSIM), "--out", str(tmp_path / "s"))
    assert p.returncode == 0 and "subpage page" in p.stdout
    p = run_cli("import", "ssdsim", str(SSDSIM), str(SSDSIM), "--out", str(tmp_path / "x"))
    assert p.returncode == 2 and "one parameter file" in p.stderr
    p = run_cli("import", "mqsim", str(tmp_path / "missing.xml"), "--out", str(tmp_path / "x"))
    assert p.returncode == 1 and "missing.xml: no such file" in p.stderr


@pytest.mark.parametrize("ideal", ["false", "true"])
def test_mqsim_cached_mapping_table_is_imported_as_entries_unless_ideal(tmp_path, ideal):
    # The example has Ideal_Mapping_Table = false and CMT_Capacity = 2 MiB:
    # MQSim caches 2097152 bytes of single entries (Cached_Mapping_Table),
    # which Detour's table of entries models (ftl.cmt_granularity =
    # "entry"); with an ideal table neither key is read, in MQSim too.
    p = tmp_path / "ssd.xml"
    p.write_text(MQ_CONFIG.read_text().replace("<Ideal_Mapping_Table>false<", f"<Ideal_Mapping_Table>{ideal}<"))
    imp = import_mqsim(p)
    ftl = _resolved(imp, tmp_path)["ftl"]
    entries = {e.key.rsplit("/", 1)[-1]: e for e in imp.entries}
    if ideal == "false":
        assert (ftl["mapping"], ftl["cmt_size_kib"], ftl["cmt_granularity"]) == ("cmt", 2048, "entry")
        assert entries["CMT_Capacity"].detour == "ftl.cmt_size_kib"
    else:
        assert ftl["mapping"] == "dram"
        assert entries["CMT_Capacity"].detour == BUILT_IN
    unmapped = {e.key.rsplit("/", 1)[-1] for e in imp.unmapped}
    assert not {"Ideal_Mapping_Table", "CMT_Capacity", "CMT_Sharing_Mode"} & unmapped


def test_mqsim_gc_policy_and_wear_levelling_map_to_detour_keys(tmp_path):
    # MQSim's example: RGA over 2048 blocks per plane (rga_set_size =
    # log2(2048) = 11, GC_and_WL_Unit_Page_Level.cpp) and static wear
    # levelling at a spread of 100; Detour has both (ftl.gc_policy =
    # "random" of ftl.gc_choices, ftl.wear_leveling = "mqsim", MQSim's
    # check of block numbers).
    cfg = _resolved(import_mqsim(MQ_CONFIG), tmp_path)
    ftl = cfg["ftl"]
    assert (ftl["gc_policy"], ftl["gc_choices"]) == ("random", 11)
    assert (ftl["wear_leveling"], ftl["wear_threshold"]) == ("mqsim", 100)


def test_mqsim_gc_concurrency_is_mapped_whatever_the_file_says(tmp_path):
    # max_ongoing_gc_reqs_per_plane is SSD_Device.cpp's literal 10, not a
    # file key (issue 46, h41mage).
    cfg = _resolved(import_mqsim(MQ_CONFIG), tmp_path)
    assert cfg["ftl"]["gc_concurrency"] == "mqsim"


def test_mqsim_wear_levelling_runs_whatever_the_file_says(tmp_path):
    # SSD_Device.cpp never passes Static_Wearleveling_Enabled or its
    # threshold to GC_and_WL_Unit_Page_Level (the seed fills the dynamic
    # flag's place), so a file turning it off at another threshold still
    # runs it, at the constructor's default of 100 (issue 46, h40mgc).
    text = MQ_CONFIG.read_text()
    text = re.sub(r"<Static_Wearleveling_Enabled>\w+<", "<Static_Wearleveling_Enabled>false<", text)
    text = re.sub(r"<Static_Wearleveling_Threshold>\d+<", "<Static_Wearleveling_Threshold>7<", text)
    off = tmp_path / "off.xml"
    off.write_text(text)
    ftl = _resolved(import_mqsim(off), tmp_path)["ftl"]
    assert (ftl["wear_leveling"], ftl["wear_threshold"]) == ("mqsim", 100)


def test_mqsim_not_mapped_reasons_name_only_real_keys():
    # A reason that points at a Detour key must name one the config has, and
    # no "not mapped" reason may claim Detour lacks wear levelling (it has
    # ftl.wear_leveling; the reason said otherwise before issue 46).
    imp = import_mqsim(MQ_CONFIG, MQ_WORKLOAD)
    resolved = detour.config()
    for e in imp.entries:
        for key in re.findall(r"\b(?:device|scheduler|ftl|host|write_buffer|run)\.[a-z_.]+[a-z]", e.reason):
            leaf = key.split(".")[-1]
            assert re.search(rf"^\s*{leaf}\s*=", resolved, re.M), f"{e.key}: {key} is not a config key"
        if e.detour is None:
            assert "no wear leveling in Detour" not in e.reason, e


@pytest.mark.parametrize("mode, read_cache, buffered", [("READ_CACHE", "separate", False), ("WRITE_READ_CACHE", "shared", True),
                                                        ("TURNED_OFF", None, False)])
def test_mqsim_caching_modes_become_the_read_cache(tmp_path, mode, read_cache, buffered):
    p = tmp_path / "workload.xml"
    p.write_text(MQ_WORKLOAD.read_text().replace("<Device_Level_Data_Caching_Mode>WRITE_CACHE<",
                                                 f"<Device_Level_Data_Caching_Mode>{mode}<"))
    imp = import_mqsim(MQ_CONFIG, p)
    cfg = _resolved(imp, tmp_path)
    assert cfg.get("read_cache", {}).get("mode", "off") == (read_cache or "off")
    assert ("write_buffer" in cfg and cfg["write_buffer"]["size_mib"] > 0) == buffered
    if mode == "READ_CACHE":
        assert cfg["read_cache"]["size_mib"] == 256.0
    unmapped = {e.key.rsplit("/", 1)[-1]: e.reason for e in imp.unmapped}
    assert ("Data_Cache_Capacity" in unmapped) == (read_cache is None)


def test_ssdsim_energy_parameters_become_active_power(tmp_path):
    imp = import_ssdsim(SSDSIM)
    cfg = _resolved(imp, tmp_path)
    assert cfg["energy"]["active_mw"] == pytest.approx(25.0 * 3.3)  # 25000 µA x 3.3 V
    unmapped = {e.key: e.reason for e in imp.unmapped}
    assert "flash operating current" not in unmapped and "dram active current" in unmapped
    assert not any("no energy model" in r for r in unmapped.values())


def test_mqsim_preconditioning_takes_its_steady_state_layout(tmp_path):
    # Enabled_Preconditioning with an occupancy: MQSim places the pages by
    # its steady-state model (FTL::Perform_precondition,
    # Allocate_address_for_preconditioning), not block after block; off,
    # nothing is filled and the default layout stays.
    off = _resolved(import_mqsim(MQ_CONFIG, MQ_WORKLOAD), tmp_path / "off")["ftl"]["precondition"]
    assert (off["valid"], off["layout"]) == (0.0, "whole_blocks")
    on_cfg = tmp_path / "ssdconfig.xml"
    on_cfg.write_text(MQ_CONFIG.read_text().replace("<Enabled_Preconditioning>false", "<Enabled_Preconditioning>true"))
    on = _resolved(import_mqsim(on_cfg, MQ_WORKLOAD), tmp_path / "on")["ftl"]["precondition"]
    assert (on["valid"], on["layout"]) == (0.75, "mqsim_steady")
