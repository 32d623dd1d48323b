#!/usr/bin/env bash
# Installs what is missing, builds the ci preset (all dependencies required) and runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh ci
# Most machines have no CUDA toolkit: the program must build, link and run without it too.
scripts/build.sh cpu-only
# (The list is read whole first: grep -q stops reading at its match, and under pipefail the
# list's next write, to a closed pipe, would fail the check at random.)
list=$(build/cpu-only/ladderbench --list)
grep -q '^gemm/openblas .* available$' <<<"$list" ||
  { echo "test: the cpu-only build does not list gemm/openblas as available" >&2; exit 1; }
if ! build/cpu-only/ladderbench --profile smoke --suite gemm,model --benchmark_min_time=0.001 >build/cpu-only/smoke.log 2>&1; then
  tail -20 build/cpu-only/smoke.log >&2
  echo "test: the cpu-only build's smoke run failed (build/cpu-only/smoke.log)" >&2
  exit 1
fi
# There the GPU rungs are known but unavailable, and asking for one says why in one line (exit 2).
grep -q '^gemm/cublas .* unavailable: this build has no CUDA backend' <<<"$list" ||
  { echo "test: the cpu-only build does not list gemm/cublas as not built" >&2; exit 1; }
set +e
refusal=$(build/cpu-only/ladderbench --suite model --rungs cuda 2>&1)
status=$?
set -e
if [ "$status" -ne 2 ] || ! grep -q 'cuda is unavailable: this build has no CUDA backend' <<<"$refusal"; then
  echo "test: the cpu-only build answered --rungs cuda with exit $status: $refusal" >&2
  exit 1
fi
echo "test: the cpu-only build (LADDER_WITH_CUDA=OFF) links, lists its rungs and passes a smoke run"
# LADDER_WITH_CUDA=AUTO on a machine without nvcc (hidden here) configures without CUDA.
rm -rf build/auto-without-nvcc
if ! env PATH=/usr/bin:/bin cmake -S . -B build/auto-without-nvcc -G Ninja -DLADDER_WITH_CUDA=AUTO \
     -DLADDER_CUDA_HOME=/nonexistent -DLADDER_BUILD_TESTS=OFF >build/auto-without-nvcc.log 2>&1 ||
   ! grep -q 'CUDA=OFF' build/auto-without-nvcc.log; then
  tail -20 build/auto-without-nvcc.log >&2
  echo "test: LADDER_WITH_CUDA=AUTO without nvcc did not configure a build without CUDA" >&2
  exit 1
fi
echo "test: LADDER_WITH_CUDA=AUTO without nvcc configures without CUDA"
ctest --preset ci -j "$(nproc)" "$@"
