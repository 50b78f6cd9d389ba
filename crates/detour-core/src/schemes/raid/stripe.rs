//! Where a channel-RAID organisation puts things: the stripe of N-1 data
//! pages plus one parity page, the channel of each member (the static half
//! of the paper's semi-dynamic allocation, Fig. 3), and which dies of a
//! channel hold data and which form the hidden mirror chip.

use super::Org;
use crate::device::Geometry;
use crate::types::Lpn;
use std::ops::Range;

#[derive(Clone, Debug)]
pub struct Layout {
    pub org: Org,
    /// Channels N.
    pub n: u32,
    /// Chips per channel, the mirror chip included.
    pub chips: u32,
    pub dies_per_chip: u32,
}

impl Layout {
    pub fn new(org: Org, geo: &Geometry) -> Layout {
        Layout { org, n: geo.channels, chips: geo.chips_per_channel, dies_per_chip: geo.dies_per_chip }
    }

    /// Data pages per stripe (N-1).
    #[inline]
    pub fn width(&self) -> u32 {
        self.n - 1
    }

    #[inline]
    pub fn stripe(&self, lpn: Lpn) -> u32 {
        lpn / self.width()
    }

    /// The LPNs of stripe `j`.
    pub fn members(&self, j: u32) -> Range<Lpn> {
        j * self.width()..(j + 1) * self.width()
    }

    /// Fig. 3 line 4: CR5 rotates the parity, CR4 keeps it on the last channel.
    pub fn parity_channel(&self, j: u32) -> u32 {
        match self.org {
            Org::Cr4 => self.n - 1,
            _ => (self.n - 1) - j % self.n,
        }
    }

    /// Fig. 3 lines 6-9: data index within the stripe, skipping the parity channel.
    pub fn data_channel(&self, lpn: Lpn) -> u32 {
        let pc = self.parity_channel(self.stripe(lpn));
        let c = lpn % self.width();
        if c >= pc {
            c + 1
        } else {
            c
        }
    }

    fn dies_per_channel(&self) -> u32 {
        self.chips * self.dies_per_chip
    }

    /// Dies that take data and parity on `ch`: every chip but CR5M's mirror chip.
    pub fn data_dies(&self, ch: u32) -> Range<u32> {
        let first = ch * self.dies_per_channel();
        let chips = if self.org == Org::Cr5m { self.chips - 1 } else { self.chips };
        first..first + chips * self.dies_per_chip
    }

    /// The dies of CR5M's hidden mirror chip on `ch` (the channel's last chip).
    pub fn mirror_dies(&self, ch: u32) -> Range<u32> {
        let end = (ch + 1) * self.dies_per_channel();
        end - self.dies_per_chip..end
    }

    /// Host-visible pages: parity takes 1/N of the space, CR5M's mirror chips
    /// take one chip per channel; rounded down to whole stripes.
    pub fn logical_pages(&self, geo: &Geometry) -> u32 {
        let mut pages = geo.logical_pages as u64;
        if self.org == Org::Cr5m {
            pages = pages * (self.chips as u64 - 1) / self.chips as u64;
        }
        pages = pages * (self.n as u64 - 1) / self.n as u64;
        let w = self.width() as u64;
        ((pages / w) * w).min(crate::types::Owner::MAX_INDEX as u64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(org: Org) -> Layout {
        Layout { org, n: 4, chips: 5, dies_per_chip: 2 }
    }

    #[test]
    fn cr5_follows_the_sda_algorithm() {
        let l = layout(Org::Cr5);
        // Stripe 0: parity on channel 3, data on 0, 1, 2.
        assert_eq!(l.parity_channel(0), 3);
        assert_eq!((0..3).map(|i| l.data_channel(i)).collect::<Vec<_>>(), vec![0, 1, 2]);
        // Stripe 1: parity on channel 2; D3, D4, D5 on 0, 1, 3.
        assert_eq!(l.parity_channel(1), 2);
        assert_eq!((3..6).map(|i| l.data_channel(i)).collect::<Vec<_>>(), vec![0, 1, 3]);
        // Stripe 3: parity on channel 0.
        assert_eq!(l.parity_channel(3), 0);
        assert_eq!((9..12).map(|i| l.data_channel(i)).collect::<Vec<_>>(), vec![1, 2, 3]);
    }

    #[test]
    fn cr4_keeps_parity_on_the_last_channel_and_cr5m_hides_a_chip() {
        let l = layout(Org::Cr4);
        assert!((0..40).all(|j| l.parity_channel(j) == 3));
        assert!((0..120).all(|i| l.data_channel(i) == i % 3));
        let m = layout(Org::Cr5m);
        assert_eq!(m.data_dies(1), 10..18);
        assert_eq!(m.mirror_dies(1), 18..20);
        assert_eq!(layout(Org::Cr5).data_dies(1), 10..20);
    }
}
