"""docs/extending.md's recipe, executed: in a copy of the repository, the
page's example scheme (`delayed`) and GC victim policy (`first`) are added
exactly as it says (its code blocks, written where its text names), git
counts what that touched (one new file and one registry line each), the
extension is built from the copy, and both run through the CLI with
`--verify`; the copy's own colour and demo tests then pass with no Python
edit.

The build is the dev profile into this checkout's `target/` (its
dependencies are built there already, so only the two workspace crates
compile: a few minutes on a busy machine). The Rust side of the page
(the example compiles, acts and is checked) is `crates/detour-core/tests/
extending.rs` and each policy family's `tests.rs`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest
from conftest import write_mqsim_trace

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "extending.md").read_text()
#: The page's sections whose recipe the test follows.
SCHEME, GC_POLICY = "## A scheme", "## A GC victim policy"


def steps(heading: str) -> List[Tuple[str, str]]:
    """The first two rust blocks under `heading`, each with the last
    `crates/...rs` path the page names before it: (file, its text) and
    (registry, the registry block as it reads after the edit)."""
    start = DOC.index(f"\n{heading}\n")
    end = DOC.find("\n## ", start + 1)
    section = DOC[start:end if end > 0 else len(DOC)]
    out, pos = [], 0
    for m in re.finditer(r"```rust\n(.*?)```", section, flags=re.S):
        if len(out) == 2:
            break
        paths = re.findall(r"`(crates/[^`]+\.rs)`", section[pos:m.start()])
        assert paths, f"{heading}: no file named before block {len(out) + 1}"
        out.append((paths[-1], m.group(1)))
        pos = m.end()
    assert len(out) == 2, f"{heading}: the file's block and the registry's"
    return out


def registry_line(block: str) -> str:
    """The line the page adds: the one after `// ...` in its registry block."""
    lines = block.splitlines()
    assert lines[0] == "crate::registry! {", "the second block is the registry as it reads after the edit"
    return lines[lines.index("        // ...") + 1]


def add_line(path: Path, line: str) -> None:
    """Add `line` as the last of the file's `crate::registry!` list."""
    text = path.read_text()
    at = text.index("crate::registry! {\n")
    close = text.index("\n    ];\n", at)
    path.write_text(text[:close + 1] + line + "\n" + text[close + 1:])


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def follow(repo: Path, heading: str) -> str:
    """Apply the recipe under `heading`; assert it touched one new file and
    one line of one other. Returns the new file's path."""
    (new, text), (registry, block) = steps(heading)
    assert not (repo / new).exists(), f"{new} exists already"
    (repo / new).write_text(text)
    add_line(repo / registry, registry_line(block))
    status = sorted(git(repo, "status", "--porcelain").splitlines())
    assert status == sorted([f"?? {new}", f" M {registry}"]), status
    assert git(repo, "diff", "--numstat").split() == ["1", "0", registry]
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", heading)
    return new


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The repository's tracked files (as they are on disk) in a fresh git
    repository, the two recipes applied, the extension built."""
    repo = tmp_path_factory.mktemp("recipe") / "detour"
    for f in git(ROOT, "ls-files", "-z").split("\0"):
        if f and (ROOT / f).is_file():
            (repo / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, repo / f)
    git(repo, "init", "-q")
    for key, value in (("user.name", "recipe"), ("user.email", "recipe@localhost"), ("commit.gpgsign", "false")):
        git(repo, "config", key, value)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "copy")
    for h in (SCHEME, GC_POLICY):
        follow(repo, h)
    env = {**os.environ, "CARGO_TARGET_DIR": str(ROOT / "target"), "PYO3_PYTHON": sys.executable}
    subprocess.run(["cargo", "build", "-q", "-p", "detour-py"], cwd=repo, env=env, check=True, timeout=1500)
    shutil.copy(ROOT / "target" / "debug" / "lib_detour.so", repo / "python" / "detour" / "_detour.abi3.so")
    return repo


def detour(repo: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(repo / "python")}
    done = subprocess.run([sys.executable, "-m", "detour", *args], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def run(repo: Path, out: Path, *sets: str) -> dict:
    trace = write_mqsim_trace(out.with_suffix(".trace"), n=2000)
    # aged: GC runs within the first requests, so the victim policy acts
    aged = ("ftl.precondition.valid=0.5", "ftl.precondition.to_gc_threshold=true")
    args = [a for s in (*aged, *sets) for a in ("--set", s)]
    detour(repo, "run", "--trace", str(trace), "--verify", "--out", str(out), "--quiet", *args)
    return json.loads((out / "summary.json").read_text())


def test_the_recipe_adds_one_file_and_one_line_each(copy):
    # `follow` asserted the counts; the copy's history holds the two steps
    log = git(copy, "log", "--format=%s").splitlines()
    assert log == [GC_POLICY, SCHEME, "copy"], log


def test_the_new_scheme_runs_verified_and_acts(copy, tmp_path):
    s = run(copy, tmp_path / "delayed", "scheme.name=delayed")
    assert (s["scheme"], s["verify_errors"]) == ("delayed", 0)
    assert s["scheme_counters"]["delayed.writes"] > 0
    assert all(w["kind"] != "scheme_idle" for w in s["warnings"])
    assert "delayed" in detour(copy, "schemes")


def test_the_new_gc_policy_runs_verified_and_collects(copy, tmp_path):
    s = run(copy, tmp_path / "first", "ftl.gc_policy=first")
    assert s["verify_errors"] == 0 and s["gc"]["runs"] > 0
    assert 'gc_policy = "first"' in (tmp_path / "first" / "config.toml").read_text()
    assert re.search(r"ftl\.gc_policy\s+first", detour(copy, "policies"))


def test_the_python_side_needs_no_edit_for_the_new_scheme(copy):
    # the colour and demo tests of the copy, with its registry: the new
    # scheme has a derived colour and a plain demo case
    tests = copy / "python" / "tests"
    env = {**os.environ, "PYTHONPATH": str(copy / "python")}
    args = [str(tests / "test_plots.py"), str(tests / "test_demo.py"), "-q", "-p", "no:cacheprovider",
            "-k", "colour or one_case"]
    done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=copy, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
