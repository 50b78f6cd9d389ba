//! Unit tests of page and block bookkeeping, allocation and victim choice.

use super::*;
use crate::config::Config;
use crate::device::AllocOrder;

/// An FTL on `small` cut to 8 blocks a plane, with `set` applied.
fn ftl_with(set: impl FnOnce(&mut Config)) -> Ftl {
    let mut cfg = Config::preset("small").unwrap();
    cfg.device.blocks_per_plane = 8;
    set(&mut cfg);
    let geo = Geometry::from_config(&cfg.device).unwrap();
    Ftl::new(&cfg.ftl, &cfg.nand, cfg.run.seed, &geo, true).unwrap()
}

fn ftl() -> Ftl {
    ftl_with(|cfg| {
        cfg.device.pages_per_block = 4;
        cfg.ftl.gc_threshold = 0.4;
    })
}

#[test]
fn page_life_cycle() {
    let mut f = ftl();
    let p = f.alloc(0, Stream::Host, Owner::lpn(7)).unwrap();
    assert_eq!(f.page_state(p), PageState::Pending);
    assert!(f.is_live(p) && !f.is_programmed(p));
    assert_eq!(f.block(f.geo.block_of(p)).pins, 1, "a pending program pins its block");
    f.program_done(p, 42);
    assert!(f.is_programmed(p));
    assert_eq!((f.owner(p), f.token(p)), (Owner::lpn(7), 42));
    f.invalidate(p);
    assert_eq!(f.page_state(p), PageState::Invalid);
    assert_eq!(f.block(f.geo.block_of(p)).valid, 0);
}

#[test]
fn alloc_programmed_leaves_what_alloc_then_program_done_leaves() {
    let (mut a, mut b) = (ftl(), ftl());
    // Past a block's end on two planes and both streams, with an overwrite.
    for i in 0..11u32 {
        let (plane, stream) = (i % 2, if i % 3 == 0 { Stream::Gc } else { Stream::Host });
        let token = 100 + i as u64;
        let p = a.alloc(plane, stream, Owner::lpn(i)).unwrap();
        a.program_done(p, token);
        assert_eq!(b.alloc_programmed(plane, stream, Owner::lpn(i), token), Some(p));
        if i == 5 {
            a.invalidate(p);
            b.invalidate(p);
        }
    }
    for ppn in 0..a.geo.total_pages() {
        assert_eq!((a.page_state(ppn), a.owner(ppn), a.token(ppn)), (b.page_state(ppn), b.owner(ppn), b.token(ppn)), "page {ppn}");
    }
    for blk in 0..a.geo.blocks() {
        assert_eq!(format!("{:?}", a.block(blk)), format!("{:?}", b.block(blk)), "block {blk}");
    }
    assert_eq!(format!("{:?}", a.stats), format!("{:?}", b.stats));
    assert_eq!(b.block(0).pins, 0, "nothing is pinned: no program is in flight");
}

#[test]
fn invalidated_while_pending_stays_invalid() {
    let mut f = ftl();
    let p = f.alloc(0, Stream::Host, Owner::lpn(1)).unwrap();
    let q = f.alloc(0, Stream::Host, Owner::lpn(2)).unwrap();
    f.invalidate(p);
    f.program_done(p, 5);
    assert_eq!(f.page_state(p), PageState::Invalid);
    assert!(!f.is_programmed_live(q), "the block still has a program in flight");
    f.program_done(q, 6);
    assert_eq!(f.block(f.geo.block_of(q)).pending, 0);
    assert!(f.is_programmed_live(q));
}

#[test]
fn the_static_plane_table_follows_the_order() {
    for order in ["CWDP", "PDWC", "WCDP", "DPCW"] {
        let mut cfg = Config::preset("small").unwrap();
        // Not powers of two, so the table's modulo is a real division.
        cfg.device.channels = 3;
        cfg.device.chips_per_channel = 5;
        cfg.ftl.order = AllocOrder::parse(order).unwrap();
        let geo = Geometry::from_config(&cfg.device).unwrap();
        let f = Ftl::new(&cfg.ftl, &cfg.nand, cfg.run.seed, &geo, false).unwrap();
        let o = AllocOrder::parse(order).unwrap();
        for lpn in (0..geo.logical_pages).step_by(7) {
            assert_eq!(f.static_plane(lpn), o.plane_for(&geo, lpn), "{order} lpn {lpn}");
        }
    }
}

#[test]
fn host_allocation_leaves_the_gc_reserve() {
    let mut f = ftl();
    let mut host = 0;
    while f.alloc(0, Stream::Host, Owner::lpn(0)).is_some() {
        host += 1;
    }
    // 8 blocks of 4 pages, 2 blocks kept for GC.
    assert_eq!(host, (8 - GC_RESERVE) * 4);
    assert!(f.alloc(0, Stream::Gc, Owner::lpn(0)).is_some());
    assert!(!f.gc_wanted.is_empty(), "falling below the threshold asks for GC");
}

#[test]
fn greedy_victim_is_the_full_unpinned_block_with_fewest_live_pages() {
    let mut f = ftl();
    let pages: Vec<u32> = (0..12).map(|i| f.alloc(0, Stream::Host, Owner::lpn(i)).unwrap()).collect();
    for &p in &pages {
        f.program_done(p, 1);
    }
    // Blocks 0, 1, 2 are full; invalidate 1 page of block 0 and 3 of block 1.
    f.invalidate(pages[0]);
    for &p in &pages[4..7] {
        f.invalidate(p);
    }
    f.pin(pages[7]);
    assert_eq!(f.start_gc(0), Some(0), "block 1 is pinned, so block 0 is next best");
    f.unpin(pages[7]);
    let mut live = Vec::new();
    f.live_pages_of(0, &mut live);
    assert_eq!(live, pages[1..4].to_vec());
}

#[test]
fn erase_frees_the_block_and_counts() {
    let mut f = ftl();
    let pages: Vec<u32> = (0..4).map(|i| f.alloc(0, Stream::Host, Owner::lpn(i)).unwrap()).collect();
    for &p in &pages {
        f.program_done(p, 1);
        f.invalidate(p);
    }
    let before = f.free_blocks(0);
    let victim = f.start_gc(0).unwrap();
    assert!(f.victim_moved(victim));
    f.erase_issued(victim);
    f.erase_done(victim);
    assert_eq!(f.free_blocks(0), before + 1);
    // The per-die count follows every block taken and returned.
    for d in 0..f.geo.dies() {
        let ppd = f.geo.planes_per_die;
        assert_eq!(f.die_free_blocks(d), (d * ppd..(d + 1) * ppd).map(|p| f.free_blocks(p)).sum::<u32>());
    }
    assert_eq!(f.block(victim).erases, 1);
    assert_eq!(f.page_state(pages[0]), PageState::Free);
    assert_eq!(f.token(pages[0]), 0);
}

#[test]
fn planes_start_at_staggered_blocks_and_gc_ties_follow_the_free_order() {
    let mut f = ftl();
    let (plane, bpp) = (3, f.geo.blocks_per_plane);
    let mut pages = Vec::new();
    while let Some(p) = f.alloc(plane, Stream::Host, Owner::lpn(pages.len() as u32)) {
        pages.push(p);
    }
    assert_eq!(f.geo.block_of(pages[0]), plane * bpp + 3, "plane 3 starts at its block 3");
    // Host writes fill 6 blocks (2 are kept for GC): the plane's blocks 3-7, then 0.
    let filled: Vec<u32> = pages.chunks(4).map(|c| f.geo.block_of(c[0]) - plane * bpp).collect();
    assert_eq!(filled, [3, 4, 5, 6, 7, 0]);
    for &p in &pages {
        f.program_done(p, 1);
    }
    // One stale page in block 0 and one in block 7: the tie goes to block
    // 7, the first of the two in the plane's free order.
    let first_of = |b: u32| f.geo.first_page(plane * bpp + b);
    let (in0, in7) = (first_of(0), first_of(7));
    f.invalidate(in0);
    f.invalidate(in7);
    assert_eq!(f.start_gc(plane), Some(plane * bpp + 7));
}

#[test]
fn a_zeroed_block_table_holds_fresh_blocks() {
    let fresh = BlockInfo { valid: 0, erases: 0, next: 0, pins: 0, pending: 0, state: BlockState::Free, erase_ready: false, map: false };
    let table: chunked::Zeroed<BlockInfo> = chunked::Zeroed::new(100_000);
    assert_eq!(table.len(), 100_000);
    assert!(table.iter().all(|b| *b == fresh));
    assert!(ftl().blocks.iter().all(|b| *b == fresh));
}

/// A cached mapping table smaller than the map: its translation pages are
/// on flash, in blocks GC moves them out of into blocks of their own.
fn ftl_with_cmt() -> Ftl {
    ftl_with(|cfg| {
        cfg.device.pages_per_block = 64; // 16 Ki pages: more than one translation page
        cfg.ftl.mapping = "cmt".parse().unwrap();
        cfg.ftl.cmt_size_kib = 4;
    })
}

#[test]
fn translation_pages_live_in_map_blocks() {
    let mut f = ftl_with_cmt();
    f.place_translation_pages().unwrap();
    let first = f.mapping.location(0);
    assert!(f.is_programmed(first) && f.is_translation_page(first) && f.owner(first) == Owner::id(0));
    let again = f.write_back_translation(0).unwrap();
    assert_eq!(f.page_state(first), PageState::Invalid, "a write-back leaves the old copy stale");
    assert_eq!(f.mapping.location(0), again);
    assert_eq!(f.gc_stream(f.geo.block_of(again)), Stream::MapGc);
    let data = f.alloc(0, Stream::Host, Owner::lpn(3)).unwrap();
    assert!(!f.is_translation_page(data));
    assert_eq!(f.gc_stream(f.geo.block_of(data)), Stream::Gc);
    assert_eq!(f.stats.programs_map, 1 + f.mapping.stats().unwrap().translation_pages);
}

#[test]
fn streams_are_listed_at_their_indices() {
    for (i, s) in Stream::ALL.iter().enumerate() {
        assert_eq!(*s as usize, i);
    }
}

#[test]
fn trailing_free_layout_is_make_aged_s() {
    // SSDSim's matched plane, aged ratio 0.93: 61 stale pages a block (n <
    // 64 x 0.93 + 1 = 60.52), 500 blocks (499 x 61 = 30,439 < 30,474 =
    // 512 x 64 x 0.93), 3 free pages each, taken first and in order.
    let mut f = ftl_with(|cfg| {
        cfg.device.blocks_per_plane = 512;
        cfg.device.pages_per_block = 64;
    });
    let first = f.planes[0].free[0];
    f.age_trailing_free(0.93);
    let aged: Vec<u32> = f.planes[0].free.iter().copied().filter(|&b| f.block(b).next > 0).collect();
    assert_eq!(aged.len(), 500);
    assert!(aged.iter().all(|&b| f.block(b).next == 61 && f.block(b).state == BlockState::Free));
    assert_eq!(f.free_blocks(0), 512);
    assert_eq!(f.page_state(f.geo.first_page(first) + 60), PageState::Invalid);
    let p = f.alloc(0, Stream::Host, Owner::lpn(1)).unwrap();
    assert_eq!(p, f.geo.first_page(first) + 61, "the first aged block's first free page");
    for _ in 0..2 {
        f.alloc(0, Stream::Host, Owner::lpn(1)).unwrap();
    }
    assert_eq!(f.block(first).state, BlockState::Full);
    let next = f.alloc(0, Stream::Host, Owner::lpn(2)).unwrap();
    assert_eq!(next, f.geo.first_page(aged[1]) + 61, "then the next aged block");
}

/// Plane 3 of `ftl()` with wear levelling `mode` at threshold 3, its first
/// three blocks in free order (numbers 0-2: blocks 3, 4, 5) full of live
/// data, and one erase on each block of `erased` (numbers).
fn wear_plane(mode: crate::config::WearLeveling, erased: &[u32]) -> Ftl {
    let mut f = ftl_with(|cfg| {
        cfg.device.pages_per_block = 4;
        cfg.ftl.gc_threshold = 0.4;
        cfg.ftl.wear_leveling = mode;
        cfg.ftl.wear_threshold = 3;
    });
    for i in 0..12 {
        f.alloc_programmed(3, Stream::Host, Owner::lpn(i), 1).unwrap();
    }
    for &n in erased {
        f.blocks[(3 * 8 + (3 + n) % 8) as usize].erases += 1;
    }
    f
}

#[test]
fn mqsims_wear_levelling_subtracts_block_numbers_not_counts() {
    use crate::config::WearLeveling::{Mqsim, Static};
    // Number 5 (block 0) erased once: MQSim's "spread" is 5 - 0 (the first
    // most-erased block's number less the first least-erased's) >= 3, so
    // number 0 (block 3) is collected; the counts differ by 1 only.
    assert_eq!(wear_plane(Mqsim, &[5]).start_wear_leveling(3), Some(3 * 8 + 3));
    assert_eq!(wear_plane(Static, &[5]).start_wear_leveling(3), None, "counts 1 - 0 are within 3");
    // Number 2 erased: 2 - 0 < 3, nothing.
    assert_eq!(wear_plane(Mqsim, &[2]).start_wear_leveling(3), None);
    // Number 0 erased: 0 - 1 wraps (unsigned), number 1 (block 4) goes.
    let mut f = wear_plane(Mqsim, &[0]);
    assert_eq!(f.start_wear_leveling(3), Some(3 * 8 + 4));
    assert_eq!(f.stats.wl_migrations, 1);
    // Numbers 0 and 1 erased: the first least-erased is number 2's block
    // 5 (full); with 0-2 erased it is number 3, a free block, which MQSim
    // erases (below).
    assert_eq!(wear_plane(Mqsim, &[0, 1]).start_wear_leveling(3), Some(3 * 8 + 5));
}

/// Erase a victim whose live pages are taken as moved.
fn erase_moved(f: &mut Ftl, block: u32) {
    for page in 0..4 {
        f.invalidate(block * 4 + page);
    }
    f.erase_done(block);
}

#[test]
fn mqsims_wear_levelling_runs_beside_gc() {
    use crate::config::WearLeveling::Mqsim;
    // Number 5 erased once: wear levelling takes number 0 (block 27); a
    // stale page on number 1 (block 28) makes it GC's greedy victim.
    // MQSim's run_static_wearleveling asks nothing of GC, and
    // Check_gc_required only counts erases in flight (fewer than 10).
    let mut f = wear_plane(Mqsim, &[5]);
    f.invalidate(28 * 4);
    assert_eq!(f.start_wear_leveling(3), Some(27));
    assert!(!f.gc_active(3), "wear levelling is not the plane's GC");
    assert_eq!(f.start_gc(3), Some(28));
    erase_moved(&mut f, 27);
    assert!(f.gc_active(3), "wear levelling's erase leaves GC collecting");
    erase_moved(&mut f, 28);
    assert!(!f.gc_active(3));
    // GC first: wear levelling still starts.
    let mut f = wear_plane(Mqsim, &[5]);
    f.invalidate(28 * 4);
    assert_eq!(f.start_gc(3), Some(28));
    assert_eq!(f.start_wear_leveling(3), Some(27));
    assert_eq!(f.start_wear_leveling(3), None, "one at a time: block 27 keeps the fewest erases");
}

#[test]
fn mqsims_wear_levelling_erases_a_free_block() {
    use crate::config::WearLeveling::Mqsim;
    // Numbers 0-2 erased once: number 0 is the first most-erased, number 3
    // (block 30, free) the first least-erased; 0 - 3 wraps, so MQSim's
    // run_static_wearleveling takes block 30, "safe" (no write frontier,
    // no program), and erases it with nothing to move.
    let mut f = wear_plane(Mqsim, &[0, 1, 2]);
    let free = f.free_blocks(3);
    assert_eq!(f.block(30).state, BlockState::Free);
    assert_eq!(f.start_wear_leveling(3), Some(30));
    assert_eq!((f.free_blocks(3), f.block(30).state), (free - 1, BlockState::Victim), "off the free list until erased");
    f.erase_done(30);
    assert_eq!((f.free_blocks(3), f.block(30).erases), (free, 1));
    // Its erase's end checks again: number 4 (block 31) is now the first
    // least-erased, 0 - 4 wraps, and it goes too.
    assert_eq!(f.start_wear_leveling(3), Some(31));
    assert_eq!(f.stats.wl_migrations, 2);
}

#[test]
fn gc_copies_take_the_hosts_open_block_as_ssdsims_get_ppn_for_gc() {
    // One plane, 4 pages a block: the host writes LPNs 0 and 1 (pages 0
    // and 1 of the first free block A), then GC copies LPN 9, then the
    // host writes LPN 2.
    let run = |point| {
        let mut f = ftl_with(|cfg| {
            cfg.device.pages_per_block = 4;
            cfg.ftl.gc_write_point = point;
        });
        let a = f.planes[0].free[0];
        let b = f.planes[0].free[1];
        for l in 0..2 {
            f.alloc_programmed(0, Stream::Host, Owner::lpn(l), 0).unwrap();
        }
        let gc = f.alloc_programmed(0, Stream::Gc, Owner::lpn(9), 0).unwrap();
        let host = f.alloc_programmed(0, Stream::Host, Owner::lpn(2), 0).unwrap();
        let first = |blk| f.geo.first_page(blk);
        (gc, host, first(a), first(b), f.stats.programs_gc, f.free_blocks(0))
    };
    // SSDSim's one active block: the copy is A's page 2, the host's next
    // page A's page 3; one block open, still counted as GC's program.
    let (gc, host, a, _, programs_gc, free) = run(crate::config::GcWritePoint::Host);
    assert_eq!((gc, host, programs_gc), (a + 2, a + 3, 1));
    // Detour's default: GC opens block B for its copy, the host keeps A.
    let (gc2, host2, a2, b2, _, free2) = run(crate::config::GcWritePoint::Own);
    assert_eq!((gc2, host2), (b2, a2 + 2));
    assert_eq!(free, free2 + 1, "one block fewer taken");
}

/// Plane 0 of `small` cut to 16 blocks of 2 pages, GC below 12 free
/// blocks, under `ftl.gc_concurrency = c`: 6 blocks written (blocks 0-5,
/// 10 free), blocks 0 and 1 wholly stale, then GC started as often as the
/// plane allows.
fn busy_plane(c: crate::config::GcConcurrency) -> (Ftl, Vec<u32>) {
    let mut f = ftl_with(|cfg| {
        cfg.device.blocks_per_plane = 16;
        cfg.device.pages_per_block = 2;
        cfg.ftl.gc_threshold = 0.75;
        cfg.ftl.gc_concurrency = c;
    });
    let pages: Vec<u32> = (0..12).map(|i| f.alloc_programmed(0, Stream::Host, Owner::lpn(i), 1).unwrap()).collect();
    for &p in &pages[..4] {
        f.invalidate(p);
    }
    assert_eq!((f.free_blocks(0), f.gc_wanted.as_slice()), (10, &[0, 0][..]), "blocks 5 and 6 were taken below 12");
    f.gc_wanted.clear();
    let mut victims = Vec::new();
    while let Some(v) = f.needs_gc(0).then(|| f.start_gc(0)).flatten() {
        victims.push(v);
    }
    (f, victims)
}

#[test]
fn mqsims_gc_collects_a_victim_per_block_taken_below_the_trigger() {
    use crate::config::GcConcurrency::{Mqsim, One};
    // One victim at a time: block 0 (two stale pages, first in free order).
    let (mut f, v) = busy_plane(One);
    assert_eq!(v, [0]);
    f.alloc_programmed(0, Stream::Host, Owner::lpn(12), 1).unwrap();
    assert!(f.gc_wanted.is_empty(), "block 6 taken while collecting asks for nothing");
    f.victim_moved(0);
    f.erase_issued(0);
    f.erase_done(0);
    assert!(f.gc_after_erase(0), "the plane collects again as soon as its erase ends");
    // MQSim: Check_gc_required starts another victim beside the first
    // (up to 10): blocks 0 and 1, then the plane has no stale page left.
    let (mut f, v) = busy_plane(Mqsim);
    assert_eq!(v, [0, 1]);
    f.alloc_programmed(0, Stream::Host, Owner::lpn(12), 1).unwrap();
    assert_eq!(f.gc_wanted, [0], "block 6 taken below the trigger asks for a third");
    assert!(f.gc_after_erase(0), "9 free blocks: below MQSim's 10 an erase checks GC");
    f.victim_moved(0);
    f.erase_issued(0);
    f.erase_done(0);
    assert_eq!(f.free_blocks(0), 10);
    assert!(!f.gc_after_erase(0), "10 free blocks: the next block taken checks, not the erase");
    assert!(f.needs_gc(0) && f.gc_active(0), "block 1 is still collecting");
}

#[test]
fn mqsims_gc_cap_counts_a_wear_levelling_erase() {
    use crate::config::GcConcurrency::{Mqsim, One};
    // MQSim's run_static_wearleveling puts its block in the plane's
    // Ongoing_erase_operations, which Check_gc_required holds under 10.
    let (mut f, v) = busy_plane(Mqsim);
    assert_eq!(v.len(), 2);
    f.planes[0].gc_ongoing = 9;
    assert!(f.gc_room(0), "9 of 10");
    f.planes[0].wl_victim = 7;
    assert!(!f.gc_room(0), "9 GC victims and 1 wear-levelling block make 10");
    f.erase_done(7);
    assert!(f.gc_room(0), "wear levelling's erase frees its own slot");
    // By default wear levelling's victim takes no GC slot.
    let (mut f, _) = busy_plane(One);
    f.planes[0].gc_ongoing = 0;
    f.planes[0].wl_victim = 7;
    assert!(f.gc_room(0));
}
