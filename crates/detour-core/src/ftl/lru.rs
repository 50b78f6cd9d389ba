//! An intrusive list over dense indices: the recency order of the cached
//! mapping tables (`mapping/cmt.rs`, `mapping/entry.rs`) and the order of
//! the write buffer's and read cache's pages (`sim/page_list.rs`).
//!
//! Each element of a slice the caller owns carries a [`Link`] (the indices
//! before and after it); an [`Order`] keeps the two ends and threads the
//! list through the slice by index. Why intrusive and by index: the tables
//! hold one element per translation page, entry or buffered page, found by
//! index already, so the links cost 8 bytes an element and moving one to
//! an end touches three elements, with no allocation once the caller's
//! slice has grown. The caller keeps the links inside its own elements
//! (`Linked`), so a slot stays as small as its data allows.
//!
//! An element may be out of the order and still in the caller's slice (the
//! write buffer's pages being flushed); its links are then stale and are
//! rewritten when it is pushed again.

/// No element: an end of the list, or the link of an element at one.
pub const NIL: u32 = u32::MAX;

/// An element's place in an [`Order`]: the indices before and after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    prev: u32,
    next: u32,
}

impl Link {
    /// The links of an element in no order yet.
    pub const NONE: Link = Link { prev: NIL, next: NIL };
}

impl Default for Link {
    fn default() -> Link {
        Link::NONE
    }
}

/// An element an [`Order`] can thread through: it carries its [`Link`].
pub trait Linked {
    fn link(&self) -> Link;
    fn link_mut(&mut self) -> &mut Link;
}

impl Linked for Link {
    #[inline]
    fn link(&self) -> Link {
        *self
    }
    #[inline]
    fn link_mut(&mut self) -> &mut Link {
        self
    }
}

/// The two ends of a list threaded through a slice of [`Linked`]
/// elements, `front` to `back`. Which end is "most recent" is the
/// caller's choice (the mapping tables push to the front and evict the
/// back; the page lists push to the back and take the front).
#[derive(Clone, Copy, Debug)]
pub struct Order {
    head: u32,
    tail: u32,
}

impl Default for Order {
    fn default() -> Order {
        Order::new()
    }
}

impl Order {
    pub const fn new() -> Order {
        Order { head: NIL, tail: NIL }
    }

    #[inline]
    pub fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    #[inline]
    pub fn back(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// The element after `i` in the order, if any.
    #[inline]
    pub fn next<T: Linked>(items: &[T], i: u32) -> Option<u32> {
        let n = items[i as usize].link().next;
        (n != NIL).then_some(n)
    }

    /// Put element `i`, out of the order, at its front.
    #[inline]
    pub fn push_front<T: Linked>(&mut self, items: &mut [T], i: u32) {
        *items[i as usize].link_mut() = Link { prev: NIL, next: self.head };
        match self.head {
            NIL => self.tail = i,
            h => items[h as usize].link_mut().prev = i,
        }
        self.head = i;
    }

    /// Put element `i`, out of the order, at its back.
    #[inline]
    pub fn push_back<T: Linked>(&mut self, items: &mut [T], i: u32) {
        *items[i as usize].link_mut() = Link { prev: self.tail, next: NIL };
        match self.tail {
            NIL => self.head = i,
            t => items[t as usize].link_mut().next = i,
        }
        self.tail = i;
    }

    /// Take element `i`, in the order, out of it.
    #[inline]
    pub fn unlink<T: Linked>(&mut self, items: &mut [T], i: u32) {
        let Link { prev, next } = items[i as usize].link();
        match prev {
            NIL => self.head = next,
            p => items[p as usize].link_mut().next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => items[n as usize].link_mut().prev = prev,
        }
    }

    /// Move element `i`, in the order, to its front.
    #[inline]
    pub fn move_to_front<T: Linked>(&mut self, items: &mut [T], i: u32) {
        self.unlink(items, i);
        self.push_front(items, i);
    }

    /// Move element `i`, in the order, to its back.
    #[inline]
    pub fn move_to_back<T: Linked>(&mut self, items: &mut [T], i: u32) {
        self.unlink(items, i);
        self.push_back(items, i);
    }

    /// The elements in order, front first (for tests).
    #[cfg(test)]
    pub fn to_vec<T: Linked>(&self, items: &[T]) -> Vec<u32> {
        std::iter::successors(self.front(), |&i| Order::next(items, i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushes_moves_and_unlinks_keep_both_directions_consistent() {
        let mut links = vec![Link::NONE; 5];
        let mut o = Order::new();
        assert_eq!((o.front(), o.back()), (None, None));
        for i in [2, 0, 4] {
            o.push_front(&mut links, i);
        }
        o.push_back(&mut links, 1);
        assert_eq!(o.to_vec(&links), [4, 0, 2, 1]);
        o.move_to_front(&mut links, 1);
        assert_eq!(o.to_vec(&links), [1, 4, 0, 2]);
        o.move_to_back(&mut links, 4);
        assert_eq!(o.to_vec(&links), [1, 0, 2, 4]);
        // Unlinking the ends and the middle moves the ends with them.
        o.unlink(&mut links, 1);
        o.unlink(&mut links, 4);
        assert_eq!((o.to_vec(&links), o.front(), o.back()), (vec![0, 2], Some(0), Some(2)));
        o.unlink(&mut links, 0);
        o.unlink(&mut links, 2);
        assert_eq!((o.front(), o.back()), (None, None));
        // An element out of the order comes back with fresh links.
        o.push_back(&mut links, 3);
        o.push_back(&mut links, 2);
        assert_eq!(o.to_vec(&links), [3, 2]);
        assert_eq!(links[3], Link { prev: NIL, next: 2 });
        assert_eq!(links[2], Link { prev: 3, next: NIL });
    }

    #[test]
    fn links_may_live_inside_the_callers_elements() {
        struct Slot {
            value: u64,
            link: Link,
        }
        impl Linked for Slot {
            fn link(&self) -> Link {
                self.link
            }
            fn link_mut(&mut self) -> &mut Link {
                &mut self.link
            }
        }
        let mut slots: Vec<Slot> = (0..3).map(|v| Slot { value: v * 10, link: Link::NONE }).collect();
        let mut o = Order::new();
        (0..3).for_each(|i| o.push_back(&mut slots, i));
        o.move_to_back(&mut slots, 0);
        let values: Vec<u64> = o.to_vec(&slots).iter().map(|&i| slots[i as usize].value).collect();
        assert_eq!(values, [10, 20, 0]);
        assert_eq!(std::mem::size_of::<Slot>(), 16);
    }
}
