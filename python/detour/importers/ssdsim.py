"""SSDSim's parameter file (`page.parameters`) to a Detour device.

SSDSim reads `name = value;` lines (initialize.c, load_parameters), skipping
lines that start with `#` or a blank; so does this. The meanings were read
from SSDSim's source (huaicheng/ssdsim @ f411289, the version
docs/validation.md compares with); docs/from-mqsim.md has the key map.
The file's comments are GBK-encoded Chinese, so it is read as Latin-1:
only the ASCII keys and numbers matter.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from . import Imported, spelled_out

# Advanced command bits (ssd.h: AD_RANDOM ... AD_TWOPLANE_READ).
AD_COPYBACK, AD_TWOPLANE, AD_INTERLEAVE, AD_TWOPLANE_READ = 2, 4, 8, 16

# static_allocation modes (pagemap.c, get_ppn_for_pre_process) as Detour
# orders: which of channel, way (chip), die, plane varies fastest with the LPN.
STATIC_ORDERS = {0: "WDPC", 1: "CWDP", 2: "CPWD", 3: "CDWP", 4: "CPDW", 5: "CDPW"}

_GEOMETRY = {
    "channel number": "device.channels", "die number": "device.dies_per_chip", "plane number": "device.planes_per_die",
    "block number": "device.blocks_per_plane", "page number": "device.pages_per_block", "page capacity": "device.page_size",
}

_NOT_MODELLED = {
    "subpage page": "Detour maps whole pages; the ssdsim bundle moves only a page's 512 B sectors asked for or written "
                    "(scheduler.read_transfer = \"requested\", scheduler.write_transfer = \"written\") and counts the buffer "
                    "in sectors (write_buffer.granularity = \"sector\"), but a read of a buffered page is served from DRAM "
                    "even for sectors its node lacks (SSDSim reads those from the flash); a partial-page write-back's "
                    "read of the page's other sectors first (allocate_location's update read) is "
                    "write_buffer.partial_write_back = \"read_first\", not set: without SSDSim's dynamic binding at "
                    "dispatch it takes the shipped example's writes further from SSDSim, and under static allocation "
                    "SSDSim's buffer also frees the sectors an update read adds, which Detour's does not "
                    "(docs/validation.md, h43dyn)",
    "subpage capacity": "as above",
    "t_DBSY": "the dummy busy between the planes of a two-plane program; Detour charges one command per batch",
    "t_WB": "SSDSim adds it to erases (GC); Detour's erase is tBERS alone",
    "erase limit": "SSDSim stores it per chip (initialize.c) and retires no block; Detour's wear-out limit is nand.pe_limit (docs/nand.md), off unless set",
    "wear leveling": "no wear leveling in Detour (erase counts are reported in gc.erase_count_*)",
    "gc": "Detour's GC is greedy per plane below ftl.gc_threshold",
    "advanced command priority": "Detour batches the planes of one die; interleaving across dies is the dies working in parallel",
    "advanced command priority2": "as above",
}
_NOT_MODELLED = spelled_out(_NOT_MODELLED)
_DRAM_ENERGY = ("dram active current", "dram standby current", "dram refresh current", "dram voltage")
# Parsed by SSDSim but read by none of its timing or policy code (checked with grep).
_UNUSED = ("t_CLS", "t_CLH", "t_CS", "t_CH", "t_WP", "t_ALS", "t_ALH", "t_DS", "t_DH", "t_WH", "t_ADL", "t_AR", "t_CLR",
           "t_RR", "t_RP", "t_REA", "t_CEA", "t_RHZ", "t_CHZ", "t_RHOH", "t_RLOH", "t_COH", "t_REH", "t_IR", "t_RHW",
           "t_WHR", "t_RST", "buffer management", "scheduling algorithm", "gc threshold")


def _parse(path: Path) -> dict:
    """`{key: (line number, value text)}`, as SSDSim's loader reads them."""
    out = {}
    for n, line in enumerate(path.read_bytes().decode("latin-1").splitlines(), 1):
        if not line or line[0] in "# " or "=" not in line:
            continue
        key, rest = line.split("=", 1)
        m = re.match(r"\s*([-+0-9.eE]+)", rest)
        out[key.rstrip()] = (n, m.group(1) if m else rest.split(";")[0].strip())
    return out


class _Reader:
    def __init__(self, path: Path, imp: Imported):
        self.path, self.imp, self.keys = path, imp, _parse(path)
        self.seen: set[str] = set()

    def has(self, key: str) -> bool:
        return key in self.keys

    def raw(self, key: str) -> str:
        self.seen.add(key)
        return self.keys[key][1]

    def num(self, key: str, kind=float, default=None):
        if key not in self.keys:
            if default is None:
                raise ValueError(f"{self.path}: `{key}` is missing; SSDSim needs it")
            return default
        v = self.raw(key)
        try:
            return kind(float(v)) if kind is int else kind(v)
        except ValueError:
            line = self.keys[key][0]
            raise ValueError(f"{self.path}: line {line}: {key}: cannot read {v!r} as a number") from None

    def set(self, key: str, value, dotted: str, reason: str = "") -> None:
        self.imp.set(key, value, dotted, self.raw(key), reason)

    def same(self, key: str, reason: str) -> None:
        if self.has(key):
            self.imp.same(key, self.raw(key), reason)

    def skip(self, key: str, reason: str) -> None:
        if self.has(key):
            self.imp.skip(key, self.raw(key), reason)


def read(parameters: "os.PathLike[str] | str") -> Imported:
    path = Path(parameters)
    imp = Imported("ssdsim", [path])
    imp.config.update({"name": f"ssdsim:{path.stem}", "compat": "ssdsim"})
    r = _Reader(path, imp)
    if not r.keys:
        raise ValueError(f"{path}: no `name = value;` lines: not an SSDSim parameter file")
    imp.set("(SSDSim's address handling)", "fold", "host.address", "fold",
            "SSDSim takes every address modulo the logical space (ssd.c, get_requests: lsn % large_lsn)")
    imp.set("(SSDSim's pre_process_page)", "before_run", "ftl.precondition.place_reads", "always",
            "main (ssd.c) runs pre_process_page (pagemap.c) after make_aged, whatever the file says: it reads the trace "
            "once and places every page a read covers whose map entry is empty, before the run")
    imp.set("(SSDSim's creat_sub_request)", True, "ftl.pending_reads_from_flash", "always",
            "a read sub-request reads the page its LPN's map entry names (creat_sub_request, flash.c): SSDSim never serves "
            "a read from a write still queued, and a statically allocated write moves the entry only when issued (get_ppn)")
    imp.set("(SSDSim's creat_sub_request)", "queued", "ftl.read_merge", "always",
            "creat_sub_request (flash.c) ends a read after 1000 ns, without the flash, when a read of the same physical "
            "page is still in the channel's read list (subs_r, until it completes)")
    for key, dotted in _GEOMETRY.items():
        r.set(key, r.num(key, int), dotted, "bytes of user data per page" if key == "page capacity" else "")
    r.set("overprovide", r.num("overprovide", float, 0.0), "device.overprovisioning",
          "both hide this share of the physical pages (large_lsn = physical x (1 - overprovide))")
    _chips(r)
    _timings(r)
    _ftl(r)
    _buffer(r)
    _commands(r)
    if r.num("greed CB command", int, 0) == 0:
        r.same("greed CB command", "no copyback, as in Detour")
    for key, reason in {**_NOT_MODELLED, "greed CB command": "no copyback in Detour"}.items():
        r.skip(key, reason)
    _energy(r)
    for key in _UNUSED:
        r.same(key, "SSDSim parses it but none of its timing or policy code reads it")
    for key in sorted(set(r.keys) - r.seen):
        r.skip(key, "not a key this importer maps")
    return imp


def _chips(r: _Reader) -> None:
    channels = r.num("channel number", int)
    per = [r.num(f"chip number[{i}]", int, 0) for i in range(channels)]
    if len(set(per)) != 1 or per[0] == 0:
        raise ValueError(f"{r.path}: chip number[0..{channels - 1}] = {per}: Detour needs the same number of chips "
                         "(at least one) on every channel")
    for i in range(channels):
        r.set(f"chip number[{i}]", per[0], "device.chips_per_channel", "chips on each channel")
    for key in [k for k in r.keys if k.startswith("chip number[") and k not in r.seen]:
        r.same(key, f"channel beyond `channel number = {channels}`: SSDSim does not build it")
    total = r.num("chip number", int, channels * per[0])
    if total != channels * per[0]:
        r.skip("chip number", f"SSDSim sizes the logical space by it ({total} chips) but builds "
               f"{channels} x {per[0]}: Detour's space is the chips it has")
    else:
        r.same("chip number", "the chips of every channel together")


def _timings(r: _Reader) -> None:
    r.imp.set("(SSDSim's timing)", "custom", "device.flash.cell", "-", "the times below are SSDSim's own")
    for key, dotted in (("t_R", "device.flash.read_us"), ("t_PROG", "device.flash.program_us"), ("t_BERS", "device.flash.erase_us")):
        r.set(key, r.num(key, int) / 1000, dotted, "ns to µs")
    twc = r.num("t_WC", int)
    if twc <= 0:
        raise ValueError(f"{r.path}: line {r.keys['t_WC'][0]}: t_WC must be > 0 ns (one byte per t_WC on the channel)")
    r.set("t_WC", round(1000 / twc, 6), "device.channel.rate_mts", "one byte per t_WC ns on the bus: 1000 / t_WC MT/s, 8 bits wide")
    r.imp.set("t_WC", 8, "device.channel.width_bits", str(twc), "SSDSim moves a byte per cycle")
    r.imp.set("t_WC", 7 * twc, "device.channel.command_ns", str(twc), "SSDSim charges 7 x t_WC of command and address cycles per operation")
    trc = r.num("t_RC", int, twc)
    if trc == twc:
        r.same("t_RC", "equal to t_WC: reads move at the same rate")
    else:
        r.skip("t_RC", f"reads move data out at one byte per t_RC ({trc} ns); Detour's channel has one rate, 1 / t_WC")


def _ftl(r: _Reader) -> None:
    if r.has("gc hard threshold"):
        r.set("gc hard threshold", r.num("gc hard threshold"), "ftl.gc_threshold",
              "SSDSim starts GC on a plane whose free pages fall below this share of it (pagemap.c, with no active write); "
              "counted in pages, as ftl.gc_trigger below")
    r.imp.set("(SSDSim's get_ppn)", "free_pages", "ftl.gc_trigger", "always",
              "get_ppn (pagemap.c) and find_level_page (flash.c) queue a GC request after every host page write that leaves "
              "the plane's free_page (every unwritten page, the active block's included) below page_block x block_plane x "
              "gc_hard_threshold, unrounded; Detour's default counts whole free blocks when a block opens")
    r.imp.set("(SSDSim's get_ppn_for_gc)", "host", "ftl.gc_write_point", "always",
              "a plane has one active block: move_page's get_ppn_for_gc (pagemap.c) takes GC's page from it by "
              "find_active_block, as get_ppn does for a host write, so moved pages land between the host's; "
              "Detour's default gives GC open blocks of its own")
    r.imp.set("(SSDSim's gc_node requests)", "host_writes", "ftl.gc_start", "always",
              "get_ppn queues one GC request per host page write that leaves the plane below the threshold, even while "
              "one is served, and gc_for_channel serves each with one erase; pre_process_page queues none and nothing "
              "re-checks after an erase; Detour's default runs GC whenever a plane is below")
    mapping = r.num("address mapping", int, 1)
    (r.same if mapping == 1 else r.skip)("address mapping", "page mapping, as Detour's" if mapping == 1 else "Detour's FTL is page-level only")
    scheme = r.num("allocation", int, 0)
    if scheme == 0:
        dyn = r.num("dynamic_allocation", int, 0)
        r.set("allocation", "dynamic", "ftl.allocation", "SSDSim hands pages out round robin over channels, chips, dies and "
              "planes (tokens); Detour's dynamic allocation picks the least-loaded die")
        r.skip("dynamic_allocation", DISPATCH_BINDING if dyn == 0 else
               "the channel fixed by the LPN, the rest dynamic: Detour has no such mix")
        r.same("static_allocation", "not used with dynamic allocation")
        return
    mode = r.num("static_allocation", int, 0)
    if mode not in STATIC_ORDERS:
        raise ValueError(f"{r.path}: static_allocation = {mode}: SSDSim knows modes 0-5 (pagemap.c)")
    r.set("allocation", "static", "ftl.allocation", "the plane follows from the LPN")
    r.set("static_allocation", STATIC_ORDERS[mode], "ftl.order", "pagemap.c's formula as a Detour order (first letter fastest)")
    r.same("dynamic_allocation", "not used with static allocation")


# What `dynamic_allocation = 0` does that Detour's dynamic allocation does not
# (issue 46, h42dyn: shown by runs in docs/validation.md, not modelled).
DISPATCH_BINDING = ("all dynamic: allocate_location (flash.c) queues a write unplaced on one device-wide list "
                    "(ssd->subs_w_head), and dynamic_advanced_process gives the first waiting, up to one per die and "
                    "plane, to the idle chip a free channel serves, choosing their dies and planes then; Detour picks "
                    "the least-loaded die when the write is planned, so its chip batches hold fewer pages "
                    "(docs/validation.md, h42dyn; what modelling it needs: h43dyn)")


def _buffer(r: _Reader) -> None:
    dram = r.num("dram capacity", int, 0)
    page = r.num("page capacity", int)
    pages = dram // page
    if pages == 0:
        r.same("dram capacity", "no DRAM buffer (SSDSim buffers writes only when dram capacity != 0)")
        return
    why = f"SSDSim's write buffer (used whenever dram capacity != 0): {dram} B holds {pages} pages of {page} B"
    r.set("dram capacity", pages, "write_buffer.pages", why)
    for dotted, value, reason in (("host.write_ack", "buffer", "a buffered write completes in DRAM (buffer_management)"),
                                  ("write_buffer.policy", "lru", "SSDSim's buffer is an LRU list (avlTree.c)"),
                                  ("write_buffer.flush_at", 1.0, "SSDSim evicts only when a write finds the buffer full "
                                   "(insert2buffer; the ssdsim bundle's write_buffer.admission = \"evict\")")):
        r.imp.set("dram capacity", value, dotted, str(dram), reason)


def _commands(r: _Reader) -> None:
    bits = r.num("advanced command", int, 0)
    r.set("advanced command", bool(bits & AD_TWOPLANE), "scheduler.multiplane", "bit 4 (two-plane program)")
    r.imp.set("advanced command", False, "scheduler.multiplane_reads", str(bits),
              "SSDSim never issues two-plane reads, whatever bit 16 says (docs/validation.md)")
    if bits & AD_COPYBACK:
        r.imp.skip("advanced command (copyback, bit 2)", str(bits), "no copyback in Detour: GC moves data through the controller")
        if r.num("greed CB command", int, 0) == 0:
            # uninterrupt_gc (pagemap.c) sets the channel's and chip's busy
            # time only without copyback or with greed_CB_ad = 1
            r.imp.set("advanced command", "stale_erases_only", "ftl.gc_timing", str(bits),
                      "bit 2 (copyback) with greed CB command = 0: uninterrupt_gc sets no busy time, so only direct "
                      "erases of blocks the run made wholly stale take time (docs/validation.md)")
    if bits & AD_INTERLEAVE and bits & AD_TWOPLANE:
        # gc_direct_erase (pagemap.c) then always issues INTERLEAVE_TWO_PLANE
        # erases: erase_planes erases a listed block on every die of the chip
        # under one tBERS (docs/validation.md, issue 46, h39er)
        r.imp.set("advanced command", True, "scheduler.chip_erase_batches", str(bits),
                  "bits 4 and 8 (two-plane, interleave): gc_direct_erase issues INTERLEAVE_TWO_PLANE, and erase_planes "
                  "erases a wholly stale block on every die of the chip under one tBERS")
    elif bits & AD_INTERLEAVE:
        r.imp.skip("advanced command (interleave, bit 8)", str(bits), "Detour batches the planes of one die, not the dies of a chip")
    _pairing(r, bits)
    aged = r.num("aged", int, 0)
    if aged == 1:
        ratio = r.num("aged ratio")
        r.set("aged ratio", ratio, "ftl.precondition.invalid", "SSDSim marks this share of every plane's pages invalid (make_aged)")
        r.set("aged", "trailing_free", "ftl.precondition.layout",
              "make_aged (ssd.c) leaves each aged block's last pages free and find_active_block (flash.c) writes "
              "them first; no valid page is needed")
    else:
        r.same("aged", "a fresh device, as Detour's default")
        r.same("aged ratio", "not used on a fresh device")


def _pairing(r: _Reader, bits: int) -> None:
    """Which planes' writes join a multi-plane program (issue 46, h40pair)."""
    if not bits & AD_TWOPLANE:
        r.skip("greed MPW command", "no two-plane programs (advanced command bit 4 off)")
    elif r.num("allocation", int, 0) == 0:
        r.skip("greed MPW command", "dynamic allocation: SSDSim chooses a write's plane when its command is issued "
               "(make_level_page's dynamic branch tries the die's planes), Detour when the write is planned")
    elif r.num("greed MPW command", int, 0) == 1:
        r.set("greed MPW command", "level", "scheduler.plane_pairing",
              "static branch of get_ppn_for_advanced_commands (flash.c): per die the lowest plane's write takes its "
              "plane's write point; another plane's joins only if make_level_page finds its active block of the same "
              "number and its next page not past the first's; a plane behind is pulled level (make_same_level), "
              "the pages it skips invalidated; a refused write stays queued")
    else:
        r.skip("greed MPW command", "without it make_level_page also refuses a plane behind; Detour models the greedy "
               "rule only (scheduler.plane_pairing = \"level\")")


def _energy(r: _Reader) -> None:
    """The flash operating current times the supply voltage is the power a
    busy die draws, Detour's `energy.active_mw` (SSDSim reads both keys,
    initialize.c load_parameters, but prices nothing with them: its
    `energy_consumption` fields stay 0)."""
    if r.has("flash operating current") and r.has("flash supply voltage"):
        ua, volts = r.num("flash operating current"), r.num("flash supply voltage")
        why = "a busy die draws I x V: µA x V / 1000 = mW (SSDSim parses both but prices nothing with them)"
        mw = round(ua * volts / 1000, 9)
        r.imp.set("flash operating current", mw, "energy.active_mw", r.raw("flash operating current"), why)
        r.imp.set("flash supply voltage", mw, "energy.active_mw", r.raw("flash supply voltage"), why)
    else:
        for key in ("flash operating current", "flash supply voltage"):
            r.skip(key, "Detour needs both the current and the voltage for energy.active_mw")
    for key in _DRAM_ENERGY:
        r.skip(key, "Detour prices flash operations and transfers only, not the controller's DRAM")
