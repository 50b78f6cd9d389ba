"""`detour reproduce PAPER --traces DIR`: the real traces a paper names,
found in a directory by their published file names, each run under the
paper's name for it (so every table, paper column and figure lines up as
with the profiles).

Each found file is linked as OUT/paper-traces/<workload><suffixes> (the
original's extensions kept, so its format and compression are detected as
usual, and the core streams it as any `--trace`); a run's workload is the
link's name up to its first dot (`base.Run.workload`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from ..errors import ReproduceError

#: The directory of the links under OUT (base.Run.workload knows it).
LINKS = "paper-traces"

#: Per paper: workload -> a pattern of the published file names (searched in
#: the lower-cased name). MSR Cambridge volumes are `<host>_<n>.csv`
#: (hm_0, proj_3, ...); UMass's are Financial1/2.spc and WebSearch*.spc;
#: FIU's mail is cheetah.cs.fiu.edu-*, webvm webmail+online.cs.fiu.edu-*,
#: homes homes-*. The HPC and OSU names follow the papers' spelling.
_B = r"(?:^|[^a-z0-9])"  # a name boundary before
_E = r"(?:[^a-z0-9]|$)"  # and after
NAMES: Dict[str, Dict[str, str]] = {
    "hotr": {"fin2": r"financial2|fin2", "hm": _B + r"hm_0" + _E, "hpc46": r"hpc_?46", "hpc28": r"hpc_?28"},
    "cr5m": {"financial1": r"financial1|fin1", "radius9": r"radius", "atto": r"atto", "build": _B + r"build",
             "exchange": r"exchange"},
    "collisions": {f"msr-{k}": _B + v + _E for k, v in
                   (("hm1", "hm_1"), ("proj3", "proj_3"), ("usr1", "usr_1"), ("web2", "web_2"), ("proj4", "proj_4"),
                    ("src2-1", "src2_1"), ("src1-1", "src1_1"), ("mds1", "mds_1"))},
    "rr-ssd": {"webvm": r"webmail|webvm", "homes": _B + r"homes", "mail": r"cheetah|" + _B + r"mail" + _E,
               "hadoop": r"hadoop", "trans": _B + r"trans", "desktop": r"desktop"},
}
#: Names in a trace directory that are never traces.
_SKIP = re.compile(r"(\.md|\.txt|\.sha256|sha256sums|\.json|\.toml)$", re.I)


def find(paper: str, directory: Path) -> List[Tuple[str, Path]]:
    """(workload, file) for every workload of `paper` with a file in
    `directory` (sorted names, the first match each), in the paper's
    order. An error names the directory and the names looked for when
    nothing matches."""
    d = Path(directory)
    if not d.is_dir():
        raise ReproduceError(f"--traces {d}: not a directory")
    files = sorted(p for p in d.iterdir() if p.is_file() and not _SKIP.search(p.name))
    out = []
    for work, pat in NAMES[paper].items():
        rx = re.compile(pat)
        hit = next((f for f in files if rx.search(f.name.lower())), None)
        if hit is not None:
            out.append((work, hit))
    if not out:
        raise ReproduceError(f"--traces {d}: none of {paper}'s traces is there (looked for file names matching "
                             + "; ".join(f"{w}: /{p}/" for w, p in NAMES[paper].items()) + ")")
    return out


def link(found: Sequence[Tuple[str, Path]], out: Path) -> List[Path]:
    """Link each found file as OUT/paper-traces/<workload><its suffixes>;
    returns the links, in order. A link already there is replaced."""
    d = Path(out) / LINKS
    d.mkdir(parents=True, exist_ok=True)
    links = []
    for work, f in found:
        name = f.name
        dot = name.find(".")
        dst = d / (work + (name[dot:] if dot > 0 else ""))
        if dst.is_symlink() or dst.exists():
            dst.unlink()
        os.symlink(f.resolve(), dst)
        links.append(dst)
    return links


def workload_of(trace: str) -> str:
    """The workload name of a trace run: a link's name up to its first dot,
    any other file's name."""
    p = Path(trace)
    return p.name.split(".", 1)[0] if p.parent.name == LINKS else p.name
