"""Plot the `[nand]` error model's read-retry steps against P/E cycles and
retention age, for both fits (docs/nand.md, docs/nand-retry.png).

The formula and parameters are the core's (crates/detour-core/src/device/
nand/rber.rs), restated here so the plot needs no build; a test of the
core (rber.rs, mlc_matches_simplessd_formula_by_hand) checks the MLC one by
hand. Usage: python scripts/nand_curves.py [OUT.png]
"""

from __future__ import annotations

import math
import sys

# (e, a, k, b, m, n, g, p, q, ns per time unit, reads per page)
FITS = {
    "mlc2y (SimpleSSD)": (8.34e-5, 3.30e-11, 1.71, 5.56e-19, 2.49, 3.33, 6.26e-13, 1.76, 0.47, 86400e9, False),
    "tlc3d72 (MQSim fork)": (1.48e-3, 3.90e-10, 2.05, 6.28e-5, 0.14, 0.54, 3.73e-9, 0.33, 1.71, 3600e9, True),
}
CODEWORD_BITS, T, MAX_RETRIES = 1024 * 8, 40, 15
DAY_NS = 86400e9


def rber(fit, pe, age_ns, reads=0.0, pages=256.0):
    e, a, k, b, m, n, g, p, q, unit, per_page = fit
    t = age_ns / unit
    r = reads / pages if per_page else reads
    return e + a * pe**k + b * pe**m * t**n + g * pe**p * r**q


def steps(r):
    errors = r * CODEWORD_BITS
    return 0 if errors <= T else min(math.ceil(errors / T) - 1, MAX_RETRIES)


def main(out: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    pes = list(range(0, 10_001, 250))
    ages = [0.0, 1, 7, 30, 90, 180, 365, 730, 1095]
    for name, fit in FITS.items():
        for age in (0.0, 365.0):
            axes[0].plot(pes, [steps(rber(fit, c, age * DAY_NS)) for c in pes], label=f"{name}, {age:g} d")
        for pe in (1000, 3000):
            axes[1].plot(ages, [steps(rber(fit, pe, d * DAY_NS)) for d in ages], marker="o", label=f"{name}, {pe} P/E")
    axes[0].set(xlabel="P/E cycles", ylabel="read-retry steps", title="steps vs P/E")
    axes[1].set(xlabel="retention age, days", ylabel="read-retry steps", title="steps vs retention")
    for ax in axes:
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.suptitle(f"[nand] model: ECC {T} bits / {CODEWORD_BITS // 8} B codeword, at most {MAX_RETRIES} steps")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    for name, fit in FITS.items():
        row = ", ".join(f"{c}: {steps(rber(fit, c, 365 * DAY_NS))}" for c in (0, 1000, 3000, 5000))
        print(f"{name}, 1 year: steps at P/E {row}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/nand-retry.png")
