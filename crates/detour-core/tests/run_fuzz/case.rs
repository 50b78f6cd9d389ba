//! One random case of the run fuzz test: a trace file's bytes (a random
//! format, valid or mutated), the reader's options, and a config (scheme,
//! small odd geometry, and for the channel-RAID schemes a failure at a
//! random time). Everything comes from one seed, so a failing case is
//! reproduced by its seed alone.

use detour_core::schemes::SCHEMES;
use detour_core::workload::{Request, TraceFormat, TraceOptions};
use detour_core::IoKind;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Clone)]
pub struct Case {
    pub seed: u64,
    pub keys: Vec<String>,
    pub trace: Vec<u8>,
    pub opts: TraceOptions,
    /// The format the trace was written in (the reader may be told another).
    pub written_as: TraceFormat,
    pub mutated: bool,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "seed {} ({} written, mutated {}), options {:?}\nkeys: {}\ntrace:\n{}",
            self.seed,
            self.written_as,
            self.mutated,
            self.opts,
            self.keys.join(" "),
            String::from_utf8_lossy(&self.trace)
        )
    }
}

const RAID: &[&str] = &["pure", "cr1", "cr4", "cr5", "cr5m"];

pub fn case(seed: u64) -> Case {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let written_as = *TraceFormat::ALL.choose(&mut rng).expect("formats");
    let requests = requests(&mut rng);
    let span_us = requests.last().map_or(0, |r| r.time_ns / 1000);
    let (mut trace, mutated) = (text(written_as, &requests), rng.random_bool(0.35));
    if mutated {
        trace = mutate(&mut rng, &trace);
    }
    let opts = TraceOptions {
        format: rng.random_bool(0.5).then_some(written_as),
        skip_malformed: rng.random_bool(0.5),
        clamp_backwards_time: rng.random_bool(0.7),
        ..Default::default()
    };
    Case { seed, keys: keys(&mut rng, span_us), trace: trace.into_bytes(), opts, written_as, mutated }
}

/// Up to 120 requests of 1-16 sectors, mostly in time order, over a span
/// that may pass the device's end, some with content.
fn requests(rng: &mut ChaCha8Rng) -> Vec<Request> {
    let (n, span) = (rng.random_range(0..120), [200u64, 2_000, 50_000][rng.random_range(0..3)]);
    let mut t = 0u64;
    (0..n)
        .map(|i| {
            let gap = rng.random_range(0..30_000u64);
            t = if rng.random_ratio(1, 100) { t.saturating_sub(gap) } else { t + gap };
            let kind = match rng.random_range(0..20) {
                0..10 => IoKind::Read,
                10..19 => IoKind::Write,
                _ => IoKind::Discard, // kept by blkparse only
            };
            let content = if rng.random_bool(0.5) { rng.random_range(1..20) } else { 0 };
            let (offset, size) = (rng.random_range(0..span) * 512, rng.random_range(1..=16u32) * 512);
            Request { time_ns: t, offset, size, kind, content, volume: 0, line: i + 1 }
        })
        .collect()
}

/// The requests as a file of `format` (requests it cannot hold are left out).
fn text(format: TraceFormat, requests: &[Request]) -> String {
    let mut out = format.header().map(|h| format!("{h}\n")).unwrap_or_default();
    for (i, r) in requests.iter().enumerate() {
        let mut line = String::new();
        if format.write_line(r, i as u64 + 1, &mut line).is_ok() {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// A few edits: characters replaced, a line cut short, dropped or doubled.
fn mutate(rng: &mut ChaCha8Rng, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..rng.random_range(1..4) {
        if lines.is_empty() {
            break;
        }
        let i = rng.random_range(0..lines.len());
        match rng.random_range(0..4) {
            0 => {
                let mut chars: Vec<char> = lines[i].chars().collect();
                if !chars.is_empty() {
                    let at = rng.random_range(0..chars.len());
                    chars[at] = *b" 0179,.-xRW".choose(rng).expect("chars") as char;
                }
                lines[i] = chars.into_iter().collect();
            }
            1 => {
                let cut = rng.random_range(0..=lines[i].len());
                lines[i] = lines[i].chars().take(cut).collect();
            }
            2 => {
                lines.remove(i);
            }
            _ => lines.insert(i, lines[i].clone()),
        }
    }
    lines.join("\n")
}

fn keys(rng: &mut ChaCha8Rng, span_us: u64) -> Vec<String> {
    let orders: Vec<&str> = detour_core::scheduler::orders().into_iter().map(|(n, _)| n).collect();
    let victims: Vec<&str> = detour_core::policy::list::<detour_core::ftl::victim::Victims>().into_iter().map(|(n, _)| n).collect();
    let scheme = SCHEMES.choose(rng).expect("schemes").name;
    let raid = RAID.contains(&scheme);
    let channels = if raid { [2u32, 4].choose(rng).copied() } else { Some(rng.random_range(1..=4)) };
    let mut k = vec![
        "run.verify=true".to_string(),
        format!("run.seed={}", rng.random::<u32>()),
        format!("scheme.name={scheme}"),
        format!("scheme.dedup.synthetic_content={}", rng.random_bool(0.5)),
        format!("scheme.dedup.period_s={}", [0.001, 0.05, 86_400.0].choose(rng).expect("periods")),
        format!("scheme.collisions.base={}", ["conventional", "ca-ssd", "hotr"].choose(rng).expect("bases")),
        format!("device.channels={}", channels.unwrap_or(2)),
        format!("device.chips_per_channel={}", rng.random_range(1..=3)),
        format!("device.dies_per_chip={}", rng.random_range(1..=2)),
        format!("device.planes_per_die={}", rng.random_range(1..=2)),
        format!("device.blocks_per_plane={}", rng.random_range(10..=32)),
        format!("device.pages_per_block={}", rng.random_range(4..=16)),
        format!("device.page_size={}", [512, 2048, 4096].choose(rng).expect("sizes")),
        // Mostly enough spare for GC (more than 3 blocks a plane); now and
        // then too little, which must be refused up front.
        format!("device.overprovisioning={}", [0.07, 0.35, 0.45, 0.45].choose(rng).expect("op")),
        format!("ftl.allocation={}", ["static", "dynamic"].choose(rng).expect("alloc")),
        format!("ftl.precondition.valid={}", [0.0, 0.0, 0.5].choose(rng).expect("valid")),
        format!("host.address={}", ["fold", "fold", "strict"].choose(rng).expect("address")),
        format!("host.queue_depth={}", [0, 0, 2].choose(rng).expect("qd")),
        format!("host.warmup_requests={}", [0, 0, 10].choose(rng).expect("warmup")),
        format!("scheduler.suspension={}", rng.random_bool(0.5)),
        format!("scheduler.suspend_us={}", [0.0, 5.0].choose(rng).expect("suspend")),
        format!("scheduler.order={}", orders.choose(rng).expect("orders")),
        format!("scheduler.unit={}", ["die", "chip"].choose(rng).expect("units")),
        format!("ftl.gc_policy={}", victims.choose(rng).expect("victims")),
        format!("ftl.wear_leveling={}", ["off", "off", "static"].choose(rng).expect("wear")),
    ];
    // Stale pages and wear come from overwriting valid ones.
    if k.iter().any(|s| s == "ftl.precondition.valid=0.5") {
        k.push(format!("ftl.precondition.invalid={}", [0.0, 0.0, 0.1].choose(rng).expect("invalid")));
        k.push(format!("ftl.precondition.wear={}", [0.0, 0.0, 0.5].choose(rng).expect("wear")));
    }
    // The flash's imperfections ([nand]): retries on an aged drive, bad
    // blocks, and blocks wearing out within the run.
    if rng.random_bool(0.3) {
        k.extend([
            format!("nand.error_model={}", ["off", "power_law", "vth_drift"].choose(rng).expect("model")),
            format!("nand.fit={}", ["mlc2y", "tlc3d72"].choose(rng).expect("fit")),
            format!("nand.initial_pe={}", [0, 1, 1000, 3000].choose(rng).expect("pe")),
            format!("nand.initial_pe_spread={}", [0.0, 0.5].choose(rng).expect("spread")),
            format!("nand.initial_age_days={}", [0.0, 30.0, 1095.0].choose(rng).expect("age")),
            format!("nand.bad_block_fraction={}", [0.0, 0.02].choose(rng).expect("bad")),
            format!("nand.erase_fail_prob={}", [0.0, 0.01].choose(rng).expect("fail")),
            format!("nand.max_retries={}", [0, 3, 15].choose(rng).expect("retries")),
        ]);
        // A limit just above the starting wear, or none.
        if rng.random_bool(0.5) {
            k.push("nand.pe_limit=3002".to_string());
        }
        if k.iter().any(|s| s == "nand.error_model=power_law" || s == "nand.error_model=vth_drift") && rng.random_bool(0.5) {
            k.push("nand.refresh_steps=3".to_string());
        }
    }
    // The cached mapping table, small enough to miss.
    if rng.random_bool(0.25) {
        k.extend(["ftl.mapping=cmt".to_string(), format!("ftl.cmt_size_kib={}", [4, 16, 64].choose(rng).expect("cmt"))]);
    }
    // A DRAM write buffer: writes acknowledged from it, reads served by it,
    // flushes and rebuilds racing host writes.
    if rng.random_bool(0.3) {
        k.extend([format!("write_buffer.pages={}", [4, 16, 64].choose(rng).expect("pages")), "host.write_ack=buffer".to_string()]);
        k.push(format!("write_buffer.policy={}", ["fifo", "lru"].choose(rng).expect("policy")));
        // MQSim's admission: cold pages written through, writes held at one
        // write-back a plane; SSDSim's: evict at once, wait for the transfer
        k.push(format!("write_buffer.admission={}", ["room", "destage", "evict"].choose(rng).expect("admission")));
        // MQSim's data-cache DRAM: one timed access at a time
        if rng.random_bool(0.5) {
            k.push("write_buffer.dram.rate_mts=100".to_string());
        }
    }
    // SSDSim's chip-wide program batches
    if rng.random_bool(0.25) {
        k.push("scheduler.chip_program_batches=true".to_string());
    }
    // SSDSim's channel order (units wait for an idle channel, reads first)
    // and MQSim's whole-queue multi-plane scan
    if rng.random_bool(0.25) {
        k.push("scheduler.channel_order=reads_first".to_string());
    }
    if rng.random_bool(0.25) {
        k.push("scheduler.multiplane_scan=queue".to_string());
    }
    // A DRAM read cache (shared needs the buffer), discards applied or
    // dropped, and energy prices (issue 51).
    let buffered = k.iter().any(|s| s.starts_with("write_buffer.pages="));
    match rng.random_range(0..4) {
        0 => k.extend(["read_cache.mode=separate".to_string(), format!("read_cache.pages={}", [1, 8, 64].choose(rng).expect("pages"))]),
        1 if buffered => k.push("read_cache.mode=shared".to_string()),
        _ => {}
    }
    k.push(format!("trim.discards={}", ["apply", "apply", "ignore"].choose(rng).expect("discards")));
    k.push(format!("energy.idle_mw_per_die={}", [0.0, 10.0].choose(rng).expect("idle")));
    if scheme == "hotr" || k.iter().any(|s| s == "scheme.collisions.base=hotr") {
        k.push(format!("scheme.hotr.staging={}", ["op", "chip"].choose(rng).expect("staging")));
    }
    if raid {
        let unit = *["none", "die", "chip", "channel"].choose(rng).expect("units");
        k.extend([
            format!("scheme.raid.fail_unit={unit}"),
            format!("scheme.raid.fail_index={}", rng.random_range(0..3)),
            format!("scheme.raid.fail_at_us={}", rng.random_range(0..=span_us.max(1))),
            format!("scheme.raid.rebuild={}", rng.random_bool(0.5)),
            format!("scheme.raid.mirror_channel={}", ["same", "next"].choose(rng).expect("mirror")),
        ]);
    }
    k
}
