//! CA-SSD's mapping unit (RR-SSD paper Fig. 8b): the primary table LPN ->
//! VPN, the secondary table VPN -> physical copies with a reference count,
//! and the fingerprint store content -> VPN.
//!
//! A VPN's flash pages carry the VPN as their FTL owner id, so a GC move
//! finds its entry directly. `copies[0]` is the original; the rest are
//! replicas. A VPN's pages stay live exactly while some LPN points to it.

use crate::ftl::{Chunked, Ftl};
use crate::types::{Lpn, Ppn, Token, NO_PAGE};
use std::collections::HashMap;

/// No VPN (an LPN that holds no data yet).
pub const NO_VPN: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub struct Vpn {
    pub token: Token,
    /// LPNs mapped to this VPN; 0 = the entry is free.
    pub refs: u32,
    /// Physical pages holding the value: the original first, then replicas.
    pub copies: Vec<Ppn>,
    /// Saturating read counter of the current period (the paper's VPC).
    pub vpc: u16,
    /// PBLRU: reads of this page that found its die busy.
    pub blocked: u32,
}

#[derive(Default)]
pub struct Tables {
    /// Primary table: LPN -> VPN.
    lpn: Option<Chunked<u32>>,
    /// Secondary table, indexed by VPN.
    pub vpns: Vec<Vpn>,
    free: Vec<u32>,
    /// Fingerprint store: content -> VPN. Only looked up, never iterated,
    /// so its hash order cannot leak into results.
    fp: HashMap<Token, u32>,
    /// LPNs that hold data, VPNs in use and replica pages (live counts).
    pub mapped_lpns: u64,
    pub live_vpns: u64,
    pub replicas: u64,
}

impl Tables {
    pub fn new(logical_pages: u32) -> Tables {
        Tables { lpn: Some(Chunked::new(logical_pages as u64, NO_VPN)), ..Tables::default() }
    }

    #[inline]
    pub fn vpn_of(&self, lpn: Lpn) -> u32 {
        self.lpn.as_ref().map_or(NO_VPN, |m| m.get(lpn))
    }

    fn set_lpn(&mut self, lpn: Lpn, v: u32) {
        if let Some(m) = self.lpn.as_mut() {
            m.set(lpn, v);
        }
    }

    /// The VPN holding `token`, if the value is stored.
    pub fn lookup(&self, token: Token) -> Option<u32> {
        self.fp.get(&token).copied()
    }

    /// The id the next `create` will use (the FTL owner of its page).
    pub fn next_id(&self) -> u32 {
        self.free.last().copied().unwrap_or(self.vpns.len() as u32)
    }

    /// A new VPN for `token` stored at `ppn`, with no references yet.
    pub fn create(&mut self, token: Token, ppn: Ppn) -> u32 {
        let v = match self.free.pop() {
            Some(v) => v,
            None => {
                self.vpns.push(Vpn::default());
                (self.vpns.len() - 1) as u32
            }
        };
        self.vpns[v as usize] = Vpn { token, refs: 0, copies: vec![ppn], vpc: 0, blocked: 0 };
        self.fp.insert(token, v);
        self.live_vpns += 1;
        v
    }

    /// Point `lpn` at `v` and drop its reference to the VPN it had.
    pub fn map(&mut self, lpn: Lpn, v: u32, ftl: &mut Ftl) {
        let old = self.vpn_of(lpn);
        if old == v {
            return;
        }
        self.vpns[v as usize].refs += 1;
        self.set_lpn(lpn, v);
        if old == NO_VPN {
            self.mapped_lpns += 1;
        } else {
            self.release(old, ftl);
        }
    }

    /// One LPN less points to `v`; with none left its pages are reclaimable.
    fn release(&mut self, v: u32, ftl: &mut Ftl) {
        let e = &mut self.vpns[v as usize];
        e.refs -= 1;
        if e.refs > 0 {
            return;
        }
        for &ppn in &e.copies {
            ftl.invalidate(ppn);
        }
        self.replicas -= e.copies.len().saturating_sub(1) as u64;
        e.copies.clear();
        let token = e.token;
        // Without deduplication a later value with the same content holds
        // the entry; it stays.
        if self.fp.get(&token) == Some(&v) {
            self.fp.remove(&token);
        }
        self.free.push(v);
        self.live_vpns -= 1;
    }

    /// Add a replica page to `v`.
    pub fn add_copy(&mut self, v: u32, ppn: Ppn) {
        self.vpns[v as usize].copies.push(ppn);
        self.replicas += 1;
    }

    /// Drop `v`'s newest replica (never the original); its page is invalidated.
    pub fn drop_copy(&mut self, v: u32, ftl: &mut Ftl) -> bool {
        let e = &mut self.vpns[v as usize];
        if e.copies.len() < 2 {
            return false;
        }
        let ppn = e.copies.pop().unwrap_or(NO_PAGE);
        ftl.invalidate(ppn);
        self.replicas -= 1;
        true
    }

    /// GC moved one of `v`'s pages.
    pub fn moved(&mut self, v: u32, from: Ppn, to: Ppn) {
        if let Some(c) = self.vpns.get_mut(v as usize).and_then(|e| e.copies.iter_mut().find(|c| **c == from)) {
            *c = to;
        }
    }

    /// Pages deduplication saved: LPNs with data minus distinct values stored.
    pub fn saved(&self) -> u64 {
        self.mapped_lpns.saturating_sub(self.live_vpns)
    }

    /// VPN ids in use, in id order.
    pub fn live_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.vpns.iter().enumerate().filter(|(_, e)| e.refs > 0).map(|(i, _)| i as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::device::Geometry;
    use crate::ftl::Stream;
    use crate::types::Owner;

    fn ftl() -> Ftl {
        let cfg = Config::preset("small").unwrap();
        Ftl::new(&cfg.ftl, &cfg.nand, cfg.run.seed, &Geometry::from_config(&cfg.device).unwrap(), false).unwrap()
    }

    #[test]
    fn shared_value_lives_until_its_last_lpn_moves_away() {
        let mut f = ftl();
        let mut t = Tables::new(1000);
        let ppn = f.alloc(0, Stream::Host, Owner::id(t.next_id())).unwrap();
        let v = t.create(7, ppn);
        f.program_done(ppn, 7);
        t.map(1, v, &mut f);
        t.map(2, v, &mut f);
        assert_eq!((t.mapped_lpns, t.live_vpns, t.saved()), (2, 1, 1));
        let q = f.alloc(0, Stream::Host, Owner::id(t.next_id())).unwrap();
        let w = t.create(8, q);
        t.map(1, w, &mut f);
        assert!(f.is_live(ppn), "LPN 2 still points at the value");
        t.map(2, w, &mut f);
        assert!(!f.is_live(ppn));
        assert_eq!(t.lookup(7), None);
        assert_eq!(t.next_id(), v, "the freed VPN id is reused");
    }
}
