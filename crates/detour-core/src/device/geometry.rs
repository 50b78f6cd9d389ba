//! Dense ids for every level and the conversions between them.
//!
//! die  = (channel * chips_per_channel + chip) * dies_per_chip + die_in_chip
//! plane = die * planes_per_die + plane_in_die
//! block = plane * blocks_per_plane + block_in_plane
//! ppn  = block * pages_per_block + page_in_block
//!
//! Spare chips (`device.spare_chips`) come after the device's own chips:
//! their dies have the ids from `host_dies()` on, and the channel formula
//! puts them on channel `channels`, one of their own. Everything sized by
//! `dies()`, `planes()` or `total_pages()` holds them; the host's logical
//! space and the static placement of its pages (`host_planes()`) do not.

use crate::config::{AllocOrder, DeviceConfig};
use crate::error::{Error, Result};
use crate::types::{Lpn, Ppn};

/// Division by a fixed divisor: a shift when it is a power of two (every
/// preset), a real division otherwise. Conversions between ids run for
/// every flash operation, so this is on the hot path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divisor {
    d: u32,
    shift: u32,
    pow2: bool,
}

impl Divisor {
    pub fn new(d: u32) -> Divisor {
        Divisor { d, shift: d.trailing_zeros(), pow2: d.is_power_of_two() }
    }
    // Named for what they compute on `x`; `std::ops::Div` would read backwards
    // (a u32 divided by a Divisor) for no gain.
    #[allow(clippy::should_implement_trait)]
    #[inline(always)]
    pub fn div(self, x: u32) -> u32 {
        if self.pow2 {
            x >> self.shift
        } else {
            x / self.d
        }
    }
    #[allow(clippy::should_implement_trait)] // as `div` above
    #[inline(always)]
    pub fn rem(self, x: u32) -> u32 {
        if self.pow2 {
            x & (self.d - 1)
        } else {
            x % self.d
        }
    }
}

/// Divisors of the geometry's conversions, precomputed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Divisors {
    pages_per_block: Divisor,
    pages_per_plane: Divisor,
    /// So a page's die is one division, not two (once per flash operation).
    pages_per_die: Divisor,
    blocks_per_plane: Divisor,
    planes_per_die: Divisor,
    dies_per_chip: Divisor,
    dies_per_channel: Divisor,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size: u32,
    /// Pages the host can address: the device's own chips' pages less
    /// over-provisioning (spare chips add none).
    pub logical_pages: u32,
    /// Chips beyond `channels x chips_per_channel`, never addressed by the
    /// host (`device.spare_chips`), on one extra channel.
    pub spare_chips: u32,
    div: Divisors,
}

impl Geometry {
    pub fn from_config(d: &DeviceConfig) -> Result<Geometry> {
        let counts = [
            ("device.channels", d.channels),
            ("device.chips_per_channel", d.chips_per_channel),
            ("device.dies_per_chip", d.dies_per_chip),
            ("device.planes_per_die", d.planes_per_die),
            ("device.blocks_per_plane", d.blocks_per_plane),
            ("device.pages_per_block", d.pages_per_block),
        ];
        let mut total: u64 = 1;
        for (key, n) in counts {
            if n == 0 {
                return Err(Error::Geometry(format!("{key} is 0")));
            }
            total = total.saturating_mul(n as u64);
        }
        // The spare chips' pages need page numbers too, but add no logical space.
        let per_chip = total / (d.channels as u64 * d.chips_per_channel as u64);
        let physical = total.saturating_add(per_chip.saturating_mul(d.spare_chips as u64));
        if physical >= u32::MAX as u64 {
            return Err(Error::Geometry(format!(
                "{physical} physical pages do not fit 32-bit page numbers; use larger pages or fewer blocks"
            )));
        }
        let logical = (total as f64 * (1.0 - d.overprovisioning)).floor() as u64;
        let min_logical = d.pages_per_block as u64;
        if logical < min_logical {
            return Err(Error::Geometry(format!(
                "over-provisioning {} leaves {logical} logical pages, fewer than one block",
                d.overprovisioning
            )));
        }
        Ok(Geometry {
            channels: d.channels,
            chips_per_channel: d.chips_per_channel,
            dies_per_chip: d.dies_per_chip,
            planes_per_die: d.planes_per_die,
            blocks_per_plane: d.blocks_per_plane,
            pages_per_block: d.pages_per_block,
            page_size: d.page_size,
            logical_pages: logical as u32,
            spare_chips: d.spare_chips,
            div: Divisors {
                pages_per_block: Divisor::new(d.pages_per_block),
                pages_per_plane: Divisor::new(d.pages_per_block * d.blocks_per_plane),
                pages_per_die: Divisor::new(d.pages_per_block * d.blocks_per_plane * d.planes_per_die),
                blocks_per_plane: Divisor::new(d.blocks_per_plane),
                planes_per_die: Divisor::new(d.planes_per_die),
                dies_per_chip: Divisor::new(d.dies_per_chip),
                dies_per_channel: Divisor::new(d.dies_per_chip * d.chips_per_channel),
            },
        })
    }

    /// Every chip, spare chips included.
    #[inline]
    pub fn chips(&self) -> u32 {
        self.host_chips() + self.spare_chips
    }
    /// The device's own chips: `channels x chips_per_channel`.
    #[inline]
    pub fn host_chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }
    /// Dies of the device's own chips (ids 0..host_dies; spare dies follow).
    #[inline]
    pub fn host_dies(&self) -> u32 {
        self.host_chips() * self.dies_per_chip
    }
    /// Planes of the device's own chips: where host data is placed.
    #[inline]
    pub fn host_planes(&self) -> u32 {
        self.host_dies() * self.planes_per_die
    }
    /// Pages of the device's own chips (spare chips' excluded).
    #[inline]
    pub fn host_pages(&self) -> u32 {
        self.host_planes() * self.pages_per_plane()
    }
    /// Channels with a bus: the device's, and one more for spare chips.
    #[inline]
    pub fn buses(&self) -> u32 {
        self.channels + (self.spare_chips > 0) as u32
    }
    #[inline]
    pub fn dies(&self) -> u32 {
        self.chips() * self.dies_per_chip
    }
    #[inline]
    pub fn dies_per_channel(&self) -> u32 {
        self.chips_per_channel * self.dies_per_chip
    }
    #[inline]
    pub fn planes(&self) -> u32 {
        self.dies() * self.planes_per_die
    }
    #[inline]
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    #[inline]
    pub fn total_pages(&self) -> u32 {
        self.blocks() * self.pages_per_block
    }
    #[inline]
    pub fn pages_per_plane(&self) -> u32 {
        self.blocks_per_plane * self.pages_per_block
    }

    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        self.div.pages_per_block.div(ppn)
    }
    #[inline]
    pub fn page_in_block(&self, ppn: Ppn) -> u32 {
        self.div.pages_per_block.rem(ppn)
    }
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        self.div.blocks_per_plane.div(block)
    }
    #[inline]
    pub fn plane_of(&self, ppn: Ppn) -> u32 {
        self.div.pages_per_plane.div(ppn)
    }
    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        self.div.planes_per_die.div(plane)
    }
    /// The plane's index within its die.
    #[inline]
    pub fn plane_in_die(&self, plane: u32) -> u32 {
        self.div.planes_per_die.rem(plane)
    }
    #[inline]
    pub fn die_of(&self, ppn: Ppn) -> u32 {
        self.div.pages_per_die.div(ppn)
    }
    #[inline]
    pub fn chip_of_die(&self, die: u32) -> u32 {
        self.div.dies_per_chip.div(die)
    }
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        self.div.dies_per_channel.div(die)
    }
    #[inline]
    pub fn first_page(&self, block: u32) -> Ppn {
        block * self.pages_per_block
    }
    /// Global die id of (channel, chip in channel, die in chip).
    #[inline]
    pub fn die_id(&self, channel: u32, chip: u32, die: u32) -> u32 {
        (channel * self.chips_per_channel + chip) * self.dies_per_chip + die
    }
    /// The pages that bytes `offset..offset + size` touch: the first, and
    /// one past the last. Every request is split this way (twice, with its
    /// read-ahead), and a 64-bit division takes tens of cycles: a page size
    /// that is a power of two (every preset) is a shift.
    #[inline]
    pub fn page_span(&self, offset: u64, size: u32) -> (u64, u64) {
        let ps = self.page_size as u64;
        let end = offset.saturating_add(size as u64);
        if ps.is_power_of_two() {
            let s = ps.trailing_zeros();
            (offset >> s, (end >> s) + (end & (ps - 1) != 0) as u64)
        } else {
            (offset / ps, end.div_ceil(ps))
        }
    }
    /// Bytes of logical space.
    pub fn logical_bytes(&self) -> u64 {
        self.logical_pages as u64 * self.page_size as u64
    }
}

/// How a static allocation order (`ftl.order`, config's [`AllocOrder`])
/// places a logical page: the device's half of the type.
impl AllocOrder {
    /// The plane a logical page is statically assigned to.
    #[inline]
    pub fn plane_for(&self, geo: &Geometry, lpn: Lpn) -> u32 {
        let sizes = [geo.channels, geo.chips_per_channel, geo.dies_per_chip, geo.planes_per_die];
        let mut coord = [0u32; 4];
        let mut rest = lpn;
        for &k in &self.0 {
            let n = Divisor::new(sizes[k as usize]);
            coord[k as usize] = n.rem(rest);
            rest = n.div(rest);
        }
        geo.die_id(coord[0], coord[1], coord[2]) * geo.planes_per_die + coord[3]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn geo() -> Geometry {
        Geometry::from_config(&Config::preset("bench-matched").unwrap().device).unwrap()
    }

    #[test]
    fn counts() {
        let g = geo();
        assert_eq!(g.dies(), 128);
        assert_eq!(g.total_pages(), 8 * 8 * 2 * 2 * 512 * 64);
        assert_eq!(g.logical_pages, (g.total_pages() as f64 * 0.9) as u32);
    }

    #[test]
    fn page_span_matches_division_for_any_page_size() {
        let mut g = geo();
        for ps in [4096u32, 4000, 512, 16384, 1000] {
            g.page_size = ps;
            let p = ps as u64;
            for (off, size) in [(0u64, 1u32), (0, ps), (1, ps), (p - 1, 2), (7 * p, 3 * ps), (7 * p + 5, 3 * ps)] {
                let want = (off / p, (off + size as u64).div_ceil(p));
                assert_eq!(g.page_span(off, size), want, "page size {ps}, bytes {off}+{size}");
            }
        }
        // An end past u64::MAX saturates instead of wrapping to a small page.
        g.page_size = 4096;
        assert_eq!(g.page_span(u64::MAX - 1, 4096).1, u64::MAX / 4096 + 1);
    }

    #[test]
    fn cwdp_stripes_channels_first() {
        let g = geo();
        let o = AllocOrder::parse("CWDP").unwrap();
        let dies: Vec<u32> = (0..9).map(|l| g.die_of_plane(o.plane_for(&g, l))).collect();
        let chans: Vec<u32> = dies.iter().map(|&d| g.channel_of_die(d)).collect();
        assert_eq!(chans, vec![0, 1, 2, 3, 4, 5, 6, 7, 0]);
        // LPN 8 goes to the next chip of channel 0.
        assert_eq!(g.chip_of_die(dies[8]), 1);
        // Every LPN in one full stripe hits a distinct plane.
        let mut planes: Vec<u32> = (0..g.planes()).map(|l| o.plane_for(&g, l)).collect();
        planes.sort();
        planes.dedup();
        assert_eq!(planes.len() as u32, g.planes());
    }

    #[test]
    fn die_of_a_page_is_the_die_of_its_plane() {
        for (ppd, bpp, ppb) in [(2, 512, 64), (3, 7, 5), (1, 10, 3)] {
            let mut d = Config::default().device;
            (d.planes_per_die, d.blocks_per_plane, d.pages_per_block) = (ppd, bpp, ppb);
            let g = Geometry::from_config(&d).unwrap();
            for ppn in (0..g.total_pages()).step_by(ppb as usize / 2 + 1).chain([g.total_pages() - 1]) {
                assert_eq!(g.die_of(ppn), g.die_of_plane(g.plane_of(ppn)), "ppn {ppn} of {ppd}x{bpp}x{ppb}");
            }
        }
    }

    #[test]
    fn zero_counts_and_overflow_are_errors() {
        let mut d = Config::default().device;
        d.channels = 0;
        assert!(Geometry::from_config(&d).unwrap_err().to_string().contains("device.channels"));
        let mut d = Config::default().device;
        d.blocks_per_plane = 1 << 20;
        d.pages_per_block = 4096;
        assert!(Geometry::from_config(&d).is_err());
    }
}
