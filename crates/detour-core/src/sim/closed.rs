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
//!
//! The streams and figures are the part's own (`flows::ClosedLoop`); the
//! methods below join it to the event loop.

use super::txn::HostIo;
use super::Simulation;
use crate::engine::Event;
use crate::error::{Error, Result};

impl Simulation {
    /// Post every closed stream's first `iodepth` issues (at the current
    /// time) and every open stream's first arrival.
    pub(super) fn start_closed(&mut self) -> Result<()> {
        let Some(c) = self.closed.as_ref() else { return Ok(()) };
        let depths = c.iodepths();
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
        let Some(super::flows::Issue { req: r, ramp, open, flow }) = c.issue(s as usize, now) else {
            if c.finished() && !self.host.has_next() {
                self.drain_buffer()?;
            }
            return Ok(());
        };
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
        match c.completed(io, latency, self.cfg.host.warmup_requests) {
            Some(think) => self.q.after(think, Event::Issue(io.stream as u32 - 1)),
            None => Ok(()),
        }
    }

    /// Whether requests are still to arrive, from the workload or a stream.
    pub(super) fn more_to_arrive(&self) -> bool {
        self.host.has_next() || self.closed.as_ref().is_some_and(|c| !c.finished())
    }
}
