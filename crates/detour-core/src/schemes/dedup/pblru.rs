//! PBLRU (He, Yu and Zhou, TPDS 2015) on top of CA-SSD, as the RR-SSD
//! paper compares it (Sec. IV-B3): physical pages, not values, are
//! replicated on-line by their temporal locality, in a fixed space.
//!
//! How it is read here (the TPDS paper itself is not available; see
//! docs/schemes/rr-ssd.md): every stored page (VPN) keeps a blocking count,
//! the reads that found its die busy (outstanding commands > 0). A blocked
//! read of a page with at least `pblru_min_blocked` blocked reads and no
//! replica makes one replica, in the background, on the least-loaded chip
//! that does not hold it. Replicas sit in a priority-based LRU: priority =
//! floor(log2(blocking count)); when the space (the same budget as RR-SSD:
//! the space deduplication saved plus alpha%) is full, the least recently
//! read replica of the lowest priority is evicted, if that priority is not
//! above the newcomer's. Reads go to the least-loaded copy.

use super::periods::Periods;
use super::tables::Tables;
use super::{budget_pages, chips_holding, copy_to_chip, plane_on_chip, room_for_copy};
use super::config::DedupConfig;
use crate::schemes::Ctx;
use crate::types::Ppn;
use std::collections::{BTreeMap, BTreeSet};

pub struct Pblru {
    pub alpha: f64,
    min_blocked: u32,
    /// Replicated VPN -> (priority, last read stamp).
    entries: BTreeMap<u32, (u8, u64)>,
    /// LRU order: (priority, stamp, VPN), evict from the front.
    order: BTreeSet<(u8, u64, u32)>,
    stamp: u64,
    blocked: u64,
    made: u64,
    evicted: u64,
}

fn priority(blocked: u32) -> u8 {
    (31 - blocked.max(1).leading_zeros()) as u8
}

impl Pblru {
    pub fn new(r: &DedupConfig) -> Pblru {
        Pblru {
            alpha: r.alpha_pct,
            min_blocked: r.pblru_min_blocked,
            entries: BTreeMap::new(),
            order: BTreeSet::new(),
            stamp: 0,
            blocked: 0,
            made: 0,
            evicted: 0,
        }
    }

    /// A read of `v` planned at `ppn`.
    pub fn on_read(&mut self, v: u32, ppn: Ppn, t: &mut Tables, ctx: &mut Ctx, periods: &mut Periods) {
        self.stamp += 1;
        let busy = ctx.load.occ(ctx.geo.die_of(ppn)) > 0;
        let e = &mut t.vpns[v as usize];
        if busy {
            e.blocked = e.blocked.saturating_add(1);
            self.blocked += 1;
        }
        let prio = priority(e.blocked);
        if e.copies.len() > 1 {
            self.touch(v, prio);
            return;
        }
        if !busy || e.blocked < self.min_blocked {
            return;
        }
        if !self.make_room(prio, t, ctx) || !room_for_copy(t, ctx.geo) {
            return;
        }
        let Some(chip) = least_loaded_free_chip(v, t, ctx) else { return };
        if copy_to_chip(t, v, chip, false, ctx) {
            self.touch(v, prio);
            self.made += 1;
            periods.cur.copies_made += 1;
        }
    }

    fn touch(&mut self, v: u32, prio: u8) {
        if let Some((p, s)) = self.entries.insert(v, (prio, self.stamp)) {
            self.order.remove(&(p, s, v));
        }
        self.order.insert((prio, self.stamp, v));
    }

    /// Free a slot for a page of priority `prio`; false if the space is full
    /// of pages that outrank it.
    fn make_room(&mut self, prio: u8, t: &mut Tables, ctx: &mut Ctx) -> bool {
        while t.replicas >= budget_pages(t, self.alpha) {
            let Some(&(p, s, v)) = self.order.first() else { return false };
            // An entry whose value was overwritten away lost its replica already.
            let stale = t.vpns.get(v as usize).is_none_or(|e| e.copies.len() < 2);
            if !stale && p > prio {
                return false;
            }
            self.order.remove(&(p, s, v));
            self.entries.remove(&v);
            if !stale && t.drop_copy(v, ctx.ftl) {
                self.evicted += 1;
            }
        }
        true
    }

    pub fn counters(&self, written: u64, c: &mut Vec<(&'static str, f64)>) {
        c.extend([
            ("pblru.blocked_reads", self.blocked as f64),
            ("pblru.copies_made", self.made as f64),
            ("pblru.evicted", self.evicted as f64),
            ("pblru.replication_write_ratio", self.made as f64 / (written + self.made).max(1) as f64),
        ]);
    }
}

/// The least-loaded chip (outstanding commands) that can take a copy of `v`.
fn least_loaded_free_chip(v: u32, t: &Tables, ctx: &Ctx) -> Option<u32> {
    let held = chips_holding(t, v, ctx.geo);
    (0..ctx.geo.chips())
        .filter(|&c| !held[c as usize] && plane_on_chip(c, ctx).is_some())
        .min_by_key(|&c| (ctx.load.chip_occ(c), c))
}

#[cfg(test)]
mod tests {
    #[test]
    fn priority_is_log2_of_the_blocking_count() {
        assert_eq!([1, 2, 3, 4, 8, 9].map(super::priority), [0, 1, 1, 2, 3, 3]);
    }
}
