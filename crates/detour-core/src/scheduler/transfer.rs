//! How long a batch holds the channel for its data: a whole page per
//! operation, or (under the peers' sizing rules) only the bytes each
//! operation carries, at the page's rate.

use super::{flags, Scheduler};
use crate::config::ReadTransfer;
use crate::types::Time;

/// The channel time of `bytes` of a page whose whole transfer takes
/// `page_ns`, rounded to the nearest ns; 0 bytes (or a page or more) is a
/// whole page.
fn part_of_page(page_ns: Time, page_size: u64, bytes: u64) -> Time {
    if bytes == 0 || bytes >= page_size {
        page_ns
    } else {
        (2 * page_ns * bytes + page_size) / (2 * page_size)
    }
}

impl Scheduler {
    /// The channel time of a read batch's data-out: a page each, or under
    /// `read_transfer = "requested"` each operation's bytes (`xfer_bytes`).
    pub(super) fn data_out_ns(&self, die: usize) -> Time {
        let d = self.dies.at(die);
        let page = self.timing.transfer;
        if self.cfg.read_transfer == ReadTransfer::Page {
            return d.n as u64 * page;
        }
        let ps = self.geo.page_size as u64;
        d.batch[..d.n as usize].iter().map(|&id| part_of_page(page, ps, self.ops.get(id).xfer_bytes as u64)).sum()
    }

    /// The channel time of a program batch's data-in: each operation's
    /// bytes (`xfer_bytes`, set only under `write_transfer = "written"`; 0,
    /// a whole page, otherwise); a page whose data crossed with another's
    /// (`SHARED_DATA_IN`) moves none.
    pub(super) fn data_in_ns(&self, die: usize) -> Time {
        let d = self.dies.at(die);
        let (page, ps) = (self.timing.transfer, self.geo.page_size as u64);
        d.batch[..d.n as usize]
            .iter()
            .map(|&id| self.ops.get(id))
            .filter(|op| op.flags & flags::SHARED_DATA_IN == 0)
            .map(|op| part_of_page(page, ps, op.xfer_bytes as u64))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::part_of_page;

    #[test]
    fn a_part_of_a_page_takes_its_share_of_the_page_time_rounded() {
        assert_eq!(part_of_page(24_600, 8192, 0), 24_600);
        assert_eq!(part_of_page(24_600, 8192, 8192), 24_600);
        assert_eq!(part_of_page(24_600, 8192, 4096), 12_300);
        // 512 of 4096 bytes of 49,200 ns: 6,150 ns exactly; 1 byte rounds to 12 ns.
        assert_eq!(part_of_page(49_200, 4096, 512), 6_150);
        assert_eq!(part_of_page(49_200, 4096, 1), 12);
    }
}
