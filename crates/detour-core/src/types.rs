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
    if t == 0 { 1 } else { t }
}
