"""The schema of `summary.json`, and the typed summary built from it.

One table of fields per section (name, type, meaning) is the single source
of three things: the field tables of docs/results.md (a test renders them
with `markdown()` and compares), the attribute docs of the summary classes
below (`help(detour.schema.Latency)`), and the test that a run's summary has
exactly these fields. Add a field to the core's summary, and its row here,
or that test fails.

A summary is a dict, as parsed from summary.json (so `json.dumps`,
`s["latency_us"]["read"]["p99"]` and pickling work as before), whose
sections are `Record` subclasses: every field is also an attribute with its
meaning as its doc, `s.latency_us.read.p99`. Optional sections
(`write_buffer`, `mapping`, `collisions`, `periods`, `probe`, `flows`, `read_cache`, `trim`, `nand`) read as None
when absent; `flows` is a list of `Flow` records.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Optional, Union


@dataclass(frozen=True)
class F:
    """One row of a section's table: a field name (or several sharing a
    meaning, one row in the docs), its JSON type and its meaning."""

    name: Union[str, tuple]
    type: str
    doc: str

    @property
    def names(self) -> tuple:
        return (self.name,) if isinstance(self.name, str) else self.name


@dataclass(frozen=True)
class Section:
    """A section of summary.json: `key` ('' for the top level), `kinds`
    (sections holding one record per request kind), its `fields`."""

    key: str
    kinds: tuple
    fields: tuple


SECTIONS: tuple[Section, ...] = (
    # Run
    Section('', kinds=(), fields=(
        F('scheme', 'str', 'the scheme that planned the flash operations (`scheme.name`)'),
        F('device', 'str', "the configuration's `name`: the preset it started from, or what a config file set"),
        F('seed', 'int', '`run.seed`: the seed of every random choice of the simulator; same inputs and seed give the same results, bit for bit'),
        F('requests', 'int', 'measured requests (warm-up excluded) = `reads` + `writes`'),
        F('reads', 'int', 'measured read requests'),
        F('writes', 'int', 'measured write requests'),
        F('warmup_requests', 'int', 'requests left out of the statistics as warm-up: `min(host.warmup_requests, requests in the workload)`, plus the requests closed-loop flows issued during their `ramp_s` (see `flows`)'),
        F('lost_requests', 'int', 'measured requests that failed, left out of `requests` and of every latency figure: reads of a page that no copy or stripe holds after an injected failure (`scheme.raid.fail_*`); flagged in requests.parquet\'s `lost` column'),
        F('verify', 'bool', '`run.verify`: every completed read was checked against the latest write of its pages'),
        F('verify_errors', 'int', 'read pages that returned data other than the latest written; always 0 when `verify` is false. A non-zero value is a simulator or scheme bug (a read of a page lost to an injected failure fails instead: `lost_requests`)'),
        F('verify_failures', 'list', "the first 16 verify errors, each `{time_ns, lpn, expected, got}`: simulated time of the read's completion (ns), logical page number, and the content tokens (64-bit integers) expected and returned"),
        F('stalls', 'int', "times a request (or a write-buffer flush) started waiting for a free page (a plane had none outside GC's reserve): its first wait, and each wait after it got further; being planned again and stopping at the same place is the same wait. One request can stall several times. (Before 2026-11-25 every retry after every erase counted.)"),
        F('events', 'int', 'events the simulator processed (arrivals, bus and array completions, ...); a measure of work, for speed comparisons'),
        F('sim_time_s', 'float', "simulated time when the last request (warm-up included) completed, s; 0 without requests. Background work after it (GC, a scheme's periodic tick) is not counted: RR-SSD's first tick comes a period (a day by default) after the start, and used to make every dedup run report 86,400 s"),
        F('warnings', 'list', "what makes this run's numbers mean less than they seem, each `{kind, message}`; empty when nothing does. Kinds in [Warnings](#warnings)"),
        F('detour_version', 'str', 'version of the Detour package that wrote the file'),
    )),
    # `latency_us.{read,write,all}`
    Section('latency_us', kinds=('read', 'write', 'all'), fields=(
        F('count', 'int', 'number of requests'),
        F('mean', 'float', 'arithmetic mean'),
        F('min', 'float', 'smallest'),
        F(('p50', 'p90', 'p95', 'p97', 'p98', 'p99'), 'float', 'nearest-rank 50th ... 99th percentile, within 0.049% (see Percentiles)'),
        F('p995', 'float', 'nearest-rank 99.5th percentile, within 0.049%'),
        F('p999', 'float', 'nearest-rank 99.9th percentile, within 0.049%'),
        F('max', 'float', 'largest'),
    )),
    # `breakdown_us.{read,write,all}`
    Section('breakdown_us', kinds=('read', 'write', 'all'), fields=(
        F('queue', 'float', 'mean queueing time: latency - delay - bus - array (clamped at 0 per request)'),
        F('bus', 'float', 'mean channel time (command + data transfer) on the critical path'),
        F('array', 'float', 'mean flash array time (tR / tPROG / tBERS) on the critical path'),
        F('delay', 'float', 'mean time in the scheme before flash (e.g. hashing)'),
    )),
    # `throughput`
    Section('throughput', kinds=(), fields=(
        F('duration_s', 'float', 'from the first measured arrival to the last measured completion, s'),
        F('iops', 'float', '`requests / duration_s` (0 if the duration is 0)'),
        F('read_mib_s', 'float', 'bytes requested by measured reads / 2^20 / `duration_s`'),
        F('write_mib_s', 'float', 'bytes requested by measured writes / 2^20 / `duration_s`'),
    )),
    # `pages`
    Section('pages', kinds=(), fields=(
        F('host_read', 'int', 'pages the host read (a request covering n pages counts n)'),
        F('host_written', 'int', 'pages the host wrote'),
        F('buffered_reads', 'int', 'read pages served from the write buffer because their program had not finished'),
        F('placed_on_read', 'int', 'never-written pages placed (instantly programmed) when the trace first read them, as if preconditioning had written them; 0 under `ftl.precondition.place_reads = "before_run"`, which places them before the run'),
        F('folded', 'int', 'requests (not pages) whose address was beyond the logical space and was folded into it (`host.address = "fold"`, the default; `detour run` prints the count); with `"strict"` such a request is an error'),
    )),
    # `dies`
    Section('dies', kinds=(), fields=(
        F('reads', 'list[int]', 'page reads executed by each die'),
        F('programs', 'list[int]', 'page programs executed by each die'),
        F('erases', 'list[int]', 'block erases executed by each die'),
        F('suspensions', 'int', 'program/erase suspensions for reads, summed over all dies (`scheduler.suspension`)'),
        F('ops_rsd', 'float', 'relative standard deviation (population std / mean) of reads + programs + erases per die: 0 = perfectly balanced'),
        F('reads_rsd', 'float', 'relative standard deviation of reads per die'),
        F('utilization_mean', 'float', 'mean over dies of busy time / `throughput.duration_s`. A die is busy from the dispatch of an operation batch to its end, including waiting for the channel and time suspended; with `scheduler.unit = "chip"` each die reports its chip\'s busy time. Work outside the measured window (warm-up, GC after the last completion) can make it exceed 1'),
        F('utilization_max', 'float', 'the largest die utilization'),
    )),
    # `write_buffer`
    Section('write_buffer', kinds=(), fields=(
        F('capacity_pages', 'int', "the buffer's size in pages"),
        F('read_pages', 'int', 'host pages read while the buffer was on'),
        F('read_hits', 'int', 'of those, pages read from the buffer (dirty, or being flushed); they take no flash read'),
        F('hit_ratio', 'float', '`read_hits / read_pages` (0 with no reads)'),
        F('write_pages', 'int', 'host pages written into the buffer'),
        F('write_hits', 'int', 'of those, pages that overwrote a page the buffer still held; a page still waiting to be flushed is absorbed (one flash write fewer), one being flushed is flushed again with the new data'),
        F('flushes', 'int', 'pages written from the buffer to flash (each planned by the scheme as a host write of that page, at `write_buffer.flush_class` priority)'),
        F('drained', 'int', 'of those, pages flushed after the last request arrived: the buffer is emptied at the end of every run, and the run ends when that is done'),
        F('occupancy_mean', 'float', 'pages held, averaged over simulated time (to the end of the run)'),
        F('occupancy_max', 'int', 'the most pages held at once'),
        F('writes_waited', 'int', 'host write requests that found the buffer full and waited for flushes to free room (in arrival order; nothing is dropped)'),
        F(('wait_us_total', 'wait_us_mean'), 'float', 'their total and mean wait for room, µs (part of their latency)'),
        F('update_reads', 'int', 'write-backs of part of a page that first read its other sectors from the flash (SSDSim\'s update reads, `write_buffer.partial_write_back = "read_first"`); absent otherwise'),
    )),
    # `mapping`
    Section('mapping', kinds=(), fields=(
        F('cmt_pages', 'int', 'translation pages the cached mapping table holds at most (`ftl.cmt_size_kib` x 1024 / `device.page_size`)'),
        F('translation_pages', 'int', 'translation pages of the whole map (`device.page_size` / 4 entries each); a table holding all of them is the DRAM map: preloaded, nothing on flash, no traffic'),
        F('lookups', 'int', 'lookups: one per translation page a host request (or, with a write buffer, a flush) touches, when it is admitted (the whole run, warm-up included)'),
        F('hits', 'int', 'of those, translation pages the table held'),
        F('hit_ratio', 'float', '`hits / lookups` (1 with no lookups)'),
        F('translation_reads', 'int', "flash reads of translation pages, each before the request's data is planned (a miss on a page whose write-back is still in flight needs none; with entries, misses on a page whose read is in flight share it, and each write-back first reads the old copy)"),
        F('translation_writes', 'int', 'flash programs of dirty translation pages the table evicted (at host-write priority, not waited for; counted in `gc.write_amplification`)'),
        F('translation_writes_held', 'int', 'write-backs of dirty translation pages never programmed: the page stays in the controller, later misses on it read nothing (`ftl.cmt_write_back = "hold"`, MQSim\'s)'),
        F('gc_moves', 'int', 'translation pages GC moved (they are also in `gc.moves` and `gc.programs_gc`)'),
    )),
    # `gc`
    Section('gc', kinds=(), fields=(
        F('runs', 'int', "GC victim blocks chosen on planes below `ftl.gc_threshold` free blocks, by `ftl.gc_policy` (`greedy`, the default, the full block with the fewest valid pages; `detour policies` lists every registered policy with what it picks). Ties go to the block first in the plane's free order, which starts at block p on plane p"),
        F('moves', 'int', 'live pages GC copied out of victim blocks'),
        F('moves_dropped', 'int', 'GC copies discarded because the host overwrote the page while it was being copied'),
        F('erases', 'int', 'blocks erased'),
        F('programs_host', 'int', 'pages programmed for host writes (pages placed on first read are setup, not host work, and are not counted)'),
        F('programs_gc', 'int', 'pages programmed by GC copies'),
        F('programs_aux', 'int', "pages programmed by the scheme beyond the host's data (replicas, mirrors, parity, staging copies)"),
        F('write_amplification', 'float', '(`programs_host` + `programs_gc` + `programs_aux` + `mapping.translation_writes`) / `pages.host_written`; 0 if nothing was written. Neither preconditioning nor pages placed on first read count, so a run without GC has 1.0'),
        F(('erase_count_min', 'erase_count_mean', 'erase_count_max'), 'float', 'erase count per block at the end of the run: smallest, mean, largest over every block of the device (wear spread)'),
        F('wl_migrations', 'int', 'only with `ftl.wear_leveling = "static"` or `"mqsim"` (absent otherwise): blocks static wear levelling collected, each the least-erased full block of a plane whose erase-count spread (under `"mqsim"`, MQSim\'s difference of block numbers) exceeded `ftl.wear_threshold` after an erase; their live pages are moved like GC\'s and counted in `moves` and `programs_gc`, not in `runs`'),
        F('pages_skipped', 'int', 'only with `scheduler.plane_pairing = "level"` (absent otherwise): pages wasted pulling a plane level for a multi-plane program, as SSDSim\'s make_same_level (its `waste page count`)'),
    )),
    # `collisions`
    Section('collisions', kinds=(), fields=(
        F('reads', 'int', 'host reads sent to dies (the paper\'s "die operations")'),
        F('collisions', 'int', 'host reads that joined a die already holding an outstanding host read'),
        F('imbalanced', 'int', 'collisions on a die whose outstanding commands (all kinds, the new read included) were at least 2 above the minimum over the (non-failed) dies'),
        F('collision_ratio', 'float', '`collisions / reads` (the measured ratio)'),
        F('imbalanced_share', 'float', '`imbalanced / collisions`'),
        F('mean_occ', 'float', 'mean outstanding commands in the whole SSD (all kinds, all dies) seen by an arriving host read, the read included'),
        F('mean_read_occ', 'float', 'mean outstanding host reads in the SSD seen by an arriving host read, the read included'),
        F('time_mean_read_occ', 'float', 'host reads outstanding averaged over time, idle time included, to the last read done: Sec. II-C\'s 10 us samples, every one, taken exactly'),
        F('busy_mean_read_occ', 'float', 'host reads outstanding averaged over the time some host read is outstanding (idle time left out): Sec. II-C\'s 10 us samples averaged over the busy ones, the reading of Table 2\'s OCC the report uses (docs/reproduce.md, Readings)'),
        F('expected_ratio', 'float', 'the collision ratio if, at every read arrival, the other outstanding host reads (n) and the new one sat on uniformly random dies: mean of 1 - (1 - 1/D)^n over arrivals (analytic; D = dies)'),
        F('expected_ratio_simulated', 'float', 'the same random placement drawn by Monte Carlo (a seeded generator of its own, so the metric never changes the run); agrees with `expected_ratio` within sampling error'),
        F('measured_to_expected', 'float', "`collisions` / expected collisions (the paper's Fig. 3)"),
        F('time_share_colliding', 'float', "share of the time with at least one host read outstanding during which some die held two or more (the paper's 10 µs sampling, taken exactly)"),
        F('expected_time_share', 'float', 'the same for random dies: time-weighted probability that the n outstanding reads do not all sit on different dies, 1 - D!/((D-n)! D^n)'),
        F('imbalanced_pairs', 'int', 'distinct collision pairs recorded at imbalanced collisions'),
        F('pair_occurrences', 'int', 'times those pairs were recorded'),
        F('mean_repetition', 'float', '`pair_occurrences / imbalanced_pairs`'),
        F('top5pct_pair_share', 'float', 'share of `pair_occurrences` due to the most repeated 5% of pairs (rounded up)'),
        F('reads_per_die', 'list[int]', 'host reads per die (die ids as in `dies`)'),
        F('reads_rsd', 'float', "relative standard deviation of `reads_per_die` (the paper's Table 3)"),
    )),
    # `probe`
    Section('probe', kinds=(), fields=(
        F('interval_us', 'float', 'time between samples, µs of simulated time (`probes.interval_us`)'),
        F('samples', 'int', 'samples taken: one per interval from time 0 to the last event'),
        F(('chip_queue_max_mean', 'chip_queue_min_mean', 'chip_queue_mean'), 'float', "mean over samples of the longest, the shortest and the mean chip queue (a chip's queue: outstanding commands, queued and running, over its dies)"),
        F('chip_queue_peak', 'int', 'the longest chip queue seen'),
        F('chip_max_over_min', 'float', 'the largest ratio longest / shortest chip queue over the samples whose shortest queue is at least 1 (0 if none is)'),
        F('imbalanced_share', 'float', 'share of samples in which some chip had nothing outstanding while another had 2 or more'),
        F('chip_host_max_over_min', 'float', "`chip_max_over_min` counting the host's requests only (no GC or scheme background commands): RR-SSD's Fig. 2"),
        F('chip_host_queue_peak', 'int', "the longest chip queue of host requests seen"),
    )),
    # `flows[]`: one record per flow
    Section('flows', kinds=(), fields=(
        F('name', 'str', "the flow's `name` (`flowN` by position when unset); `workload` for the run's own trace, profile or requests, listed first when it had requests"),
        F('kind', 'str', '`closed` (a `[[flows]]` job: each stream keeps `iodepth` requests outstanding, the next issued when one completes) or `open` (the run\'s workload, or a `[[flows]]` entry with its own `trace` or `profile`: requests at their own arrival times)'),
        F('iodepth', 'int', 'requests each stream keeps outstanding (0 for the open flow)'),
        F('jobs', 'int', 'streams (`numjobs`; 1 for the open flow)'),
        F(('requests', 'reads', 'writes'), 'int', "the flow's measured requests (warm-up and ramp excluded) and their split"),
        F('duration_s', 'float', "the flow's first measured arrival to its last measured completion, s: after the ramp, about `runtime_s`"),
        F('iops', 'float', '`requests / duration_s`'),
        F(('read_mib_s', 'write_mib_s'), 'float', 'bytes read and written per second over `duration_s`, MiB/s (fio\'s `BW=`)'),
        F('bandwidth_mb_s', 'float', 'reads and writes together, MB/s (10^6 bytes; fio\'s figure in parentheses)'),
        F('latency_us', 'Latency by kind', "the flow's latency statistics, `{read, write, all}`, each with the fields of `latency_us` above, µs"),
    )),
    # `nand`
    Section('nand', kinds=(), fields=(
        F('fit', 'str', 'the error model\'s fit: `nand.fit` (`mlc2y`, `tlc3d72`) with `nand.error_model = "power_law"`, `nand.drift_fit` (`tlc3d48`) with `"vth_drift"`; absent with `"off"` (docs/nand.md)'),
        F('reads', 'int', "flash reads the error model judged: every read, the host's, GC's and the scheme's (0 with the model off)"),
        F('reads_retried', 'int', 'of those, reads that needed at least one read-retry step'),
        F('retry_steps', 'int', 'read-retry steps over all those reads; each held its die for a tR and `nand.decode_us` more'),
        F('retry_steps_mean', 'float', '`retry_steps / reads` (0 with no reads)'),
        F('retry_steps_max', 'int', 'the most steps one read took'),
        F('uncorrectable', 'int', 'reads still over the ECC after `nand.max_retries` steps (they return after the last step; the data is not marked lost)'),
        F('pe_limit', 'int', 'P/E cycles a block endures (`nand.pe_limit`; 0: no limit)'),
        F('blocks', 'int', "the device's blocks"),
        F(('blocks_bad_factory', 'blocks_retired_wear', 'blocks_retired_failure'), 'int', 'blocks bad from the factory (`nand.bad_block_fraction`), retired at an erase that reached `pe_limit`, and retired by a failed erase (`nand.erase_fail_prob`)'),
        F('blocks_usable', 'int', 'blocks still in service at the end'),
        F('spare_blocks', 'int', "usable blocks beyond those the logical space needs: the over-provisioning left; when wear takes it all the run stops with an error saying so"),
        F(('pe_mean', 'pe_max'), 'float', 'P/E cycles of the blocks in service (their starting `nand.initial_pe` included): mean, and the most'),
        F('life_remaining', 'float | None', '1 - `pe_mean` / `pe_limit`: the share of the rated endurance left; absent without a limit'),
        F('initial_age_days', 'float', 'the age of the data on the drive at the start (`nand.initial_age_days`)'),
        F('refreshes', 'int', 'blocks refreshed: their live pages rewritten elsewhere and the block erased because one of its reads needed `nand.refresh_steps` retry steps (the moves and erases are also in `gc.moves`, `gc.erases`)'),
        F('retired_reopened', 'int', 'retired blocks opened for writing again: always 0 (a check)'),
    )),
    # `workload`
    Section('workload', kinds=(), fields=(
        F('source', 'str', "the trace file's path as given; `profile:NAME` for a synthetic profile (`profile:custom` for a spec file without `profile`); `<requests>` for arrays given from Python"),
        F('kind', 'str', '`trace`, `profile` or `requests`'),
        F('format', 'str | None', 'the trace format read (given or detected, see `detour traces formats`); `null` for other kinds'),
        F('requests', 'int', 'requests the source produced (warm-up included)'),
        F('skipped_malformed', 'int', 'malformed trace lines skipped (`--skip-malformed`); without it the first one is an error naming file and line'),
        F('clamped', 'int', "requests whose time went backwards (after the reorder window, if any) and was raised to the previous request's (`--clamp-backwards-time`)"),
        F('filtered_out', 'int', 'requests of other volumes dropped by `--volume`'),
        F('ignored', 'int', 'well-formed trace operations that are neither reads nor writes (flushes, other SCSI commands)'),
        F('backwards', 'int', "requests whose time is before an earlier line's (multi-volume traces interleave their logs), counted in file order whatever was then done with them; 0 for profiles"),
        F('max_step_back_ns', 'int', 'the largest such step back, ns: a reorder window (`--reorder-window`) this wide sorts the trace'),
        F('reordered', 'int', 'requests the reorder window (`--reorder-window`) put before an earlier line; 0 without one'),
        F('reorder_window_ns', 'int', 'the reorder window the reader used, ns (2 s unless `--reorder-window` gave another; 0 for none, and for profiles)'),
        F('time_resolution_ns', 'int', "the trace's timestamp resolution when coarse (1 s, 100 ms, 10 ms or 1 ms: every time a multiple of it and some shared), detected from its first requests; 0 for finer traces and for profiles"),
        F('spread', 'int', 'requests moved off their coarse timestamp: those sharing one instant are spread over its resolution in file order, seeded by `run.seed` (`--keep-coarse-time` keeps them; docs/workloads.md)'),
        F('scaled_from_bytes', 'int | None', "(profiles) the profile's own footprint when it exceeded the device's logical space and was scaled to it (the spec shows the footprint used); null when it ran as written or for other kinds"),
        F('spec', 'dict', '(profiles only) the full synthetic spec that generated the requests; see docs/workloads.md'),
    )),
)

# Top-level keys documented in prose in docs/results.md rather than a table.
EXTRA = (
    F("scheme_counters", "dict", "scheme-specific counters, name to number (each scheme documents its own)"),
    F("periods", "list | None", "per-period records of the schemes that work in periods; None for the others"),
    F("config", "dict", "the resolved configuration, the tree of config.toml"),
)
OPTIONAL: tuple[str, ...] = ("write_buffer", "mapping", "collisions", "periods", "probe", "flows", "nand")
# Sections that are a list of records (one per flow), not one record.
LISTS = ("flows",)
# Fields of a section written only when a setting asks for them (read as None when absent).
OPTIONAL_FIELDS = {"gc": ("wl_migrations", "pages_skipped"), "nand": ("fit", "life_remaining"),
                   "write_buffer": ("update_reads",)}
_TYPE_WORDS = {"str": "string", "list[int]": "list of int", "dict": "object", "str | None": "string or null", "int | None": "int or null",
               "float | None": "float or null"}
_CLASS_NAMES = {"": "Summary", "latency_us": "Latency", "breakdown_us": "Breakdown", "throughput": "Throughput",
                "pages": "Pages", "dies": "Dies", "write_buffer": "WriteBuffer", "mapping": "Mapping", "gc": "Gc",
                "collisions": "Collisions", "probe": "Probe", "workload": "Workload", "flows": "Flow",
                "nand": "Nand"}

# Issue 51: the DRAM read cache (optional) and the run's energy.
SECTIONS += (
    Section('read_cache', kinds=(), fields=(
        F('capacity_pages', 'int',
            'its size in pages (`read_cache.pages` or `size_mib`); with `read_cache.mode = "shared"`, the write buffer\'s, of '
            'which read pages take what buffered writes leave'),
        F('read_pages', 'int', 'host pages read that the write buffer did not hold (every one looked up here)'),
        F('read_hits', 'int',
            'of those, pages the cache held: served from DRAM after `ftl.buffer_read_ns` (then the host link, if modelled), no '
            'flash read'),
        F('hit_ratio', 'float', '`read_hits / read_pages` (0 with no reads)'),
        F('inserts', 'int', 'pages put in when their flash read ended (MQSim\'s rule)'),
        F('evictions', 'int', 'pages evicted, least recently used first, for room (or, shared, for buffered writes)'),
        F('invalidations', 'int', 'cached pages dropped because the host wrote (or discarded) them'),
    )),
    Section('energy', kinds=(), fields=(
        F('joules', 'float', 'the sum of the parts below, J (docs/nand.md)'),
        F('average_w', 'float',
            '`joules` over `sim_time_s` (time 0 to the last completion; operations after it, such as GC, still count), W'),
        F(('read_j', 'program_j', 'erase_j'), 'float',
            'page reads, page programs and block erases of every die (host, GC, mapping and scheme alike) times '
            '`energy.read_uj`, `program_uj`, `erase_uj` (by default `energy.active_mw` x the operation\'s time), J'),
        F('transfer_j', 'float', '`transfer_bytes` x `energy.transfer_nj_per_byte`, J'),
        F('idle_j', 'float', 'each die\'s time not busy within `sim_time_s` x `energy.idle_mw_per_die` (0 by default), J'),
        F('transfer_bytes', 'int', 'bytes over the flash channels: a page per read and per program'),
    )),
)
SECTIONS += (
    Section('trim', kinds=(), fields=(
        F('requests', 'int', 'discard (TRIM) requests in the workload: not in `requests` or any latency figure (docs/nand.md, TRIM)'),
        F('pages', 'int', 'logical pages they named'),
        F('unmapped_pages', 'int', 'of those, pages that held data and were unmapped: their flash pages are stale, so GC moves none'),
        F('unwritten_reads', 'int', 'host pages read while discarded: answered "unwritten" from the map after `ftl.buffer_read_ns`, no flash read'),
        F('ignored', 'int', 'discard requests dropped by `trim.discards = "ignore"`'),
    )),
)
OPTIONAL += ("read_cache", "trim")
_CLASS_NAMES.update({"read_cache": "ReadCache", "energy": "Energy", "trim": "Trim"})


def section(key: str) -> Section:
    return next(s for s in SECTIONS if s.key == key)


def field_names(key: str) -> list:
    """Every field name of section `key`, in the table's order."""
    return [n for f in section(key).fields for n in f.names]


def markdown(key: str) -> str:
    """Section `key`'s table as it appears in docs/results.md."""
    rows = ["| field | type | meaning |", "|---|---|---|"]
    for f in section(key).fields:
        names = ", ".join(f"`{n}`" for n in f.names)
        rows.append(f"| {names} | {_TYPE_WORDS.get(f.type, f.type)} | {f.doc} |")
    return "\n".join(rows)


class Record(dict):
    """A section of a summary: a dict whose fields are also attributes."""

    _fields: tuple = ()  # the schema's names, in order
    _sections: dict = {}  # noqa: RUF012 (set once per subclass, never mutated)  field -> Record subclass its dict value becomes
    _lists: dict = {}  # noqa: RUF012 (as _sections)  field -> Record subclass each item of its list becomes

    def __init__(self, data: Any = (), **kw):
        super().__init__(data, **kw)
        for key, cls in self._sections.items():
            v = dict.get(self, key)
            if isinstance(v, dict) and not isinstance(v, cls):
                self[key] = cls(v)
        for key, cls in self._lists.items():
            v = dict.get(self, key)
            if isinstance(v, list):
                self[key] = [x if isinstance(x, cls) or not isinstance(x, dict) else cls(x) for x in v]

    def __getattr__(self, name: str):
        # Keys beyond the schema (a scheme's counters, a newer core's field).
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}; fields: "
                                 f"{', '.join(self._fields or sorted(self))}") from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | {k for k in self if isinstance(k, str) and k.isidentifier()})

    def __repr__(self) -> str:
        from .report import fmt

        shown = [k for k in (self._fields or self) if k in self][:8]
        parts = [f"{k}={_short(self[k], fmt)}" for k in shown]
        more = len(self) - len(shown)
        return f"{type(self).__name__}({', '.join(parts)}{', ...' if more > 0 else ''})"

    def to_dict(self) -> dict:
        """A plain dict copy (nested sections too), as summary.json holds it."""
        return json.loads(json.dumps(self))


def _short(v: Any, fmt) -> str:
    if isinstance(v, Record):
        return type(v).__name__ + "(...)"
    if isinstance(v, (list, tuple)):
        return f"[{len(v)} values]"
    if isinstance(v, dict):
        return f"{{{len(v)} keys}}"
    return repr(v) if isinstance(v, str) else fmt(v)


def _prop(name: str, doc: str, optional: bool):
    def get(self):
        if optional:
            return self.get(name)
        return self[name]

    return property(get, doc=doc)


def _make(name: str, fields: tuple, doc: str, sections: dict, optional: tuple = (), lists: Optional[dict] = None,
          methods: Optional[dict] = None) -> type[Record]:
    ns: dict = {**(methods or {}), "__doc__": doc + "\n\n" + "\n".join(f"- `{n}` ({f.type}): {f.doc}" for f in fields for n in f.names),
                "__module__": __name__, "_fields": tuple(n for f in fields for n in f.names), "_sections": sections,
                "_lists": lists or {},
                "__annotations__": {n: f.type for f in fields for n in f.names}}
    for f in fields:
        for n in f.names:
            ns[n] = _prop(n, f.doc, n in optional)
    cls = type(name, (Record,), ns)
    globals()[name] = cls  # importable by name, so a summary pickles (sweep workers)
    return cls


def _summary_repr(self) -> str:
    """One line: the run and its headline numbers."""
    from .report import fmt

    lat, tp = self.get("latency_us", {}), self.get("throughput", {})

    def kind(k):
        d = lat.get(k) or {}
        return f"{k} mean {fmt(d.get('mean'))} p99 {fmt(d.get('p99'))} µs" if d.get("count") else f"no {k}s"

    return (f"<Summary {self.get('scheme')} on {self.get('device')}: {fmt(self.get('requests'))} requests; "
            f"{kind('read')}; {kind('write')}; {fmt(tp.get('iops'))} IOPS>")


def _build() -> type[Record]:
    sections: dict[str, type[Record]] = {}
    lists: dict[str, type[Record]] = {}
    for sec in SECTIONS:
        if not sec.key:
            continue
        if sec.key in LISTS:  # its records nest the latency section built before it
            lists[sec.key] = _make(_CLASS_NAMES[sec.key], sec.fields, f"one record of `{sec.key}` in summary.json "
                                   "(docs/results.md).", {"latency_us": sections["latency_us"]})
            continue
        cls = _make(_CLASS_NAMES[sec.key], sec.fields, f"`{sec.key}` of summary.json (docs/results.md).", {},
                    optional=OPTIONAL_FIELDS.get(sec.key, ()))
        if sec.kinds:
            kind_fields = tuple(F(k, _CLASS_NAMES[sec.key], f"{sec.key} of the measured {k} requests"
                                  if k != "all" else f"{sec.key} of every measured request") for k in sec.kinds)
            cls = _make(_CLASS_NAMES[sec.key] + "ByKind", kind_fields, f"`{sec.key}` per request kind.",
                        {k: cls for k in sec.kinds})
        sections[sec.key] = cls
    top = (section("").fields + tuple(F(k, cls.__name__, f"see {cls.__name__}") for k, cls in sections.items())
           + tuple(F(k, f"list[{cls.__name__}]", f"one {cls.__name__} per flow") for k, cls in lists.items()) + EXTRA)
    return _make("Summary", top, "A run's summary (summary.json; every field in docs/results.md).", sections,
                 optional=OPTIONAL, lists=lists, methods={"__repr__": _summary_repr})


Summary = _build()


def load(path: Union[str, "os.PathLike[str]"]) -> Record:
    """A `Summary` from a summary.json file."""
    with open(path) as f:
        return Summary(json.load(f))
