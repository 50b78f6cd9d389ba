//! The closed-loop flows as a part (`[[flows]]`, config/flows.rs): each
//! flow's streams (a fio job's `numjobs`, or an open-loop trace or
//! profile), what each may still issue, and every flow's figures.
//! `closed.rs` joins it to the event loop (the rules are there).

use super::txn::HostIo;
use crate::config::FlowConfig;
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

/// A request a stream issues: whether it falls in its flow's ramp, comes
/// from an open-loop stream, and its flow (1 + its `[[flows]]` index).
pub(super) struct Issue {
    pub req: Request,
    pub ramp: bool,
    pub open: bool,
    pub flow: usize,
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

    /// Each stream's `iodepth` (0: an open-loop stream), in stream order.
    pub fn iodepths(&self) -> Vec<u32> {
        self.streams.iter().map(|s| s.iodepth).collect()
    }

    /// Stream `s` issues its next request at `now`, if its limit allows.
    pub fn issue(&mut self, s: usize, now: u64) -> Option<Issue> {
        let req = self.next(s, now)?;
        let st = &self.streams[s];
        Some(Issue { req, ramp: st.ramp_ns > now, open: st.iodepth == 0, flow: st.flow })
    }

    /// A request of `io.stream` completed with `latency`: count it for its
    /// flow unless it is warm-up (among the first `warmup` requests, or in
    /// its flow's ramp). Some(think time) when a closed stream's slot is to
    /// be refilled.
    #[inline]
    pub fn completed(&mut self, io: &HostIo, latency: u64, warmup: u64) -> Option<u64> {
        let warm = io.req < warmup || self.in_ramp(io.stream, io.arrival);
        // Open streams' arrivals do not wait for completions.
        let (flow, think) = match io.stream {
            0 => (0, None),
            s => self.streams.get(s as usize - 1).map_or((0, None), |st| (st.flow, (st.iodepth > 0).then_some(st.think_ns))),
        };
        if !warm {
            if let Some(f) = self.flows.get_mut(flow) {
                f.count(io.write, io.arrival, latency, io.size);
            }
        }
        think
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
    pub fn read_ahead(&mut self, s: usize, scale: f64) -> Result<Option<u64>> {
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
