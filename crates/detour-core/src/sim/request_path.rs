//! # A request's path, in detail
//!
//! 1. **Arrival.** `sim/host.rs` (`HostFront`, which owns the front end's state) pulls the next `Request` from the workload
//!    iterator and schedules `Event::Arrival` at its trace time (times
//!    `host.time_scale`). Closed-loop flows (`[[flows]]`, `sim/closed.rs`)
//!    issue instead: each stream posts `iodepth` `Event::Issue`s at the start,
//!    and one more (after `think_us`) whenever one of its requests completes;
//!    handling it draws the stream's next request (`workload/job.rs`), stamped
//!    with the current time, which then arrives as a trace request does. A
//!    request's `HostIo::stream` (0: the run's workload, `s + 1`: stream `s`)
//!    names the flow it is counted for (`metrics/flows.rs`); without flows
//!    there is no stream and no per-flow work. Addresses beyond the logical space are folded into it
//!    and counted (`host.address = "fold"`, the default, as MQSim and SSDSim
//!    do), or an error naming the line with `"strict"`. With
//!    `host.queue_depth = N` a request arriving while N are outstanding waits at
//!    the host; its response time still counts from its arrival. The host
//!    reads one request further ahead than the one scheduled, only to fetch
//!    the FTL entries both will touch into cache (`ftl/prefetch.rs`); a bad
//!    line ahead is reported when its turn comes, as before.
//! 2. **Pages.** The request covers logical pages `offset / page_size` to
//!    `(offset + size - 1) / page_size`. A write's page tokens are the trace's
//!    content (when it has one) or unique per write. Verify mode records each
//!    page's latest token at this point.
//! 3. **Placement of never-written pages.** A read of a page nothing wrote is
//!    served from a page placed as preconditioning would have placed it: the
//!    scheme's `write_instantly` writes it at once, with no simulated time, and
//!    it is counted in `pages.placed_on_read`. It is never free and never a
//!    verify error.
//! 4. **Translation.** With a cached mapping table (`ftl.mapping = "cmt"`,
//!    `sim/translate.rs`), the request's translation pages (`lpn / (page_size
//!    / 4)`) are looked up when it is admitted, before anything is planned. If
//!    some missed, their flash reads (at host-read priority, on the die holding
//!    each page's latest copy) are the first phase of the request's
//!    transaction; the scheme plans its data when they have all ended, so
//!    every scheme pays for the host LPN's lookup without knowing of it, and
//!    its replicas, mirrors and parity need none of their own. A miss that
//!    evicts a dirty translation page (dirtied by a write) programs it to a
//!    new page (host-write priority) in a transaction of its own (`TxnKind::MapWrite`)
//!    the request does not wait for; the old copy is stale at once. A buffered
//!    host write looks up nothing; its flush does, as a write. The DRAM map
//!    (the default) skips this step with one branch. A table as large as the
//!    map starts loaded and puts nothing on flash: its results are the DRAM
//!    map's.
//! 5. **Write buffer.** With a DRAM write buffer (`sim/flush.rs`), a host
//!    write's pages go into it instead (after the host link, if modelled) and
//!    the request completes after the DRAM access, or waits, whole and in
//!    arrival order, until flushes free room. A read takes its buffered pages
//!    from DRAM and plans only the runs between them. The buffer flushes its
//!    first pages (FIFO or LRU) as transactions of their own, each planned by
//!    the scheme's `plan_write` like a host write of that page, while more
//!    than `flush_at` of it is unflushed or a write waits for room, and all of
//!    it after the last arrival.
//! 6. **Planning.** The scheme's `plan_read` or `plan_write` fills a `Plan`:
//!    groups (one per page, or per stripe), each a chain of stages of flash
//!    operations with their priority class. A read of a page whose program is
//!    still pending is served from the write buffer (`ftl.buffer_read_ns`;
//!    `ftl.pending_reads_from_flash` sends it to the flash instead). If a
//!    plane has no free page the scheme returns `Stall`; the rest of the request
//!    waits (`sim/park.rs`) on the (plane, stream) pairs the FTL saw refuse it,
//!    and is planned again only after an erase on one of them gives room (a
//!    read waiting to place a never-written page also when a write places it;
//!    a stall no refusal explains, and every stall under dynamic allocation,
//!    after every erase), in the order the requests first waited.
//! 7. **Transaction.** `sim/exec.rs` opens a transaction for the plan: each
//!    planned operation becomes one record in the scheduler's operation arena,
//!    chained behind the one before it in its group (in stage order), and stays
//!    that record until it completes. It pins the blocks it reads (a pinned
//!    block is never erased) and launches stage 0 of every group (after the
//!    plan's delay, e.g. hashing). When nothing reads a group's record (no
//!    verify mode, no collision count, a scheme that wants no completions) and
//!    every group is a single operation, as a conventional read or write is,
//!    the operations are launched without group records and each one's end is
//!    its group's end (`launch_solo`): the same timing, with less bookkeeping
//!    per page; the scheme test table checks that verify off and on agree.
//! 8. **Scheduling.** Each operation joins its die's (or chip's) queue. At the end of the
//!    simulated instant idle dies start: the head of the highest non-empty class
//!    (host read > host write > background), with same-kind operations on the
//!    die's other planes in one multi-plane batch. A host read arriving while the
//!    die's array is programming or erasing suspends it when suspension is on
//!    (and the operation has `suspend_min_remaining_us` left); with a chip as
//!    the unit, a read for another die of the chip runs beside the program
//!    instead, as MQSim issues it die-interleaved.
//! 9. **Timing.** Read: command on the channel, tR on the die, data out on the
//!    channel. Program: command and data in, then tPROG. Erase: command, then
//!    tBERS. The channel is granted first come, first served; the die is busy
//!    from the start of its batch to the end of its last phase.
//! 10. **Completion.** When an operation finishes, its group's result token is
//!     updated (XOR of the tokens its result reads return); when a stage is done
//!     the next starts; when a group is done verify mode compares its result with
//!     the expected token; when every group is done the request completes:
//!     response time = completion - arrival, broken down into queueing, bus,
//!     array and delay along the critical path. Its row leaves the
//!     `RequestLog` once every earlier request has completed too: counted into
//!     the summary's tally and written to the sink (`detour run`: straight to
//!     requests.parquet, on a second thread). A trace or profile is read ahead
//!     on another thread (`workload/ahead.rs`) in batches, in its own order.
//! 11. **Background.** Allocation below a plane's GC threshold starts greedy GC
//!     (if the scheme's `may_start_gc` agrees: TTFlash keeps one member of a
//!     stripe group collecting at a time; refused planes are retried after every
//!     erase, tick and completion): the victim's live pages are read and programmed in the same plane at
//!     background priority, the scheme hears `on_gc_move`, then the block is
//!     erased (a victim holding translation pages moves them to the
//!     translation GC stream, and the directory, not the LPN map or the
//!     scheme, follows them). Schemes submit their own background plans (replication,
//!     migration, parity upkeep) through `Ctx::background`, and get periodic
//!     `tick`s while requests are still to arrive or are out (not while they
//!     drain, for a scheme whose periods are windows of the arrivals: the
//!     dedup schemes). Each tick needs something else that can move the run
//!     on (another event pending, or work on the dies); after two idle ticks
//!     in a row they stop, the parked requests are planned once more (which
//!     re-arms the ticks if that gave the dies work), and otherwise the run
//!     ends reporting its stuck requests rather than ticking on. A request arriving more than 1e8 ticks after the
//!     start (1e5 for the dedup schemes, which keep a row per period) is
//!     refused with the key of the tick, as a corrupted timestamp would
//!     otherwise tick on for hours (`sim/requirements.rs`). Preconditioning leaves GC wanted on
//!     every plane it left below the threshold.
//!
//! By default a write's latency includes its program time: it completes when
//! the data is programmed in the array (the page's state becomes valid). With
//! `host.write_ack = "transfer"` (SSDSim's rule) the scheduler marks each host
//! program of a finished batch with how long before its end its data was in
//! (`early_ns`), the transaction keeps the earliest time the host could have
//! been told (`ack_at`), and the request completes then; the operation itself,
//! the die's busy time and the FTL's page state still run to tPROG. Reads
//! include the data transfer out to the controller, and with a host link
//! (`host.link_gbps`) the transfer to the host after it (a second `TxnFinish`).
//!
//! ## Measurement hooks
//!
//! The read-collision accounting (`metrics.collisions = true`,
//! docs/schemes/collisions.md) is the one measurement fed from inside the
//! event loop rather than from the request columns: `sim/exec.rs` tells it when
//! a host read joins a die's queue (right after `Scheduler::submit`, with the
//! dies' OCC) and, in `drain_done`, which host reads a die just finished,
//! before any completion is handled. Off, each hook is one `Option` test.
//!
//! ## Events
//!
//! | event | scheduled by | meaning |
//! |---|---|---|
//! | `Arrival` | host | the next request arrives |
//! | `TxnStart(t)` | exec | a plan's delay is over |
//! | `TxnFinish(t)` | exec | a transaction with no flash operations left completes (write-buffer reads) |
//! | `ArrayDone{die, gen}` | scheduler | the die's array operation ends (`gen` discards events of a suspended operation) |
//! | `TransferDone(die)` | scheduler | a read's data-out transfer ends |
//! | `SuspendDone{die, gen}` | scheduler | a program/erase finished suspending |
//! | `Tick` | background | the scheme's periodic work |
//! | `Issue(s)` | closed loop | closed-loop stream `s` may issue its next request |
//! | `ChannelFree(ch)` | scheduler | a channel units wait for is free (`channel_order = "reads_first"` only) |
//!
//! A channel transfer needs no event of its own: with first-come-first-served
//! arbitration a die's grant time is known when it asks (`max(now,
//! busy_until)`), so the die's next step is scheduled directly. An uncontended
//! read costs two events, a program one. Under `scheduler.channel_order =
//! "reads_first"` (SSDSim) the waiting units are chosen when the channel is
//! free, at the end of that instant (scheduler/channel.rs).
//!
//! (docs/architecture.md has the short version.)
