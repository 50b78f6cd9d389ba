"""RR-SSD's Table III read column as profile settings: the readings of its
"Unique Value RD" column (docs/reproduce.md, "Readings"), the one the
reproduction uses, and the override that puts it in a profile."""

from __future__ import annotations

from typing import Any, Dict

#: Table III's "Unique Value RD" column (%).
TABLE3_RD = {"webvm": 32.0, "homes": 80.0, "mail": 80.0, "hadoop": 17.5, "trans": 13.8, "desktop": 49.7}
#: How Table III's read column becomes `content.read_unique` (the share of
#: reads to values never read before): "repeat-share" reads the column as
#: the share of reads whose value is shared (read or stored before), as the
#: paper's text uses it ("the amount of space we save ... 17.5% for hadoop",
#: mail and homes with a "low fraction of New values"), so New = 1 - RD;
#: "new-share" takes the column as New itself (distinct values / reads), the
#: profiles' own reading. docs/schemes/rr-ssd.md gives the reasoning.
#: "per-text" takes, for each workload, the one of the two whose New agrees
#: with what Sec. IV-B says of that workload's New (`TEXT_NEW`).
READINGS = {"repeat-share": lambda n, rd: round(1.0 - rd / 100.0, 4), "new-share": lambda n, rd: round(rd / 100.0, 4),
            "per-text": lambda n, rd: round((min if TEXT_NEW[n] == "low" else max)(rd, 100.0 - rd) / 100.0, 4)}
#: Sec. IV-B on each workload's New: webvm "very high contribution of
#: Replicated values", desktop "the fraction of New values introduced every
#: day is very high", hadoop and trans "the percentage of New values is
#: small", mail and homes "low fraction of New values".
TEXT_NEW: Dict[str, str] = {"webvm": "low", "homes": "low", "mail": "low", "hadoop": "low", "trans": "low", "desktop": "high"}
READING = "per-text"


def reading_set(name: str, reading: str = READING) -> Dict[str, Any]:
    """The profile override that puts Table III's read column in `reading`."""
    rd = TABLE3_RD.get(name)
    return {} if rd is None else {"content.read_unique": READINGS[reading](name, rd)}
