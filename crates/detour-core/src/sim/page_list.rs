//! An ordered set of logical pages with their data, in slots: the write
//! buffer's flush list and the read cache's LRU list are both one.
//!
//! The pages live in an arena of slots reused through a free list (the hot
//! path does not allocate once it has grown) and are found through an
//! LPN -> slot table mapped lazily like the FTL's map. The order is a list
//! threaded through the slots (`ftl::lru`), `front` first; a slot may leave the order
//! and stay in the set (the write buffer's pages being flushed). Each slot
//! also holds the user's small `tag` (the buffer's page state), beside the
//! token so a slot stays 24 bytes.

use crate::ftl::lru::{Link, Linked, Order};
use crate::ftl::Chunked;
use crate::types::{Lpn, Token};

#[derive(Clone, Copy, Debug)]
struct Slot<T> {
    token: Token,
    lpn: Lpn,
    link: Link,
    tag: T,
}

impl<T> Linked for Slot<T> {
    #[inline]
    fn link(&self) -> Link {
        self.link
    }
    #[inline]
    fn link_mut(&mut self) -> &mut Link {
        &mut self.link
    }
}

pub(super) struct PageList<T> {
    /// LPN -> slot + 1 (0: not in the set).
    slot_of: Chunked<u32>,
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    order: Order,
    /// Pages in the set, in the order or not.
    len: u32,
}

impl<T: Copy> PageList<T> {
    pub(super) fn new(logical_pages: u32) -> Self {
        PageList { slot_of: Chunked::new(logical_pages as u64, 0), slots: Vec::new(), free: Vec::new(), order: Order::new(), len: 0 }
    }

    pub(super) fn len(&self) -> u32 {
        self.len
    }

    /// The slot holding `lpn`, if any.
    #[inline]
    pub(super) fn slot(&self, lpn: Lpn) -> Option<u32> {
        self.slot_of.get(lpn).checked_sub(1)
    }

    /// The first slot in the order, if any.
    #[inline]
    pub(super) fn front(&self) -> Option<u32> {
        self.order.front()
    }

    pub(super) fn lpn(&self, s: u32) -> Lpn {
        self.slots[s as usize].lpn
    }

    pub(super) fn token(&self, s: u32) -> Token {
        self.slots[s as usize].token
    }

    pub(super) fn set_token(&mut self, s: u32, token: Token) {
        self.slots[s as usize].token = token;
    }

    pub(super) fn tag(&self, s: u32) -> T {
        self.slots[s as usize].tag
    }

    pub(super) fn set_tag(&mut self, s: u32, tag: T) {
        self.slots[s as usize].tag = tag;
    }

    /// Add `lpn` (not in the set) at the back of the order; its slot.
    pub(super) fn insert(&mut self, lpn: Lpn, token: Token, tag: T) -> u32 {
        let slot = Slot { token, lpn, link: Link::NONE, tag };
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = slot;
                s
            }
            None => {
                self.slots.push(slot);
                self.slots.len() as u32 - 1
            }
        };
        self.slot_of.set(lpn, s + 1);
        self.len += 1;
        self.push_back(s);
        s
    }

    /// Drop slot `s` from the order and the set.
    pub(super) fn remove(&mut self, s: u32) {
        self.unlink(s);
        self.release(s);
    }

    /// Drop slot `s`, already out of the order, from the set.
    pub(super) fn release(&mut self, s: u32) {
        self.slot_of.set(self.slots[s as usize].lpn, 0);
        self.free.push(s);
        self.len -= 1;
    }

    /// Move slot `s`, in the order, to its back.
    #[inline]
    pub(super) fn move_to_back(&mut self, s: u32) {
        self.order.move_to_back(&mut self.slots, s);
    }

    /// Put slot `s`, out of the order, at its back.
    #[inline]
    pub(super) fn push_back(&mut self, s: u32) {
        self.order.push_back(&mut self.slots, s);
    }

    /// Take slot `s` out of the order (it stays in the set).
    #[inline]
    pub(super) fn unlink(&mut self, s: u32) {
        self.order.unlink(&mut self.slots, s);
    }

    /// The pages in order, front first (for tests).
    #[cfg(test)]
    pub(super) fn order(&self) -> Vec<Lpn> {
        self.order.to_vec(&self.slots).iter().map(|&s| self.slots[s as usize].lpn).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_keep_their_order_and_slots_are_reused() {
        let mut l = PageList::<()>::new(16);
        let s: Vec<u32> = [3, 1, 2].iter().map(|&p| l.insert(p, p as Token * 10, ())).collect();
        assert_eq!((l.order(), l.len()), (vec![3, 1, 2], 3));
        l.move_to_back(s[0]);
        assert_eq!(l.order(), [1, 2, 3]);
        assert_eq!(l.front().map(|f| l.lpn(f)), Some(1));
        l.remove(s[1]);
        assert_eq!((l.order(), l.slot(1), l.len()), (vec![2, 3], None, 2));
        // The freed slot is the next one used.
        assert_eq!(l.insert(9, 90, ()), s[1]);
        assert_eq!((l.slot(9), l.token(s[1])), (Some(s[1]), 90));
        assert_eq!(l.order(), [2, 3, 9]);
    }

    #[test]
    fn a_page_out_of_the_order_stays_in_the_set_until_released() {
        let mut l = PageList::<bool>::new(16);
        let a = l.insert(4, 0, false);
        let b = l.insert(5, 0, false);
        l.unlink(a);
        l.set_tag(a, true);
        assert_eq!((l.order(), l.slot(4), l.tag(a)), (vec![5], Some(a), true));
        l.push_back(a);
        assert_eq!(l.order(), [5, 4]);
        l.unlink(b);
        l.unlink(a);
        assert_eq!((l.order(), l.front()), (vec![], None));
        l.release(a);
        assert_eq!((l.slot(4), l.slot(5), l.len()), (None, Some(b), 1));
    }

    #[test]
    fn a_slot_is_as_small_as_the_lists_it_replaced() {
        assert_eq!(std::mem::size_of::<Slot<()>>(), 24);
        assert_eq!(std::mem::size_of::<Slot<(bool, bool)>>(), 24);
    }
}
