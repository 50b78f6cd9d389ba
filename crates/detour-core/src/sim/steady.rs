//! `ftl.precondition.layout = "mqsim_steady"`: the preconditioned pages
//! placed as MQSim places them (ftl/steady.rs has the distribution and the
//! per-plane plan), written through the scheme so its tables are its own.

use super::instant::initial_token;
use super::mqsim_draw::{mqsim_lpns, Walk, SECTOR_BYTES};
use super::Simulation;
use crate::config::{Allocation, PreconditionDraw};
use crate::error::{Error, Result};
use crate::ftl::steady::{block_plan, model_choices, mqsim_gc_threshold_blocks, steady_state_pdf};
use crate::ftl::Stream;
use crate::types::Lpn;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const KEY: &str = "ftl.precondition.layout";

impl Simulation {
    /// Write `valid` LPNs of 0..span drawn as MQSim draws them, each
    /// plane's over its blocks by MQSim's plan: a block gets its count of
    /// valid pages, then the rest of it stale. Each plane first sets aside
    /// MQSim's GC and translation write frontiers (its data frontier is
    /// the first block the plan fills, as in MQSim).
    /// MQSim's occupancy `rho` (FTL.cpp) is the valid share of the physical
    /// pages over the share of blocks above its GC threshold; the blocks it
    /// consumes per plane are the plane's blocks less half that threshold
    /// (`physical_block_consumption_goal`, one stream owning every plane).
    pub(super) fn fill_mqsim_steady(&mut self, valid: u32, span: u32) -> Result<()> {
        let f = &self.cfg.ftl;
        if valid == 0 {
            return Ok(());
        }
        if f.allocation != Allocation::Static {
            return Err(Error::config(KEY, "\"mqsim_steady\" places each plane's LPNs: it needs ftl.allocation = \"static\""));
        }
        let d = model_choices(&f.gc_policy, f.gc_choices).ok_or_else(|| {
            Error::config(KEY, "\"mqsim_steady\" has MQSim's model for gc_policy \"greedy\", \"fifo\" or \"random\" only")
        })?;
        let (bpp, ppb) = (self.geo.blocks_per_plane, self.geo.pages_per_block);
        let threshold = mqsim_gc_threshold_blocks(f.gc_threshold, bpp);
        let goal = bpp.saturating_sub(threshold / 2);
        let occupancy = valid as f64 / self.geo.host_pages() as f64;
        let rho = occupancy / (1.0 - threshold as f64 / bpp as f64);
        let pdf = steady_state_pdf(ppb, rho, d);
        let planes = self.geo.host_planes();
        let mut per_plane: Vec<Vec<Lpn>> = vec![Vec::new(); planes as usize];
        let (chosen, n, sectors) = self.trace_lpns(valid, span)?;
        let lpns = match self.cfg.ftl.precondition.draw {
            PreconditionDraw::Pages => steady_lpns(chosen, n, valid, self.cfg.run.seed),
            PreconditionDraw::Mqsim => {
                let (walk, target) = self.mqsim_walk(sectors);
                mqsim_lpns(chosen, n, target, walk, self.cfg.run.seed)
            }
        };
        for lpn in lpns {
            per_plane[self.ftl.static_plane(lpn) as usize].push(lpn);
        }
        for (plane, lpns) in per_plane.iter().enumerate() {
            // MQSim's constructor takes the data, translation and GC write
            // frontiers in that order (Flash_Block_Manager_Base.cpp): the
            // plan starts in the data frontier, its plane's first block,
            // which MQSim's wear levelling reads as block 0.
            for stream in [Stream::Host, Stream::Map, Stream::Gc] {
                if !self.ftl.take_write_frontier(plane as u32, stream) {
                    return Err(Error::config(KEY, format!("plane {plane} has no free block for MQSim's write frontiers")));
                }
            }
            let plan = block_plan(&pdf, goal, lpns.len() as u32).map_err(|left| {
                Error::config(
                    KEY,
                    format!("MQSim's plan leaves {left} valid pages of plane {plane} without a block; lower ftl.precondition.valid"),
                )
            })?;
            self.place_plane(plane as u32, lpns, &plan)?;
            if !self.ftl.open_fresh_host_frontier(plane as u32) {
                return Err(Error::config(KEY, format!("plane {plane} has no free block for MQSim's next data frontier")));
            }
        }
        Ok(())
    }

    /// The pages the workload touches (MQSim's steps 1-1 to 1-3: the
    /// trace's read, then write LPAs; here in trace order, which differs
    /// only when they outnumber `valid`), as flags over 0..span and their
    /// count, and the workload's (sectors, requests). None marked when the
    /// workload is not given again (Simulation::set_again; the Python API
    /// and `detour run` give it).
    fn trace_lpns(&mut self, valid: u32, span: u32) -> Result<(Vec<bool>, u32, (u64, u64))> {
        let mut chosen = vec![false; span as usize];
        let (mut n, mut sectors) = (0, (0u64, 0u64));
        self.read_workload_again(|_, _, io| {
            sectors = (sectors.0 + io.size as u64 / SECTOR_BYTES, sectors.1 + 1);
            for l in io.lpn..(io.lpn + io.pages).min(span) {
                if n < valid && !chosen[l as usize] {
                    chosen[l as usize] = true;
                    n += 1;
                }
            }
            Ok(())
        })?;
        Ok((chosen, n, sectors))
    }

    /// MQSim's step-1-4 walk and target for `ftl.precondition.draw =
    /// "mqsim"`: its logical sectors are each plane's `blocks x pages x
    /// sectors x (1 - overprovisioning)`, truncated, summed
    /// (`Logical_Address_Partitioning_Unit::Allocate_logical_address_for_
    /// flows`), its logical pages those sectors in pages, rounded up
    /// (`Address_Mapping_Unit_Page_Level`'s `Total_logical_pages_no`), the
    /// target the occupancy's share of them, truncated (`FTL::Perform_
    /// precondition`), and the request the trace's sectors over its
    /// requests, truncated (`IO_Flow_Trace_Based::Get_statistics`; one
    /// page when no workload is given again).
    fn mqsim_walk(&self, (sectors, requests): (u64, u64)) -> (Walk, u32) {
        let spp = (self.geo.page_size as u64 / SECTOR_BYTES).max(1);
        let per_plane = (self.geo.blocks_per_plane as u64 * self.geo.pages_per_block as u64 * spp) as f64;
        let per_plane = (per_plane * (1.0 - self.cfg.device.overprovisioning)) as u64;
        let total = per_plane * self.geo.host_planes() as u64;
        let target = (self.cfg.ftl.precondition.valid * total.div_ceil(spp) as f64) as u64;
        let request_sectors = sectors.checked_div(requests).unwrap_or(spp);
        (Walk { sectors: total, sectors_per_page: spp, request_sectors }, target.min(u32::MAX as u64) as u32)
    }

    /// One plane's blocks: `plan[i]` pages of `lpns` (ascending), the rest
    /// of the block stale. The LPNs are taken from the highest down, as
    /// MQSim takes `assigned_lpas[...].back()` and pops it
    /// (`Allocate_address_for_preconditioning`,
    /// Address_Mapping_Unit_Page_Level.cpp): the plan's fullest blocks get
    /// the highest LPNs and its emptiest (GC's first victims) the lowest,
    /// where a trace's pages lie when it spans less than the device
    /// (issue 46, h42pre).
    fn place_plane(&mut self, plane: u32, lpns: &[Lpn], plan: &[u32]) -> Result<()> {
        let ppb = self.geo.pages_per_block;
        let mut next = lpns.iter().rev().copied();
        for &v in plan {
            let mut n = 0;
            let refused = self.write_while(|_, _| {
                (n < v).then(|| {
                    n += 1;
                    let l = next.next().unwrap_or_default();
                    (l, initial_token(l))
                })
            });
            // The open block holds exactly this block's pages (full at ppb).
            if refused.is_some() || (v > 0 && self.ftl.open_host_pages(plane) != v) {
                return Err(Error::config(
                    KEY,
                    "\"mqsim_steady\" needs each LPN written once, on its static plane (a scheme without copies or parity)",
                ));
            }
            if v < ppb && !self.ftl.stale_rest_of_open_block(plane) {
                return Err(Error::config(KEY, format!("plane {plane} ran out of free blocks placing MQSim's plan")));
            }
        }
        Ok(())
    }
}

/// The LPNs MQSim preconditions, ascending: those already `chosen` (the
/// trace's, `n` of them), then distinct LPNs drawn uniformly from 0..span
/// until `valid` (`FTL::Perform_precondition`, FTL.cpp, step 1-4: uniform
/// random requests over the flow's addresses until the set holds the
/// occupancy's LPAs; a std::map, so each plane lists them in LPA order).
/// Drawn, not 0..valid, so planes get uneven counts as in MQSim (a
/// binomial spread), which decides where its GC starts. The draws are
/// Detour's (seeded by run.seed), not MQSim's.
fn steady_lpns(mut chosen: Vec<bool>, mut n: u32, valid: u32, seed: u64) -> Vec<Lpn> {
    let span = chosen.len() as u32;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while n < valid.min(span) {
        let l = rng.random_range(0..span) as usize;
        n += !chosen[l] as u32;
        chosen[l] = true;
    }
    (0..span).filter(|&l| chosen[l as usize]).collect()
}

#[cfg(test)]
mod tests {
    use super::super::{NoProgress, Simulation};
    use crate::config::ConfigBuilder;
    use crate::ftl::BlockState;

    /// The hand case below, preconditioned: one plane of 40 blocks of 2
    /// pages, 60 logical pages, half of them valid, `mqsim_steady`.
    fn hand_case() -> Simulation {
        hand_case_with(&[])
    }

    /// `hand_case` with `extra` settings.
    fn hand_case_with(extra: &[&str]) -> Simulation {
        let kv = [
            "device.channels=1",
            "device.chips_per_channel=1",
            "device.dies_per_chip=1",
            "device.planes_per_die=1",
            "device.blocks_per_plane=40",
            "device.pages_per_block=2",
            "device.overprovisioning=0.25",
            "ftl.gc_threshold=0.1",
            "ftl.precondition.valid=0.5",
            "ftl.precondition.layout=mqsim_steady",
            "run.verify=true",
        ];
        let kv = kv.iter().chain(extra).copied();
        let cfg = ConfigBuilder::from_preset("small").unwrap().set_all(kv).unwrap().build().unwrap();
        let mut sim = Simulation::new(cfg).unwrap();
        sim.precondition(&mut NoProgress).unwrap();
        sim
    }

    /// One plane of 40 blocks of 2 pages, a quarter spare (60 logical
    /// pages), 30 valid, greedy GC at 10%. By hand: MQSim's threshold is
    /// max(floor(0.1 x 40), 10) = 10 blocks, so rho = (30 / 80) / (1 -
    /// 10/40) = 0.5 and the goal is 40 - 10/2 = 35 blocks. With 2 pages a
    /// block the model's fixed point is 1 - w^30 = (2 - w^30) w / (2 x
    /// 0.5): w = 0.5 less about 1e-10, so the pdf over 0, 1, 2 valid pages
    /// is [0.5, 0.5, 0]. Its mean (1/4 of a block) is within a page of the
    /// plane's (30 / 70), no shift; counts: 17 blocks of 1 valid page, 17
    /// of none, placing 17 pages; the 13 left go to the first count, 13
    /// more blocks of 1 (30 in all), and 5 of the 35 remain for blocks of
    /// none. MQSim's GC and translation write frontiers take 2 blocks
    /// before the plan (its data frontier is the plan's first block). So:
    /// 30 blocks with page 0 valid and page 1 stale, 5 wholly stale, 2
    /// open and empty, 3 free (MQSim's pool: 40 - 3 - 35 = 2 and an empty
    /// data frontier). With 60 logical pages and 30 valid, all of them on
    /// the one plane whichever are drawn.
    #[test]
    fn mqsim_steady_places_the_hand_computed_blocks() {
        let sim = hand_case();
        let (mut one, mut none, mut free, mut open) = (0, 0, 0, 0);
        for b in 0..40 {
            let info = sim.ftl.block(b);
            match (info.state, info.valid, info.next) {
                (BlockState::Free, 0, 0) => free += 1,
                (BlockState::Full, 1, 2) => {
                    assert!(sim.ftl.is_live(b * 2) && !sim.ftl.is_live(b * 2 + 1), "block {b}: page 0 valid, 1 stale");
                    one += 1
                }
                (BlockState::Full, 0, 2) => none += 1,
                (BlockState::Open, 0, 0) => open += 1,
                other => panic!("block {b}: {other:?}"),
            }
        }
        // Open: the map and GC frontiers and the fresh data frontier MQSim
        // takes after the plan's last block.
        assert_eq!((one, none, open, free), (30, 5, 3, 2));
        assert_eq!(sim.ftl.live_pages(), 30);
        // 2 free blocks are below the trigger (4 of 40), yet no GC is
        // listed: MQSim checks only when a user write fills a frontier.
        assert!(sim.ftl.needs_gc(0) && sim.ftl.gc_wanted.is_empty());
        // MQSim's constructor takes the data, translation and GC frontiers
        // in that order: the plan starts in block 0, blocks 1 and 2 stay open.
        let states: Vec<_> = (0..4).map(|b| (sim.ftl.block(b).state, sim.ftl.block(b).valid)).collect();
        assert_eq!(states, [(BlockState::Full, 1), (BlockState::Open, 0), (BlockState::Open, 0), (BlockState::Full, 1)]);
    }

    /// The drawn LPNs: `valid` distinct ones of 0..span, ascending; all of
    /// them when valid = span; the same for the same seed.
    #[test]
    fn steady_lpns_are_distinct_draws_of_the_span() {
        let draw = |valid, span, seed| super::steady_lpns(vec![false; span], 0, valid, seed);
        let l = draw(500, 1000, 7);
        assert_eq!(l.len(), 500);
        assert!(l.windows(2).all(|w| w[0] < w[1]) && *l.last().unwrap() < 1000);
        assert_ne!(l, (0..500).collect::<Vec<_>>(), "drawn, not the first LPNs");
        assert_eq!(l, draw(500, 1000, 7));
        assert_eq!(draw(64, 64, 1), (0..64).collect::<Vec<_>>());
        // The trace's pages are kept; only the rest are drawn.
        let mut chosen = vec![false; 10];
        (chosen[3], chosen[9]) = (true, true);
        assert_eq!(super::steady_lpns(chosen.clone(), 2, 2, 5), vec![3, 9]);
        let l = super::steady_lpns(chosen, 2, 6, 5);
        assert!(l.len() == 6 && l.contains(&3) && l.contains(&9));
    }

    /// MQSim's plan takes a plane's LPAs from the highest down
    /// (`assigned_lpas[...].back()`, then `pop_back`). The hand case of
    /// `mqsim_steady_places_the_hand_computed_blocks` (30 blocks of one
    /// valid page, filled as block 0 then 3..=31): block 0 holds the
    /// highest of the 30 drawn LPNs, block 31 the lowest, and the LPNs fall
    /// block by block. In ascending order (before h42pre) they rise.
    #[test]
    fn mqsim_steady_fills_the_fullest_blocks_with_the_highest_lpns() {
        let sim = hand_case();
        let owner_lpn = |ppn: u32| (0..60).find(|&l| sim.ftl.owner(ppn) == crate::types::Owner::lpn(l));
        let order: Vec<u32> = std::iter::once(0).chain(3..32).collect();
        let lpns: Vec<u32> = order.iter().map(|&b| owner_lpn(b * 2).expect("page 0 of each plan block is live")).collect();
        assert_eq!(lpns.len(), 30);
        assert!(lpns.windows(2).all(|w| w[0] > w[1]), "highest first: {lpns:?}");
    }

    /// `ftl.precondition.draw = "mqsim"` places the pages MQSim's step 1-4
    /// draws (sim/mqsim_draw.rs). The hand case's plane, 4 KiB pages:
    /// MQSim's logical sectors are 40 x 2 x 8 x 0.75 = 480 (starts in
    /// 0..=478), its target floor(0.5 x 60) = 30 pages, and with no
    /// workload given again a request is one page (8 sectors); seed
    /// `run.seed` = 1. The 30 LPNs placed are that walk's, not the
    /// uniform page draw's (which the default keeps).
    #[test]
    fn mqsim_draw_places_the_pages_of_mqsims_walk() {
        use super::super::mqsim_draw::{mqsim_lpns, Walk};
        let placed = |sim: &Simulation| -> Vec<u32> {
            let mut l: Vec<u32> = (0..80)
                .filter(|&p| sim.ftl.page_state(p) == crate::ftl::PageState::Valid)
                .filter_map(|p| (0..60).find(|&l| sim.ftl.owner(p) == crate::types::Owner::lpn(l)))
                .collect();
            l.sort_unstable();
            l
        };
        let walk = Walk { sectors: 480, sectors_per_page: 8, request_sectors: 8 };
        let want = mqsim_lpns(vec![false; 60], 0, 30, walk, 1);
        assert_eq!(want.len(), 30);
        let sim = hand_case_with(&["device.page_size=4096", "ftl.precondition.draw=mqsim"]);
        assert_eq!(placed(&sim), want);
        let uniform = super::steady_lpns(vec![false; 60], 0, 30, 1);
        assert_ne!(uniform, want);
        assert_eq!(placed(&hand_case_with(&["device.page_size=4096"])), uniform);
    }
}
