#!/usr/bin/env bash
# Compare builds of the bench example on a machine whose speed wanders:
# runs every binary in turn, N rounds, so all of them see the same minutes,
# and prints each one's fastest, first-quartile and median wall time.
#
#   scripts/bench-ab.sh [-n N] BIN [BIN ...] -- ARGS...
#
#   make bench-core && cp target/release/examples/bench /tmp/bench-new
#   scripts/bench-ab.sh -n 15 /tmp/bench-old /tmp/bench-new -- target/bench/t1m.trace
#
# ARGS go to every binary (a trace or profile:NAME, a preset, key=value
# overrides). A binary that fails, or whose results differ from the first
# binary's (events, GC, latencies), stops the comparison: a faster build
# that computes something else is not faster.
set -euo pipefail
rounds=11
if [[ ${1:-} == -n ]]; then
    rounds=${2:?-n needs a count}
    shift 2
fi
bins=()
while [[ $# -gt 0 && $1 != -- ]]; do
    bins+=("$1")
    shift
done
if [[ $# -eq 0 || ${#bins[@]} -eq 0 ]]; then
    echo "usage: scripts/bench-ab.sh [-n N] BIN [BIN ...] -- ARGS..." >&2
    exit 2
fi
shift
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "-n: expected a positive count, not '$rounds'" >&2; exit 2; }

times=$(mktemp)
trap 'rm -f "$times"' EXIT
reference=""
for _ in $(seq "$rounds"); do
    for i in "${!bins[@]}"; do
        out=$("${bins[$i]}" "$@") || { echo "${bins[$i]} failed" >&2; exit 1; }
        # Everything but the timing and memory lines must agree.
        results=$(grep -vE '^(wall_s|requests_per_s|peak_memory_mib) ' <<<"$out")
        if [[ -z $reference ]]; then
            reference=$results
        elif [[ $results != "$reference" ]]; then
            echo "${bins[$i]} computes different results from ${bins[0]}:" >&2
            diff <(echo "$reference") <(echo "$results") >&2 || true
            exit 1
        fi
        echo "$i $(awk '/^wall_s /{print $2}' <<<"$out")" >>"$times"
    done
done
for i in "${!bins[@]}"; do
    awk -v i="$i" '$1 == i {print $2}' "$times" | sort -n | awk -v name="${bins[$i]}" '
        { t[NR] = $1 }
        END { printf "%-40s min %.3f  q1 %.3f  median %.3f  (%d runs)\n", name, t[1], t[int((NR + 3) / 4)], t[int((NR + 1) / 2)], NR }'
done
