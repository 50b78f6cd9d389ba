//! What a scheme may see of the device's live state when it plans.

use crate::device::{DieState, Divisor, Geometry};

/// Read-only per-die load: outstanding commands and whether a die is busy
/// with a write. Chip-level load is the sum over the chip's dies. When the
/// chip is the service unit (`scheduler.unit = "chip"`) a die's state is
/// its chip's.
#[derive(Clone, Copy)]
pub struct LoadView<'a> {
    geo: &'a Geometry,
    dies: &'a [DieState],
    unit_dies: u32,
    /// Die -> service unit, with no division on the common path: schemes
    /// ask it for every page they plan.
    unit: Divisor,
}

impl<'a> LoadView<'a> {
    /// `units` holds one state per service unit of `unit_dies` dies.
    pub fn new(geo: &'a Geometry, units: &'a [DieState], unit_dies: u32) -> Self {
        LoadView { geo, dies: units, unit_dies, unit: Divisor::new(unit_dies) }
    }
    #[inline(always)]
    fn state(&self, die: u32) -> &DieState {
        &self.dies[self.unit.div(die) as usize]
    }
    /// Outstanding commands (queued + running) on a die.
    #[inline]
    pub fn occ(&self, die: u32) -> u32 {
        self.state(die).occ
    }
    /// Outstanding commands on all dies of a chip.
    pub fn chip_occ(&self, chip: u32) -> u32 {
        let n = self.geo.dies_per_chip;
        if self.unit_dies > 1 {
            return self.occ(chip * n);
        }
        (chip * n..(chip + 1) * n).map(|d| self.occ(d)).sum()
    }
    /// The die is programming or erasing (or holds a suspended program).
    #[inline]
    pub fn writing(&self, die: u32) -> bool {
        self.state(die).writing()
    }
    /// Time until the die's running array operation ends (0 when idle or
    /// moving data; a suspended operation's remainder is not counted).
    #[inline]
    pub fn busy_for(&self, die: u32, now: crate::types::Time) -> crate::types::Time {
        let d = self.state(die);
        if d.phase == crate::device::Phase::Array {
            d.array_end.saturating_sub(now)
        } else {
            0
        }
    }
    #[inline]
    pub fn failed(&self, die: u32) -> bool {
        self.state(die).failed
    }
    /// The die with the fewest outstanding commands among `dies` (first wins ties).
    pub fn least_loaded(&self, dies: impl Iterator<Item = u32>) -> Option<u32> {
        self.least_by(dies, |&d| self.occ(d))
    }
    /// The working die of `dies` with the smallest `key` (first wins ties).
    pub fn least_by<K: Ord>(&self, dies: impl Iterator<Item = u32>, key: impl FnMut(&u32) -> K) -> Option<u32> {
        dies.filter(|&d| !self.failed(d)).min_by_key(key)
    }
    pub fn min_occ(&self) -> u32 {
        self.dies.iter().filter(|d| !d.failed).map(|d| d.occ).min().unwrap_or(0)
    }
    pub fn geometry(&self) -> &Geometry {
        self.geo
    }
}
