//! Issue 50: a run that cannot reserve its tables under an address-space
//! limit is refused up front, naming what it needs, instead of aborting the
//! process ("memory allocation of 268435456 bytes failed"). The check runs
//! in a child process of this test under `ulimit -v` (2 GiB), so the limit
//! does not reach the other tests.

use detour_core::config::ConfigBuilder;
use detour_core::sim::Simulation;
use std::process::Command;

const CHILD: &str = "DETOUR_MEMORY_LIMIT_CHILD";

#[test]
fn tables_that_do_not_fit_the_address_space_are_refused_up_front() {
    if std::env::var(CHILD).is_ok() {
        return under_the_limit();
    }
    let exe = std::env::current_exe().expect("the test binary");
    let name = "tables_that_do_not_fit_the_address_space_are_refused_up_front";
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v 2097152 && exec \"$0\" --exact {name} --nocapture --test-threads 1"))
        .arg(&exe)
        .env(CHILD, "1")
        .output()
        .expect("sh runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the child failed or aborted: {text}");
    assert!(text.contains("refused: "), "{text}");
}

fn under_the_limit() {
    // The RR-SSD paper's 1 TiB device: 256 M pages, about 2.7 GiB of tables.
    let cfg = ConfigBuilder::from_preset("rr-ssd").unwrap().set_all(["ftl.precondition.valid=0.3"]).unwrap().build().unwrap();
    let err = Simulation::new(cfg).err().expect("1 TiB of tables cannot fit 2 GiB");
    let msg = err.to_string();
    assert!(msg.contains("address space") && msg.contains("GiB") && msg.contains("ulimit -v"), "{msg}");
    println!("refused: {msg}");
    // A device that fits still builds under the same limit.
    let small = ConfigBuilder::from_preset("small").unwrap().build().unwrap();
    assert!(Simulation::new(small).is_ok());
}
