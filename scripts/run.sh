#!/usr/bin/env bash
# Installs what is missing, builds, runs the default profile on this machine, writes
# results/<machine-id>/<date>-<git-sha>.json and prints the ladder.
#   scripts/run.sh                      the full profile (ladder + size sweep)
#   LADDER_PROFILE=quick scripts/run.sh every rung, a few minutes
#   scripts/run.sh --rungs avx512,openblas --sizes 2048   any ladderbench options
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# The program only: the tests are scripts/test.sh's to build.
build_start=$SECONDS
scripts/build.sh release ladderbench
echo "run: built ladderbench in $((SECONDS - build_start)) s"

exe=build/release/ladderbench
machine="$("$exe" --machine-id "$@")"  # --cores N, --numa NODE: a smaller machine's folder
sha="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then sha="$sha-dirty"; fi
mkdir -p "results/$machine"
out="results/$machine/$(date -u +%Y-%m-%dT%H%M%SZ)-$sha.json"

# The run's first lines are its plan: cases, memory, threads and the time it should take.
echo "run: results -> $out"
"$exe" --profile "${LADDER_PROFILE:-full}" --benchmark_out="$out" --benchmark_out_format=json "$@"
