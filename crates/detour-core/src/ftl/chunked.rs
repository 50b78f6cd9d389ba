//! Tables indexed by page number whose memory follows the pages touched, not
//! the device's nominal size: storage is allocated in chunks on first write.

const SHIFT: u32 = 12;
const CHUNK: usize = 1 << SHIFT;
const MASK: u32 = (CHUNK as u32) - 1;

#[derive(Clone, Debug)]
pub struct Chunked<T: Copy> {
    chunks: Vec<Option<Box<[T]>>>,
    default: T,
}

impl<T: Copy + PartialEq> Chunked<T> {
    /// A table for indices `0..len`, every entry reading as `default`.
    pub fn new(len: u64, default: T) -> Self {
        let n = len.div_ceil(CHUNK as u64) as usize;
        Chunked { chunks: vec![None; n], default }
    }

    #[inline]
    pub fn get(&self, i: u32) -> T {
        match &self.chunks[(i >> SHIFT) as usize] {
            Some(c) => c[(i & MASK) as usize],
            None => self.default,
        }
    }

    #[inline]
    pub fn set(&mut self, i: u32, v: T) {
        let default = self.default;
        let slot = &mut self.chunks[(i >> SHIFT) as usize];
        match slot {
            Some(c) => c[(i & MASK) as usize] = v,
            None if v == default => {}
            None => {
                let mut c = vec![default; CHUNK].into_boxed_slice();
                c[(i & MASK) as usize] = v;
                *slot = Some(c);
            }
        }
    }

    /// Reset `range` to the default (e.g. on erase).
    pub fn reset(&mut self, start: u32, len: u32) {
        for i in start..start + len {
            if self.get(i) != self.default {
                self.set(i, self.default);
            }
        }
    }

    /// Bytes held by allocated chunks.
    pub fn bytes(&self) -> usize {
        self.chunks.iter().flatten().count() * CHUNK * std::mem::size_of::<T>()
            + self.chunks.len() * std::mem::size_of::<Option<Box<[T]>>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lazily_allocates() {
        let mut c = Chunked::new(1 << 20, u32::MAX);
        assert_eq!(c.get(12345), u32::MAX);
        let empty = c.bytes();
        c.set(5, u32::MAX);
        assert_eq!(c.bytes(), empty);
        c.set(5, 7);
        c.set(CHUNK as u32 * 3 + 1, 9);
        assert_eq!(c.get(5), 7);
        assert_eq!(c.get(CHUNK as u32 * 3 + 1), 9);
        assert!(c.bytes() > empty);
        c.reset(0, 10);
        assert_eq!(c.get(5), u32::MAX);
    }
}
