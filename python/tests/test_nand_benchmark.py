"""The `[nand]` model against Park et al.'s published read-retry points
(scripts/nand_benchmark.py, docs/nand.md "Benchmark against a published
curve"). The stored points are the published numbers, not results."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

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


def test_simulated_drift_runs_take_the_drift_formulas_steps():
    b = load()
    for p in b.POINTS:
        assert b.simulated_steps(p.pe, p.days, None) == b.drift_formula_steps(p.pe, p.days), p


def test_the_model_is_within_2x_of_every_published_point():
    # The vth_drift model (tlc3d48) against Park et al.'s points. Two of
    # them were the fit's inputs (scripts/nand_drift_fit.py): they are
    # judged apart from the three held out, which are the actual test.
    b = load()
    held = [p for p in b.POINTS if not p.fit_input]
    fitted = [p for p in b.POINTS if p.fit_input]
    assert len(held) == 3 and len(fitted) == 2
    for p in held:
        assert b.within_2x(p, b.simulated_steps(p.pe, p.days, None)), ("held out", p)
    for p in fitted:
        assert b.within_2x(p, b.simulated_steps(p.pe, p.days, None)), ("fit input", p)


def test_the_power_law_fit_still_misses_the_published_points():
    # tlc3d72 (not fitted to these points) with the paper's ECC misses all
    # but the fresh point (docs/nand.md, "Why the power law misses"). If a
    # change makes it meet them, the docs' account must be revisited.
    b = load()
    bits = b.ECCS["paper's ECC (72 b / 1 KiB)"]
    missed = [p for p in b.POINTS if not b.within_2x(p, b.simulated_steps(p.pe, p.days, bits))]
    assert len(missed) == 4, missed


def test_the_fit_reproduces_its_inputs_and_is_the_cores():
    # The parameters in drift.rs are the script's output, rounded to 6 digits.
    b = load()
    a, bb = b.nand_drift_fit.fit()
    assert round(a, 6) == 0.520978 and f"{bb:.6g}" == "0.000835573"
    assert b.drift_formula_steps(0, 90) == 4 and b.drift_formula_steps(2000, 365) == 20
