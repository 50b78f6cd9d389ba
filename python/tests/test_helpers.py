"""The one TOML writer, the one table-cell formatter and the one
name-or-path guess."""

from __future__ import annotations

import pytest
from detour import _toml
from detour.api import is_path
from detour.report import fmt


@pytest.mark.parametrize("v", [True, 3, 0.1, 'a "quoted" \\ name', [[16384, 1.0], [4096, 0.5]], ["x", "y"]])
def test_toml_value_reads_back_as_itself(v):
    got = _toml.loads(f"v = {_toml.value(v)}")["v"]
    assert got == (list(v) if isinstance(v, tuple) else v)


def test_toml_value_refuses_tables():
    with pytest.raises(ValueError, match="bool, number, string or array"):
        _toml.value({"a": 1})
    with pytest.raises(ValueError):
        _toml.value([1, {"a": 1}])


def test_toml_dumps_keeps_dotted_keys_whole():
    doc = {"set": {"ftl.gc_threshold": 0.1}, "profiles": [{"profile": "hm", "set": {"arrival.rate_per_s": 240.0}}]}
    assert _toml.loads(_toml.dumps(doc)) == doc


def test_is_path(tmp_path):
    assert is_path("my.toml") and is_path("dir/dev") and not is_path("small")
    (tmp_path / "small").write_text("")
    assert is_path("small", base=tmp_path) and not is_path("small", base=tmp_path / "elsewhere")


@pytest.mark.parametrize("v, text", [(None, "-"), (float("nan"), "-"), (0.0, "0"), (1234567, "1,234,567"),
                                     (0.012345, "0.0123"), (12.34, "12.3"), (999.94, "999.9"), (1234.5, "1,234"),
                                     (True, "True"), ("x", "x")])
def test_fmt(v, text):
    assert fmt(v) == text
