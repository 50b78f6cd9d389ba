//! Cache hints: the host reads requests ahead of their arrival and asks the
//! CPU to fetch the table entries their planning will touch, so the random
//! accesses of the map, page states and blocks overlap with other work
//! instead of stalling it. Hints only: nothing here changes state, and an
//! address out of range reads nothing.

use super::{chunked::prefetch, Ftl};
use crate::types::{Lpn, NO_PAGE};
use std::ops::Range;

impl Ftl {
    /// Planning `lpns` later: their map entries (the first step).
    #[inline]
    pub fn prefetch_map(&self, lpns: Range<u32>) {
        if lpns.end <= self.geo.logical_pages && !lpns.is_empty() {
            self.map.prefetch(lpns.start);
            self.map.prefetch(lpns.end - 1);
        }
    }

    /// Planning `lpn` soon (after the first step): the state and block of
    /// the page it maps to.
    #[inline]
    pub fn prefetch_mapped(&self, lpn: Lpn) {
        if lpn < self.geo.logical_pages {
            let ppn = self.map.get(lpn);
            if ppn != NO_PAGE {
                self.state.prefetch(ppn);
                prefetch(self.blocks.as_ptr().wrapping_add(self.geo.block_of(ppn) as usize));
            }
        }
    }
}
