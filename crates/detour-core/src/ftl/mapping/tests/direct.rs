//! `ftl.mapping = "direct"`: a direct-mapped table of `ftl.cmt_size_kib`:
//! translation page t may only be held in slot t mod the slot count.
//!
//! Why: a controller's cheapest cache (no LRU list to keep), a foil for
//! `cmt`: its hit ratio falls on pages that share a slot.

use super::{Access, Cache, Variant};

pub(super) const ENTRY: Variant = Variant {
    name: "direct",
    about: "a direct-mapped table of ftl.cmt_size_kib: translation page t only in slot t mod its size",
    check: |_cfg, _geo| Ok(()),
    build: |cfg, geo, _pages| {
        let slots = (cfg.cmt_size_kib * 1024 / geo.page_size as u64).max(1);
        Some(Box::new(Direct { slots: vec![EMPTY; slots as usize] }))
    },
};

/// A slot's (translation page, dirty).
const EMPTY: (u32, bool) = (u32::MAX, false);

struct Direct {
    slots: Vec<(u32, bool)>,
}

impl Cache for Direct {
    fn access(&mut self, tvpn: u32, write: bool) -> Access {
        let n = self.slots.len();
        let slot = &mut self.slots[tvpn as usize % n];
        let hit = slot.0 == tvpn;
        let write_back = (!hit && slot.1).then_some(slot.0);
        if !hit {
            *slot = (tvpn, false);
        }
        slot.1 |= write;
        Access { hit, write_back }
    }

    fn capacity(&self) -> u64 {
        self.slots.len() as u64
    }
}
