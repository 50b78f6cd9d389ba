//! Reading a workload ahead of the simulation, on a thread of its own.
//!
//! Parsing a text trace costs about a fifth of a run; on a machine with a
//! second core it can happen there, in batches, while the simulation runs.
//! The requests, and an error if the source gives one, arrive in the
//! source's order, so a run reads exactly what it would read inline. A
//! bounded channel keeps a few batches ahead at most: memory stays flat.

use super::Request;
use crate::error::{Error, Result};
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

/// Requests per batch sent from the reading thread.
const BATCH: usize = 1024;
/// Batches the reader may be ahead.
const AHEAD: usize = 4;

/// An iterator over a source read on another thread.
pub struct ReadAhead<S> {
    rx: Option<Receiver<Vec<Result<Request>>>>,
    cur: std::vec::IntoIter<Result<Request>>,
    worker: Option<JoinHandle<S>>,
}

impl<S: Iterator<Item = Result<Request>> + Send + 'static> ReadAhead<S> {
    /// Start reading `source` on a new thread.
    pub fn spawn(mut source: S) -> Result<ReadAhead<S>> {
        let (tx, rx) = sync_channel::<Vec<Result<Request>>>(AHEAD);
        let worker = std::thread::Builder::new()
            .name("detour-reader".into())
            .spawn(move || {
                loop {
                    let mut batch = Vec::with_capacity(BATCH);
                    let mut end = false;
                    while batch.len() < BATCH && !end {
                        match source.next() {
                            Some(r) => {
                                end = r.is_err();
                                batch.push(r);
                            }
                            None => end = true,
                        }
                    }
                    // A closed channel: the run stopped early; so does reading.
                    if (!batch.is_empty() && tx.send(batch).is_err()) || end {
                        return source;
                    }
                }
            })
            .map_err(|e| Error::io("<the thread that reads the workload>", e))?;
        Ok(ReadAhead { rx: Some(rx), cur: Vec::new().into_iter(), worker: Some(worker) })
    }

    /// Stop reading and give the source back (for what it counted).
    pub fn finish(mut self) -> Option<S> {
        self.rx = None;
        self.worker.take().and_then(|w| w.join().ok())
    }
}

impl<S> Iterator for ReadAhead<S> {
    type Item = Result<Request>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.cur.next() {
                return Some(r);
            }
            let batch = self.rx.as_ref()?.recv().ok()?;
            self.cur = batch.into_iter();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::IoKind;

    fn req(i: u64) -> Request {
        Request { time_ns: i, offset: i * 4096, size: 4096, kind: IoKind::Read, content: 0, volume: 0, line: i + 1 }
    }

    #[test]
    fn yields_the_source_in_order_and_gives_it_back() {
        let n = 3 * BATCH as u64 + 17;
        let mut ahead = ReadAhead::spawn((0..n).map(|i| Ok(req(i)))).unwrap();
        let got: Vec<u64> = ahead.by_ref().map(|r| r.unwrap().time_ns).collect();
        assert_eq!(got, (0..n).collect::<Vec<_>>());
        assert!(ahead.finish().is_some());
    }

    #[test]
    fn stops_at_the_first_error() {
        let src = (0..10_000u64).map(|i| if i == 5000 { Err(Error::Sim("bad line".into())) } else { Ok(req(i)) });
        let ahead = ReadAhead::spawn(src).unwrap();
        let items: Vec<_> = ahead.collect();
        assert_eq!(items.len(), 5001);
        assert!(items[5000].is_err());
    }

    #[test]
    fn a_consumer_that_stops_early_stops_the_reader() {
        let mut ahead = ReadAhead::spawn((0..10_000_000u64).map(|i| Ok(req(i)))).unwrap();
        assert_eq!(ahead.next().unwrap().unwrap().time_ns, 0);
        // Returns (rather than reading ten million requests ahead).
        assert!(ahead.finish().is_some());
    }
}
