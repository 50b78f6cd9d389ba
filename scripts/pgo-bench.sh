#!/usr/bin/env bash
# The standard benchmark on a profile-guided (PGO) build of the core, laid
# out again by LLVM's BOLT when it is installed.
#
#   scripts/pgo-bench.sh [BENCH_DIR]      (default target/bench; `make bench-pgo`)
#
# 1. builds examples/bench instrumented (-Cprofile-generate);
# 2. trains it on synthetic profiles from the generator, never on the
#    benchmark's traces: bench-like fresh and preconditioned, and HotR on
#    the `hm` profile (a second scheme, so the profile is not one loop's);
# 3. rebuilds it with the profile (-Cprofile-use), keeping its relocations
#    so that BOLT can rewrite it;
# 4. if llvm-bolt is found (Debian: `apt install bolt-16`), instruments that
#    binary with BOLT, trains it on the same profiles (instrumented, so no
#    hardware counters are needed) and lays its code out by the profile:
#    hot paths straight through, cold blocks split away;
# 5. runs the benchmark's three figures on BENCH_DIR/t1m.trace and
#    t200k.trace with the last binary built.
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
# The final crate gets the same arguments as in the plain optimised build
# (`rustc-args` in pyproject.toml, a one-line list), so PGO is measured on
# top of it.
read -r -a core_args <<<"$(sed -n 's/^rustc-args = \[\(.*\)\]$/\1/p' pyproject.toml | tr -d '",')"
RUSTFLAGS="-Cprofile-generate=$data" \
    cargo rustc --release -p detour-core --example bench --target-dir target/pgo-gen -- "${core_args[@]}"
gen=target/pgo-gen/release/examples/bench
precond=(ftl.precondition.valid=0.5 ftl.precondition.to_gc_threshold=true)
train() {
    "$1" profile:bench-like >/dev/null
    "$1" profile:bench-like bench-matched "${precond[@]}" >/dev/null
    "$1" profile:hm hotr scheme.name=hotr >/dev/null
}
train "$gen"
"$profdata" merge -o "$data/merged.profdata" "$data"
RUSTFLAGS="-Cprofile-use=$data/merged.profdata -Clink-args=-Wl,--emit-relocs" \
    cargo rustc --release -p detour-core --example bench --target-dir target/pgo -- "${core_args[@]}"
bin=target/pgo/release/examples/bench
bolt=$(command -v llvm-bolt || ls /usr/lib/llvm-*/bin/llvm-bolt 2>/dev/null | sort -V | tail -n 1 || true)
if [[ -n $bolt ]]; then
    bolt_data=$PWD/target/bolt-data
    rm -rf "$bolt_data"
    mkdir -p "$bolt_data"
    "$bolt" "$bin" -o "$bolt_data/bench-instrumented" -instrument \
        -instrumentation-file="$bolt_data/profile" -instrumentation-file-append-pid >/dev/null
    train "$bolt_data/bench-instrumented"
    merge=$(dirname "$bolt")/merge-fdata
    [[ -x $merge ]] || merge=$(command -v merge-fdata) || { echo "merge-fdata (BOLT's) not found beside $bolt" >&2; exit 2; }
    "$merge" "$bolt_data"/profile.*.fdata >"$bolt_data/merged.fdata" 2>/dev/null
    "$bolt" "$bin" -o target/pgo/bench-bolt -data="$bolt_data/merged.fdata" \
        -reorder-blocks=ext-tsp -reorder-functions=hfsort+ -split-functions -split-all-cold \
        -split-eh -icf=1 -use-gnu-stack >/dev/null
    bin=target/pgo/bench-bolt
    echo "PGO + BOLT build: $bin" >&2
else
    echo "PGO build: $bin (llvm-bolt not found: no BOLT stage)" >&2
fi
"$bin" "$bench_dir/t1m.trace"
"$bin" "$bench_dir/t200k.trace" bench-matched "${precond[@]}"
"$bin" "$bench_dir/t1m.trace" bench-matched "${precond[@]}"
