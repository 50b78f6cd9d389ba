//! The checks of a config that need the device's geometry: the geometry
//! must be buildable, leave GC room, and hold what preconditioning and the
//! closed-loop flows ask of it. config/validate.rs's range checks run
//! first, so the counts here are in range.

use crate::config::{in_range_u, Config, PreconditionSpan};
use crate::device::{Geometry, MAX_PLANES};
use crate::ensure_config;
use crate::error::Result;
use crate::ftl::GC_RESERVE;

/// Every relation between values that the geometry decides.
pub(super) fn relations(cfg: &Config) -> Result<()> {
    let (d, f) = (&cfg.device, &cfg.ftl);
    in_range_u("device.planes_per_die", d.planes_per_die as u64, 1, MAX_PLANES as u64)?;
    let geo = Geometry::from_config(d)?;
    for (i, fl) in cfg.flows.iter().enumerate() {
        fl.region(i, geo.logical_bytes())?;
    }
    spare_for_gc(&geo)?;
    let gc_blocks = (f.gc_threshold * d.blocks_per_plane as f64).ceil() as u64;
    ensure_config!(
        gc_blocks + 2 < d.blocks_per_plane as u64,
        "ftl.gc_threshold",
        "{} leaves no blocks for data with {} blocks per plane",
        f.gc_threshold,
        d.blocks_per_plane
    );
    let p = &f.precondition;
    ensure_config!(
        p.headroom_blocks as u64 + gc_blocks.max(GC_RESERVE as u64 + 1) + 2 < d.blocks_per_plane as u64,
        "ftl.precondition.headroom_blocks",
        "{} blocks above the GC trigger leave no blocks for data with {} blocks per plane",
        p.headroom_blocks,
        d.blocks_per_plane
    );
    ensure_config!(
        p.wear == 0.0 || p.valid > 0.0,
        "ftl.precondition.wear",
        "needs ftl.precondition.valid > 0 (wear overwrites valid pages)"
    );
    // A share of a footprint is known only with the workload; if it does
    // not fit, preconditioning stops with an error naming the LPN.
    let valid = if p.span == PreconditionSpan::Footprint { 0.0 } else { p.valid };
    // Over the device's own chips: preconditioning never writes a spare chip.
    let used = valid * geo.logical_pages as f64 + p.invalid * geo.host_pages() as f64;
    let room = geo.host_pages() as f64 * (1.0 - f.gc_threshold) - 3.0 * (geo.host_planes() as f64) * d.pages_per_block as f64;
    ensure_config!(
        used <= room,
        "ftl.precondition.invalid",
        "valid {} of the logical space plus invalid {} of the physical space do not fit above the GC threshold; lower one of them",
        p.valid,
        p.invalid
    );
    Ok(())
}

/// GC needs more spare than it keeps: `GC_RESERVE` free blocks per plane
/// for its own copies, one block open for writes, and beyond those some
/// stale pages to reclaim. With exactly that much, sequential writes over
/// the whole logical space leave every victim full of live data and the
/// run stops partway ("GC finds no block it may reclaim"); a little more
/// and GC always finds one (measured: 3.0 spare blocks per plane fail,
/// 3.2 run, at 15 to 64 blocks per plane).
fn spare_for_gc(geo: &Geometry) -> Result<()> {
    let need = (GC_RESERVE + 1) as f64;
    let ppb = geo.pages_per_block as f64;
    // The host's data lives on the device's own chips only (not device.spare_chips).
    let spare = (geo.host_pages() as f64 - geo.logical_pages as f64) / geo.host_planes() as f64 / ppb;
    let bpp = geo.blocks_per_plane as f64;
    // The over-provisioning that leaves `need` blocks and one page more.
    let least = ((need + 1.0 / ppb) / bpp * 1000.0).ceil() / 1000.0;
    ensure_config!(
        spare > need,
        "device.overprovisioning",
        "leaves {spare:.2} spare blocks per plane ({} blocks per plane); GC needs more than {need} (2 kept for its own copies, \
         one open for writes, and stale pages to reclaim): raise device.overprovisioning to at least {least} or \
         device.blocks_per_plane",
        geo.blocks_per_plane
    );
    Ok(())
}
