//! `ftl.precondition.draw = "mqsim"`: the LPAs MQSim's preconditioning
//! adds to a trace's own, drawn as its code draws them (issue 46, h43gc25).
//!
//! `FTL::Perform_precondition` (FTL.cpp), step 1-4, fills the occupancy
//! the trace leaves with *requests*: a start sector from
//! `Utils::RandomGenerator(preconditioning_seed++)`'s `Uniform_ulong(min_lha,
//! max_lha)`, then `Average_request_size_sector` sectors from it, page by
//! page, until the set holds `Initial_occupancy_ratio` of the logical
//! pages (checked after each request, so the last may overshoot). The
//! generator is L'Ecuyer's combined multiple recursive generator,
//! MRG32k3a (`Utils::CMRRandomGenerator`, CMRRandomGenerator.cpp), so
//! the draw is reproducible: which planes hold more valid pages, and so
//! reach GC and wear levelling first, is MQSim's own.

use crate::types::Lpn;

/// MQSim's `SECTOR_SIZE_IN_BYTE`.
pub(super) const SECTOR_BYTES: u64 = 512;

const M1: f64 = 4_294_967_087.0;
const M2: f64 = 4_294_944_443.0;
const NORM: f64 = 2.328306549295728e-10;
/// The two components' transition matrices (`CMRRandomGenerator::a`).
const A: [[[f64; 3]; 3]; 2] = [
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [-810_728.0, 1_403_580.0, 0.0]],
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [-1_370_589.0, 0.0, 527_612.0]],
];

/// `Utils::CMRRandomGenerator`: MRG32k3a on doubles, as MQSim computes it.
pub(super) struct Mrg32k3a {
    s: [[f64; 3]; 2],
}

impl Mrg32k3a {
    /// `Utils::RandomGenerator(seed)` (RandomGenerator.cpp): a
    /// `CMRRandomGenerator(seed / 200 + 1, seed % 200)`, whose constructor
    /// starts every state word at 1 and advances `n x 2^e` steps.
    pub(super) fn mqsim(seed: u64) -> Self {
        let (n, e) = (seed / 200 + 1, seed % 200);
        let mut s = [[1.0; 3]; 2];
        for (i, si) in s.iter_mut().enumerate() {
            let m = [M1, M2][i] as i64;
            let mut b = A[i].map(|row| row.map(|x| ftoi(x, m)));
            let mut v = si.map(|x| ftoi(x, m));
            for _ in 0..e {
                b = mm_mul(&b, &b, m);
            }
            let mut n = n;
            while n != 0 {
                if n & 1 != 0 {
                    v = mv_mul(&b, &v, m);
                }
                n >>= 1;
                if n != 0 {
                    b = mm_mul(&b, &b, m);
                }
            }
            *si = v.map(|x| x as f64);
        }
        Mrg32k3a { s }
    }

    /// `NextDouble`: in (0, 1).
    pub(super) fn next_double(&mut self) -> f64 {
        let s = &mut self.s;
        let p1 = fmod(1_403_580.0 * s[0][1] - 810_728.0 * s[0][0], M1);
        s[0] = [s[0][1], s[0][2], p1];
        let p2 = fmod(527_612.0 * s[1][2] - 1_370_589.0 * s[1][0], M2);
        s[1] = [s[1][1], s[1][2], p2];
        let p = if p1 - p2 < 0.0 { p1 - p2 + M1 } else { p1 - p2 };
        (p + 1.0) * NORM
    }

    /// `RandomGenerator::Uniform_ulong(m, n)`.
    fn uniform_ulong(&mut self, m: u64, n: u64) -> u64 {
        m + ((n - m + 1) as f64 * self.next_double()) as u64
    }
}

/// `CMRRandomGenerator::mod`.
fn fmod(x: f64, m: f64) -> f64 {
    let k = (x / m) as i64;
    let x = x - k as f64 * m;
    if x < 0.0 {
        x + m
    } else {
        x
    }
}

fn ftoi(x: f64, m: i64) -> i64 {
    if x >= 0.0 {
        x as i64
    } else {
        (x + m as f64) as i64
    }
}

/// `mv_mul` in 64-bit integers; products wrap as the compiled C++ does.
fn mv_mul(a: &[[i64; 3]; 3], u: &[i64; 3], m: i64) -> [i64; 3] {
    let mut w = [0i64; 3];
    for (i, wi) in w.iter_mut().enumerate() {
        for (j, uj) in u.iter().enumerate() {
            *wi = a[i][j].wrapping_mul(*uj).wrapping_add(*wi) % m;
        }
    }
    w
}

fn mm_mul(a: &[[i64; 3]; 3], b: &[[i64; 3]; 3], m: i64) -> [[i64; 3]; 3] {
    let mut d = [[0i64; 3]; 3];
    for (i, row) in d.iter_mut().enumerate() {
        for (j, dij) in row.iter_mut().enumerate() {
            for k in 0..3 {
                *dij = a[i][k].wrapping_mul(b[k][j]).wrapping_add(*dij) % m;
            }
        }
    }
    d
}

/// What step 1-4 walks over: MQSim's logical sectors and request size.
#[derive(Clone, Copy, Debug)]
pub(super) struct Walk {
    /// The flow's sectors (`Logical_Address_Partitioning_Unit`: each
    /// plane's `blocks x pages x sectors x (1 - overprovisioning)`,
    /// truncated, summed); MQSim draws starts in `0..=sectors - 2`
    /// (`max_lha = Max_LHA - 1`, `Max_LHA` the last sector).
    pub sectors: u64,
    pub sectors_per_page: u64,
    /// `Average_request_size_sector`: the trace's sectors over its
    /// requests, truncated (IO_Flow_Trace_Based.cpp).
    pub request_sectors: u64,
}

/// `chosen` (the trace's LPNs, `n` of them) plus MQSim's step-1-4 requests
/// until `target` are set, ascending. Pages past `chosen`'s span (none on
/// a device whose logical pages MQSim and Detour count alike) are left out.
pub(super) fn mqsim_lpns(mut chosen: Vec<bool>, mut n: u32, target: u32, walk: Walk, seed: u64) -> Vec<Lpn> {
    let span = chosen.len() as u64;
    let max_lha = walk.sectors.saturating_sub(2);
    let spp = walk.sectors_per_page.max(1);
    // Every page the walk can reach, so the loop ends.
    let target = (target as u64).min(span).min(max_lha / spp + 1) as u32;
    // A trace of requests under a sector would make MQSim's walk stand
    // still (and MQSim loop for ever); a sector at least keeps it moving.
    let request_sectors = walk.request_sectors.max(1);
    let mut rng = Mrg32k3a::mqsim(seed);
    while n < target {
        let mut lsa = rng.uniform_ulong(0, max_lha);
        let mut handled = 0;
        while handled < request_sectors {
            if lsa > max_lha {
                lsa %= max_lha + 1;
            }
            let mut size = spp - lsa % spp;
            if handled + size >= request_sectors {
                size = request_sectors - handled;
            }
            let lpa = lsa / spp;
            if lpa < span && !chosen[lpa as usize] {
                chosen[lpa as usize] = true;
                n += 1;
            }
            lsa += size;
            handled += size;
        }
    }
    (0..span as Lpn).filter(|&l| chosen[l as usize]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 0 is `CMRRandomGenerator(1, 0)`: one step from all ones. By
    /// hand: component 1 becomes (1, 1, (m1 - 810,728 + 1,403,580) mod m1
    /// = 592,852), component 2 (1, 1, (m2 - 1,370,589 + 527,612) mod m2 =
    /// 4,294,101,466). The first NextDouble: p1 = 1,403,580 - 810,728 =
    /// 592,852; p2 = (527,612 x 4,294,101,466 - 1,370,589) mod m2 =
    /// 1,908,070,559; p = p1 - p2 + m1 = 2,387,489,380; (p + 1) x norm =
    /// 0.5558807162156303. Seed 1 advances two steps (e = 1): its first
    /// number is seed 0's second.
    #[test]
    fn mqsims_generator_gives_the_hand_computed_numbers() {
        let mut g = Mrg32k3a::mqsim(0);
        assert_eq!(g.s[0][2], 592_852.0);
        assert_eq!(g.s[1][2], 4_294_101_466.0);
        assert_eq!(g.next_double(), 0.5558807162156303);
        let second = g.next_double();
        assert_eq!(Mrg32k3a::mqsim(1).next_double(), second);
    }

    /// 100 pages of 8 sectors (800 sectors: starts in 0..=798), requests of
    /// 20 sectors, target 3 pages, nothing chosen before. The first start is
    /// floor(799 x 0.5558807162156303) = 444: sectors 444-447 (page 55),
    /// 448-455 (56), 456-463 (57): pages 55, 56 and 57 from one request,
    /// where a draw of single pages would scatter them.
    #[test]
    fn mqsims_step_1_4_draws_whole_requests() {
        let walk = Walk { sectors: 800, sectors_per_page: 8, request_sectors: 20 };
        assert_eq!(mqsim_lpns(vec![false; 100], 0, 3, walk, 0), vec![55, 56, 57]);
        // Pages already chosen count toward the target: with 56 the trace's,
        // the same request brings the set to 3.
        let mut chosen = vec![false; 100];
        chosen[56] = true;
        assert_eq!(mqsim_lpns(chosen, 1, 3, walk, 0), vec![55, 56, 57]);
    }

    /// Requests under a sector (a mean of 0 sectors) still fill the target
    /// instead of looping for ever: one sector a request.
    #[test]
    fn a_walk_of_empty_requests_ends() {
        let walk = Walk { sectors: 800, sectors_per_page: 8, request_sectors: 0 };
        assert_eq!(mqsim_lpns(vec![false; 100], 0, 1, walk, 0), vec![55]);
    }

    /// A request running past the last sector wraps to sector 0
    /// (`lsa = min_lha + lsa % (max_lha - min_lha + 1)`).
    #[test]
    fn mqsims_request_wraps_at_the_last_sector() {
        // 2 pages of 8 sectors: starts in 0..=14, floor(15 x 0.5559) = 8,
        // then 8 sectors of page 1, wrapping at 15 to 0 for the rest.
        let walk = Walk { sectors: 16, sectors_per_page: 8, request_sectors: 12 };
        assert_eq!(mqsim_lpns(vec![false; 2], 0, 2, walk, 0), vec![0, 1]);
    }
}
