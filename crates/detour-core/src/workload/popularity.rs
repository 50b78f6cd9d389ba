//! Value popularity of a request stream (RR-SSD paper Figs. 4-6, rr-4):
//! read and write value-popularity CDFs, the share of values serving 80% of
//! reads, day-over-day read popularity and new values per day.
//!
//! A page's value is `page_token(content, i)` for page i of a write; a read
//! returns the page's latest written value, or the generator's
//! `initial_token` for a page never written (as `content_stats` does). The
//! analysis keeps a count per distinct value and per page: a helper for
//! traces and profiles, not for the replay path.

use crate::types::{mix64, page_token, IoKind};
use crate::workload::generator::initial_token;
use crate::workload::Request;
use std::collections::HashMap;

const PAGE: u64 = 4096;

/// One point of the popularity CDF: values sorted by read count, most
/// read first (ties by write count, then value, so the order is fixed).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CdfPoint {
    /// Share of the distinct values (read or written) up to this point.
    pub values: f64,
    /// Share of all page reads those values received.
    pub reads: f64,
    /// Share of all page writes those values received.
    pub writes: f64,
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct DayPopularity {
    pub day: u64,
    pub reads: u64,
    pub writes: u64,
    /// Distinct values read this day.
    pub distinct_read: u64,
    /// Distinct values read or written for the first time in the stream (Fig. 6).
    pub new_values: u64,
    /// Share of this day's reads whose value was read the day before.
    pub read_yesterday: f64,
    /// Share of this day's reads going to the previous day's most read
    /// values that served 80% of that day's reads (Fig. 5's persistence).
    pub yesterday_top80: f64,
    /// Share of this day's reads whose value was never read before (Fig. 9 "New").
    pub new_read_share: f64,
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Popularity {
    pub read_pages: u64,
    pub write_pages: u64,
    pub distinct_values: u64,
    /// Smallest share of distinct read values that serves 80% of the reads
    /// (the paper: 14% homes, 7% web, 30% mail).
    pub top80_read_values: f64,
    /// `points` samples of the CDF, evenly spaced over the values.
    pub cdf: Vec<CdfPoint>,
    pub days: Vec<DayPopularity>,
}

#[derive(Default)]
struct Day {
    counts: HashMap<u64, u64>,
    reads: u64,
    writes: u64,
    new_values: u64,
    read_yesterday: u64,
    yesterday_top: u64,
    new_reads: u64,
}

/// Measure [`Popularity`] over `requests`; days are `day_s` seconds of trace
/// time; the CDF is sampled at `points` points (at least 2).
pub fn popularity<I: IntoIterator<Item = Request>>(requests: I, day_s: f64, points: usize) -> Popularity {
    let day_ns = (day_s * 1e9).max(1.0);
    let mut held: HashMap<(u32, u64), u64> = HashMap::new();
    // value -> (reads, writes)
    let mut total: HashMap<u64, (u64, u64)> = HashMap::new();
    let (mut days, mut day) = (Vec::new(), Day::default());
    let (mut prev_counts, mut prev_top): (HashMap<u64, u64>, HashMap<u64, ()>) = (HashMap::new(), HashMap::new());
    let (mut cur, mut anonymous) = (0u64, 0u64);
    for r in requests {
        let d = (r.time_ns as f64 / day_ns) as u64;
        while d > cur {
            prev_top = top80(&day.counts);
            let done = std::mem::take(&mut day);
            days.push(finish(cur, &done));
            prev_counts = done.counts;
            cur += 1;
        }
        let first = r.offset / PAGE;
        let n = (r.offset + r.size.max(1) as u64).div_ceil(PAGE) - first;
        for i in 0..n {
            let key = (r.volume, first + i);
            let (value, read) = match r.kind {
                IoKind::Write => {
                    let v = if r.content == 0 {
                        anonymous += 1;
                        mix64(!anonymous)
                    } else {
                        page_token(r.content, i as u32)
                    };
                    held.insert(key, v);
                    (v, false)
                }
                IoKind::Read => (*held.get(&key).unwrap_or(&initial_token(key.0, key.1)), true),
                // The page reads as never written again; a discard is no access.
                IoKind::Discard => {
                    held.remove(&key);
                    continue;
                }
            };
            let t = total.entry(value).or_insert((0, 0));
            day.new_values += (*t == (0, 0)) as u64;
            if read {
                day.new_reads += (t.0 == 0) as u64;
                t.0 += 1;
                day.reads += 1;
                *day.counts.entry(value).or_insert(0) += 1;
                day.read_yesterday += prev_counts.contains_key(&value) as u64;
                day.yesterday_top += prev_top.contains_key(&value) as u64;
            } else {
                t.1 += 1;
                day.writes += 1;
            }
        }
    }
    if day.reads + day.writes > 0 {
        days.push(finish(cur, &day));
    }
    summarize(total, days, points)
}

/// The most read values that together serve 80% of `counts`' reads.
fn top80(counts: &HashMap<u64, u64>) -> HashMap<u64, ()> {
    // Sorted just below by (count, value), a total order: the map's order never reaches a result.
    #[allow(clippy::disallowed_methods)]
    let mut v: Vec<(u64, u64)> = counts.iter().map(|(&k, &c)| (c, k)).collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = v.iter().map(|x| x.0).sum();
    let (mut acc, mut out) = (0u64, HashMap::new());
    for (c, k) in v {
        if acc * 5 >= total * 4 {
            break;
        }
        acc += c;
        out.insert(k, ());
    }
    out
}

fn share(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn finish(day: u64, d: &Day) -> DayPopularity {
    DayPopularity {
        day,
        reads: d.reads,
        writes: d.writes,
        distinct_read: d.counts.len() as u64,
        new_values: d.new_values,
        read_yesterday: share(d.read_yesterday, d.reads),
        yesterday_top80: share(d.yesterday_top, d.reads),
        new_read_share: share(d.new_reads, d.reads),
    }
}

fn summarize(total: HashMap<u64, (u64, u64)>, days: Vec<DayPopularity>, points: usize) -> Popularity {
    let mut v: Vec<(u64, u64, u64)> = total.into_iter().map(|(k, (r, w))| (r, w, k)).collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    let (reads, writes): (u64, u64) = v.iter().fold((0, 0), |(a, b), x| (a + x.0, b + x.1));
    let read_values = v.iter().filter(|x| x.0 > 0).count() as u64;
    let (mut top, mut acc) = (0u64, 0u64);
    for x in &v {
        if acc * 5 >= reads * 4 {
            break;
        }
        acc += x.0;
        top += 1;
    }
    let n = v.len();
    let points = points.max(2);
    let mut cdf = Vec::with_capacity(points);
    let (mut i, mut cr, mut cw) = (0usize, 0u64, 0u64);
    for p in 1..=points {
        let upto = (n * p).div_ceil(points);
        while i < upto {
            cr += v[i].0;
            cw += v[i].1;
            i += 1;
        }
        cdf.push(CdfPoint { values: share(upto as u64, n as u64), reads: share(cr, reads), writes: share(cw, writes) });
    }
    Popularity { read_pages: reads, write_pages: writes, distinct_values: n as u64, top80_read_values: share(top, read_values), cdf, days }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rq(t_s: f64, page: u64, kind: IoKind, content: u64) -> Request {
        Request { time_ns: (t_s * 1e9) as u64, offset: page * PAGE, size: 4096, kind, content, volume: 0, line: 0 }
    }

    #[test]
    fn counts_values_days_and_persistence() {
        // Day 0: pages 0..4 hold values 1,1,1,2; page 0 read 3 times, page 3 once.
        let mut reqs: Vec<Request> = [1, 1, 1, 2].iter().enumerate().map(|(p, &c)| rq(0.0, p as u64, IoKind::Write, c)).collect();
        reqs.extend([0, 1, 2, 3].map(|p| rq(1.0, p, IoKind::Read, 0)));
        // Day 1: value 1 read again via page 1, and a fresh value written and read.
        reqs.push(rq(11.0, 1, IoKind::Read, 0));
        reqs.push(rq(12.0, 9, IoKind::Write, 3));
        reqs.push(rq(13.0, 9, IoKind::Read, 0));
        let p = popularity(reqs, 10.0, 4);
        assert_eq!((p.read_pages, p.write_pages, p.distinct_values), (6, 5, 3));
        assert_eq!(p.days.len(), 2);
        assert_eq!((p.days[0].reads, p.days[0].new_values, p.days[0].distinct_read), (4, 2, 2));
        let d1 = &p.days[1];
        assert_eq!((d1.reads, d1.new_values), (2, 1));
        assert_eq!(d1.read_yesterday, 0.5);
        assert_eq!(d1.new_read_share, 0.5);
        // Value 1 (4 of 6 reads) is 1 of 3 read values; 80% needs value 3 or 2 too.
        assert!((p.top80_read_values - 2.0 / 3.0).abs() < 1e-9);
        let last = p.cdf.last().unwrap();
        assert_eq!((last.values, last.reads, last.writes), (1.0, 1.0, 1.0));
        assert!(p.cdf[0].reads >= 0.6, "{:?}", p.cdf);
    }
}
