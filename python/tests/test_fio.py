"""Closed-loop flows from Python: `detour.run(flows=...)`, the `flows`
records of the typed summary, and the `detour fio` command."""

from __future__ import annotations

import json

import detour
import pytest
from detour import schema
from detour.cli import main
from detour.fio import job, parse_size, parse_time

# `small`: a lone read is 100 ns command + 50 µs tR + 12.3 µs transfer.
LONE_READ_US = 62.4


def test_fio_spellings():
    assert [parse_size(s) for s in ("4096", "4k", "4KiB", "1m", "2g")] == [4096, 4096, 4096, 1 << 20, 2 << 30]
    assert [parse_time(s) for s in ("2", "2s", "500ms", "100us", "1m")] == [2.0, 2.0, 0.5, 1e-4, 60.0]
    with pytest.raises(Exception, match="expected a size"):
        parse_size("four")
    assert detour.fio_job is job
    assert job("randrw", 8192, 4, rwmixread=70, ios=10) == {"rw": "randrw", "bs": 8192, "iodepth": 4,
                                                             "rwmixread": 70, "ios": 10}


def test_qd1_reads_take_a_lone_read_and_flows_are_typed():
    r = detour.run("small", flows=[job("randread", 4096, 1, ios=500, name="qd1")])
    s = r.summary
    (f,) = s.flows
    assert isinstance(f, schema.Flow) and isinstance(f.latency_us.read, schema.Latency)
    assert f.name == "qd1" and f.kind == "closed" and f.requests == 500 == s.requests
    assert f.latency_us.read.mean == pytest.approx(LONE_READ_US, rel=0.01)
    assert f.iops == pytest.approx(1e6 / LONE_READ_US, rel=0.01)
    assert set(f) == set(schema.field_names("flows"))
    assert set(f.latency_us.read) == set(schema.field_names("latency_us"))
    assert json.loads(json.dumps(s))["flows"][0]["name"] == "qd1"


def test_a_write_tenant_raises_the_read_tenants_latency_and_a_trace_runs_beside():
    reader = job("randread", 4096, 4, runtime_s=0.01, name="reader")
    alone = detour.run("small", flows=[reader]).summary.flows[0]
    both = detour.run("small", flows=[reader, job("randwrite", 4096, 16, runtime_s=0.01, name="writer")]).summary
    assert [f.name for f in both.flows] == ["reader", "writer"]
    assert both.flows[0].latency_us.read.mean > 1.5 * alone.latency_us.read.mean
    reqs = {"time_ns": [i * 100_000 for i in range(50)], "offset": [i * 4096 for i in range(50)],
            "size": [4096] * 50, "is_write": [True] * 50}
    mixed = detour.run("small", requests=reqs, flows=[reader]).summary
    assert [(f.name, f.kind) for f in mixed.flows] == [("workload", "open"), ("reader", "closed")]
    assert mixed.flows[0].writes == 50


def test_same_seed_same_summary_and_ramp_is_warmup():
    flows = [job("randrw", 4096, 8, numjobs=2, rwmixread=70, runtime_s=0.004, ramp_s=0.001)]
    a, b = (detour.run("small", flows=flows) for _ in range(2))
    drop = ("detour_version",)
    assert {k: v for k, v in a.summary.items() if k not in drop} == {k: v for k, v in b.summary.items() if k not in drop}
    cols = a.columns
    ramped = int((cols["arrival_ns"] < 1_000_000).sum())
    assert ramped > 0 and a.summary.warmup_requests == ramped
    assert a.summary.flows[0].requests == a.summary.requests == len(cols["arrival_ns"]) - ramped


def test_a_bad_flow_names_its_key():
    with pytest.raises(detour.ConfigError, match=r"flows\[0\]\.iodepth"):
        detour.run("small", flows=[{"iodepth": 0, "ios": 1}])
    with pytest.raises(detour.ConfigError, match=r"flows\[0\]\.runtime_s"):
        detour.run("small", flows=[{"rw": "randread"}])
    with pytest.raises(ValueError, match="flows\\[0\\] must be a mapping"):
        detour.run("small", flows=["randread"])


def test_cli_prints_fio_like_figures_and_writes_the_summary(tmp_path, capsys):
    out = tmp_path / "fio"
    assert main(["fio", "--rw", "randread", "--bs", "4k", "--iodepth", "8", "--runtime", "5ms", "--ramp", "1ms",
                 "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "flow1: (closed loop, iodepth=8, jobs=1)" in text and "read: IOPS=" in text and "p99.9=" in text
    s = schema.load(out / "summary.json")
    assert s.flows[0].iodepth == 8 and s.flows[0].duration_s == pytest.approx(0.005, rel=0.05)
    flows = tmp_path / "tenants.toml"
    flows.write_text('[[flows]]\nname = "r"\nios = 50\n\n[[flows]]\nname = "w"\nrw = "write"\nios = 20\n')
    assert main(["fio", "--flows", str(flows)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("r: ") and "\nw: " in text and "write: IOPS=" in text
    assert main(["fio", "--rw", "randread"]) == 2
    assert "--runtime or --number-ios" in capsys.readouterr().err
    assert main(["fio", "--iodepth", "0", "--number-ios", "5"]) == 1
    assert "flows[0].iodepth" in capsys.readouterr().err


def test_an_open_flow_replays_its_own_profile_beside_a_job():
    prof = {"name": "tenant", "profile": "bench-like", "profile_set": ["requests=200", "footprint_bytes=16777216"]}
    s = detour.run("small", flows=[prof, job("randread", 4096, 2, ios=100)]).summary
    assert [(f.name, f.kind, f.requests) for f in s.flows] == [("tenant", "open", 200), ("flow2", "closed", 100)]
