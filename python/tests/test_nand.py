"""`[nand]` from Python: the summary's `nand` section and the per-request
`retry_steps` column, in memory and in requests.parquet (docs/nand.md)."""

from __future__ import annotations

import detour
import pyarrow.parquet as pq

AGED = {"nand.error_model": "power_law", "nand.fit": "tlc3d72", "nand.initial_pe": 3000, "nand.initial_age_days": 365}
PROFILE = {"requests": 400, "footprint_bytes": 2**26}


def test_aged_reads_report_their_retry_steps(tmp_path):
    r = detour.run("small", profile="bench-like", profile_overrides=PROFILE, overrides=AGED)
    steps = r.columns["retry_steps"]
    reads = ~r.columns["is_write"]
    assert steps[reads].sum() > 0 and steps[~reads].sum() == 0
    # Host reads are among the flash reads the model judged (GC's too).
    assert steps.sum() <= r.summary.nand.retry_steps
    streamed = detour.run("small", profile="bench-like", profile_overrides=PROFILE, overrides=AGED,
                          requests_parquet=tmp_path / "requests.parquet")
    col = pq.read_table(tmp_path / "requests.parquet", columns=["retry_steps"]).column("retry_steps").to_numpy()
    assert (col == steps).all() and streamed.summary.nand == r.summary.nand


def test_the_ideal_flash_has_no_nand_section_and_zero_steps():
    r = detour.run("small", profile="bench-like", profile_overrides=PROFILE)
    assert r.summary.nand is None and r.columns["retry_steps"].sum() == 0
