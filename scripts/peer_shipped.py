"""The peers' shipped examples, run by each peer and by Detour through `detour import`.

    .venv/bin/python scripts/peer_shipped.py --mqsim DIR --ssdsim DIR --peers  # peers, then Detour
    .venv/bin/python scripts/peer_shipped.py --mqsim DIR --ssdsim DIR          # Detour only (peers' rows kept)

What (per flow, docs/validation/shipped-flows.csv): each scenario of MQSim's
example `workload.xml` as shipped (1: two closed-loop write flows, queue
depths 16 and 2; 2: two closed-loop read flows, URGENT and HIGH; 3:
tpcc-small.trace) and the same ssdconfig.xml with its other trace,
wsrch-small.trace, each flow's requests, IOPS and mean response time as
MQSim's own output file prints them (`Host.IO_Flow`: Request_Count, IOPS,
Device_Response_Time, whole microseconds; no per-request log needed), beside
Detour running what `detour import mqsim` makes of the same two files
(`detour fio --flows scenarioK.toml`, and the trace for wsrch-small).

What: MQSim's example `ssdconfig.xml` with the trace-based flow of its
`workload.xml` (tpcc-small.trace; the synthetic scenarios are left out),
and SSDSim's `page.parameters` with `example.ascii` (a newline appended:
SSDSim drops an unterminated last line). Detour runs what `detour import`
makes of the same files: as imported (MQSim's cached mapping table of
entries on, as the file says), with the table off (MQSim is run that way
too, Ideal_Mapping_Table = true), and with a table of whole translation
pages. Writes docs/validation/shipped.csv.

Why: the matrix runs the peers on the matched device; their own examples
show what an import carries over, and what it does not.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peer_matrix as pm  # noqa: E402

OUT = pm.OUT / "shipped.csv"
FLOWS_OUT = pm.OUT / "shipped-flows.csv"
FLOW_FIELDS = ("run", "flow", "requests", "iops", "mean")
FIELDS = ("run", "mean", "iops", "read_n", "read_mean", "read_p50", "read_p99", "write_n", "write_mean", "write_p50",
          "write_p99")


def figures(rows: list[tuple[int, float]], span_ns: float) -> dict:
    """Per-kind figures, the mean over every request (us) and IOPS: requests over
    (last completion - first arrival), as Detour's summary counts them."""
    s = pm.stats(rows, span_ns)
    return {k: s[k] for k in FIELDS[1:] if k in s} | {
        "read_n": sum(r == 1 for r, _ in rows), "write_n": sum(r == 0 for r, _ in rows),
        "mean": round(sum(v for _, v in rows) / len(rows) / 1000.0, 1), "iops": round(s["iops"], 1)}


def mqsim_flow(src: Path, dest: Path, trace: Path) -> None:
    """The trace-based flow of MQSim's example workload.xml, alone, pointing at `trace`."""
    s = src.read_text()
    tag = "IO_Flow_Parameter_Set_Trace_Based"
    flow = s[s.index(f"<{tag}>"):s.index(f"</{tag}>") + len(tag) + 3]
    flow = flow.replace("traces/tpcc-small.trace", str(trace))
    dest.write_text(f'<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios><IO_Scenario>{flow}'
                    "</IO_Scenario></MQSim_IO_Scenarios>\n")


def run_peers(mq: Path, ss: Path, work: Path) -> list[dict]:
    rows = []
    # The example as shipped, then with Ideal_Mapping_Table = true: what
    # its cached mapping table costs in MQSim itself.
    for sub, label, ideal in (("mqsim", "MQSim, tpcc-small", False), ("mqsim-ideal", "MQSim, tpcc-small, Ideal_Mapping_Table = true", True)):
        d = work / sub
        d.mkdir(parents=True, exist_ok=True)
        xml = (mq / "ssdconfig.xml").read_text()
        if ideal:
            xml = xml.replace("<Ideal_Mapping_Table>false<", "<Ideal_Mapping_Table>true<")
        (d / "ssd.xml").write_text(xml)
        mqsim_flow(mq / "workload.xml", d / "wl.xml", mq / "traces" / "tpcc-small.trace")
        subprocess.run([str(mq / "MQSim"), "-i", "ssd.xml", "-w", "wl.xml"], cwd=d, check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, MQSIM_REQLOG=str(d / "req.log")))
        log = [line.split() for line in open(d / "req.log")]
        got = [(int(a), float(b)) for a, b, _ in log]
        first = int(open(mq / "traces" / "tpcc-small.trace").readline().split()[0])
        rows.append({"run": label, **figures(got, max(int(n) for _, _, n in log) - first)})
    d = work / "ssdsim"
    d.mkdir(parents=True, exist_ok=True)
    shutil.copy(ss / "page.parameters", d / "page.parameters")
    (d / "t.trace").write_text((ss / "example.ascii").read_text().rstrip("\n") + "\n")
    subprocess.run([str(ss / "ssd")], cwd=d, input=b"t.trace\n", stdout=subprocess.DEVNULL)
    got, last = [], 0
    with open(d / "ex.out", encoding="latin-1") as f:
        for line in f:
            p = line.split()
            if len(p) == 7 and p[0].isdigit():
                got.append((int(p[3]), float(p[6])))
                last = max(last, int(p[5]))
    rows.append({"run": "SSDSim, example.ascii", **figures(got, last - pm.first_arrival(d / "t.trace"))})
    return rows


def run_detour(mq: Path, ss: Path, work: Path) -> list[dict]:
    import detour

    def one(label: str, device: Path, trace: Path, fmt: str, extra: list[str]) -> dict:
        r = detour.run(str(device), trace=str(trace), format=fmt, overrides=["run.record_requests=false", *extra])
        lat = r.summary["latency_us"]
        row = {"run": label, "mean": round(lat["all"]["mean"], 1), "iops": round(r.summary["throughput"]["iops"], 1),
               "read_n": r.summary["reads"], "write_n": r.summary["writes"]}
        for kind in ("read", "write"):
            for k in ("mean", "p50", "p99"):
                row[f"{kind}_{k}"] = round(lat[kind][k], 1) if kind in lat else None
        return row

    subprocess.run([sys.executable, "-m", "detour", "import", "mqsim", str(work / "mqsim" / "ssd.xml"),
                    str(work / "mqsim" / "wl.xml"), "--out", str(work / "mqsim" / "imp")], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-m", "detour", "import", "ssdsim", str(work / "ssdsim" / "page.parameters"),
                    "--out", str(work / "ssdsim" / "imp")], check=True, stdout=subprocess.DEVNULL)
    dev, tr = work / "mqsim" / "imp" / "device.toml", mq / "traces" / "tpcc-small.trace"
    return [one("Detour, tpcc-small as imported (CMT of 2 MiB of entries)", dev, tr, "mqsim", []),
            one("Detour, tpcc-small, CMT off (ftl.mapping = dram)", dev, tr, "mqsim", ["ftl.mapping=dram"]),
            one("Detour, tpcc-small, CMT of whole translation pages", dev, tr, "mqsim", ["ftl.cmt_granularity=page"]),
            one("Detour, example.ascii as imported", work / "ssdsim" / "imp" / "device.toml", work / "ssdsim" / "t.trace",
                "ssdsim", []),
            # SSDSim's update reads, not set by the import without its dispatch binding (docs/validation.md, h43dyn)
            one("Detour, example.ascii, update reads (write_buffer.partial_write_back = read_first)",
                work / "ssdsim" / "imp" / "device.toml", work / "ssdsim" / "t.trace", "ssdsim",
                ["write_buffer.partial_write_back=read_first"])]


def mqsim_scenario(src: Path, dest: Path, k: int, mq: Path) -> None:
    """Scenario `k` (from 1) of MQSim's example workload.xml alone, its trace paths made absolute."""
    s = src.read_text()
    body = s.split("<IO_Scenario>")[k].split("</IO_Scenario>")[0].replace("<File_Path>traces/", f"<File_Path>{mq}/traces/")
    dest.write_text(f'<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios><IO_Scenario>{body}'
                    "</IO_Scenario></MQSim_IO_Scenarios>\n")


def mqsim_flow_rows(out_xml: Path, run: str, names: list[str]) -> list[dict]:
    """Each `Host.IO_Flow` of an MQSim output file, in order, named by `names`."""
    import xml.etree.ElementTree as ET

    flows = [{c.tag: c.text for c in f} for f in ET.parse(out_xml).getroot().iter("Host.IO_Flow")]
    return [{"run": run, "flow": n, "requests": int(f["Request_Count"]), "iops": round(float(f["IOPS"]), 1),
             "mean": float(f["Device_Response_Time"])} for n, f in zip(names, flows)]


# (label, scenario of workload.xml, trace replacing tpcc-small's, flow names as `detour import` names them)
MQSIM_RUNS = (("scenario 1", 1, None, ["scenario1-flow1", "scenario1-flow2"]),
              ("scenario 2", 2, None, ["scenario2-flow1", "scenario2-flow2"]),
              ("scenario 3 (tpcc-small)", 3, None, ["scenario3-flow1"]),
              ("wsrch-small", 3, "wsrch-small.trace", ["wsrch-small"]))


def run_peer_flows(mq: Path, work: Path) -> list[dict]:
    rows = []
    for label, k, trace, names in MQSIM_RUNS:
        d = work / "flows" / label.split(" (")[0].replace(" ", "")
        d.mkdir(parents=True, exist_ok=True)
        shutil.copy(mq / "ssdconfig.xml", d / "ssd.xml")
        mqsim_scenario(mq / "workload.xml", d / "wl.xml", k, mq)
        if trace:
            (d / "wl.xml").write_text((d / "wl.xml").read_text().replace("tpcc-small.trace", trace))
        subprocess.run([str(mq / "MQSim"), "-i", "ssd.xml", "-w", "wl.xml"], cwd=d, check=True, stdout=subprocess.DEVNULL)
        rows += mqsim_flow_rows(d / "wl_scenario_1.xml", f"MQSim, {label}", names)
    return rows


def run_detour_flows(mq: Path, work: Path) -> list[dict]:
    imp = work / "flows" / "imp"
    subprocess.run([sys.executable, "-m", "detour", "import", "mqsim", str(mq / "ssdconfig.xml"), str(mq / "workload.xml"),
                    "--out", str(imp)], check=True, stdout=subprocess.DEVNULL)
    import detour
    from detour import _toml

    dev = str(imp / "device.toml")
    rows = []
    for label, k, trace, names in MQSIM_RUNS:
        over = ["run.record_requests=false"]
        if trace:
            s = detour.run(dev, trace=str(mq / "traces" / trace), format="mqsim", overrides=over).summary
        else:
            flows = _toml.loads((imp / f"scenario{k}.toml").read_text())["flows"]
            s = detour.run(dev, flows=flows, overrides=over).summary
        flows = s.get("flows") or [{"requests": s["requests"], "iops": s["throughput"]["iops"], "latency_us": s["latency_us"]}]
        rows += [{"run": f"Detour, {label} as imported", "flow": n, "requests": f["requests"],
                  "iops": round(f["iops"], 1), "mean": round(f["latency_us"]["all"]["mean"], 1)}
                 for n, f in zip(names, flows)]
    return rows


def write_flows(mq: Path, work: Path, peers: bool) -> list[dict]:
    old = list(csv.DictReader(open(FLOWS_OUT))) if FLOWS_OUT.exists() else []
    rows = (run_peer_flows(mq, work) if peers else [r for r in old if r["run"].startswith("MQSim")]) + run_detour_flows(mq, work)
    with open(FLOWS_OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FLOW_FIELDS)
        w.writeheader()
        w.writerows(rows)
    return rows


def shipped(a: argparse.Namespace) -> list[dict]:
    old = list(csv.DictReader(open(OUT))) if OUT.exists() else []
    peers = run_peers(a.mqsim, a.ssdsim, a.work) if a.peers else [r for r in old if not r["run"].startswith("Detour")]
    rows = peers + run_detour(a.mqsim, a.ssdsim, a.work)
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    return rows


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mqsim", type=Path, required=True)
    ap.add_argument("--ssdsim", type=Path, help="SSDSim's folder (needed unless --flows-only)")
    ap.add_argument("--peers", action="store_true", help="run the peers too (else their rows in shipped.csv are kept)")
    ap.add_argument("--flows-only", action="store_true",
                    help="only shipped-flows.csv (MQSim's own output file; needs no per-request log patch)")
    ap.add_argument("--work", type=Path, default=pm.ROOT / "target" / "shipped")
    a = ap.parse_args(argv)
    if a.ssdsim is None and not a.flows_only:
        ap.error("--ssdsim is needed unless --flows-only")
    rows = [] if a.flows_only else shipped(a)
    for r in rows + write_flows(a.mqsim, a.work, a.peers):
        print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
