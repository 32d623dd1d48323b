#!/usr/bin/env bash
# Installs what is missing, builds the ci preset (all dependencies required) and runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh ci
# Most machines have no CUDA toolkit: the program must build, link and run without it too.
scripts/build.sh cpu-only
build/cpu-only/ladderbench --list | grep -q '^gemm/openblas .* available$' ||
  { echo "test: the cpu-only build does not list gemm/openblas as available" >&2; exit 1; }
if ! build/cpu-only/ladderbench --profile smoke --suite gemm,model --benchmark_min_time=0.001 >build/cpu-only/smoke.log 2>&1; then
  tail -20 build/cpu-only/smoke.log >&2
  echo "test: the cpu-only build's smoke run failed (build/cpu-only/smoke.log)" >&2
  exit 1
fi
echo "test: the cpu-only build (LADDER_WITH_CUDA=OFF) links, lists its rungs and passes a smoke run"
ctest --preset ci -j "$(nproc)" "$@"
