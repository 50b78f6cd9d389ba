//! A seeded bijection of `0..n` (a 4-round Feistel network with cycle walking).
//!
//! Why not a shuffled `Vec`: the footprint can be billions of pages while the
//! generator must stay O(1) in memory for address-only workloads, and hot
//! pages must still be scattered (not adjacent) and invertible (to tell which
//! page class an address belongs to).

use crate::types::mix64;

#[derive(Clone, Debug)]
pub(crate) struct Perm {
    n: u64,
    half_bits: u32,
    mask: u64,
    keys: [u64; 4],
}

impl Perm {
    /// A permutation of `0..n` (`n >= 1`) keyed by `key`.
    pub(crate) fn new(n: u64, key: u64) -> Self {
        assert!(n >= 1, "Perm over an empty domain");
        // Domain 2^bits with even bits, at most 4n, so cycle walking takes
        // fewer than 4 steps on average.
        let bits = (64 - (n - 1).leading_zeros()).max(2);
        let bits = bits + (bits & 1);
        let half_bits = bits / 2;
        let keys = [mix64(key ^ 1), mix64(key ^ 2), mix64(key ^ 3), mix64(key ^ 4)];
        Perm { n, half_bits, mask: (1u64 << half_bits) - 1, keys }
    }

    pub(crate) fn len(&self) -> u64 {
        self.n
    }

    fn round(&self, x: u64, k: u64) -> u64 {
        mix64(x ^ k) & self.mask
    }

    fn encrypt(&self, x: u64) -> u64 {
        let (mut l, mut r) = (x >> self.half_bits, x & self.mask);
        for &k in &self.keys {
            (l, r) = (r, l ^ self.round(r, k));
        }
        (l << self.half_bits) | r
    }

    fn decrypt(&self, y: u64) -> u64 {
        let (mut l, mut r) = (y >> self.half_bits, y & self.mask);
        for &k in self.keys.iter().rev() {
            (l, r) = (r ^ self.round(l, k), l);
        }
        (l << self.half_bits) | r
    }

    /// The image of `x` (`x < n`).
    pub(crate) fn fwd(&self, x: u64) -> u64 {
        debug_assert!(x < self.n);
        let mut y = self.encrypt(x);
        while y >= self.n {
            y = self.encrypt(y);
        }
        y
    }

    /// The preimage of `y` (`y < n`): `inv(fwd(x)) == x`.
    pub(crate) fn inv(&self, y: u64) -> u64 {
        debug_assert!(y < self.n);
        let mut x = self.decrypt(y);
        while x >= self.n {
            x = self.decrypt(x);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_a_bijection_with_inverse() {
        for n in [1u64, 2, 3, 7, 16, 1000, 4097] {
            let p = Perm::new(n, 42);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = p.fwd(x);
                assert!(!seen[y as usize], "n={n}: {y} hit twice");
                seen[y as usize] = true;
                assert_eq!(p.inv(y), x);
            }
        }
    }

    #[test]
    fn scatters_neighbours() {
        let p = Perm::new(1 << 20, 7);
        let adjacent = (0..1000u64).filter(|&x| p.fwd(x).abs_diff(p.fwd(x + 1)) == 1).count();
        assert!(adjacent < 5, "{adjacent} adjacent images");
    }
}
