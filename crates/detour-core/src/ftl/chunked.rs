//! Tables indexed by page number whose memory follows the pages touched, not
//! the device's nominal size.
//!
//! Storage is one zeroed region (`Zeroed`): the operating system maps its
//! memory only when first written, at 4 KiB granularity, so a 1 TB device
//! whose trace touches 10 GB costs about 10 GB's worth of entries. Entries
//! are stored XORed with the default, so "never set" is zero. Large regions
//! are mapped from the OS directly rather than by `calloc`, which, once the
//! process has freed large blocks, serves them from its heap and clears
//! them there, so that every page becomes resident at once.
//!
//! A table read at random on every request (the FTL's map) is made with
//! `new_random`: on Linux, if it is 2 to 64 MiB, it asks for
//! transparent huge pages (2 MiB), since with 4 KiB pages nearly every such
//! read also misses the TLB. It is then mapped 2 MiB at a time, which costs
//! at most its own size; larger tables, and every other table, keep 4 KiB
//! granularity, so sparse traces on large devices stay small.

use crate::types::Owner;

#[derive(Clone, Debug)]
pub struct Chunked<T: ZeroFresh> {
    v: Zeroed<T>,
    default: T,
}

impl<T: TableEntry> Chunked<T> {
    /// A table for indices `0..len`, every entry reading as `default`.
    pub fn new(len: u64, default: T) -> Self {
        Chunked { v: Zeroed::new(len as usize), default }
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
        self.v[i as usize].xor(self.default)
    }

    #[inline]
    pub fn set(&mut self, i: u32, v: T) {
        self.v[i as usize] = v.xor(self.default);
    }

    /// Ask the CPU to bring entry `i` into cache; a hint only, so an index
    /// out of range is harmless (nothing is read).
    #[inline]
    pub fn prefetch(&self, i: u32) {
        prefetch(self.v.as_ptr().wrapping_add(i as usize));
    }

    /// Reset `start..start + len` to the default (e.g. on erase).
    pub fn reset(&mut self, start: u32, len: u32) {
        let zero = self.default.xor(self.default);
        self.v[start as usize..(start + len) as usize].fill(zero);
    }

    /// Bytes of address space reserved (resident memory is what was touched).
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val::<[T]>(&self.v)
    }
}

/// Types whose all-zero bytes are a valid value (the fresh one), so a table
/// of them can start as a zeroed allocation that the OS maps only where
/// written.
///
/// # Safety
/// Every field must be valid as all-zero bytes: integers, `bool`, and
/// enums with `#[repr(u8)]` and a variant of discriminant 0.
pub unsafe trait ZeroFresh: Copy {}

// SAFETY: integers are valid as zero bytes.
unsafe impl ZeroFresh for u8 {}
// SAFETY: as above.
unsafe impl ZeroFresh for u32 {}
// SAFETY: as above.
unsafe impl ZeroFresh for u64 {}
// SAFETY: a `repr(transparent)` u32: zero bits are a valid value.
unsafe impl ZeroFresh for Owner {}

/// What a [`Chunked`] table holds: entries are stored XORed with the
/// table's default, so that memory never written (zero) reads as it. A
/// trait of its own rather than `BitXor`, so that types with no arithmetic
/// meaning (an [`Owner`](crate::types::Owner)) need not offer `^`.
pub trait TableEntry: ZeroFresh {
    fn xor(self, other: Self) -> Self;
}

macro_rules! int_entries {
    ($($t:ty),*) => {$(
        impl TableEntry for $t {
            #[inline]
            fn xor(self, other: $t) -> $t {
                self ^ other
            }
        }
    )*};
}
int_entries!(u8, u32, u64);

/// A fixed-length table of `T` starting all zero, whose memory becomes
/// resident only where written (see the module's notes).
pub struct Zeroed<T: ZeroFresh> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    /// Mapped from the OS (else from the allocator).
    mapped: bool,
}

// SAFETY: `Zeroed` owns its entries as a `Vec` would.
unsafe impl<T: ZeroFresh + Send> Send for Zeroed<T> {}
// SAFETY: as above.
unsafe impl<T: ZeroFresh + Sync> Sync for Zeroed<T> {}

/// Regions at least this large are mapped from the OS.
const MAP_AT_LEAST: usize = 1 << 16;

impl<T: ZeroFresh> Zeroed<T> {
    /// `len` zero entries.
    pub fn new(len: usize) -> Self {
        let Ok(layout) = std::alloc::Layout::array::<T>(len) else {
            panic!("a table of {len} entries does not fit in memory");
        };
        if layout.size() == 0 {
            return Zeroed { ptr: std::ptr::NonNull::dangling(), len, mapped: false };
        }
        let mapped = if layout.size() >= MAP_AT_LEAST { map_zeroed(layout.size()) } else { None };
        // SAFETY: the layout has a non-zero size.
        let p = mapped.unwrap_or_else(|| unsafe { std::alloc::alloc_zeroed(layout) }) as *mut T;
        let Some(ptr) = std::ptr::NonNull::new(p) else { std::alloc::handle_alloc_error(layout) };
        Zeroed { ptr, len, mapped: mapped.is_some() }
    }

    fn layout(&self) -> std::alloc::Layout {
        // Checked in `new`.
        std::alloc::Layout::array::<T>(self.len).unwrap_or_else(|_| unreachable!())
    }
}

impl<T: ZeroFresh> std::ops::Deref for Zeroed<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialised entries (zero is valid: `ZeroFresh`).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: ZeroFresh> std::ops::DerefMut for Zeroed<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and `&mut self` is unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: ZeroFresh> Clone for Zeroed<T> {
    fn clone(&self) -> Self {
        let mut c = Zeroed::new(self.len);
        c.copy_from_slice(self);
        c
    }
}

impl<T: ZeroFresh + std::fmt::Debug> std::fmt::Debug for Zeroed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Zeroed({} entries)", self.len)
    }
}

impl<T: ZeroFresh> Drop for Zeroed<T> {
    fn drop(&mut self) {
        let layout = self.layout();
        if layout.size() == 0 {
            return;
        }
        let p = self.ptr.as_ptr() as *mut u8;
        if self.mapped {
            unmap(p, layout.size());
        } else {
            // SAFETY: allocated by `alloc_zeroed` with this layout in `new`.
            unsafe { std::alloc::dealloc(p, layout) };
        }
    }
}

/// An anonymous private mapping of `bytes`: zero, and resident only where
/// written. `None` (fall back to the allocator) if the OS refuses.
#[cfg(target_os = "linux")]
fn map_zeroed(bytes: usize) -> Option<*mut u8> {
    // SAFETY: a fresh anonymous mapping touches no existing memory.
    let p = unsafe {
        libc::mmap(std::ptr::null_mut(), bytes, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
    };
    (p != libc::MAP_FAILED).then_some(p as *mut u8)
}

#[cfg(not(target_os = "linux"))]
fn map_zeroed(_: usize) -> Option<*mut u8> {
    None
}

/// Unmap a region `map_zeroed` gave.
#[cfg(target_os = "linux")]
fn unmap(p: *mut u8, bytes: usize) {
    // SAFETY: `p..p+bytes` is the region `map_zeroed` mapped for this table,
    // and the table that owned it is going away.
    unsafe { libc::munmap(p as *mut libc::c_void, bytes) };
}

#[cfg(not(target_os = "linux"))]
fn unmap(_: *mut u8, _: usize) {}

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

impl TableEntry for Owner {
    /// The owner whose bits are the two owners' bits XORed: `index` reads
    /// and `id` makes a plain owner of all 32 bits, flags included.
    #[inline]
    fn xor(self, other: Owner) -> Owner {
        Owner::id(self.index() ^ other.index())
    }
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
        let d = c.clone();
        assert_eq!((d.get(4096 * 3 + 1), d.get(5), d.bytes()), (0, u32::MAX, 4 << 20));
    }

    #[test]
    fn zeroed_tables_small_large_and_empty() {
        for n in [0, 1, 100, 1 << 20] {
            let mut z: Zeroed<u64> = Zeroed::new(n);
            assert_eq!(z.len(), n);
            assert!(z.iter().all(|&v| v == 0));
            if n > 0 {
                z[n - 1] = 9;
                assert_eq!(z.clone()[n - 1], 9);
            }
        }
    }
}
