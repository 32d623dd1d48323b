#!/usr/bin/env bash
# ReFrame runs ladderbench as a regression test on this machine (its local scheduler): a first run
# with no references, its result gathered into a fresh results tree, references for this
# system:partition made from it (report.py references), a second run that meets them, and a run
# on a node made slower on purpose (OMP_NUM_THREADS=1: the all-core rung on one core) that fails
# its performance check on that rung alone. The references allow 30% below them, wide enough for a
# shared machine's run-to-run noise, and well short of what one core of two loses. Exit 77 where ReFrame is not installed (scripts/setup.sh
# --for-tests installs it from requirements-fleet.txt).
#
#   tests/fleet/reframe_local.sh BUILD_DIR
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: reframe_local.sh BUILD_DIR}" && pwd)
rfm=$root/.venv/bin/reframe
[ -x "$rfm" ] || { echo "reframe_local: no ReFrame in .venv (scripts/setup.sh --for-tests)"; exit 77; }
# The slower node is the all-core rung on one core: on a one-core machine nothing is slower.
[ "$(nproc)" -ge 2 ] || { echo "reframe_local: one CPU here: OMP_NUM_THREADS=1 slows nothing"; exit 77; }
prefix=$(mktemp -d /tmp/ladder-reframe.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "reframe_local: $*" >&2; tail -n 30 "$prefix"/*.log >&2; exit 1; }
check() {  # name, then more ReFrame options
  local name=$1; shift
  # ReFrame logs its start to a file in TMPDIR before it reads any configuration: the prefix's.
  TMPDIR=$prefix "$rfm" -C "$root/fleet/reframe/settings.py" -c "$root/fleet/reframe/ladderbench_check.py" --system local -r \
    -S exe="$build/ladderbench" -S rungs=naive,parallel -S sizes=512 --prefix "$prefix/$name" "$@" >"$prefix/$name.log" 2>&1
}
check first || fail "the first run (no references) failed"
result=$(find "$prefix/first/output" -name result.json | head -1)
[ -n "$result" ] || fail "ReFrame kept no result.json"
"$root/.venv/bin/python" "$root/scripts/report.py" gather "$result" --into "$prefix/db" >/dev/null || fail "gather failed"
machine=$("$build/ladderbench" --machine-id)
"$root/.venv/bin/python" "$root/scripts/report.py" references --machine "$machine" --system local:default \
  --results "$prefix/db" --out "$prefix/refs.json" --floor 0.3 || fail "references failed"
grep -q '"gemm/parallel/f32/n=512"' "$prefix/refs.json" || fail "no reference for the parallel rung: $(cat "$prefix/refs.json")"
check again -S references_file="$prefix/refs.json" || fail "a run like the first failed its references"
OMP_NUM_THREADS=1 check slower -S references_file="$prefix/refs.json" && fail "a run on one core met the all-core references"
grep -q "gemm/parallel/f32/n=512" "$prefix/slower.log" || fail "the failure does not name the slower rung"
grep -q "Failing phase: performance" "$prefix/slower.log" || fail "the failure is not a performance failure"
grep -q "gemm/naive/f32/n=512.*(r:" "$prefix/slower.log" && ! grep -q "failed to meet reference(s): gemm/naive" "$prefix/slower.log" ||
  fail "the one-core run failed on a rung it does not slow"
echo "reframe_local: references from the first run met by the second; the one-core run failed on gemm/parallel"
