//! The replication map (the paper's Fig. 6): for each replicated LPN its
//! replica page and the replication-to-original counter, in LRU order of
//! reads, at most l_M entries.

use crate::types::{Lpn, Ppn};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Copy, Debug)]
pub struct Replica {
    pub ppn: Ppn,
    /// +1 for each read served by the replica, -1 for each by the original.
    pub counter: i64,
    stamp: u64,
}

#[derive(Default)]
pub struct ReplicaMap {
    entries: HashMap<Lpn, Replica>,
    /// Replica page -> LPN: tells this layer's pages from the inner scheme's.
    by_ppn: HashMap<Ppn, Lpn>,
    /// stamp -> LPN, least recently used first.
    lru: BTreeMap<u64, Lpn>,
    stamp: u64,
}

impl ReplicaMap {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn get(&self, lpn: Lpn) -> Option<&Replica> {
        self.entries.get(&lpn)
    }

    pub fn insert(&mut self, lpn: Lpn, ppn: Ppn) {
        self.remove(lpn);
        self.stamp += 1;
        self.lru.insert(self.stamp, lpn);
        self.by_ppn.insert(ppn, lpn);
        self.entries.insert(lpn, Replica { ppn, counter: 0, stamp: self.stamp });
    }

    /// `ppn` is a replica page of this map.
    #[cfg(test)]
    pub fn owns(&self, ppn: Ppn) -> bool {
        self.by_ppn.contains_key(&ppn)
    }

    /// A read of `lpn` went to the replica (`to_replica`) or the original:
    /// count it and make the entry the most recently used.
    pub fn read(&mut self, lpn: Lpn, to_replica: bool) {
        self.stamp += 1;
        let stamp = self.stamp;
        if let Some(e) = self.entries.get_mut(&lpn) {
            e.counter += if to_replica { 1 } else { -1 };
            self.lru.remove(&e.stamp);
            self.lru.insert(stamp, lpn);
            e.stamp = stamp;
        }
    }

    pub fn remove(&mut self, lpn: Lpn) -> Option<Replica> {
        let e = self.entries.remove(&lpn)?;
        self.lru.remove(&e.stamp);
        self.by_ppn.remove(&e.ppn);
        Some(e)
    }

    /// Remove and return the least recently used entry.
    pub fn pop_lru(&mut self) -> Option<(Lpn, Replica)> {
        let lpn = *self.lru.first_key_value()?.1;
        self.remove(lpn).map(|e| (lpn, e))
    }

    /// GC moved a replica page from `from` to `to`; false if `from` is not one.
    pub fn moved(&mut self, from: Ppn, to: Ppn) -> bool {
        let Some(lpn) = self.by_ppn.remove(&from) else { return false };
        self.by_ppn.insert(to, lpn);
        if let Some(e) = self.entries.get_mut(&lpn) {
            e.ppn = to;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_follows_reads_and_counter_counts() {
        let mut m = ReplicaMap::default();
        m.insert(1, 100);
        m.insert(2, 200);
        m.read(1, true);
        m.read(1, true);
        m.read(1, false);
        let (lpn, e) = m.pop_lru().unwrap();
        assert_eq!((lpn, e.ppn), (2, 200));
        assert_eq!(m.get(1).unwrap().counter, 1);
        assert!(m.owns(100) && !m.owns(200));
        assert!(m.moved(100, 101) && !m.moved(100, 102));
        assert!(m.owns(101) && !m.owns(100));
        assert_eq!(m.remove(1).unwrap().ppn, 101);
        assert_eq!(m.len(), 0);
        assert!(!m.owns(101));
    }
}
