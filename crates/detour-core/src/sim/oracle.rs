//! Verify mode's record of what each logical page should hold.
//!
//! Without a write buffer the host's latest write of a page is what the
//! flash holds (or is being programmed with), so one table serves every
//! check. With a buffer the two part: a host write is the page's latest
//! data as soon as it is in DRAM, but the flash keeps the previous version
//! until the flush is planned. A host read must return the former; work
//! that copies flash data (a RAID rebuild, a scheme's migration) the latter,
//! so each is checked against its own table.

use crate::ftl::Chunked;
use crate::types::{Lpn, Token};

pub(super) struct Oracle {
    /// Latest token the host wrote per LPN.
    host: Chunked<Token>,
    /// Latest token planned onto the flash per LPN; only with a write buffer.
    flash: Option<Chunked<Token>>,
}

impl Oracle {
    pub(super) fn new(logical_pages: u32, buffered: bool) -> Oracle {
        let table = || Chunked::new(logical_pages as u64, 0);
        Oracle { host: table(), flash: buffered.then(table) }
    }

    /// What a host read of `lpn` must return.
    #[inline]
    pub(super) fn host(&self, lpn: Lpn) -> Token {
        self.host.get(lpn)
    }

    /// What a copy of `lpn`'s data from the flash must return.
    #[inline]
    pub(super) fn flash(&self, lpn: Lpn) -> Token {
        self.flash.as_ref().unwrap_or(&self.host).get(lpn)
    }

    /// `lpn` now holds `token` on the host's side and on the flash.
    #[inline]
    pub(super) fn written(&mut self, lpn: Lpn, token: Token) {
        self.host.set(lpn, token);
        self.flushed(lpn, token);
    }

    /// The host wrote `token` to `lpn` into the write buffer.
    #[inline]
    pub(super) fn buffered(&mut self, lpn: Lpn, token: Token) {
        self.host.set(lpn, token);
    }

    /// A flush planned `token` onto the flash for `lpn`.
    #[inline]
    pub(super) fn flushed(&mut self, lpn: Lpn, token: Token) {
        if let Some(f) = self.flash.as_mut() {
            f.set(lpn, token);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffered_write_reaches_the_flash_table_only_when_flushed() {
        let mut o = Oracle::new(8, true);
        o.written(3, 11);
        o.buffered(3, 22);
        assert_eq!((o.host(3), o.flash(3)), (22, 11));
        o.flushed(3, 22);
        assert_eq!(o.flash(3), 22);
    }

    #[test]
    fn without_a_buffer_both_checks_read_one_table() {
        let mut o = Oracle::new(8, false);
        o.written(5, 7);
        assert_eq!((o.host(5), o.flash(5)), (7, 7));
    }
}
