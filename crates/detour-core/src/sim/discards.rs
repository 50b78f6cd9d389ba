//! The discards as a part (TRIM, `trim.rs` has the rules): which pages
//! are discarded since their last write, and the summary's counts. Made
//! at the first discard, so a run without any carries none.

use crate::ftl::Chunked;
use crate::metrics::TrimSummary;
use crate::types::Lpn;
use std::ops::Range;

/// One bit per LPN: discarded since its last write (the caller clears
/// the page's placed bit, which a later write sets again); and the counts.
pub(super) struct Discards {
    bits: Chunked<u64>,
    s: TrimSummary,
}

impl Discards {
    pub(super) fn new(logical_pages: u32) -> Discards {
        Discards { bits: Chunked::new((logical_pages as u64).div_ceil(64), 0), s: TrimSummary::default() }
    }

    /// Whether `lpn` was discarded (and, if its placed bit is clear, not
    /// written since).
    #[inline]
    pub(super) fn has(&self, lpn: Lpn) -> bool {
        self.bits.get(lpn >> 6) & (1 << (lpn & 63)) != 0
    }

    /// A discard of `pages` pages arrived (`ignored`: it is dropped).
    pub(super) fn arrived(&mut self, pages: u32, ignored: bool) {
        self.s.requests += 1;
        self.s.pages += pages as u64;
        self.s.ignored += ignored as u64;
    }

    /// Pages `lpns` are discarded now; the scheme unmapped `unmapped`.
    pub(super) fn applied(&mut self, lpns: Range<Lpn>, unmapped: u64) {
        self.s.unmapped_pages += unmapped;
        for lpn in lpns {
            let w = self.bits.get(lpn >> 6);
            self.bits.set(lpn >> 6, w | (1 << (lpn & 63)));
        }
    }

    /// A host read of a discarded page was answered "unwritten".
    pub(super) fn unwritten_read(&mut self) {
        self.s.unwritten_reads += 1;
    }

    pub(super) fn summary(&self) -> TrimSummary {
        self.s.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_counts_what_it_is_told() {
        let mut d = Discards::new(200);
        d.arrived(3, false);
        d.arrived(5, true);
        d.applied(63..66, 2);
        d.unwritten_read();
        assert!(!d.has(62) && d.has(63) && d.has(64) && d.has(65) && !d.has(66));
        let s = d.summary();
        assert_eq!((s.requests, s.pages, s.ignored, s.unmapped_pages, s.unwritten_reads), (2, 8, 1, 2, 1));
    }
}
