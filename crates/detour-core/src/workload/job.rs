//! The requests of one closed-loop stream (one fio job of a `[[flows]]`
//! entry), without times: the simulation issues each when a slot of the
//! stream's queue depth frees up (`sim/closed.rs`).
//!
//! Deterministic: a stream's draws come from its own ChaCha8 generator,
//! seeded from the run's seed, the flow's position and the job's number,
//! so adding a flow does not move another flow's addresses.

use crate::config::FlowConfig;
use crate::types::{mix64, IoKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One request of a stream: direction, byte offset and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobIo {
    pub kind: IoKind,
    pub offset: u64,
    pub size: u32,
}

/// Draws the requests of one stream.
#[derive(Debug)]
pub struct JobStream {
    rng: ChaCha8Rng,
    read_share: f64,
    random: bool,
    bs: u64,
    start: u64,
    blocks: u64,
    /// Next block of a sequential walk (wraps at the region's end, as fio
    /// does when it runs on time).
    cursor: u64,
}

impl JobStream {
    /// Stream `job` of flow `flow` over `blocks` blocks of `bs` from byte
    /// `start` (see `FlowConfig::region`).
    pub fn new(f: &FlowConfig, (start, blocks): (u64, u64), seed: u64, flow: usize, job: u32) -> JobStream {
        let key = mix64(seed ^ mix64(((flow as u64) << 32) | job as u64 | 0x5EED_0000_0000_0000));
        JobStream {
            rng: ChaCha8Rng::seed_from_u64(key),
            read_share: f.rw.read_share(f.rwmixread),
            random: f.rw.random(),
            bs: f.bs as u64,
            start,
            blocks: blocks.max(1),
            cursor: 0,
        }
    }

    /// The stream's next request.
    pub fn next_io(&mut self) -> JobIo {
        // Pure read or write streams draw no direction, so a randread
        // flow's addresses do not depend on how the mix is drawn.
        let read = match self.read_share {
            s if s >= 1.0 => true,
            s if s <= 0.0 => false,
            s => self.rng.random::<f64>() < s,
        };
        let block = if self.random {
            self.rng.random_range(0..self.blocks)
        } else {
            let b = self.cursor;
            self.cursor = (b + 1) % self.blocks;
            b
        };
        JobIo { kind: if read { IoKind::Read } else { IoKind::Write }, offset: self.start + block * self.bs, size: self.bs as u32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RwMode;

    fn flow(rw: RwMode, mix: f64) -> FlowConfig {
        FlowConfig { rw, rwmixread: mix, ios: 1, ..FlowConfig::default() }
    }

    #[test]
    fn sequential_streams_walk_and_wrap() {
        let mut s = JobStream::new(&flow(RwMode::Read, 50.0), (8192, 3), 1, 0, 0);
        let offs: Vec<u64> = (0..4).map(|_| s.next_io().offset).collect();
        assert_eq!(offs, [8192, 12288, 16384, 8192]);
    }

    #[test]
    fn the_mix_and_the_range_hold_and_seeds_separate_streams() {
        let mut s = JobStream::new(&flow(RwMode::RandRw, 70.0), (0, 1000), 7, 0, 0);
        let ios: Vec<JobIo> = (0..20_000).map(|_| s.next_io()).collect();
        let reads = ios.iter().filter(|io| io.kind == IoKind::Read).count() as f64 / ios.len() as f64;
        assert!((reads - 0.7).abs() < 0.015, "{reads}");
        assert!(ios.iter().all(|io| io.offset % 4096 == 0 && io.offset < 1000 * 4096));
        let again: Vec<JobIo> = {
            let mut s = JobStream::new(&flow(RwMode::RandRw, 70.0), (0, 1000), 7, 0, 0);
            (0..100).map(|_| s.next_io()).collect()
        };
        assert_eq!(again[..], ios[..100], "same seed, same requests");
        let mut other = JobStream::new(&flow(RwMode::RandRw, 70.0), (0, 1000), 7, 0, 1);
        assert_ne!((0..100).map(|_| other.next_io()).collect::<Vec<_>>(), again, "another job, other requests");
    }
}
