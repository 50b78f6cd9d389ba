//! Tables indexed by page number whose memory follows the pages touched, not
//! the device's nominal size.
//!
//! Storage is one zeroed allocation (calloc): the operating system maps its
//! memory only when first written, at 4 KiB granularity, so a 1 TB device
//! whose trace touches 10 GB costs about 10 GB's worth of entries. Entries
//! are stored XORed with the default, so "never set" is zero.
//!
//! A table read at random on every request (the FTL's map and page states)
//! is made with `new_random`: on Linux, if it is 2 to 64 MiB, it asks for
//! transparent huge pages (2 MiB), since with 4 KiB pages nearly every such
//! read also misses the TLB. It is then mapped 2 MiB at a time, which costs
//! at most its own size; larger tables, and every other table, keep 4 KiB
//! granularity, so sparse traces on large devices stay small.

use std::ops::BitXor;

#[derive(Clone, Debug)]
pub struct Chunked<T: Copy> {
    v: Vec<T>,
    default: T,
}

impl<T: Copy + Default + PartialEq + BitXor<Output = T>> Chunked<T> {
    /// A table for indices `0..len`, every entry reading as `default`.
    pub fn new(len: u64, default: T) -> Self {
        Chunked { v: vec![T::default(); len as usize], default }
    }

    /// `new` for a table read at random on every request (see the module's
    /// notes on huge pages).
    pub fn new_random(len: u64, default: T) -> Self {
        let c = Self::new(len, default);
        advise_huge(&c.v);
        c
    }

    #[inline]
    pub fn get(&self, i: u32) -> T {
        self.v[i as usize] ^ self.default
    }

    #[inline]
    pub fn set(&mut self, i: u32, v: T) {
        self.v[i as usize] = v ^ self.default;
    }

    /// Ask the CPU to bring entry `i` into cache; a hint only, so an index
    /// out of range is harmless (nothing is read).
    #[inline]
    pub fn prefetch(&self, i: u32) {
        prefetch(self.v.as_ptr().wrapping_add(i as usize));
    }

    /// Reset `start..start + len` to the default (e.g. on erase).
    pub fn reset(&mut self, start: u32, len: u32) {
        self.v[start as usize..(start + len) as usize].fill(T::default());
    }

    /// Bytes of address space reserved (resident memory is what was touched).
    pub fn bytes(&self) -> usize {
        self.v.len() * std::mem::size_of::<T>()
    }
}

/// Ask for huge pages for a table of 2 to 64 MiB (see the module's notes).
#[cfg(target_os = "linux")]
fn advise_huge<T>(v: &[T]) {
    const PAGE: usize = 4096;
    const HUGE_MAX: usize = 64 << 20;
    let bytes = std::mem::size_of_val(v);
    let start = v.as_ptr() as usize;
    let aligned = start.next_multiple_of(PAGE);
    if bytes <= HUGE_MAX && start + bytes > aligned + (1 << 21) {
        // SAFETY: the range lies inside `v`'s allocation, page-aligned as
        // madvise needs; MADV_HUGEPAGE only changes how it is backed. A
        // failure (no THP support) leaves it as it was, which is fine.
        unsafe { libc::madvise(aligned as *mut libc::c_void, start + bytes - aligned, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge<T>(_: &[T]) {}

/// A cache hint for the line holding `*p`.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults or changes memory, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_sets() {
        let mut c = Chunked::new_random(1 << 20, u32::MAX);
        assert_eq!(c.get(12345), u32::MAX);
        c.set(5, 7);
        c.set(4096 * 3 + 1, 0);
        assert_eq!(c.get(5), 7);
        assert_eq!(c.get(4096 * 3 + 1), 0);
        c.reset(0, 10);
        assert_eq!(c.get(5), u32::MAX);
    }
}
