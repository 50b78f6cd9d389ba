"""The progress bar's helpers."""

from __future__ import annotations

import gzip

from detour.progress import ProgressBar, count_lines


def test_count_lines(tmp_path):
    p = tmp_path / "a"
    p.write_text("1\n2\n3\n")
    assert count_lines(p) == 3
    p.write_text("1\n2\n3")
    assert count_lines(p) == 3
    p.write_text("")
    assert count_lines(p) == 0
    g = tmp_path / "a.gz"
    g.write_bytes(gzip.compress(b"1\n2\n"))
    assert count_lines(g) is None
    assert count_lines(tmp_path / "missing") is None
    p.write_text("1\n" * 100)
    assert count_lines(p, limit=10) is None


def test_progress_bar_accepts_updates():
    bar = ProgressBar(total=10, delay=0)
    bar(4, 1000)
    bar(12, 2000)  # more than the estimated total
    bar.close()
