//! A die's queue of one priority class: a list threaded through the
//! operations themselves (their `qnext`), so the queues of every die take
//! a few bytes each and stay in cache, instead of a buffer of their own
//! per die and class.

use super::ops::{OpSlab, NO_OP};

#[derive(Clone, Copy, Debug)]
pub struct OpQueue {
    head: u32,
    tail: u32,
}

impl Default for OpQueue {
    fn default() -> Self {
        OpQueue { head: NO_OP, tail: NO_OP }
    }
}

impl OpQueue {
    /// The first operation, if any.
    #[inline]
    pub fn front(&self) -> Option<u32> {
        (self.head != NO_OP).then_some(self.head)
    }

    #[inline]
    pub fn push_back(&mut self, id: u32, ops: &mut OpSlab) {
        ops.get_mut(id).qnext = NO_OP;
        if self.tail == NO_OP {
            self.head = id;
        } else {
            ops.get_mut(self.tail).qnext = id;
        }
        self.tail = id;
    }

    #[inline]
    pub fn pop_front(&mut self, ops: &OpSlab) -> Option<u32> {
        let id = self.front()?;
        self.head = ops.get(id).qnext;
        if self.tail == id {
            self.tail = NO_OP;
        }
        Some(id)
    }

    /// Put `id` back after `prev` ([`NO_OP`]: first), where a batch took it
    /// from before refusing it (`plane_pairing = "level"`).
    #[inline]
    pub fn link_after(&mut self, prev: u32, id: u32, ops: &mut OpSlab) {
        let next = if prev == NO_OP { self.head } else { ops.get(prev).qnext };
        ops.get_mut(id).qnext = next;
        if prev == NO_OP {
            self.head = id;
        } else {
            ops.get_mut(prev).qnext = id;
        }
        if next == NO_OP {
            self.tail = id;
        }
    }

    /// Take `id` out of the queue; `prev` is the operation before it
    /// ([`NO_OP`] when `id` is first).
    #[inline]
    pub fn unlink_after(&mut self, prev: u32, id: u32, ops: &mut OpSlab) {
        let next = ops.get(id).qnext;
        if prev == NO_OP {
            self.head = next;
        } else {
            ops.get_mut(prev).qnext = next;
        }
        if self.tail == id {
            self.tail = prev;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::OpKind;
    use crate::scheduler::{tests::op, Class};

    fn slab(n: u32) -> OpSlab {
        let mut ops = OpSlab::default();
        for ppn in 0..n {
            ops.insert(op(OpKind::Read, Class::HostRead, ppn));
        }
        ops
    }

    #[test]
    fn fifo_with_removal_anywhere() {
        let mut ops = slab(5);
        let mut q = OpQueue::default();
        assert!(q.front().is_none());
        for id in 0..5 {
            q.push_back(id, &mut ops);
        }
        q.unlink_after(1, 2, &mut ops); // middle
        q.unlink_after(3, 4, &mut ops); // last
        assert_eq!(q.pop_front(&ops), Some(0));
        q.push_back(4, &mut ops);
        let rest: Vec<u32> = std::iter::from_fn(|| q.pop_front(&ops)).collect();
        assert_eq!(rest, vec![1, 3, 4]);
        assert!(q.front().is_none());
        q.push_back(2, &mut ops);
        assert_eq!(q.front(), Some(2));
    }
}
