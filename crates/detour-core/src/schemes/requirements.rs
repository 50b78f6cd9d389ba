//! The bounds a scheme's ticks are held to: an arrival further from the
//! start than these many ticks is refused as the requests stream in
//! (sim/requirements.rs, which says why).

/// Most period rows a run may make: 100,000 (a week of the synthetic
/// profiles' 60 s days is 10,080), about 150 MB of rows.
pub const MAX_PERIODS: f64 = 100_000.0;
/// Most ticks a run may take: 1e8, 58 days of Rails' default 50 ms swaps,
/// and on the order of a minute of ticking.
pub const MAX_TICKS: f64 = 100_000_000.0;
