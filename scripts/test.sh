#!/usr/bin/env bash
# Installs what is missing, builds the ci preset (all dependencies required, warnings as errors)
# and runs ctest; also checks the builds without CUDA (cpu-only) and without any optional
# dependency (bare, under ASan and UBSan: its fast tests), and the cpu-only build on Debian 13
# (debian13-stage.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --for-tests
# CMake from the virtual environment where setup.sh put it there (a system CMake older than 3.25).
[ -x .venv/bin/cmake ] && export PATH="$PWD/.venv/bin:$PATH"
scripts/build.sh ci
# The habits: clang-format, ruff and clang-tidy (on the ci build's compile commands).
scripts/lint.sh build/ci
# Debian 13 ships oneDNN 3.x, whose API differs from Debian 12's 2.x: the oneDNN code must compile
# against both (this machine's build is 2.x or 3.x; the other is checked against its headers).
scripts/check-onednn3.sh build/ci
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
# Without any optional dependency (Ubuntu's GPU images have no OpenBLAS or oneDNN), under
# AddressSanitizer and UBSan: the fast tests must pass there too, skipping what needs the missing
# libraries (a lent H200 found three that did not), with no memory error or undefined behaviour.
# Leaks are not checked: OpenMP's and the interpreters' pools live as long as the process.
scripts/build.sh bare >/dev/null
ASAN_OPTIONS=detect_leaks=0 ctest --preset bare -j "$(nproc)" -L fast --output-on-failure >build/bare/ctest.log 2>&1 ||
  { grep -E 'Failed|FAILED|tests passed|ERROR: AddressSanitizer|runtime error' build/bare/ctest.log >&2
    echo "test: the bare build's tests failed (build/bare/ctest.log)" >&2; exit 1; }
echo "test: the bare build (no OpenBLAS, oneDNN or CUDA; ASan, UBSan) passes its fast tests: $(grep 'tests passed' build/bare/ctest.log)"
# Debian 13 in every run: its PyTorch, oneDNN 3 and GCC 14 broke the program once with nothing
# here noticing (setup, cpu-only build, --list, smoke run and the fast tests, in a kept root).
scripts/debian13-stage.sh
ctest --preset ci -j "$(nproc)" "$@"
