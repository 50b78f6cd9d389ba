//! The address space a run's tables take, checked before any is made.
//!
//! The page-indexed tables (the map, page states and owners, verify mode's
//! tokens, the schemes' per-page tables) are reserved whole when the
//! simulation is built (`ftl/chunked.rs`: memory becomes resident only where
//! written, but the address space is taken at once). Under an address-space
//! limit (`ulimit -v`, a batch scheduler's memory cap) a reservation that
//! does not fit used to abort the process ("memory allocation of 268435456
//! bytes failed"). The sum is estimated here from the geometry and the
//! settings and compared with what the limit leaves, so such a run is
//! refused up front with the figures, before anything is allocated.

use crate::config::Config;
use crate::device::Geometry;
use crate::error::{Error, Result};
use crate::ftl::BlockInfo;

/// Room for everything else (code, heap, row groups, the trace reader).
const SLACK: u64 = 256 << 20;

/// Bytes of address space the run's page-indexed tables take.
pub(super) fn table_bytes(cfg: &Config, geo: &Geometry) -> u64 {
    let (logical, total) = (geo.logical_pages as u64, geo.total_pages() as u64);
    let verify = cfg.run.verify as u64;
    let buffered = cfg.write_buffer.capacity(cfg.device.page_size) > 0;
    // map (u32), owner (u32), state (u8), tokens (u64, verify), blocks.
    let ftl = logical * 4 + total * (4 + 1 + 8 * verify) + geo.blocks() as u64 * std::mem::size_of::<BlockInfo>() as u64;
    // placed bitmap, oracle (two tables with a buffer), the buffer's slots.
    let sim = logical / 8 + logical * 8 * verify * (1 + buffered as u64) + if buffered { logical * 4 + logical / 8 } else { 0 };
    // The read cache's LPN -> slot table.
    let read_cache = if cfg.read_cache.mode != crate::config::ReadCacheMode::Off { logical * 4 } else { 0 };
    ftl + sim + read_cache + logical * crate::schemes::registry::table_bytes_per_lpn(cfg)
}

/// What the process may still reserve under its address-space limit, if
/// it has one (Linux: RLIMIT_AS less the address space in use).
#[cfg(target_os = "linux")]
fn address_space_left() -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    // rlim_t is u64 on 64-bit Linux but 32 bits wide on some 32-bit targets.
    #[allow(clippy::unnecessary_cast)]
    let cur = lim.rlim_cur as u64;
    Some(cur.saturating_sub(pages * page))
}

#[cfg(not(target_os = "linux"))]
fn address_space_left() -> Option<u64> {
    None
}

/// Refuse a run whose tables cannot be reserved, naming what they need.
pub(super) fn check(cfg: &Config, geo: &Geometry) -> Result<()> {
    let need = table_bytes(cfg, geo) + SLACK;
    match address_space_left() {
        Some(left) if need > left => Err(Error::Geometry(format!(
            "device `{}` ({} logical and {} physical pages) needs about {:.2} GiB of address space for its tables, \
             and the process may reserve only {:.2} GiB more (its address-space limit, `ulimit -v`): raise the \
             limit, or give a smaller device (device.blocks_per_plane, device.channels, ...){}",
            cfg.name,
            geo.logical_pages,
            geo.total_pages(),
            need as f64 / (1u64 << 30) as f64,
            left as f64 / (1u64 << 30) as f64,
            if cfg.run.verify { "; verify mode adds 8 bytes per page" } else { "" }
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;

    #[test]
    fn verify_mode_and_a_buffer_add_their_tables() {
        let cfg = |kv: &[&str]| ConfigBuilder::from_preset("small").unwrap().set_all(kv.iter().copied()).unwrap().build().unwrap();
        let plain = cfg(&[]);
        let geo = Geometry::from_config(&plain.device).unwrap();
        let base = table_bytes(&plain, &geo);
        let verify = table_bytes(&cfg(&["run.verify=true"]), &geo);
        let both = table_bytes(&cfg(&["run.verify=true", "write_buffer.pages=64", "host.write_ack=buffer"]), &geo);
        assert_eq!(verify - base, 8 * geo.total_pages() as u64 + 8 * geo.logical_pages as u64);
        assert!(both > verify + 8 * geo.logical_pages as u64);
    }
}
