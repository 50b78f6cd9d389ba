"""Screenshots of reproduction reports and the demo figure, taken in
headless Chromium (the system's package: `apt-get install chromium`), as
docs/screenshots/ keeps them (docs/reproduce.md, "Reading the report").

    detour reproduce hotr --quick --out out/hotr      # and the other papers
    detour demo --out out/demo
    python scripts/screenshots.py --report out/hotr hr-3 --report out/cr5m cr-1 \\
        --demo out/demo --out docs/screenshots

For each --report DIR ID it writes <paper>-report.png (the page's top: the
title and the verdict table) and <paper>-<ID>.png (experiment ID's section:
table, figure, notes). Chromium's --screenshot shows the top of a page only
(it does not scroll to an #anchor), so each view is the report's own HTML
cut to the part wanted, with the report's style: what a reader sees there.
Screenshots are scaled to WIDTH pixels and stored with a 96-colour palette
so they stay small in the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

#: Colours kept in a screenshot: enough for anti-aliased text and the
#: figures' palette, a fraction of a full-colour PNG's size.
COLOURS = 96
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    raise SystemExit("no Chromium found: apt-get install chromium")


def shoot(page: Path, png: Path, width: int, height: int) -> None:
    """A screenshot of `page` at width x height CSS pixels; raises when
    Chromium fails or draws nothing."""
    with tempfile.TemporaryDirectory() as prof:
        subprocess.run([browser(), *FLAGS, f"--user-data-dir={prof}", f"--window-size={width},{height}",
                        f"--screenshot={png}", page.resolve().as_uri()], check=True, timeout=120,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not png.is_file() or png.stat().st_size < 1000:
        raise SystemExit(f"Chromium wrote no screenshot of {page}")


def small(png: Path, width: int) -> None:
    """Cut the blank bottom, scale to `width` pixels and keep COLOURS colours
    (a PNG a fraction of the size)."""
    from PIL import Image, ImageChops

    im = Image.open(png).convert("RGB")
    box = ImageChops.difference(im, Image.new("RGB", im.size, "white")).getbbox()
    if box:  # the page's blank bottom, below its last line
        im = im.crop((0, 0, im.width, min(im.height, box[3] + 20)))
    if im.width > width:
        im = im.resize((width, round(im.height * width / im.width)), Image.LANCZOS)
    im.quantize(COLOURS).save(png, optimize=True)


def cut(html: str, sid: str) -> str:
    """The report's page with only the head, the title and section `sid`."""
    head = html[:html.index("<h2")]
    start = html.index(f"<h2 id='{sid}'>")
    nxt = html.find("<h2", start + 1)
    return head + html[start:nxt if nxt > 0 else None] + "</body></html>"


def verdicts_only(html: str) -> str:
    """The report's page down to the end of its verdict table."""
    end = html.index("</table>", html.index("class='verdicts'")) + len("</table>")
    return html[:end] + "</body></html>"


def report_shots(out_dir: Path, sid: str, dest: Path, width: int) -> None:
    html = (out_dir / "report.html").read_text()
    paper = json.loads((out_dir / "report.json").read_text())["meta"]["paper"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, page, height in ((f"{paper}-report", verdicts_only(html), 1400), (f"{paper}-{sid}", cut(html, sid),
                                                                                      1900)):
            f = Path(tmp) / f"{name}.html"
            f.write_text(page)
            png = dest / f"{name}.png"
            shoot(f, png, 1300, height)
            small(png, width)
            print(png)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report", nargs=2, action="append", default=[], metavar=("DIR", "ID"))
    ap.add_argument("--demo", type=Path, help="a `detour demo --out` directory")
    ap.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    ap.add_argument("--width", type=int, default=820)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    for d, sid in a.report:
        if not re.fullmatch(r"[a-z]+-[a-z0-9]+", sid):
            raise SystemExit(f"not an experiment id: {sid}")
        report_shots(Path(d), sid, a.out, a.width)
    if a.demo:
        png = a.out / "demo.png"
        shoot(a.demo / "comparison.png", png, 1340, 900)
        small(png, a.width)
        print(png)


if __name__ == "__main__":
    main()
