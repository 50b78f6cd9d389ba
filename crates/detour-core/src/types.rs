//! Small value types shared by every layer: time, addresses, content tokens.

/// Simulated time in integer nanoseconds.
pub type Time = u64;
/// Logical page number (host address / page size).
pub type Lpn = u32;
/// Physical page number: `block * pages_per_block + page`.
pub type Ppn = u32;
/// Content token of a page. 0 means "never written or erased".
pub type Token = u64;

/// Marks "no page" in mapping tables.
pub const NO_PAGE: u32 = u32::MAX;

pub const NS_PER_US: u64 = 1_000;

/// A host I/O direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoKind {
    Read,
    Write,
    /// A discard (TRIM, UNMAP): the host no longer needs the data of the
    /// range (docs/nand.md, TRIM).
    Discard,
}

/// A 64-bit mix (splitmix64 finaliser): cheap, well distributed, stable across
/// platforms, so tokens derived from it are deterministic.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The token of page `i` of a request whose content is `content` (non-zero).
/// Page 0 carries the content value itself, so single-page requests with the
/// same content get the same token (what deduplication keys on).
#[inline]
pub fn page_token(content: u64, i: u32) -> Token {
    let t = if i == 0 { content } else { mix64(content ^ mix64(i as u64)) };
    if t == 0 {
        1
    } else {
        t
    }
}

/// Whose data a flash page holds: what a GC move of the page must update.
/// The FTL keeps one per page and hands it back to the scheme on a move.
///
/// It is a u32 (the owner table costs 4 bytes a page) whose bits only this
/// type reads or writes. A plain owner (`lpn`, `id`) is its number, all 32
/// bits of it. A scheme's own pages carry a flag: bit 31 marks an
/// auxiliary page (`aux`: HotR's staging copy, Rails' copy in the second
/// half, a TTFlash or channel-RAID parity page), whose index is the other
/// 31 bits; bit 30 a mirror copy (`mirror`: channel RAID, which needs both
/// kinds), whose LPN is the other 30. A scheme that makes flagged owners
/// keeps its plain ones below the flags, or they would read as flagged.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner(u32);

impl Owner {
    const AUX: u32 = 1 << 31;
    const MIRROR: u32 = 1 << 30;
    /// The largest LPN or index clear of both flags: a scheme that makes
    /// mirror owners keeps its logical space up to it.
    pub const MAX_INDEX: u32 = Self::MIRROR - 1;
    /// A page no one owns (free or erased), and the owner of operations
    /// that write nothing (reads, erases, a program of abandoned pages).
    pub const NONE: Owner = Owner(NO_PAGE);

    /// A page holding `lpn`'s data (the shared page map points at it, or
    /// the scheme's table for its primary copy).
    #[inline]
    pub const fn lpn(lpn: Lpn) -> Owner {
        Owner(lpn)
    }

    /// A page found by a number of its own rather than an LPN: a dedup
    /// scheme's value (VPN), a translation page's number.
    #[inline]
    pub const fn id(id: u32) -> Owner {
        Owner(id)
    }

    /// Auxiliary page `index` of the scheme (its meaning is the scheme's:
    /// the LPN of a staging or second-half copy, a stripe's parity).
    #[inline]
    pub const fn aux(index: u32) -> Owner {
        debug_assert!(index & Self::AUX == 0, "auxiliary index above 31 bits");
        Owner(index | Self::AUX)
    }

    /// The mirror copy of `lpn` (channel RAID).
    #[inline]
    pub const fn mirror(lpn: Lpn) -> Owner {
        debug_assert!(lpn <= Self::MAX_INDEX, "mirrored LPN above 30 bits");
        Owner(lpn | Self::MIRROR)
    }

    /// The LPN or id of a plain owner. A scheme that makes flagged owners
    /// asks `as_aux` and `as_mirror` first.
    #[inline]
    pub const fn index(self) -> u32 {
        self.0
    }

    #[inline]
    pub const fn is_aux(self) -> bool {
        self.0 & Self::AUX != 0
    }

    /// The index of an auxiliary page; None for any other owner.
    #[inline]
    pub const fn as_aux(self) -> Option<u32> {
        if self.is_aux() {
            Some(self.0 & !Self::AUX)
        } else {
            None
        }
    }

    /// The LPN of a mirror copy; None for any other owner (an auxiliary
    /// page's index may have bit 30 set).
    #[inline]
    pub const fn as_mirror(self) -> Option<Lpn> {
        if self.0 & (Self::AUX | Self::MIRROR) == Self::MIRROR {
            Some(self.0 & !Self::MIRROR)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_round_trip_through_their_bits() {
        for n in [0, 1, 12345, Owner::MAX_INDEX] {
            let (plain, aux, mirror) = (Owner::lpn(n), Owner::aux(n), Owner::mirror(n));
            assert_eq!((plain.index(), plain.as_aux(), plain.as_mirror()), (n, None, None));
            assert_eq!((aux.as_aux(), aux.as_mirror(), aux.is_aux()), (Some(n), None, true));
            assert_eq!((mirror.as_mirror(), mirror.as_aux(), mirror.is_aux()), (Some(n), None, false));
            assert_eq!(Owner::id(n), plain);
        }
        // An auxiliary index may use bit 30; a plain owner all 32 bits.
        assert_eq!(Owner::aux(Owner::MAX_INDEX + 1).as_aux(), Some(1 << 30));
        assert_eq!(Owner::lpn(u32::MAX - 1).index(), u32::MAX - 1);
        // The bits are the ones the owner tables held before the type.
        assert_eq!((Owner::aux(7).0, Owner::mirror(7).0, Owner::NONE.0), (7 | 1 << 31, 7 | 1 << 30, u32::MAX));
        assert_eq!(std::mem::size_of::<Owner>(), 4);
    }
}
