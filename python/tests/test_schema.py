"""The typed summary (detour/schema.py): one schema documents summary.json
(docs/results.md's tables are rendered from it), types the summary, and
matches what the core actually writes; the `Result` views a notebook uses."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import detour
import pytest
from detour import schema

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def full():
    """A run with every optional section and field: write buffer, cached mapping table, collision
    accounting, the probe, wear levelling, the read cache, SSDSim's plane pairing and update reads, and
    (ignored) discards on."""
    return detour.run("small", profile="bench-like",
                      profile_overrides={"requests": 800, "footprint_bytes": 2**28, "arrival.rate_per_s": 4000,
                                         "discard_ratio": 0.1},
                      overrides={"write_buffer.pages": 64, "host.write_ack": "buffer", "metrics.collisions": True,
                                 "read_cache.mode": "shared", "trim.discards": "ignore",
                                 "probes.interval_us": 50, "ftl.wear_leveling": "static",
                                 "ftl.mapping": "cmt", "ftl.cmt_size_kib": 64,
                                 "nand.error_model": "power_law", "nand.pe_limit": 10000,
                                 "scheduler.plane_pairing": "level",
                                 # SSDSim's buffer with its update reads: write_buffer.update_reads
                                 "write_buffer.admission": "evict", "write_buffer.granularity": "sector",
                                 "write_buffer.partial_write_back": "read_first"})


@pytest.fixture(scope="module")
def plain():
    return detour.run("small", profile="bench-like", profile_overrides={"requests": 500, "footprint_bytes": 2**28})


def test_results_md_tables_are_the_schema():
    text = (ROOT / "docs" / "results.md").read_text()
    for sec in schema.SECTIONS:
        assert schema.markdown(sec.key) in text, f"docs/results.md's table of {sec.key or 'Run'} differs from detour/schema.py"


def test_the_core_writes_exactly_the_schema_fields(full, plain):
    s = full.summary
    top = set(schema.field_names("")) | {sec.key for sec in schema.SECTIONS if sec.key} | {f.name for f in schema.EXTRA}
    missing_ok = {"periods", "flows"}  # only schemes that work in periods have periods; flows: test_fio.py
    assert set(s) <= top, f"fields not in the schema: {sorted(set(s) - top)}"
    assert top - set(s) <= missing_ok, f"schema fields the core did not write: {sorted(top - set(s) - missing_ok)}"
    for sec in schema.SECTIONS:
        if not sec.key or sec.key in schema.LISTS:
            continue
        want = set(schema.field_names(sec.key))
        for part in [s[sec.key][k] for k in sec.kinds] or [s[sec.key]]:
            assert set(part) == want, f"{sec.key}: core {sorted(set(part) ^ want)} differ from the schema"
    assert "write_buffer" not in plain.summary and "collisions" not in plain.summary and "probe" not in plain.summary
    assert all(f not in plain.summary[k] for k, fields in schema.OPTIONAL_FIELDS.items() for f in fields if k in plain.summary)
    assert "nand" not in plain.summary and full.summary.nand.pe_limit == 10000
    assert plain.summary.gc.wl_migrations is None and full.summary.gc.wl_migrations is not None
    assert plain.summary.gc.pages_skipped is None and full.summary.gc.pages_skipped is not None
    assert full.summary.write_buffer.update_reads is not None
    assert "mapping" not in plain.summary and full.summary.mapping.lookups > 0


def test_attributes_are_the_dict_and_documented(full, plain):
    s = full.summary
    assert isinstance(s, detour.Summary) and isinstance(s, dict)
    assert s.latency_us.read.p99 == s["latency_us"]["read"]["p99"] > 0
    assert s.write_buffer.capacity_pages == 64 and s.collisions.reads == s["collisions"]["reads"]
    assert s.workload.kind == "profile" and s.gc.write_amplification == s["gc"]["write_amplification"] > 0
    assert plain.summary.write_buffer is None and plain.summary.periods is None
    assert "nearest-rank" in schema.Latency.p99.__doc__ and "p999" in schema.Latency.__doc__
    with pytest.raises(AttributeError, match="no field 'p100'; fields: count, mean"):
        s.latency_us.read.p100  # noqa: B018 (the access is what raises)


def test_summary_round_trips_json_pickle_and_file(full, tmp_path):
    s = full.summary
    assert json.loads(json.dumps(s)) == s.to_dict() and type(s.to_dict()["latency_us"]) is dict
    back = pickle.loads(pickle.dumps(s))
    assert back == s and isinstance(back.latency_us.read, schema.Latency)
    full.write(tmp_path)
    loaded = schema.load(tmp_path / "summary.json")
    assert loaded.throughput.iops == pytest.approx(s.throughput.iops)


def test_repr_is_short_and_has_the_headline(plain):
    text = repr(plain)
    assert len(text) < 300 and "array(" not in text and "[device]" not in text
    assert "conventional on small" in text and "500 request rows" in text and "p99" in text
    assert repr(plain.summary.throughput).startswith("Throughput(duration_s=")


def test_html_view_is_the_headline_table(plain):
    html = plain._repr_html_()
    assert html.count("<tr>") == 4 and "<th>p99</th>" in html
    from detour.report import fmt

    assert f"<td>{fmt(plain.summary.latency_us.read.p99)}</td>" in html


def test_to_polars_has_every_request(plain):
    pl = pytest.importorskip("polars")
    df = plain.to_polars()
    assert isinstance(df, pl.DataFrame) and df.height == len(plain) == 500
    assert "queue_ns" in df.columns and df["is_write"].sum() == plain.summary.writes


def test_plot_labels_both_panels(plain, tmp_path):
    fig = plain.plot()
    cdf, parts = [ax for ax in fig.axes if ax.get_visible()]
    assert cdf.get_title() == "Latency CDF" and cdf.get_xlabel() and cdf.get_ylabel()
    assert len(cdf.get_lines()) == 2 and cdf.get_legend() is not None
    assert parts.get_legend() is not None and parts.get_ylabel() == "mean latency (µs)"
    fig.savefig(tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 10_000
