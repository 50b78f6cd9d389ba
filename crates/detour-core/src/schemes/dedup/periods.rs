//! Per-period statistics of the deduplicating schemes: how many reads hit
//! values replicated at the previous period's end ("Rep") and values read
//! for the first time ever ("New"), as in the lower charts of the paper's
//! Fig. 9, plus each period's replication work.

use crate::types::Token;
use std::collections::{BTreeMap, HashSet};

#[derive(Clone, Debug, Default)]
pub struct Period {
    pub reads: u64,
    /// Reads of a value that had at least one replica when read.
    pub rep_reads: u64,
    /// Reads of a value never read before in the run.
    pub new_reads: u64,
    /// Reads served by a replica (not the original page).
    pub replica_reads: u64,
    pub written: u64,
    pub dedup_hits: u64,
    pub copies_made: u64,
    pub copies_dropped: u64,
    /// Replication budget at the period's end, pages.
    pub budget: u64,
    /// Replica pages alive at the period's end.
    pub replicas: u64,
    /// Distinct values stored at the period's end.
    pub values: u64,
}

#[derive(Default)]
pub struct Periods {
    pub cur: Period,
    done: Vec<Period>,
    /// Every value read so far (for "New"); grows with distinct read values.
    seen: HashSet<Token>,
}

impl Periods {
    /// Count one read of `token`; `replicated` = the value had a replica.
    pub fn read(&mut self, token: Token, replicated: bool, from_replica: bool) {
        let c = &mut self.cur;
        c.reads += 1;
        c.rep_reads += replicated as u64;
        c.replica_reads += from_replica as u64;
        c.new_reads += self.seen.insert(token) as u64;
    }

    /// Close the current period.
    pub fn close(&mut self, budget: u64, replicas: u64, values: u64) {
        let mut p = std::mem::take(&mut self.cur);
        (p.budget, p.replicas, p.values) = (budget, replicas, values);
        self.done.push(p);
    }

    /// One row per period (the last one possibly partial), for the summary.
    pub fn rows(&self) -> Vec<BTreeMap<String, f64>> {
        let partial = (self.cur.reads + self.cur.written > 0).then_some(&self.cur);
        self.done.iter().chain(partial).enumerate().map(|(i, p)| row(i, p)).collect()
    }
}

fn share(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn row(i: usize, p: &Period) -> BTreeMap<String, f64> {
    let pairs = [
        ("period", i as f64),
        ("reads", p.reads as f64),
        ("rep_share", share(p.rep_reads, p.reads)),
        ("new_share", share(p.new_reads, p.reads)),
        ("replica_read_share", share(p.replica_reads, p.reads)),
        ("written_pages", p.written as f64),
        ("dedup_hits", p.dedup_hits as f64),
        ("copies_made", p.copies_made as f64),
        ("copies_dropped", p.copies_dropped as f64),
        ("budget_pages", p.budget as f64),
        ("replicas", p.replicas as f64),
        ("values", p.values as f64),
    ];
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
