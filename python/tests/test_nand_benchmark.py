"""The `[nand]` model against Park et al.'s published read-retry points
(scripts/nand_benchmark.py, docs/nand.md "Benchmark against a published
curve"). The stored points are the published numbers, not results."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "nand_benchmark.py"


def load():
    spec = importlib.util.spec_from_file_location("nand_benchmark", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_simulated_reads_on_an_aged_drive_take_the_formulas_steps():
    # The benchmark's numbers come from runs, so the runs must mean what the
    # formula says: a drive started at the point's P/E count and data age.
    b = load()
    for p in b.POINTS:
        for bits in b.ECCS.values():
            assert b.simulated_steps(p.pe, p.days, bits) == b.formula_steps(p.pe, p.days, bits), (p, bits)


@pytest.mark.xfail(strict=True, reason="unmet (docs/nand.md): tlc3d72 gives 0, 0, 1 and 3 steps where Park et al. report >3, >=3.81, >=8, 19.9")
def test_the_model_is_within_2x_of_every_published_point():
    # With the paper's own ECC (72 bits / 1 KiB). Strict: if a model change
    # makes this pass, the docs' "unmet" must be revisited.
    b = load()
    for p in b.POINTS:
        assert b.within_2x(p, b.simulated_steps(p.pe, p.days, b.ECCS["paper's ECC (72 b / 1 KiB)"])), p
