//! Measurements over any request stream (generated or read from a trace):
//! unique-value shares (RR-SSD Table III) and page classes (HotR Fig. 1c).

use std::collections::{HashMap, HashSet};

use crate::types::{mix64, page_token, IoKind};
use crate::workload::Request;

/// Page size of the content bookkeeping: the FIU traces hash 4 KiB chunks.
pub const CONTENT_PAGE_BYTES: u64 = 4096;

/// The value a page holds before the trace writes it: distinct per page
/// (pre-existing data is assumed not to repeat). Simulators that precondition
/// a content-aware device should use the same tokens.
pub fn initial_token(volume: u32, lpn: u64) -> u64 {
    let t = mix64(lpn ^ mix64(0x0141_71A1 ^ volume as u64));
    if t == 0 {
        1
    } else {
        t
    }
}

/// Unique-value shares of a request stream.
///
/// Definition (RR-SSD Table III caption: "the percentage of read (write)
/// requests which read (write) unique 4KB chunks"): a page access is unique
/// when no earlier access *of the same direction* saw its value, so the share
/// is distinct values / page accesses, per direction. A read returns the
/// page's latest written value, or [`initial_token`] if never written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContentStats {
    pub write_pages: u64,
    pub distinct_write_values: u64,
    pub read_pages: u64,
    pub distinct_read_values: u64,
    /// Read pages that returned a never-written page's initial value.
    pub reads_of_unwritten: u64,
}

impl ContentStats {
    /// Distinct written values / written pages (0 without writes).
    pub fn write_unique_share(&self) -> f64 {
        ratio(self.distinct_write_values, self.write_pages)
    }

    /// Distinct read values / read pages (0 without reads).
    pub fn read_unique_share(&self) -> f64 {
        ratio(self.distinct_read_values, self.read_pages)
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// 4 KiB pages `[first, last]` a request covers, and their count.
fn pages(r: &Request) -> (u64, u32) {
    let first = r.offset / CONTENT_PAGE_BYTES;
    let last = (r.offset + r.size.max(1) as u64 - 1) / CONTENT_PAGE_BYTES;
    (first, (last - first + 1) as u32)
}

/// Measure [`ContentStats`] over `requests` in order. Page `i` of a write
/// holds `page_token(content, i)`; a write without content (0, a trace with
/// no hashes) is counted as unique. Memory grows with the distinct pages and
/// values seen: an analysis helper, not for the replay path.
pub fn content_stats<I: IntoIterator<Item = Request>>(requests: I) -> ContentStats {
    let mut held: HashMap<(u32, u64), u64> = HashMap::new();
    let (mut written, mut read) = (HashSet::new(), HashSet::new());
    let mut s = ContentStats::default();
    let mut anonymous = 0u64;
    for r in requests {
        let (first, n) = pages(&r);
        for i in 0..n {
            let key = (r.volume, first + i as u64);
            match r.kind {
                IoKind::Write => {
                    let token = if r.content == 0 {
                        anonymous += 1;
                        mix64(!anonymous)
                    } else {
                        page_token(r.content, i)
                    };
                    held.insert(key, token);
                    s.write_pages += 1;
                    s.distinct_write_values += written.insert(token) as u64;
                }
                IoKind::Read => {
                    let token = match held.get(&key) {
                        Some(&t) => t,
                        None => {
                            s.reads_of_unwritten += 1;
                            initial_token(key.0, key.1)
                        }
                    };
                    s.read_pages += 1;
                    s.distinct_read_values += read.insert(token) as u64;
                }
                IoKind::Discard => {
                    held.remove(&key);
                }
            }
        }
    }
    s
}

/// HotR's page classification: a page is read-intensive when more than 90%
/// of its accesses are reads, write-intensive when more than 90% are writes,
/// mixed otherwise. Counts pages accessed at least `min_accesses` times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageClassStats {
    pub pages: u64,
    pub read_intensive: u64,
    pub write_intensive: u64,
    pub mixed: u64,
}

impl PageClassStats {
    /// Mixed pages / counted pages.
    pub fn mixed_share(&self) -> f64 {
        ratio(self.mixed, self.pages)
    }
}

/// Classify the pages of `page_bytes` touched by `requests` (see
/// [`PageClassStats`]).
pub fn page_class_stats<I: IntoIterator<Item = Request>>(requests: I, page_bytes: u64, min_accesses: u32) -> PageClassStats {
    let mut counts: HashMap<(u32, u64), (u32, u32)> = HashMap::new();
    for r in requests {
        let first = r.offset / page_bytes;
        let last = (r.offset + r.size.max(1) as u64 - 1) / page_bytes;
        for p in first..=last {
            let c = counts.entry((r.volume, p)).or_default();
            match r.kind {
                IoKind::Read => c.0 += 1,
                IoKind::Write => c.1 += 1,
                IoKind::Discard => {}
            }
        }
    }
    let mut s = PageClassStats::default();
    // Only integer counts are taken from the entries, so the map's order cannot reach the result.
    #[allow(clippy::disallowed_methods, clippy::iter_over_hash_type)]
    for &(reads, writes) in counts.values() {
        let total = reads + writes;
        if total < min_accesses.max(1) {
            continue;
        }
        s.pages += 1;
        if reads as f64 > 0.9 * total as f64 {
            s.read_intensive += 1;
        } else if writes as f64 > 0.9 * total as f64 {
            s.write_intensive += 1;
        } else {
            s.mixed += 1;
        }
    }
    s
}
