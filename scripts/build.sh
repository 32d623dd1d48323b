#!/usr/bin/env bash
# Configures and builds one CMake preset (release by default), all of it or the targets named:
#   scripts/build.sh [preset [target...]]      (scripts/run.sh builds only ladderbench)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
targets=()
[ $# -gt 0 ] && targets=(--target "$@")
# CMake from the virtual environment where setup.sh put it there (a system CMake older than 3.25).
[ -x .venv/bin/cmake ] && export PATH="$PWD/.venv/bin:$PATH"
extra=()
# Where nvcc is, the CUDA backend must build (AUTO would skip it quietly if something broke).
# (The cpu-only and bare presets are builds of a machine without it, and keep CUDA off.)
if [ "$preset" != cpu-only ] && [ "$preset" != bare ] && { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }; then
  extra+=(-DLADDER_WITH_CUDA=ON)
fi
cmake --preset "$preset" "${extra[@]}" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
