//! Issue for `[[flows]]` (config/flows.rs): each closed-loop flow's
//! `numjobs` streams keep `iodepth` requests outstanding each; an
//! open-loop flow (a `trace` or `profile` of its own) is one stream whose
//! requests arrive at their own times, beside the run's workload.
//!
//! How: at the start every stream posts `iodepth` [`Event::Issue`]s at the
//! current time; handling one draws the stream's next request
//! (`workload::job::JobStream`), stamps it with the current time as its
//! arrival and lets it arrive as a trace request would (queue-depth cap,
//! pages, planning). When a request of stream `s` completes, `Issue(s)` is
//! posted `think_us` later, so the stream's outstanding count stays at its
//! depth until its limit (`ios`, or `ramp_s + runtime_s`) refuses an issue.
//! A request's `HostIo::stream` says where it came from (0: the run's own
//! open-loop workload, `s + 1`: closed stream `s`), so its completion can
//! refill its stream and be counted for its flow.
//!
//! Why an event, not an issue inside the completion: a completion is
//! handled while the scheduler hands on finished operations; issuing there
//! would plan a request in the middle of that. The event runs at the same
//! instant, before the dies start, so the timing is the same.
//!
//! An open-loop flow's stream posts `Issue(s)` at its next request's time
//! instead, and its completions refill nothing.
//!
//! Cost: none for a run without flows (`Simulation::closed` is None; one
//! test per completion).

use super::txn::HostIo;
use super::Simulation;
use crate::config::FlowConfig;
use crate::engine::Event;
use crate::ensure_config;
use crate::error::{Error, Result};
use crate::metrics::{FlowKind, FlowSummary, FlowTally};
use crate::scheduler::arbiter::PriorityClass;
use crate::types::NS_PER_US;
use crate::workload::job::JobStream;
use crate::workload::{profiles, reader, Request};

/// Where a stream's requests come from.
// One per stream, few per run: boxing the job would add an indirection for no memory to speak of.
#[allow(clippy::large_enum_variant)]
enum Source {
    /// A closed-loop job: requests drawn when a slot frees up.
    Job(JobStream),
    /// An open-loop trace or profile, with its next request (None: not read
    /// yet or ended) and the previous arrival (arrivals must not go back).
    Open { reqs: Box<dyn Iterator<Item = Result<Request>> + Send>, next: Option<Request>, last: u64 },
}

/// One stream (one fio job, or one open-loop flow) of a flow.
struct Stream {
    /// Its flow's index in `ClosedLoop::flows` (0 is the open workload).
    flow: usize,
    src: Source,
    issued: u64,
    /// Requests it may issue (u64::MAX: no limit).
    ios: u64,
    /// Nothing is issued at or after this time, ns.
    stop_ns: u64,
    think_ns: u64,
    /// Requests issued before this time are left out of the statistics.
    ramp_ns: u64,
    iodepth: u32,
    /// Its flow's NVMe priority class (`PriorityClass as u8`).
    prio: u8,
    /// An issue was refused: the limits only tighten, so it never issues again.
    done: bool,
}

/// The closed-loop streams and every flow's figures.
pub(super) struct ClosedLoop {
    streams: Vec<Stream>,
    /// Flow 0 is the run's own workload; flow `i + 1` is `cfg.flows[i]`.
    flows: Vec<FlowTally>,
    /// Streams that may still issue.
    live: usize,
}

fn ns(seconds: f64) -> u64 {
    (seconds * 1e9).round() as u64
}

impl ClosedLoop {
    /// The streams of `[[flows]]` over a logical space of `logical` bytes
    /// (the scheme's, which may be smaller than the device's), their draws
    /// seeded from `run.seed`; None without flows. `needs_content`: the
    /// scheme named so refuses writes without content.
    pub fn new(flows: &[FlowConfig], seed: u64, logical: u64, needs_content: Option<&str>) -> Result<Option<Box<ClosedLoop>>> {
        if flows.is_empty() {
            return Ok(None);
        }
        let (cfgs, mut flows) = (flows, vec![FlowTally::new("workload".into(), FlowKind::Open, 0, 1)]);
        let mut streams = Vec::new();
        for (i, f) in cfgs.iter().enumerate() {
            if f.is_open() {
                flows.push(FlowTally::new(f.label(i), FlowKind::Open, 0, 1));
                let src = Source::Open { reqs: open_source(f, i)?, next: None, last: 0 };
                streams.push(Stream {
                    flow: i + 1,
                    src,
                    issued: 0,
                    ios: u64::MAX,
                    stop_ns: u64::MAX,
                    think_ns: 0,
                    ramp_ns: ns(f.ramp_s),
                    iodepth: 0,
                    prio: f.priority as u8,
                    done: false,
                });
            } else {
                flows.push(FlowTally::new(f.label(i), FlowKind::Closed, f.iodepth, f.numjobs));
                streams.extend(job_streams(f, i, seed, logical, needs_content)?);
            }
        }
        ensure_config!(
            streams.len() < u16::MAX as usize,
            "flows",
            "{} streams in all (numjobs summed); at most {}",
            streams.len(),
            u16::MAX - 1
        );
        Ok(Some(Box::new(ClosedLoop { live: streams.len(), streams, flows })))
    }

    /// Every stream has stopped issuing.
    pub fn finished(&self) -> bool {
        self.live == 0
    }

    /// The next request of closed-loop stream `s` at `now` (or the pending
    /// one of an open stream), or None once its limit is reached.
    fn next(&mut self, s: usize, now: u64) -> Option<Request> {
        let st = self.streams.get_mut(s)?;
        let req = match &mut st.src {
            _ if st.done || st.issued >= st.ios || now >= st.stop_ns => None,
            Source::Job(gen) => {
                let io = gen.next_io();
                Some(Request { time_ns: now, offset: io.offset, size: io.size, kind: io.kind, content: 0, volume: 0, line: st.issued + 1 })
            }
            Source::Open { next, .. } => next.take(),
        };
        if req.is_none() && !st.done {
            st.done = true;
            self.live -= 1;
        }
        st.issued += req.is_some() as u64;
        req
    }

    /// Read open stream `s`'s next request, returning its arrival time
    /// (scaled by `scale`), or None when it has ended (or `s` is closed loop).
    fn read_ahead(&mut self, s: usize, scale: f64) -> Result<Option<u64>> {
        let Some(Stream { src: Source::Open { reqs, next, last }, flow, .. }) = self.streams.get_mut(s) else { return Ok(None) };
        let key = || format!("flows[{}]", *flow - 1);
        let Some(mut r) = reqs.next().transpose().map_err(|e| Error::config(key(), e))? else { return Ok(None) };
        r.time_ns = if scale == 1.0 { r.time_ns } else { (r.time_ns as f64 * scale).round() as u64 };
        ensure_config!(r.time_ns >= *last, key(), "request {} arrives at {} ns, before the previous one ({} ns)", r.line, r.time_ns, *last);
        *last = r.time_ns;
        *next = Some(r);
        Ok(Some(r.time_ns))
    }

    /// Whether a request of `stream` issued at `arrival` falls in its ramp.
    fn in_ramp(&self, stream: u16, arrival: u64) -> bool {
        stream > 0 && self.streams.get(stream as usize - 1).is_some_and(|s| arrival < s.ramp_ns)
    }

    /// The priority class of a request of `stream` (0, the run's own
    /// workload, and work of no stream: HIGH, as MQSim files transactions
    /// of no class, TSU_Priority_OutOfOrder::Schedule).
    pub fn priority(&self, stream: u16) -> u8 {
        let high = PriorityClass::High as u8;
        if stream == 0 {
            return high;
        }
        self.streams.get(stream as usize - 1).map_or(high, |s| s.prio)
    }

    pub fn summaries(&self) -> Vec<FlowSummary> {
        // The open workload is listed only when it brought requests.
        let open = &self.flows[0];
        let skip = usize::from(open.requests() == 0);
        self.flows[skip..].iter().map(FlowTally::summary).collect()
    }
}

impl Simulation {
    /// Post every closed stream's first `iodepth` issues (at the current
    /// time) and every open stream's first arrival.
    pub(super) fn start_closed(&mut self) -> Result<()> {
        let Some(c) = self.closed.as_ref() else { return Ok(()) };
        let depths: Vec<u32> = c.streams.iter().map(|s| s.iodepth).collect();
        for (s, d) in depths.into_iter().enumerate() {
            for _ in 0..d {
                self.q.after(0, Event::Issue(s as u32))?;
            }
            if d == 0 {
                self.open_next(s)?;
            }
        }
        Ok(())
    }

    /// Read open stream `s`'s next request and post its arrival (an ended
    /// stream posts one last issue, which retires it).
    fn open_next(&mut self, s: usize) -> Result<()> {
        let scale = self.cfg.host.time_scale;
        let Some(c) = self.closed.as_mut() else { return Ok(()) };
        match c.read_ahead(s, scale)? {
            Some(at) => self.q.schedule(at.max(self.q.now()), Event::Issue(s as u32)),
            None => self.q.after(0, Event::Issue(s as u32)),
        }
    }

    /// `Event::Issue(s)`: stream `s` sends its next request, if it may.
    pub(super) fn issue(&mut self, s: u32) -> Result<()> {
        let now = self.q.now();
        let Some(c) = self.closed.as_mut() else { return Ok(()) };
        let Some(r) = c.next(s as usize, now) else {
            if c.finished() && !self.host.has_next() {
                self.drain_buffer()?;
            }
            return Ok(());
        };
        let st = &c.streams[s as usize];
        let (ramp, open, flow) = (st.ramp_ns > now, st.iodepth == 0, st.flow);
        // A closed stream's region fits the scheme's logical space (checked
        // in `new`); an open flow's trace may not, and is named.
        let mut io = self.split_pages(&r).map_err(|e| if open { Error::config(format!("flows[{}]", flow - 1), e) } else { e })?;
        io.stream = s as u16 + 1;
        self.enter(io, ramp)?;
        if open {
            self.open_next(s as usize)?;
        }
        Ok(())
    }

    /// A host request completed: count it for its flow and refill its stream.
    #[inline]
    pub(super) fn closed_done(&mut self, io: &HostIo, latency: u64) -> Result<()> {
        let Some(c) = self.closed.as_mut() else { return Ok(()) };
        let warm = io.req < self.cfg.host.warmup_requests || c.in_ramp(io.stream, io.arrival);
        // Open streams' arrivals do not wait for completions.
        let (flow, think) = match io.stream {
            0 => (0, None),
            s => c.streams.get(s as usize - 1).map_or((0, None), |st| (st.flow, (st.iodepth > 0).then_some(st.think_ns))),
        };
        if !warm {
            if let Some(f) = c.flows.get_mut(flow) {
                f.count(io.write, io.arrival, latency, io.size);
            }
        }
        match think {
            Some(t) => self.q.after(t, Event::Issue(io.stream as u32 - 1)),
            None => Ok(()),
        }
    }

    /// Whether requests are still to arrive, from the workload or a stream.
    pub(super) fn more_to_arrive(&self) -> bool {
        self.host.has_next() || self.closed.as_ref().is_some_and(|c| !c.finished())
    }
}

/// The requests of an open-loop flow: its trace (format detected) or its
/// profile with its overrides; errors name the flow's key.
fn open_source(f: &FlowConfig, i: usize) -> Result<Box<dyn Iterator<Item = Result<Request>> + Send>> {
    if !f.trace.is_empty() {
        let stream = reader::open_trace(std::path::Path::new(&f.trace), &reader::TraceOptions::default())
            .map_err(|e| Error::config(format!("flows[{i}].trace"), e))?;
        return Ok(Box::new(stream));
    }
    let mut sets = Vec::with_capacity(f.profile_set.len());
    for kv in &f.profile_set {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(Error::config(format!("flows[{i}].profile_set"), format!("`{kv}` is not key=value")));
        };
        sets.push((k.trim(), v.trim()));
    }
    let spec = profiles::profile(&f.profile).and_then(|p| profiles::apply_overrides(&p, &sets));
    let spec = spec.map_err(|e| Error::config(format!("flows[{i}].profile"), e))?;
    let gen = crate::workload::generator::Generator::new(&spec).map_err(|e| Error::config(format!("flows[{i}].profile"), e))?;
    Ok(Box::new(gen.map(Ok)))
}

/// The `numjobs` streams of closed-loop flow `i` (`f`) over a logical
/// space of `logical` bytes.
fn job_streams(f: &FlowConfig, i: usize, seed: u64, logical: u64, needs_content: Option<&str>) -> Result<Vec<Stream>> {
    let region = f.region(i, logical)?;
    let writes = f.rw.read_share(f.rwmixread) < 1.0;
    if let Some(scheme) = needs_content.filter(|_| writes) {
        return Err(Error::config(
            format!("flows[{i}].rw"),
            format!("scheme {scheme} deduplicates by content and closed-loop writes carry none; set scheme.dedup.synthetic_content = true"),
        ));
    }
    let ramp_ns = ns(f.ramp_s);
    let stream = |job| Stream {
        flow: i + 1,
        src: Source::Job(JobStream::new(f, region, seed, i, job)),
        issued: 0,
        ios: if f.ios > 0 { f.ios } else { u64::MAX },
        stop_ns: if f.runtime_s > 0.0 { ramp_ns + ns(f.runtime_s) } else { u64::MAX },
        think_ns: (f.think_us * NS_PER_US as f64).round() as u64,
        ramp_ns,
        iodepth: f.iodepth,
        prio: f.priority as u8,
        done: false,
    };
    Ok((0..f.numjobs).map(stream).collect())
}
