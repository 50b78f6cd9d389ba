//! MQSim's steady-state preconditioning layout (`ftl.precondition.layout =
//! "mqsim_steady"`). MQSim does not write its preconditioned pages: it
//! computes the distribution of valid pages per block that uniform random
//! writes reach under its GC policy (`FTL::Perform_precondition`, FTL.cpp,
//! step 2, after B. Van Houdt, "A mean field model for a class of garbage
//! collection algorithms in flash-based solid state drives", SIGMETRICS
//! 2013) and places each plane's valid pages block by block to match it
//! (`Address_Mapping_Unit_Page_Level::Allocate_address_for_preconditioning`).
//! Its trace flows take the uniform case (peers/README.md's fix sets their
//! address distribution to `RANDOM_UNIFORM`).

use super::alloc::Stream;
use super::Ftl;
use crate::types::Owner;

/// MQSim's GC threshold in blocks (`GC_and_WL_Unit_Base`'s constructor:
/// `block_pool_gc_threshold`, the threshold share of the plane's blocks
/// rounded down, at least 1 and at least `max_ongoing_gc_reqs_per_plane`,
/// 10 by default in GC_and_WL_Unit_Page_Level.h).
pub fn mqsim_gc_threshold_blocks(gc_threshold: f64, blocks_per_plane: u32) -> u32 {
    ((gc_threshold * blocks_per_plane as f64) as u32).max(1).max(10)
}

/// The number of victim candidates MQSim's model uses for a GC policy:
/// greedy and FIFO as d-choices with d = 30 (FTL.cpp: "a larger value for
/// d-choices ... will lead to results close to greedy"), Detour's
/// `random` (d-choices, MQSim's RGA) with its own d. None for a policy
/// MQSim's uniform-traffic model has no case for.
pub fn model_choices(policy: &str, gc_choices: u32) -> Option<i32> {
    match policy {
        "greedy" | "fifo" => Some(30),
        "random" => Some(gc_choices as i32),
        _ => None,
    }
}

/// MQSim's steady-state pdf of valid pages per block (index 0..=ppb) for
/// uniform writes, d-choices GC and occupancy `rho`: the binomial start
/// refined by `Utils::Euler_estimation` (Helper_Functions.cpp) with MQSim's
/// step 0.001, tolerance 1e-10 and at most 10,000 steps.
pub fn steady_state_pdf(ppb: u32, rho: f64, d: i32) -> Vec<f64> {
    let mut mu: Vec<f64> = (0..=ppb).map(|i| combinations(ppb, i) * rho.powi(i as i32) * (1.0 - rho).powi((ppb - i) as i32)).collect();
    euler_estimation(&mut mu, ppb as usize, rho, d, 0.001, 1e-10, 10_000);
    mu
}

/// `Utils::Combination_count`, in MQSim's floating-point order.
fn combinations(n: u32, k: u32) -> f64 {
    let (n, mut k) = (n as f64, k as f64);
    if k > n {
        return 0.0;
    }
    if k * 2.0 > n {
        k = n - k;
    }
    if k == 0.0 {
        return 1.0;
    }
    let mut r = n;
    for i in 2..=(k as u32) {
        r *= n - i as f64 + 1.0;
        r /= i as f64;
    }
    r
}

/// `Utils::Euler_estimation`, step for step: w[i] is the share of blocks
/// with at least i valid pages. As in MQSim, w[b] is never stepped (it
/// stays 0 after the first step), so no block ends wholly valid.
fn euler_estimation(mu: &mut [f64], b: usize, rho: f64, d: i32, h: f64, max_diff: f64, itr_max: u32) {
    let n = mu.len();
    let mut w0 = vec![0.0; n + 1];
    let mut w = vec![0.0; n + 1];
    (w0[0], w[0]) = (1.0, 1.0);
    for i in 1..=n {
        w0[i] = mu[i..].iter().sum();
    }
    let (mut itr, mut diff) = (0, f64::MAX);
    while itr < itr_max && diff > max_diff {
        let sigma: f64 = w0[1..=b].iter().map(|x| x.powi(d)).sum();
        for i in 1..b {
            w[i] = w0[i] + h * (1.0 - w0[i].powi(d) - (b as f64 - sigma) * ((i as f64 * (w0[i] - w0[i + 1])) / (b as f64 * rho)));
        }
        diff = (w[0] - w0[0]).abs();
        for i in 1..=b {
            diff = diff.max((w[i] - w0[i]).abs());
        }
        w0[1..].copy_from_slice(&w[1..]);
        itr += 1;
    }
    for i in 0..=b {
        mu[i] = w0[i] - w0[i + 1];
    }
}

/// The valid-page count of each block MQSim fills on one plane, in the
/// order it fills them (`Allocate_address_for_preconditioning`'s second
/// part): `goal` blocks to consume, `lpns` valid pages to place. The pdf
/// is first shifted by whole pages when its mean is a page or more off
/// the plane's own; each count v from ppb down to 0 gets floor(pdf[v] x
/// goal) blocks, the first non-empty count also the blocks for the pages
/// the rounding left out; when the pages run out, the block being filled
/// takes what is left and the rest of that count's blocks none (MQSim
/// lowers its loop variable, so the loop then ends). Err(pages left) when
/// not all fit (MQSim stops: "It is not possible to assign PPA to all
/// LPAs").
pub fn block_plan(pdf: &[f64], goal: u32, lpns: u32) -> Result<Vec<u32>, u32> {
    let ppb = pdf.len() - 1;
    let adj = shifted(pdf, goal, lpns);
    let count = |v: usize| (adj[v] * goal as f64) as u32;
    let total: u64 = (0..=ppb).map(|v| v as u64 * count(v) as u64).sum();
    let mut need = (lpns as u64).saturating_sub(total) as u32;
    let (mut left, mut remaining, mut plan) = (lpns, goal, Vec::new());
    let mut v = ppb as i64;
    while v >= 0 {
        let mut k = count(v as usize);
        if k > 0 && need > 0 {
            if v == 0 {
                return Err(left); // MQSim divides by zero here
            }
            k += need.div_ceil(v as u32);
            need = 0;
        }
        k = k.min(remaining);
        remaining -= k;
        for _ in 0..k {
            v = v.min(left as i64);
            plan.push(v as u32);
            left -= v as u32;
        }
        v -= 1;
    }
    if left > 0 {
        return Err(left);
    }
    Ok(plan)
}

/// The pdf moved by whole pages toward the plane's own mean, as MQSim's
/// "Adjust the average" step does (the last entry, ppb, is never moved).
fn shifted(pdf: &[f64], goal: u32, lpns: u32) -> Vec<f64> {
    let ppb = pdf.len() - 1;
    let mut adj = pdf.to_vec();
    let model: f64 = pdf.iter().enumerate().map(|(i, p)| p * i as f64 / ppb as f64).sum();
    let real = lpns as f64 / (goal as f64 * ppb as f64);
    if (model - real).abs() * ppb as f64 > 0.9999 {
        let disp = ((real - model) * ppb as f64) as i64;
        let s = (disp.unsigned_abs() as usize).min(ppb);
        for i in 0..ppb {
            adj[i] = if disp > 0 {
                if i < s {
                    0.0
                } else {
                    pdf[i - s]
                }
            } else if i + s < ppb {
                pdf[i + s]
            } else {
                0.0
            };
        }
    }
    adj
}

impl Ftl {
    /// Make the rest of `plane`'s open host block stale (all of a fresh one
    /// if the open block is full), as MQSim's block manager invalidates
    /// the pages after a preconditioned block's valid ones
    /// (`Allocate_Pages_in_block_and_invalidate_remaining_for_
    /// preconditioning`, Flash_Block_Manager.cpp). False if the plane had
    /// no free block.
    pub fn stale_rest_of_open_block(&mut self, plane: u32) -> bool {
        let ppb = self.geo.pages_per_block;
        loop {
            let Some(ppn) = self.alloc_programmed(plane, Stream::Host, Owner::NONE, 0) else { return false };
            self.invalidate(ppn);
            if ppn % ppb == ppb - 1 {
                return true;
            }
        }
    }

    /// Take a free block of `plane` as `stream`'s open block before any
    /// page is written, as MQSim's block manager takes each stream's
    /// data, translation and GC write frontiers from the free pool in its
    /// constructor (`Flash_Block_Manager_Base`, Flash_Block_Manager_Base.cpp),
    /// so its free pool starts three blocks short. Nothing is taken when
    /// the stream already has a block open. False if the plane had none free.
    pub fn take_write_frontier(&mut self, plane: u32, stream: Stream) -> bool {
        if self.planes[plane as usize].write_points[self.point(stream)] != crate::types::NO_PAGE {
            return true;
        }
        self.open_block(plane, stream).is_some()
    }

    /// Open a fresh host block on `plane` once its open one is full, and
    /// list no GC for it: MQSim's preconditioning takes a new data frontier
    /// after each block it fills with no GC check
    /// (`Allocate_Pages_in_block_and_invalidate_remaining_for_
    /// preconditioning`, Flash_Block_Manager.cpp), and checks GC only when
    /// a user write fills a frontier (`Allocate_block_and_page_in_plane_
    /// for_user_write`) or an erase ends. False if the plane had none free.
    pub fn open_fresh_host_frontier(&mut self, plane: u32) -> bool {
        let open = self.planes[plane as usize].write_points[Stream::Host as usize];
        if open != crate::types::NO_PAGE && self.blocks[open as usize].next < self.geo.pages_per_block {
            return true;
        }
        let opened = self.open_block(plane, Stream::Host).is_some();
        self.gc_wanted.retain(|&p| p != plane);
        opened
    }

    /// Pages written in `plane`'s open host block (0 with none open).
    pub fn open_host_pages(&self, plane: u32) -> u32 {
        let block = self.planes[plane as usize].write_points[Stream::Host as usize];
        if block == crate::types::NO_PAGE {
            return 0;
        }
        self.blocks[block as usize].next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_are_pascal_s() {
        assert_eq!(combinations(4, 2), 6.0);
        assert_eq!(combinations(64, 1), 64.0);
        assert_eq!(combinations(5, 6), 0.0);
    }

    #[test]
    fn steady_pdf_sums_to_one_and_keeps_no_full_block() {
        let p = steady_state_pdf(64, 0.4731, 30);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!(p[64], 0.0);
    }

    /// Hand-computed: pdf over 0..=4 pages [0, 0.5, 0, 0.5, 0], 4 blocks,
    /// 8 pages: mean 0.5 = 8 / 16, no shift; counts: v=3 two blocks, v=1
    /// two; placed 3+3+1+1 = 8, nothing left.
    #[test]
    fn plan_follows_the_pdf_from_the_fullest_count_down() {
        assert_eq!(block_plan(&[0.0, 0.5, 0.0, 0.5, 0.0], 4, 8), Ok(vec![3, 3, 1, 1]));
        // 10 pages: the rounding leaves 2, given to the first count (v=3)
        // as ceil(2/3) = 1 more block; v=1 gets the one block left, which
        // takes the last page: 3+3+3+1.
        assert_eq!(block_plan(&[0.0, 0.5, 0.0, 0.5, 0.0], 4, 10), Ok(vec![3, 3, 3, 1]));
        // Pages run out mid-count (mean 5/16 within a page of 1/2, no
        // shift): 2+2+1, then that count's last block none, wholly stale.
        assert_eq!(block_plan(&[0.0, 0.0, 1.0, 0.0, 0.0], 4, 5), Ok(vec![2, 2, 1, 0]));
    }

    /// The matched device of docs/validation.md (512 blocks of 64 pages,
    /// 10% spare, greedy at 5%: MQSim's threshold 25, goal 500) at 50%
    /// occupancy: the blocks MQSim consumed for the LPA counts it printed
    /// on 8 planes of the r50 aged point (a throw-away copy printing
    /// `Allocate_address_for_preconditioning`'s counts; docs/validation.md).
    #[test]
    fn plan_consumes_the_blocks_mqsim_consumed() {
        let physical = 256.0 * 512.0 * 64.0;
        let valid = (0.5 * (physical * 0.9_f64) as u32 as f64) as u32 as f64;
        let t = mqsim_gc_threshold_blocks(0.05, 512);
        assert_eq!(t, 25);
        let pdf = steady_state_pdf(64, valid / physical / (1.0 - 25.0 / 512.0), 30);
        let mean: f64 = pdf.iter().enumerate().map(|(i, p)| p * i as f64 / 64.0).sum();
        assert!((mean - 0.464269).abs() < 1e-6, "{mean}");
        for (lpas, consumed) in
            [(14_833, 486), (14_656, 481), (14_844, 484), (14_924, 485), (14_593, 480), (14_678, 481), (14_842, 484), (14_812, 483)]
        {
            assert_eq!(block_plan(&pdf, 512 - t / 2, lpas).unwrap().len(), consumed, "{lpas} LPAs");
        }
    }

    /// A plane mean a page or more off the model's moves the pdf: model
    /// mean 1/4 of a 4-page block, plane mean 12/(4 x 4) = 3/4, a shift of
    /// 2 pages: [0.0, 1.0, 0, 0, 0] -> [0, 0, 0, 1.0, 0].
    #[test]
    fn plan_shifts_the_pdf_to_the_plane_s_mean() {
        assert_eq!(block_plan(&[0.0, 1.0, 0.0, 0.0, 0.0], 4, 12), Ok(vec![3, 3, 3, 3]));
    }
}
