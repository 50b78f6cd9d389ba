"""Plain-text tables of results, for the command line and the demo."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A text table: numeric columns right-aligned, the others left-aligned."""
    rows = [list(r) for r in rows]
    cells = [[str(h) for h in headers]] + [[fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    numeric = [bool(rows) and all(isinstance(r[i], (int, float)) for r in rows) for i in range(len(headers))]

    def line(r):
        return "  ".join(c.rjust(w) if numeric[i] else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    out = [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)


def fmt(v: object) -> str:
    """A table cell, the same in every table Detour prints or writes (text,
    HTML reports, `detour results`): thousands separated, three significant
    digits below 10, one decimal below 1,000, none above; "-" for a
    missing or undefined value."""
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != v:
            return "-"
        if v == 0:
            return "0"
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.3g}" if abs(v) < 10 else f"{v:.1f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


COMPARISON_HEADERS = (
    "scheme",
    "read mean us",
    "read p99 us",
    "write mean us",
    "write p99 us",
    "IOPS",
    "MiB/s",
    "energy J",
    "avg W",
)


def comparison_row(name: str, s: Mapping) -> list:
    lat, tp = s["latency_us"], s["throughput"]
    return [
        name,
        lat["read"]["mean"],
        lat["read"]["p99"],
        lat["write"]["mean"],
        lat["write"]["p99"],
        tp["iops"],
        tp["read_mib_s"] + tp["write_mib_s"],
        (s.get("energy") or {}).get("joules"),
        (s.get("energy") or {}).get("average_w"),
    ]


def collisions_text(c: Mapping) -> str:
    """The read-collision paper's Table 2 row and Table 3 value for one run."""
    return (
        f"read collisions: die reads {c['reads']:,}, mean OCC {c['mean_occ']:.1f}, "
        f"expected {100 * c['expected_ratio']:.1f}%, measured {100 * c['collision_ratio']:.1f}% "
        f"(time share {100 * c['time_share_colliding']:.1f}% vs {100 * c['expected_time_share']:.1f}% expected), "
        f"imbalanced {100 * c['imbalanced_share']:.1f}%, imbalanced pairs {c['imbalanced_pairs']:,}, "
        f"mean repetition {c['mean_repetition']:.2f}; reads per die RSD {c['reads_rsd']:.3f}"
    )


def collisions_table(s: Mapping) -> str:
    """Table 2's rows (rc-1), Fig. 3's ratio (rc-2), Table 3's RSD (rc-3)
    and the top-5% share of pair repetitions (rc-4) for one run."""
    c = s["collisions"]
    rows = [
        ["No. of die operations (host reads)", f"{c['reads']:,}"],
        ["Average OCC (at read arrivals)", f"{c['mean_occ']:.1f}"],
        ["Expected collision ratio (per read)", f"{100 * c['expected_ratio']:.1f}%"],
        ["Measured collision ratio (per read)", f"{100 * c['collision_ratio']:.1f}%"],
        ["Expected share of time colliding", f"{100 * c['expected_time_share']:.1f}%"],
        ["Measured share of time colliding", f"{100 * c['time_share_colliding']:.1f}%"],
        ["Imbalanced to all collisions", f"{100 * c['imbalanced_share']:.1f}%"],
        ["Imbalanced collision pairs", f"{c['imbalanced_pairs']:,}"],
        ["Mean repetition of pairs", f"{c['mean_repetition']:.2f}"],
        ["Measured / expected collisions (Fig. 3)", f"{c['measured_to_expected']:.2f}"],
        ["Reads per die RSD (Table 3)", f"{c['reads_rsd']:.3f}"],
        ["Share of repetitions in the top 5% of pairs", f"{100 * c['top5pct_pair_share']:.1f}%"],
    ]
    head = f"read collisions: {s['scheme']} on {s['device'] or 'custom device'}, {s['requests']:,} requests"
    return head + "\n" + table(["", "value"], rows)


def summary_text(s: Mapping) -> str:
    """A short human-readable account of one run's summary."""
    lat = s["latency_us"]
    rows = []
    for kind in ("read", "write", "all"):
        st = lat[kind]
        rows.append([kind, st["count"], st["mean"], st["p50"], st["p90"], st["p99"], st["p999"], st["max"]])
    t = table(["latency us", "count", "mean", "p50", "p90", "p99", "p99.9", "max"], rows)
    tp, w = s["throughput"], s.get("workload", {})
    lines = [
        f"{s['scheme']} on {s['device'] or 'custom device'}: {s['requests']:,} requests "
        f"({s['reads']:,} reads, {s['writes']:,} writes) over {tp['duration_s']:.3f} s simulated",
        t,
        f"throughput {tp['iops']:,.0f} IOPS, read {tp['read_mib_s']:.1f} MiB/s, write {tp['write_mib_s']:.1f} MiB/s",
    ]
    if s.get("verify"):
        lines.append(f"verify: {s['verify_errors']:,} errors")
    if s.get("lost_requests"):
        lines.append(f"lost: {s['lost_requests']:,} requests failed, reading pages no copy or stripe holds after the "
                     "injected failure; left out of every figure above (lost_requests)")
    if "collisions" in s:
        lines.append(collisions_text(s["collisions"]))
    lines.extend(trace_notes(w, s.get("pages", {})))
    lines.extend(device_lines(s))
    return "\n".join(lines)


def device_lines(s: Mapping) -> list:
    """What the device did beside the latencies: GC and write amplification,
    the write buffer, and the run's warnings (`detour run` and `detour fio`)."""
    gc = s["gc"]
    lines = [f"GC runs {gc['runs']:,}, erases {gc['erases']:,}, write amplification {gc['write_amplification']:.3f}"]
    b = s.get("write_buffer")
    if b:
        lines.append(f"write buffer: {b['capacity_pages']:,} pages; read hits {b['read_hits']:,} of {b['read_pages']:,}, "
                     f"write hits {b['write_hits']:,} of {b['write_pages']:,}, flushes {b['flushes']:,}, "
                     f"writes that waited {b['writes_waited']:,}")
    c = s.get("read_cache")
    if c:
        lines.append(f"read cache: {c['capacity_pages']:,} pages; hits {c['read_hits']:,} of {c['read_pages']:,} "
                     f"(hit ratio {fmt(c['hit_ratio'])}), evictions {c['evictions']:,}, invalidations {c['invalidations']:,}")
    t = s.get("trim")
    if t:
        lines.append(f"discards (TRIM): {t['requests']:,} requests of {t['pages']:,} pages, {t['unmapped_pages']:,} unmapped, "
                     f"{t['unwritten_reads']:,} pages read as unwritten, {t['ignored']:,} ignored (trim.discards)")
    e = s.get("energy")
    if e:
        lines.append(f"energy: {fmt(e['joules'])} J, average {fmt(e['average_w'])} W (read {fmt(e['read_j'])}, "
                     f"program {fmt(e['program_j'])}, erase {fmt(e['erase_j'])}, transfer {fmt(e['transfer_j'])}, "
                     f"idle {fmt(e['idle_j'])} J)")
    # A run that completed can still mean nothing (docs/results.md, Warnings).
    for warning in s.get("warnings", []):
        lines.append(f"warning [{warning['kind']}]: {warning['message']}")
    return lines


def trace_notes(w: Mapping, pages: Mapping) -> list:
    """What the reader and the host did to the trace as given, so a default
    that changed it (a fold, a sort, a spread) is seen, not only in summary.json."""
    notes = [f"{k.replace('_', ' ')} {w[k]:,}" for k in ("skipped_malformed", "clamped", "filtered_out", "ignored") if w.get(k)]
    lines = ["trace: " + ", ".join(notes)] if notes else []
    if w.get("reordered"):
        lines.append(f"trace: {w['reordered']:,} requests arrived out of order and were sorted within the "
                     f"{w['reorder_window_ns'] / 1e9:g} s reorder window (--reorder-window)")
    if w.get("spread"):
        lines.append(f"trace: timestamps have a resolution of {_duration(w['time_resolution_ns'])}; {w['spread']:,} requests "
                     f"were spread over it, seeded by run.seed (--keep-coarse-time keeps them at one instant)")
    if pages.get("folded"):
        lines.append(f"trace: {pages['folded']:,} requests beyond the device's logical space were folded into it "
                     f"(host.address = \"fold\", the default; \"strict\" refuses them)")
    return lines


def _duration(ns: int) -> str:
    return f"{ns / 1e9:g} s" if ns >= 1_000_000_000 else f"{ns / 1e6:g} ms"


def summary_html(s: Mapping, rows: int = 0) -> str:
    """The headline table of one run as HTML (a notebook's view of a
    `Result`): latency per request kind, throughput, GC."""
    from html import escape

    lat, tp, gc = s["latency_us"], s["throughput"], s["gc"]
    heads = ["latency µs", "count", "mean", "p50", "p99", "p99.9", "max"]
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(fmt(v))}</td>" for v in
                         [k, lat[k]["count"], lat[k]["mean"], lat[k]["p50"], lat[k]["p99"], lat[k]["p999"], lat[k]["max"]])
        + "</tr>" for k in ("read", "write", "all"))
    title = (f"<b>{escape(str(s['scheme']))}</b> on <b>{escape(str(s['device'] or 'custom device'))}</b>: "
             f"{fmt(s['requests'])} requests over {tp['duration_s']:.3f} s simulated"
             + (f"; {fmt(rows)} request rows" if rows else ""))
    foot = (f"{fmt(tp['iops'])} IOPS, read {fmt(tp['read_mib_s'])} MiB/s, write {fmt(tp['write_mib_s'])} MiB/s; "
            f"GC runs {fmt(gc['runs'])}, write amplification {fmt(gc['write_amplification'])}")
    head = "".join(f"<th>{h}</th>" for h in heads)
    return f"<div><p>{title}</p><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table><p>{escape(foot)}</p></div>"


def capacity_text(cfg: str) -> str:
    """One line of what the device adds up to (a TOML comment in `detour config`)."""
    from .api import capacity  # the api imports this module

    c = capacity(cfg)
    return (f"capacity: {c['raw_gib']:,.3g} GiB raw, {c['logical_gib']:,.3g} GiB the host may address "
            f"({100 * c['logical_share']:.1f}%); {c['channels']} channels, {c['chips']} chips"
            + (f" ({c['spare_chips']} spare, on a channel of their own)" if c["spare_chips"] else "")
            + f", {c['dies']} dies, "
            f"{c['planes']} planes, {c['blocks']:,} blocks of {c['block_bytes'] // 1024:,} KiB, "
            f"pages of {c['page_bytes'] // 1024} KiB")


def volumes_text(volumes: list, shown: int = 8) -> str:
    """The volume list, summarised past `shown` (a Tencent trace has thousands; `--json` has them all)."""
    if len(volumes) <= shown:
        return ", ".join(map(str, volumes)) or "-"
    head = ", ".join(map(str, volumes[: shown // 2]))
    tail = ", ".join(map(str, volumes[-(shown // 2):]))
    return f"{len(volumes):,} volumes ({head}, ..., {tail}; --json lists all)"
