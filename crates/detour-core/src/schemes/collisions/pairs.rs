//! Per-die collision-pair lists (the paper's Fig. 5): at most l_R entries in
//! LRU order, each a pair of LPNs that collided (imbalanced) on the die, how
//! often, and per-die slack counters.

use crate::types::Lpn;

pub struct PairEntry {
    pub a: Lpn,
    pub b: Lpn,
    /// Imbalanced collisions of this pair on the list's die (the paper's o).
    pub occurrences: u32,
    /// Per die: collisions of this pair while that die's OCC was at least
    /// two below the list owner's (the paper's slack counters).
    pub slack: Vec<u32>,
}

impl PairEntry {
    pub fn has(&self, lpn: Lpn) -> bool {
        self.a == lpn || self.b == lpn
    }

    /// The die with the largest slack other than `owner`, and its slack.
    /// Ties go to the die with the smallest `tie` value (the read count: the
    /// same benefit at a lower cost), then the lowest id.
    pub fn best_slack(&self, owner: u32, tie: &[u64]) -> Option<(u32, u32)> {
        let mut best: Option<(u32, u32)> = None;
        for (e, &s) in self.slack.iter().enumerate() {
            let better = |(b, bs): (u32, u32)| s > bs || (s == bs && tie[e] < tie[b as usize]);
            if e as u32 != owner && s > 0 && best.is_none_or(better) {
                best = Some((e as u32, s));
            }
        }
        best
    }
}

/// One die's list, most recently updated first.
pub struct PairList {
    entries: Vec<PairEntry>,
    cap: usize,
}

impl PairList {
    pub fn new(cap: u32) -> Self {
        PairList { entries: Vec::with_capacity(cap as usize), cap: cap as usize }
    }

    /// Find (or create, evicting the least recently used) the entry of the
    /// pair {a, b} and move it to the front. None when the list holds nothing (l_R = 0).
    pub fn touch(&mut self, a: Lpn, b: Lpn, dies: usize) -> Option<&mut PairEntry> {
        if self.cap == 0 {
            return None;
        }
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        let i = match self.entries.iter().position(|e| e.a == a && e.b == b) {
            Some(i) => i,
            None if self.entries.len() < self.cap => {
                self.entries.push(PairEntry { a, b, occurrences: 0, slack: vec![0; dies] });
                self.entries.len() - 1
            }
            None => {
                // Reuse the tail's counters rather than allocate.
                let i = self.entries.len() - 1;
                let e = &mut self.entries[i];
                (e.a, e.b, e.occurrences) = (a, b, 0);
                e.slack.iter_mut().for_each(|s| *s = 0);
                i
            }
        };
        self.entries[..=i].rotate_right(1);
        self.entries.first_mut()
    }

    /// Entries of the list that contain `lpn`.
    pub fn appearances(&self, lpn: Lpn) -> usize {
        self.entries.iter().filter(|e| e.has(lpn)).count()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_order_and_eviction() {
        let mut l = PairList::new(2);
        l.touch(1, 2, 4).unwrap().occurrences += 1;
        l.touch(3, 4, 4).unwrap().occurrences += 1;
        // {2,1} is the same pair: moved to the front, counted again.
        assert_eq!(l.touch(2, 1, 4).unwrap().occurrences, 1);
        l.touch(2, 1, 4).unwrap().occurrences += 1;
        // A new pair evicts the least recently used, {3,4}.
        let e = l.touch(5, 6, 4).unwrap();
        assert_eq!((e.a, e.b, e.occurrences), (5, 6, 0));
        assert_eq!(l.len(), 2);
        assert_eq!(l.appearances(1), 1);
        assert_eq!(l.appearances(3), 0);
    }

    #[test]
    fn zero_capacity_tracks_nothing() {
        assert!(PairList::new(0).touch(1, 2, 4).is_none());
    }

    #[test]
    fn best_slack_skips_owner() {
        let e = PairEntry { a: 1, b: 2, occurrences: 13, slack: vec![20, 10, 10, 3] };
        assert_eq!(e.best_slack(0, &[0; 4]), Some((1, 10)));
        // Equal slack: the die with fewer reads.
        assert_eq!(e.best_slack(0, &[0, 5, 4, 0]), Some((2, 10)));
        assert_eq!(PairEntry { slack: vec![0, 0], ..e }.best_slack(0, &[0; 2]), None);
    }
}
