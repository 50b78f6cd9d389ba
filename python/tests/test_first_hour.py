"""A new user's first hour (issue 47): every real trace sample runs on the
default device as given, coarse timestamps are spread, the defaults that
changed a trace say so, and the small commands print what a user looks for."""

import gzip
import json
from pathlib import Path

import detour
import numpy as np
import pytest
from detour.cli import main

SHARED_TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"

SAMPLES = sorted(SHARED_TRACES.glob("*.zst")) if SHARED_TRACES.is_dir() else []
needs_samples = pytest.mark.skipif(not SAMPLES, reason="the shared trace samples (../shared/traces) are not here")


@needs_samples
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_every_sample_runs_on_small_with_default_flags_and_verify(path):
    r = detour.run("small", trace=path, verify=True)
    s = r.summary
    assert s.verify_errors == 0 and s.requests > 0
    assert s["workload"]["requests"] == s.requests
    # What the defaults did is counted, not hidden.
    w = s["workload"]
    assert w["reorder_window_ns"] == 2_000_000_000 and w["clamped"] == 0


@needs_samples
def test_a_coarse_trace_is_spread_so_no_two_requests_share_an_instant():
    path = SHARED_TRACES / "tencent_cbs.sample50000.csv.zst"
    r = detour.run("small", trace=path)
    w = r.summary["workload"]
    assert w["time_resolution_ns"] == 1_000_000_000 and w["spread"] > 0.99 * w["requests"]
    arrivals = np.asarray(r.columns["arrival_ns"])
    assert len(np.unique(arrivals)) == len(arrivals)
    kept = detour.run("small", trace=path, coarse_time="keep")
    assert kept.summary["workload"]["spread"] == 0
    assert len(np.unique(np.asarray(kept.columns["arrival_ns"]))) <= 3


@needs_samples
def test_same_inputs_and_seed_give_identical_results_and_another_seed_other_arrivals():
    path = SHARED_TRACES / "cloudphysics_io.sample.csv.zst"
    a = detour.run("small", trace=path, overrides={"run.seed": 5})
    b = detour.run("small", trace=path, overrides={"run.seed": 5})
    c = detour.run("small", trace=path, overrides={"run.seed": 6})
    assert json.dumps(a.summary.to_dict(), sort_keys=True) == json.dumps(b.summary.to_dict(), sort_keys=True)
    assert np.array_equal(a.columns["arrival_ns"], b.columns["arrival_ns"])
    assert not np.array_equal(a.columns["arrival_ns"], c.columns["arrival_ns"])


def _msr_gz(tmp_path, offset: int):
    """A two-request MSR trace, gzip'd, the second request at `offset` bytes."""
    p = tmp_path / "hm_0.csv.gz"
    with gzip.open(p, "wt") as f:
        f.write("128166385295514663,hm,0,Write,4096,4096,2833\n")
        f.write(f"128166385295614663,hm,0,Read,{offset},4096,2833\n")
    return p


def test_an_address_beyond_the_device_folds_by_default_and_says_so(tmp_path, capsys):
    p = _msr_gz(tmp_path, 500 * 2**30)
    assert main(["run", "-t", str(p), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "1 requests beyond the device's logical space were folded" in out
    assert main(["run", "-t", str(p), "--set", "host.address=strict", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "hm_0.csv.gz:2:" in err and "beyond the logical space" in err


def test_run_without_out_prints_the_summary_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = _msr_gz(tmp_path, 8192)
    assert main(["run", "-t", str(p), "--no-progress"]) == 0
    assert "write amplification" in capsys.readouterr().out
    assert sorted(x.name for x in tmp_path.iterdir()) == ["hm_0.csv.gz"]


def test_fio_prints_the_device_side(capsys):
    assert main(["fio", "--rw", "randwrite", "--number-ios", "3000", "--iodepth", "8", "-d", "small",
                 "--set", "ftl.precondition.valid=0.9", "--set", "write_buffer.size_mib=1",
                 "--set", "host.write_ack=buffer"]) == 0
    out = capsys.readouterr().out
    assert "device: GC runs" in out and "write amplification" in out and "device: write buffer:" in out


def test_config_prints_the_derived_capacity(capsys):
    assert main(["config", "-d", "small"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    # small: 4 ch x 2 chips x 2 dies x 2 planes x 256 blocks x 64 pages x 4 KiB = 2 GiB.
    assert first.startswith("# capacity: 2 GiB raw") and "16 dies" in first and "32 planes" in first


def test_inspect_summarises_a_long_volume_list(tmp_path, capsys):
    p = tmp_path / "many.csv"
    p.write_text("".join(f"1538323200,{8 * i},8,0,{1000 + i}\n" for i in range(200)))
    assert main(["traces", "inspect", str(p)]) == 0
    out = capsys.readouterr().out
    assert "200 volumes (1000, 1001, 1002, 1003, ..., 1196, 1197, 1198, 1199; --json lists all)" in out


def test_a_wrong_format_is_named_with_the_line(tmp_path, capsys):
    p = tmp_path / "t.csv.gz"
    p.write_bytes(gzip.compress(b"1538323200,4247200,128,1,1058\n"))
    assert main(["run", "-t", str(p), "-f", "msr", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "t.csv.gz:1: not a msr line (given with --format)" in err


@pytest.mark.parametrize("fmt", [None, "msr"])
def test_an_empty_trace_is_a_clear_error_without_line_0(tmp_path, capsys, fmt):
    p = tmp_path / "empty.csv"
    p.write_text("")
    assert main(["run", "-t", str(p), "--no-progress", *(["-f", fmt] if fmt else [])]) == 1
    err = capsys.readouterr().err
    assert ":0:" not in err and "empty.csv" in err and "no requests" in err


@needs_samples
def test_the_cli_writes_byte_identical_files_for_the_same_inputs_and_seed(tmp_path):
    path = str(SHARED_TRACES / "tencent_cbs.sample50000.csv.zst")
    for name in ("a", "b"):
        assert main(["run", "-t", path, "-o", str(tmp_path / name), "-q"]) == 0
    for f in ("summary.json", "requests.parquet", "config.toml"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
