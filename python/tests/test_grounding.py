"""Grounding (every baseline figure a paper prints beside ours), `--traces
DIR` (the papers' real traces found by name) and rc-8's write cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from detour.reproduce import ReproduceError, reproduce, tracedir
from detour.reproduce.collisions import CACHE_SHARE, cache_pages
from detour.reproduce.grounding import Figure, grounded, section

SHARED = Path("/work/shared/traces")
needs_samples = pytest.mark.skipif(not SHARED.is_dir(), reason="the shared trace samples are not on this machine")


def fig(item: str, paper: float, ours: float, band=None) -> Figure:
    return Figure(item, "x", "Table", paper, ours, "-", band=band)


def test_within_ten_percent_and_inside_a_range():
    assert fig("a", 10.0, 11.0).within() and fig("a", 10.0, 9.0).within()
    assert not fig("a", 10.0, 11.2).within() and not fig("a", 10.0, float("nan")).within()
    assert fig("a", 0.0, 5.0).within() and not fig("a", 0.0, 15.0).within()
    # a range: inside is on target, however far from its middle
    assert fig("a", 51.0, 26.0, band=(25.0, 77.0)).within()
    assert not fig("a", 51.0, 80.0, band=(25.0, 77.0)).within()
    assert fig("a", 10.0, 12.5).off() == pytest.approx(25.0)


def test_a_workload_is_grounded_only_when_every_figure_is_within():
    figs = [fig("a", 10, 10.5), fig("a", 5, 5.1), fig("b", 10, 10.2), fig("b", 5, 7.0)]
    assert grounded(figs) == {"a": True, "b": False}
    s = section(figs, "desc")
    assert s.id == "grounding" and s.claim is None  # no verdict
    assert "Grounded: a (1 of 2)" in s.notes[0]
    assert "b x 7 vs 5 (+40%)" in s.notes[1]


def test_cache_is_the_papers_share_of_the_footprint_with_a_page_per_plane_at_least():
    dev = {"channels": 8, "chips_per_channel": 1, "dies_per_chip": 2, "planes_per_die": 4, "page_size": 16384}

    class R:
        def __init__(self, foot):
            self.summary = {"workload": {"spec": {"footprint_bytes": foot}}, "config": {"device": dev}}

    # 16 GiB: 256 MiB per TB of it, in 16 KiB pages
    assert cache_pages(R(16 << 30)) == round((16 << 30) * CACHE_SHARE / 16384) == 281
    assert cache_pages(R(14 << 20)) == 64  # HM1's 14 MiB: one page per plane, not 0
    assert cache_pages(R(None)) == round(1e12 * CACHE_SHARE / 16384)  # a trace: Table 4's 1 TB


@needs_samples
def test_traces_dir_finds_the_papers_named_files():
    assert [(w, f.name) for w, f in tracedir.find("hotr", SHARED)] == [("hm", "msr_hm_0.sample1000.csv.zst")]
    assert [(w, f.name) for w, f in tracedir.find("rr-ssd", SHARED)] == [("mail", "fiu_mail_cheetah.sample.blkparse.zst")]
    # none of the collision volumes (hm_1, ...) or CR5M's traces is there: an error naming what was looked for
    for paper in ("collisions", "cr5m"):
        with pytest.raises(ReproduceError, match=r"none of .*'s traces is there"):
            tracedir.find(paper, SHARED)


def test_names_do_not_cross_volumes(tmp_path):
    for n in ("hm_0.csv", "hm_1.csv.gz", "src1_1.csv", "src2_1.csv", "webmail+online.cs.fiu.edu-1.blkparse",
              "homes-110108.blkparse", "Financial1.spc", "Financial2.spc", "notes.md"):
        (tmp_path / n).write_text("x")
    got = {w: f.name for w, f in tracedir.find("collisions", tmp_path)}
    assert got == {"msr-hm1": "hm_1.csv.gz", "msr-src2-1": "src2_1.csv", "msr-src1-1": "src1_1.csv"}
    assert {w: f.name for w, f in tracedir.find("hotr", tmp_path)} == {"fin2": "Financial2.spc", "hm": "hm_0.csv"}
    assert {w: f.name for w, f in tracedir.find("cr5m", tmp_path)} == {"financial1": "Financial1.spc"}
    rr = {w: f.name for w, f in tracedir.find("rr-ssd", tmp_path)}
    assert rr == {"webvm": "webmail+online.cs.fiu.edu-1.blkparse", "homes": "homes-110108.blkparse"}
    links = tracedir.link(tracedir.find("hotr", tmp_path), tmp_path / "out")
    assert [p.name for p in links] == ["fin2.spc", "hm.csv"]
    assert [tracedir.workload_of(str(p)) for p in links] == ["fin2", "hm"]
    assert tracedir.workload_of(str(tmp_path / "hm_0.csv")) == "hm_0.csv"  # a --trace file keeps its name
    with pytest.raises(ReproduceError, match="not a directory"):
        tracedir.find("hotr", tmp_path / "nope")


@needs_samples
def test_reproduce_with_traces_dir_runs_the_sample_under_the_papers_name(tmp_path):
    out = tmp_path / "h"
    reproduce("hotr", out, quick=True, traces_dir=str(SHARED), workers=2, say=lambda s: None)
    doc = json.loads((out / "report.json").read_text())
    secs = {s["id"]: s for s in doc["sections"]}
    assert "calibration" not in secs  # a real trace keeps its own load
    assert {r[0] for r in secs["hr-1"]["rows"]} == {"hm", "mean"}
    assert secs["hr-1"]["workload"] == "real traces: hm.sample1000.csv.zst (msr_hm_0.sample1000.csv.zst)"
    g = {r[1]: r for r in secs["grounding"]["rows"]}
    assert g["write share %"][6] == "the trace itself" and g["write share %"][3] == 72.9
    with pytest.raises(ReproduceError, match="not both"):
        reproduce("hotr", out, traces=[str(out / "report.json")], traces_dir=str(SHARED), say=lambda s: None)


def test_cr5m_writes_complete_with_their_own_sub_requests(tmp_path):
    """Sec. IV-A: a write request completes only after all its sub-requests
    (its data and its parity's) finish, so the judged runs have no
    write-back buffer; the two buffered readings stay valid configurations
    for the sensitivity in docs/reproduce.md."""
    from detour import _toml
    from detour.api import config
    from detour.reproduce.base import Context
    from detour.reproduce.cr5m import SSDSIM_BUFFER, WRITE_PATH, WRITE_PATHS, _fixed

    assert WRITE_PATH == "none"
    fixed = _fixed(Context("cr5m", tmp_path, say=lambda s: None))
    c = _toml.loads(config("cr5m-ssd1-cr5m", overrides={"compat": "ssdsim", **fixed}))
    assert c["write_buffer"]["pages"] == 0
    # the ack is the bundle's (SSDSim's write sub-request ends at its transfer), never the buffer's
    assert c["host"]["write_ack"] == "transfer"
    # Sec. III-B: mirroring off while a full mirror chip's expired data is reclaimed
    assert c["scheme"]["raid"]["reclaim"] == "drain"
    for name in ("evict", "room"):
        c = _toml.loads(config("cr5m-ssd1-cr5m", overrides={"compat": "ssdsim", **fixed, **WRITE_PATHS[name]}))
        pages, size = c["write_buffer"]["pages"], c["device"]["page_size"]
        assert pages * size <= 131074 < (pages + 1) * size  # SSDSim's dram capacity, in whole pages
        assert c["host"]["write_ack"] == "buffer" and c["write_buffer"]["admission"] == name
        assert {k: WRITE_PATHS[name][k] for k in SSDSIM_BUFFER} == SSDSIM_BUFFER


class FakeRun:
    """The parts of a run the grounding sections read."""

    def __init__(self, reads, writes, read_us, write_us, queue_us=0.0):
        self.summary = {"reads": reads, "writes": writes,
                        "breakdown_us": {"read": {"queue": queue_us, "bus": 10.0, "array": 90.0 - queue_us}}}
        self._lat = {"read": read_us, "write": write_us}

    def lat(self, kind="all", stat="mean"):
        return self._lat[kind]


def test_rrssd_grounding_reads_table_iii_as_speedups_and_fig1_as_a_range(tmp_path):
    from detour.reproduce.base import Context, Section
    from detour.reproduce.rrssd import grounding

    ctx = Context("rr-ssd", tmp_path, say=lambda s: None)
    # desktop: CA-SSD reads 4x faster than conventional is Table III's 300%
    by = {"desktop": {"ca-ssd": FakeRun(58, 42, 100.0, 50.0)}, "homes": {"ca-ssd": FakeRun(4, 96, 100.0, 100.0)}}
    cv = {"desktop": FakeRun(58, 42, 400.0, 150.0, queue_us=30.0), "homes": FakeRun(4, 96, 120.0, 130.0, queue_us=80.0)}
    rr4 = Section("rr-4", "", "", "", rows=[["homes", 14.5]])
    s = grounding(ctx, by, cv, rr4, "d")
    g = {(r[0], r[1]): r for r in s.rows}
    assert g[("desktop", "CA-SSD read speedup over conventional %")][4] == pytest.approx(300.0)
    assert g[("desktop", "CA-SSD read speedup over conventional %")][7]  # within 10%
    assert g[("desktop", "CA-SSD write speedup over conventional %")][4] == pytest.approx(200.0)
    assert g[("homes", "values serving 80% of reads %")][4] == 14.5
    # Fig. 1's range: 30% queueing is inside 25-77%, 80% is not
    assert g[("desktop", "conventional read queueing %")][7]
    assert not g[("homes", "conventional read queueing %")][7]
    assert "Grounded: desktop (1 of 2)" in s.notes[0]
