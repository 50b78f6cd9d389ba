//! Discards (TRIM): the host says a range's data is no longer needed.
//!
//! The rules (docs/nand.md, TRIM):
//! - a discard is applied when it is admitted, in arrival order (behind the
//!   queue-depth limit like any request), and takes no device time: it is
//!   a map update in controller DRAM. It is not a request of the latency
//!   statistics or of requests.parquet; `trim` in the summary counts it;
//! - the scheme drops the pages' mappings (`Scheme::discard`), so their
//!   flash pages are stale and GC moves none of them. A scheme that keeps
//!   other per-page state it cannot drop refuses, and the run stops naming
//!   it (`trim.discards = "ignore"` drops discards instead);
//! - a read of a discarded page is answered "unwritten" (zeros, as an NVMe
//!   drive with deterministic read-zero-after-TRIM does) from the map,
//!   costing `ftl.buffer_read_ns` like any DRAM answer, with no flash read;
//!   verify mode expects exactly that (token 0). A later write makes the
//!   page an ordinary one again.
//!
//! Not modelled, so refused with a clear error rather than run wrong: a
//! discard of pages the write buffer holds (its flush would bring the data
//! back), and discards with the cached mapping table (`ftl.mapping =
//! "cmt"`: the translation pages it would dirty are not tracked).
//!
//! The discarded pages and the counts are the part's own
//! (`discards::Discards`); the methods below join it to the scheme, the
//! placed-page bitmap and the oracle.

use super::discards::Discards;
use super::txn::HostIo;
use super::{is_placed, Simulation};
use crate::config::DiscardMode;
use crate::error::{Error, Result};
use crate::types::Lpn;

impl Simulation {
    /// A discard arrives: count it, then apply it now or queue it behind
    /// the queue-depth limit (or drop it, `trim.discards = "ignore"`).
    pub(super) fn enter_discard(&mut self, io: HostIo) -> Result<()> {
        let logical = self.geo.logical_pages;
        let t = self.trim.get_or_insert_with(|| Box::new(Discards::new(logical)));
        let ignore = self.cfg.trim.discards == DiscardMode::Ignore;
        t.arrived(io.pages, ignore);
        if ignore {
            return Ok(());
        }
        if self.host.full(true) {
            self.host.wait(io);
            return Ok(());
        }
        self.apply_discard(io)
    }

    /// Unmap the discard's pages through the scheme and mark them discarded.
    pub(super) fn apply_discard(&mut self, io: HostIo) -> Result<()> {
        let lpns = io.lpn..io.lpn + io.pages;
        self.check_discardable(lpns.clone())?;
        let name = self.cfg.scheme.name.clone();
        let unmapped = self.with_ctx(|s, ctx| s.discard(lpns.clone(), ctx)).map_err(|why| {
            Error::config(
                "trim.discards",
                format!("the workload discards (TRIM) pages, and scheme `{name}` does not model discards: {why}; set trim.discards = \"ignore\" to drop them"),
            )
        })?;
        let t = self.trim.as_mut().expect("counted on arrival");
        t.applied(lpns.clone(), unmapped);
        for lpn in lpns.clone() {
            let w = self.placed.get(lpn >> 6);
            self.placed.set(lpn >> 6, w & !(1 << (lpn & 63)));
            if let Some(o) = self.oracle.as_mut() {
                o.written(lpn, 0);
            }
        }
        self.cache_forget(lpns);
        Ok(())
    }

    /// Refuse what is not modelled (see the module docs).
    fn check_discardable(&self, lpns: std::ops::Range<Lpn>) -> Result<()> {
        if !self.ftl.mapping.is_dram() {
            return Err(Error::config("trim.discards", "discards with the cached mapping table (ftl.mapping = \"cmt\") are not modelled; use the DRAM map or set trim.discards = \"ignore\"".to_string()));
        }
        if self.buffered_any(lpns.clone()) {
            return Err(Error::config(
                "trim.discards",
                format!("a discard of pages {}..{} that the write buffer holds is not modelled (its flush would bring the data back); run without the write buffer or set trim.discards = \"ignore\"", lpns.start, lpns.end),
            ));
        }
        Ok(())
    }

    /// Whether `lpn` is discarded now (not written since).
    #[inline]
    pub(super) fn is_discarded(&self, lpn: Lpn) -> bool {
        self.trim.as_ref().is_some_and(|t| t.has(lpn)) && !is_placed(&self.placed, lpn)
    }

    /// A host read of `lpn`: if discarded, answer "unwritten" (true; the
    /// caller charges the DRAM answer), checked in verify mode.
    pub(super) fn read_discarded(&mut self, lpn: Lpn) -> bool {
        if !self.is_discarded(lpn) {
            return false;
        }
        if let Some(t) = self.trim.as_mut() {
            t.unwritten_read();
        }
        self.check_buffered(lpn, 0);
        true
    }

    /// Admit queued requests into the slot a completion freed: a discard
    /// takes none, so the one after it is admitted too.
    pub(super) fn admit_queued(&mut self) -> Result<()> {
        while let Some(next) = self.host.next_queued(self.q.now()) {
            let discard = next.discard;
            self.admit(next)?;
            if !discard {
                break;
            }
        }
        Ok(())
    }
}
