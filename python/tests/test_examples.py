"""The example notebook and the README's Python snippets run as written.

The notebook runs in a Jupyter kernel when nbclient and ipykernel are
installed (the `test` extra), and otherwise cell by cell in one namespace
from the .ipynb JSON: the code is the same, only the display differs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli, write_mqsim_trace

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "quickstart.ipynb"


def _code_cells(path: Path) -> list:
    nb = json.loads(path.read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_notebook_runs(tmp_path, monkeypatch):
    pytest.importorskip("polars")
    monkeypatch.chdir(tmp_path)
    if _has("nbclient") and _has("ipykernel") and _has("nbformat"):
        import nbformat
        from nbclient import NotebookClient

        nb = nbformat.read(NOTEBOOK, as_version=4)
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
        assert not [o for o in outputs if o.output_type == "error"]
        html = [o for o in outputs if "text/html" in o.get("data", {})]
        assert html and "<table>" in html[0]["data"]["text/html"]  # the Result's headline table
        return
    ns: dict = {}
    for i, code in enumerate(_code_cells(NOTEBOOK)):
        exec(compile(code, f"{NOTEBOOK.name}[cell {i}]", "exec"), ns)
    r = ns["r"]
    assert r.summary.workload.scaled_from_bytes == 64 * 2**30  # msr-random's own 64 GiB, scaled to fit small
    assert set(ns["runs"]) == {"conventional", "collisions"}
    assert "<table>" in r._repr_html_()


def _readme_snippets() -> list:
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)


def test_readme_python_snippets_run(tmp_path, monkeypatch):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    snippets = _readme_snippets()
    assert len(snippets) >= 3
    monkeypatch.chdir(tmp_path)
    # What the README's shell lines before the snippets would have made.
    write_mqsim_trace(tmp_path / "my.trace")
    assert run_cli("run", "-d", "small", "-t", "my.trace", "-o", "out", "-q").returncode == 0
    (tmp_path / "gc.toml").write_text('traces = ["my.trace"]\ndevices = ["small"]\n[grid]\n"ftl.gc_threshold" = [0.05, 0.1]\n')
    p = run_cli("sweep", "gc.toml", "--out", "out/gc", "--workers", "1", "-q")
    assert p.returncode == 0, p.stderr
    assert run_cli("results", "out/gc", "-q").returncode == 0
    ns = {"pd": pd, "pl": pl}
    for i, code in enumerate(snippets):
        exec(compile(code, f"README.md[python {i}]", "exec"), ns)
    assert ns["r"].summary.latency_us.read.count > 0


def test_readme_snippets_are_checked_in_a_clean_interpreter(tmp_path):
    """The snippet that stands alone (`import detour` ...) needs nothing the test defined."""
    standalone = [s for s in _readme_snippets() if s.lstrip().startswith("import detour")]
    assert standalone
    write_mqsim_trace(tmp_path / "my.trace")
    code = standalone[0].replace("r.to_pandas()", "r.to_arrow()")  # pandas is optional in the package
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
