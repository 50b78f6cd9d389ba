//! The simulation: the host interface, the scheme, the FTL and the scheduler
//! joined by the event loop.
//!
//! A request arrives (open loop, at its trace time; or closed loop, when a
//! `[[flows]]` stream has room: `closed.rs`), is split into pages and
//! planned by the scheme; the plan becomes a transaction whose operations go
//! to the die queues; when all its groups finish the request completes.
//! GC, erases and the scheme's background plans are transactions too.
//!
//! The parts own their state behind a few methods: the host front end
//! (`host::HostFront`), the reused buffers (`scratch::Scratch`), and the
//! optional DRAM and host parts: the write buffer (`buffer_run::BufferRun`),
//! the read cache (`read_cache::ReadCache`), the discards
//! (`discards::Discards`), the link (`link::HostLink`), the closed-loop
//! flows (`flows::ClosedLoop`), and `metrics`' collision count and probe.
//! `Simulation` holds them and runs the loop; `flush.rs`, `closed.rs` and
//! `trim.rs` join their parts to the scheme and the FTL.

mod background;
mod buffer;
mod buffer_run;
mod closed;
mod discards;
mod exec;
mod flows;
mod flush;
mod host;
mod instant;
mod link;
mod memory;
mod mqsim_draw;
mod oracle;
mod page_list;
mod park;
mod read_cache;
pub mod request_path;
mod requirements;
mod scratch;
mod steady;
mod translate;
mod trim;
mod txn;
mod update_read;

use crate::config::Config;
use crate::device::{Geometry, Timing};
use crate::engine::{Event, EventQueue};
use crate::error::{Error, Result};
use crate::ftl::{Chunked, Ftl};
use crate::metrics::{self, CollisionTracker, PairCount, Probe, ProbeInput, ProbeSeries, RequestColumns, RequestLog, RequestSink, Summary};
use crate::scheduler::Scheduler;
use crate::schemes::{registry, Scheme};
use crate::types::{Lpn, Time, Token};
use crate::workload::Request;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use txn::Txns;

/// Called every few thousand requests; returning false stops the run with
/// [`Error::Interrupted`] (how Ctrl-C reaches the core).
pub trait Progress {
    fn update(&mut self, requests_arrived: u64, sim_time_ns: u64) -> bool;

    /// Called every few thousand pages while preconditioning; false stops.
    fn precondition(&mut self, _pages_done: u64, _pages_total: u64) -> bool {
        true
    }
}

/// No progress reporting.
pub struct NoProgress;
impl Progress for NoProgress {
    fn update(&mut self, _: u64, _: u64) -> bool {
        true
    }
}

/// A read that returned the wrong data (first few kept for diagnosis).
#[derive(Clone, Debug, serde::Serialize)]
pub struct VerifyFailure {
    pub time_ns: u64,
    pub lpn: u32,
    pub expected: Token,
    pub got: Token,
}

/// Everything a run produces.
#[derive(Debug)]
pub struct RunResult {
    pub summary: Summary,
    pub requests: RequestColumns,
    pub verify_failures: Vec<VerifyFailure>,
    /// Collision pairs, most repeated first (empty unless `metrics.collisions`).
    pub collision_pairs: Vec<PairCount>,
    /// The load sampler's series (None unless `probes.interval_us` > 0).
    pub timeseries: Option<ProbeSeries>,
}

#[derive(Default)]
struct Counters {
    verify_errors: u64,
    buffered_reads: u64,
    placed_on_read: u64,
    folded: u64,
    stalls: u64,
    host_read: u64,
    host_written: u64,
    events: u64,
    arrivals: u64,
    write_seq: u64,
    /// Requests issued during a flow's ramp (beyond `host.warmup_requests`).
    ramped: u64,
}

pub struct Simulation {
    cfg: Config,
    geo: Geometry,
    q: EventQueue,
    sched: Scheduler,
    ftl: Ftl,
    scheme: Box<dyn Scheme>,
    /// The scheme's `wants_completions`, asked once.
    completions: bool,
    /// No verify mode, collision count or completion callback: lone
    /// operations run without group records (see `launch_solo`).
    solo: bool,
    rng: ChaCha8Rng,
    txns: Txns,
    /// Per-request rows and the summary's figures counted from them.
    log: RequestLog,
    /// What each LPN should hold (verify mode).
    oracle: Option<oracle::Oracle>,
    /// One bit per LPN: the page holds data (written or placed).
    placed: Chunked<u64>,
    /// The host front end: arrivals, the read-ahead, the queue-depth limit.
    host: host::HostFront,
    /// Requests and flushes waiting for a free page.
    lot: park::ParkLot,
    /// Events handled when the lot was last woken whole (see `revive`).
    revived_at: u64,
    ticks: background::Ticks,
    gc_blocked: Vec<u32>,
    /// `ftl.gc_timing = "stale_erases_only"`: one bit per block written
    /// before the run (preconditioning), which GC reclaims at once; empty
    /// under the default timing.
    aged_blocks: Vec<u64>,
    /// Buffers reused from event to event.
    scratch: scratch::Scratch,
    /// Translation reads in flight and who waits for them (entry caches).
    map_reads: translate::MapReads,
    n: Counters,
    failures: Vec<VerifyFailure>,
    /// Read-collision accounting (`metrics.collisions`).
    coll: Option<Box<CollisionTracker>>,
    /// The queue-length sampler (`[probes]`; inert when off).
    probe: Probe,
    /// The DRAM write buffer (`[write_buffer]`), if any.
    wbuf: Option<Box<buffer_run::BufferRun>>,
    /// SSDSim's update reads before its write-backs (update_read.rs).
    updates: Option<Box<update_read::UpdateReads>>,
    /// The DRAM read cache (`[read_cache]`), if any.
    rcache: Option<Box<read_cache::ReadCache>>,
    /// Discarded pages and the discards' counts, from the first discard on.
    trim: Option<Box<discards::Discards>>,
    link: Option<link::HostLink>,
    /// The `[[flows]]` streams and per-flow figures (None without flows).
    closed: Option<Box<flows::ClosedLoop>>,
}

/// A request stream, as a replay makes it.
pub type Requests = Box<dyn Iterator<Item = Result<Request>> + Send>;

/// Makes pass `k` (0, 1, ...) of the workload again, for
/// `ftl.precondition.steady_writes`: a trace read again, a profile drawn
/// again over the same layout (`Generator::redrawn`).
pub type Replay = Box<dyn FnMut(u64) -> Result<Requests> + Send>;

impl Simulation {
    /// Build a device, FTL, scheduler and scheme from a validated config.
    pub fn new(mut cfg: Config) -> Result<Simulation> {
        registry::resolve(&mut cfg)?;
        // Before the scheme's tables are reserved.
        memory::check(&cfg, &Geometry::from_config(&cfg.device)?)?;
        // What follows the workload's span and was not settled from it
        // (callers that know it use `registry::on_span` first) takes the
        // scheme's default (dedup's auto period: a day).
        registry::on_span(&mut cfg, &mut || Ok(None))?;
        let scheme = registry::build(&cfg)?;
        Self::with_scheme(cfg, scheme)
    }

    /// Build with a scheme object that is not registered (`schemes::SCHEMES`):
    /// for trying a scheme out of tree, and for tests that break one on purpose.
    pub fn with_scheme(cfg: Config, scheme: Box<dyn Scheme>) -> Result<Simulation> {
        crate::setup::check(&cfg)?;
        let mut geo = Geometry::from_config(&cfg.device)?;
        memory::check(&cfg, &geo)?;
        if let Some(n) = scheme.logical_pages(&geo) {
            if n == 0 || n > geo.logical_pages {
                return Err(Error::Geometry(format!(
                    "scheme {} asks for {n} logical pages; the device offers 1..={}",
                    cfg.scheme.name, geo.logical_pages
                )));
            }
            geo.logical_pages = n;
        }
        let timing = Timing::new(&cfg.device, &cfg.scheduler, &cfg.nand);
        let verify = cfg.run.verify;
        let completions = scheme.wants_completions();
        let (needs_content, log_period) = (scheme.needs_content(), period_s(scheme.as_ref()));
        let mut sched = Scheduler::new(&geo, &timing, &cfg.scheduler, cfg.host.write_ack)?;
        let wbuf = buffer_run::BufferRun::new(&cfg.write_buffer, cfg.device.page_size, geo.logical_pages, geo.planes());
        // SSDSim's eviction acknowledges at transfer; with no buffer the
        // admission rule has nothing to admit, and `host.write_ack` stands
        if wbuf.is_some() && cfg.write_buffer.admission == crate::config::BufferAdmission::Evict {
            sched.ack_programs_at_transfer();
        }
        // SSDSim's read merge needs each program's issue (ftl/read_merge.rs).
        if cfg.ftl.read_merge == crate::config::ReadMerge::Queued {
            sched.track_started_programs();
        }
        let sched_unit_dies = sched.unit_dies();
        let updates = update_read::UpdateReads::of(&cfg, wbuf.is_some(), scheme.uses_shared_map())?;
        Ok(Simulation {
            q: EventQueue::new(),
            sched,
            ftl: Ftl::new(&cfg.ftl, &cfg.nand, cfg.run.seed, &geo, verify)?,
            completions,
            solo: !verify && !cfg.metrics.collisions && !completions,
            scheme,
            rng: ChaCha8Rng::seed_from_u64(cfg.run.seed),
            txns: Txns::default(),
            log: RequestLog::new(RequestSink::Discard, log_period),
            oracle: verify.then(|| oracle::Oracle::new(geo.logical_pages, wbuf.is_some())),
            placed: Chunked::new((geo.logical_pages as u64).div_ceil(64), 0),
            host: host::HostFront::new(&cfg.host),
            lot: park::ParkLot::new(geo.planes()),
            revived_at: u64::MAX,
            ticks: background::Ticks::default(),
            gc_blocked: Vec::new(),
            aged_blocks: Vec::new(),
            scratch: scratch::Scratch::default(),
            map_reads: Default::default(),
            n: Counters::default(),
            failures: Vec::new(),
            coll: cfg.metrics.collisions.then(|| Box::new(CollisionTracker::new(geo.dies(), cfg.run.seed))),
            probe: Probe::new(cfg.probes.interval_us, geo.dies(), geo.dies_per_chip, sched_unit_dies),
            rcache: read_cache::ReadCache::of(&cfg.read_cache, &cfg.write_buffer, geo.page_size, geo.logical_pages),
            trim: None,
            wbuf,
            updates,
            link: link::HostLink::new(cfg.host.link_gbps),
            closed: flows::ClosedLoop::new(
                &cfg.flows,
                cfg.run.seed,
                geo.logical_bytes(),
                needs_content.then_some(cfg.scheme.name.as_str()),
            )?,
            geo,
            cfg,
        })
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The bytes the workload can address (from 0): what
    /// `ftl.precondition.span = "footprint"` preconditions a share of.
    pub fn set_footprint(&mut self, bytes: u64) {
        self.host.set_footprint(bytes);
    }

    /// The workload again, whose writes `ftl.precondition.steady_writes`
    /// replays before the run.
    pub fn set_replay(&mut self, replay: Replay) {
        self.host.set_replay(replay);
    }

    /// The workload again, request for request as the run will see it
    /// (pass 0 is read), whose reads `ftl.precondition.place_reads =
    /// "before_run"` places before the run.
    pub fn set_again(&mut self, again: Replay) {
        self.host.set_again(again);
    }

    /// Run `workload` to completion. `source` names it in error messages.
    /// The per-request rows are kept in memory (`RunResult::requests`)
    /// unless `run.record_requests = false`.
    pub fn run(self, workload: &mut dyn Iterator<Item = Result<Request>>, source: &str, progress: &mut dyn Progress) -> Result<RunResult> {
        let sink = if self.cfg.run.record_requests { RequestSink::Memory } else { RequestSink::Discard };
        self.run_with_sink(workload, source, progress, sink)
    }

    /// Run `workload` to completion, the per-request rows going to `sink`
    /// as requests complete (a Parquet file is complete when this returns).
    pub fn run_with_sink(
        mut self,
        workload: &mut dyn Iterator<Item = Result<Request>>,
        source: &str,
        progress: &mut dyn Progress,
        sink: RequestSink,
    ) -> Result<RunResult> {
        self.log = RequestLog::new(sink, period_s(self.scheme.as_ref()));
        self.host.set_source(source);
        // Requests the scheme cannot use are refused: a dedup write without
        // content, an arrival too many ticks away (sim/requirements.rs).
        let tick = (self.tick_interval(), self.cfg.scheme.tick_us > 0.0);
        let scale = self.cfg.host.time_scale;
        let mut guard = requirements::InputGuard::new(workload, (self.scheme.as_ref(), &self.cfg.scheme.name), tick, scale, source);
        let workload: &mut dyn Iterator<Item = Result<Request>> = &mut guard;
        self.precondition(progress)?;
        self.pull_next(workload)?;
        self.start_closed()?;
        self.schedule_first_tick()?;
        loop {
            let Some((now, ev)) = self.q.pop() else {
                if self.revive()? {
                    continue;
                }
                break;
            };
            self.n.events += 1;
            if self.probe.due(now) {
                self.sample(now);
            }
            match ev {
                Event::Arrival => {
                    self.arrive()?;
                    self.pull_next(workload)?;
                    if !self.more_to_arrive() {
                        self.drain_buffer()?;
                    }
                    if self.n.arrivals & 0x3FFF == 0 && !progress.update(self.n.arrivals, now) {
                        return Err(Error::Interrupted { done: self.n.arrivals });
                    }
                }
                Event::Issue(s) => {
                    self.issue(s)?;
                    if self.n.arrivals & 0x3FFF == 0 && !progress.update(self.n.arrivals, now) {
                        return Err(Error::Interrupted { done: self.n.arrivals });
                    }
                }
                Event::TxnStart(t) => self.launch_all(t)?,
                Event::TxnFinish(t) => self.finish_txn(t)?,
                Event::TransferDone(die) => self.sched.on_transfer_done(die, &mut self.q),
                Event::ArrayDone { die, gen } => self.sched.on_array_done(die, gen, &mut self.q),
                Event::SuspendDone { die, gen } => self.sched.on_suspend_done(die, gen, &mut self.q),
                Event::ChannelFree(ch) => self.sched.on_channel_free(ch, &mut self.q),
                Event::Tick => self.on_tick()?,
            }
            // Dies start, and finished operations are handed on, once every
            // event of this instant has run: work arriving at the same time
            // can then share a multi-plane batch. (Checked only when there
            // is something to hand on: a read entering its data-out leaves
            // nothing, and looking at the queue would be wasted work.)
            if self.sched.has_work() && !self.q.more_now() {
                self.drain_done()?;
            }
            // An event the device could not post (see EventQueue::post).
            if let Some(e) = self.q.take_fault() {
                return Err(e);
            }
        }
        progress.update(self.n.arrivals, self.q.now());
        self.check_all_done()?;
        self.finish()
    }

    /// Nothing left to happen but transactions still wait for a page: plan
    /// them once more (see `wake_all_parked`), once per dry spell. True
    /// when that gave the event queue something to do.
    fn revive(&mut self) -> Result<bool> {
        if self.lot.len() == 0 || self.revived_at == self.n.events {
            return Ok(false);
        }
        self.revived_at = self.n.events;
        self.wake_all_parked()?;
        if self.sched.has_work() {
            self.drain_done()?;
        }
        if let Some(e) = self.q.take_fault() {
            return Err(e);
        }
        self.resume_ticks()?;
        Ok(!self.q.is_empty())
    }

    fn check_all_done(&self) -> Result<()> {
        let waiting = self.host.waiting();
        if waiting == 0 {
            return Ok(());
        }
        if self.ftl.retired > 0 {
            return Err(Error::Sim(format!(
                "{waiting} requests could not complete: the device ran out of spare space after {} of its {} blocks \
                 were retired ([nand]: worn out at pe_limit, failed erases, factory bad blocks); {} wait for a free page",
                self.ftl.retired,
                self.geo.blocks(),
                self.lot.len()
            )));
        }
        Err(Error::Sim(format!(
            "{waiting} requests could not complete: {} wait for a free page and GC finds no block it may \
             reclaim (every candidate is full of live data or held by a pending operation): the live data \
             does not fit the device's physical space, or a scheme keeps pages live that it no longer needs",
            self.lot.len()
        )))
    }

    fn finish(mut self) -> Result<RunResult> {
        let mut s = Summary {
            scheme: self.cfg.scheme.name.clone(),
            device: self.cfg.name.clone(),
            seed: self.cfg.run.seed,
            verify: self.cfg.run.verify,
            verify_errors: self.n.verify_errors,
            warmup_requests: self.cfg.host.warmup_requests.min(self.log.arrived()) + self.n.ramped,
            lost_requests: self.log.tally().lost,
            stalls: self.n.stalls,
            events: self.n.events,
            park_visits: self.lot.visits,
            sim_time_s: self.log.tally().shape.last_completion_ns as f64 / 1e9,
            ..Summary::default()
        };
        metrics::latency_parts(self.log.tally(), &mut s);
        let busy = self.sched.busy_per_die();
        metrics::die_parts(self.sched.counts(), &busy, s.throughput.duration_s, &mut s);
        // Over the measured time (`sim_time_s`): a scheme's ticks can run on
        // long after the last completion (a dedup period), idling the dies.
        let end = self.log.tally().shape.last_completion_ns;
        s.energy = metrics::energy::energy(&self.cfg.energy_costs(), self.sched.counts(), &busy, end, self.cfg.device.page_size);
        metrics::gc_parts(&self.ftl.stats, self.ftl.wear_leveling(), self.n.host_written, self.ftl.erase_spread(), &mut s);
        if self.cfg.scheduler.plane_pairing == crate::config::PlanePairing::Level {
            s.gc.pages_skipped = Some(self.ftl.stats.pages_skipped);
        }
        s.pages = metrics::Pages {
            host_read: self.n.host_read,
            host_written: self.n.host_written,
            buffered_reads: self.n.buffered_reads,
            placed_on_read: self.n.placed_on_read,
            folded: self.n.folded,
        };
        s.scheme_counters = self.scheme.counters().into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let collision_pairs = match &self.coll {
            Some(c) => {
                let pairs = c.pair_counts();
                s.collisions = Some(c.summary(&pairs));
                pairs
            }
            None => Vec::new(),
        };
        s.write_buffer = self.wbuf.as_ref().map(|b| b.summary(self.q.now()));
        if let (Some(w), Some(u)) = (s.write_buffer.as_mut(), self.updates.as_ref()) {
            w.update_reads = Some(u.count);
        }
        s.read_cache = self.rcache.as_ref().map(|c| c.summary());
        s.trim = self.trim.as_ref().map(|t| t.summary());
        s.mapping = self.ftl.mapping.stats();
        s.flows = self.closed.as_ref().map_or_else(Vec::new, |c| c.summaries());
        s.periods = self.scheme.periods();
        metrics::period_latency(self.log.tally(), &mut s.periods);
        let channels: Vec<u64> = self.sched.channels().iter().map(|c| c.busy_ns).collect();
        let probe = std::mem::replace(&mut self.probe, Probe::new(0.0, 0, 1, 1)).finish();
        s.probe = probe.as_ref().map(|(_, p)| p.clone());
        let timeseries = probe.map(|(t, _)| t);
        let inert = registry::inert_keys(&self.cfg);
        let entry = registry::find(&s.scheme).ok();
        let facts = metrics::warnings::RunFacts {
            cfg: &self.cfg,
            geo: &self.geo,
            shape: &self.log.tally().shape,
            die_busy_ns: &busy,
            channel_busy_ns: &channels,
            end_ns: self.q.now(),
            inert: &inert,
            activity: entry.map_or(&[], |e| e.activity),
            why_idle: entry.and_then(|e| e.why_idle),
        };
        s.warnings = metrics::warnings::collect(&s, &facts);
        s.nand = self.ftl.nand_summary();
        let (requests, parquet) = self.log.into_parts();
        if let Some(p) = parquet {
            let json = serde_json::to_string(&s).map_err(|e| Error::Sim(format!("cannot serialise the summary: {e}")))?;
            p.close(vec![("detour.summary".into(), json)])?;
        }
        Ok(RunResult { summary: s, requests, verify_failures: self.failures, collision_pairs, timeseries })
    }
}

/// Whether `lpn` holds data (written, or placed on its first read).
#[inline]
fn is_placed(placed: &Chunked<u64>, lpn: Lpn) -> bool {
    placed.get(lpn >> 6) & (1 << (lpn & 63)) != 0
}

/// Record that `lpn` now holds `token`: its bit in the placed-page bitmap,
/// and its entry in verify mode's oracle. A free function, so code holding
/// a planning context can call it beside the context's borrows.
#[inline]
fn mark_written(placed: &mut Chunked<u64>, oracle: &mut Option<oracle::Oracle>, lpn: Lpn, token: Token) {
    mark_placed(placed, lpn);
    if let Some(o) = oracle.as_mut() {
        o.written(lpn, token);
    }
}

#[inline]
fn mark_placed(placed: &mut Chunked<u64>, lpn: Lpn) {
    let w = placed.get(lpn >> 6);
    placed.set(lpn >> 6, w | (1 << (lpn & 63)));
}

/// Record that the host wrote `token` to `lpn` into the write buffer: the
/// page holds data, but the flash keeps its previous version until a flush.
#[inline]
fn mark_buffered(placed: &mut Chunked<u64>, oracle: &mut Option<oracle::Oracle>, lpn: Lpn, token: Token) {
    mark_placed(placed, lpn);
    if let Some(o) = oracle.as_mut() {
        o.buffered(lpn, token);
    }
}

/// Run a config over a workload with no progress reporting.
pub fn run(cfg: Config, workload: impl IntoIterator<Item = Result<Request>>) -> Result<RunResult> {
    let mut it = workload.into_iter();
    Simulation::new(cfg)?.run(&mut it, "<workload>", &mut NoProgress)
}

/// Run a config over in-memory requests (an auto RR-SSD period from their
/// span; `ftl.precondition.steady_writes` replays them, `place_reads =
/// "before_run"` reads them once before the run).
pub fn run_requests(mut cfg: Config, requests: &[Request]) -> Result<RunResult> {
    registry::on_span(&mut cfg, &mut || Ok(span_s(requests)))?;
    let mut sim = Simulation::new(cfg)?;
    let pre = &sim.cfg.ftl.precondition;
    let again = pre.reads_workload_before_run();
    if pre.steady_writes > 0.0 {
        sim.set_replay(replay_of(requests.to_vec()));
    }
    if again {
        sim.set_again(replay_of(requests.to_vec()));
    }
    sim.run(&mut requests.iter().map(|r| Ok(*r)), "<workload>", &mut NoProgress)
}

/// A replay of requests held in memory: the same requests every pass.
pub fn replay_of(requests: Vec<Request>) -> Replay {
    Box::new(move |_| Ok(Box::new(requests.clone().into_iter().map(Ok)) as Requests))
}

/// The request log's period: the scheme's, or one period for the whole
/// run (no scheme period, no period rows).
fn period_s(scheme: &dyn Scheme) -> f64 {
    scheme.period_s().unwrap_or(f64::INFINITY)
}

/// Seconds from the first arrival to the last (trace time), if any.
pub fn span_s(requests: &[Request]) -> Option<f64> {
    let (first, last) = (requests.first()?.time_ns, requests.last()?.time_ns);
    Some(last.saturating_sub(first) as f64 / 1e9)
}

impl Simulation {
    /// Take the probe's samples due before `now` (metrics/probe.rs).
    #[cold]
    fn sample(&mut self, now: Time) {
        let (ftl, ppd) = (&self.ftl, self.geo.planes_per_die);
        let free = |d: u32| (d * ppd..(d + 1) * ppd).map(|p| ftl.free_blocks(p)).sum();
        let input = ProbeInput { units: self.sched.dies(), die_free_blocks: &free, buffer_pages: self.wbuf.as_ref().map(|b| b.pages()) };
        self.probe.record_until(now, &input);
    }
}
