"""TOML in and out, in one place: read with the standard library's
`tomllib` (Python 3.11+) or its backport `tomli` (declared for older
Pythons in pyproject.toml), written with `tomli-w`. Nothing in Detour
formats or parses TOML by hand (the Rust core has its own, for configs)."""

from __future__ import annotations

from typing import Any

import tomli_w

try:
    import tomllib
except ImportError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

TOMLDecodeError = tomllib.TOMLDecodeError


def loads(text: str) -> dict:
    """A TOML document as a dict."""
    return tomllib.loads(text)


def dumps(doc: dict) -> str:
    """A dict as a TOML document (dotted keys are quoted, so they stay one key)."""
    return tomli_w.dumps(doc)


def value(v: Any) -> str:
    """One TOML value, for a `key=value` override: a bool, number, string
    or array of them (arrays may span lines; the core's parser reads that).
    Raises ValueError for anything else, tables included."""
    _check(v, v)
    return tomli_w.dumps({"v": v})[len("v = "):].rstrip("\n")


def _check(v: Any, whole: Any) -> None:
    if isinstance(v, (list, tuple)):
        for x in v:
            _check(x, whole)
    elif not isinstance(v, (bool, int, float, str)):
        raise ValueError(f"value {whole!r} must be a bool, number, string or array of them")
