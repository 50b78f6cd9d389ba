#!/usr/bin/env bash
# The standard benchmark on a profile-guided (PGO) build of the core.
#
#   scripts/pgo-bench.sh [BENCH_DIR]      (default target/bench; `make bench-pgo`)
#
# 1. builds examples/bench instrumented (-Cprofile-generate);
# 2. trains it on synthetic profiles from the generator, never on the
#    benchmark's traces: bench-like fresh and preconditioned, and HotR on
#    the `hm` profile (a second scheme, so the profile is not one loop's);
# 3. rebuilds it with the profile (-Cprofile-use) and runs the benchmark's
#    three figures on BENCH_DIR/t1m.trace and t200k.trace.
# Needs llvm-profdata from rustup's llvm-tools component (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bench_dir=${1:-target/bench}
for t in t1m t200k; do
    [[ -f $bench_dir/$t.trace ]] || { echo "missing $bench_dir/$t.trace (make target/bench/$t.trace)" >&2; exit 2; }
done
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [[ ! -x $profdata ]]; then
    rustup component add llvm-tools
fi
data=$PWD/target/pgo-data
rm -rf "$data"
RUSTFLAGS="-Cprofile-generate=$data" cargo build --release --example bench --target-dir target/pgo-gen
gen=target/pgo-gen/release/examples/bench
precond=(ftl.precondition.valid=0.5 ftl.precondition.to_gc_threshold=true)
"$gen" profile:bench-like >/dev/null
"$gen" profile:bench-like bench-matched "${precond[@]}" >/dev/null
"$gen" profile:hm hotr scheme.name=hotr >/dev/null
"$profdata" merge -o "$data/merged.profdata" "$data"
RUSTFLAGS="-Cprofile-use=$data/merged.profdata" cargo build --release --example bench --target-dir target/pgo
bin=target/pgo/release/examples/bench
"$bin" "$bench_dir/t1m.trace"
"$bin" "$bench_dir/t200k.trace" bench-matched "${precond[@]}"
"$bin" "$bench_dir/t1m.trace" bench-matched "${precond[@]}"
