#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (CMake, nvcc and cuBLAS present; no network needed): build from
# source with the CUDA backend required, run the GPU tests, then the GPU rungs' quick profile.
# Leaves gpu-quick.json (GEMM), gpu-suites.json (device suites, the model and its sweep),
# ctest.log and gpu-check.log in the folder given (default: gpu-check-out).
#   scripts/gpu-check.sh OUT_DIR
# Debian's Google Benchmark, fmt and gtest are used where installed; otherwise the .deb files
# in .deps/ (from scripts/gpu-deps.sh) are unpacked into build/gpu-deps and used from there
# (LADDER_GPU_DEPS=force uses them even where the system has its own, to test this path).
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mkdir -p "${1:-gpu-check-out}" && cd "${1:-gpu-check-out}" && pwd)"
log="$out/gpu-check.log"
exec > >(tee "$log") 2>&1
start=$(date +%s)
echo "gpu-check: $(date -u +%FT%TZ) on $(hostname), $(nproc) cores"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
echo "gpu-check: $(cmake --version | head -n 1); $(c++ --version 2>/dev/null | head -n 1); $(nvcc --version 2>/dev/null | tail -n 1)"

prefix_args=()
if [ "${LADDER_GPU_DEPS:-}" = force ] || ! [ -e /usr/lib/x86_64-linux-gnu/cmake/benchmark/benchmarkConfig.cmake ]; then
  if ! ls .deps/*.deb >/dev/null 2>&1; then
    echo "gpu-check: Google Benchmark is not installed and .deps/ holds no packages (run scripts/gpu-deps.sh where apt works)" >&2
    exit 2
  fi
  root="$PWD/build/gpu-deps"
  rm -rf "$root" && mkdir -p "$root"
  for deb in .deps/*.deb; do
    if command -v dpkg >/dev/null; then dpkg -x "$deb" "$root"
    else (cd "$root" && ar p "$OLDPWD/$deb" "$(ar t "$OLDPWD/$deb" | grep '^data.tar')" | tar -x -J 2>/dev/null || ar p "$OLDPWD/$deb" "$(ar t "$OLDPWD/$deb" | grep '^data.tar')" | tar -x --zstd); fi
  done
  prefix_args=(-DCMAKE_PREFIX_PATH="$root/usr;$root/usr/lib/x86_64-linux-gnu/cmake"
               -DOPENBLAS_LIBRARY="$root/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so"
               -DOPENBLAS_INCLUDE_DIR="$root/usr/include/x86_64-linux-gnu/openblas-openmp")
  export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu/openblas-openmp:${LD_LIBRARY_PATH:-}"
  echo "gpu-check: using the packages from .deps/ (unpacked into $root)"
fi

cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DLADDER_WITH_CUDA=ON "${prefix_args[@]}"
cmake --build build/gpu -j "$(nproc)"
echo "gpu-check: built in $(( $(date +%s) - start )) s"

build/gpu/ladderbench --list | tee "$out/list.txt"
set +e
(cd build/gpu && ctest -j "$(nproc)" --output-on-failure --timeout 300) > "$out/ctest.log" 2>&1
tests=$?
tail -n 5 "$out/ctest.log"
gpu_rungs=cuda-naive,cuda-tiled,cuda-regtile,cublas,cublas-tf32,cublas-f16,cublas-bf16
build/gpu/ladderbench --suite gemm --profile quick --rungs "$gpu_rungs,avx512,openblas" \
  --benchmark_out="$out/gpu-quick.json" --benchmark_out_format=json
bench=$?
# The device suites and the model's GPU backends (with the cpu backend beside them), the
# resolution sweep included (a pass may take 1 s in the quick profile).
device_rungs=device-copy,device-triad,h2d-pinned,h2d-pageable,d2h-pinned,d2h-pageable,cuda,cuda-launch,cuda-sync
device_rungs+=,cublas-small,cuda-chain,cuda-graph,cuda-tf32,cuda-f16,cpu
build/gpu/ladderbench --suite stream,pcie,roofline,overhead,model,model-sweep --profile quick --rungs "$device_rungs" \
  --benchmark_out="$out/gpu-suites.json" --benchmark_out_format=json
bench=$(( bench | $? ))
set -e
echo "gpu-check: tests exit $tests, benchmark exit $bench, $(( $(date +%s) - start )) s in all"
[ "$tests" -eq 0 ] && [ "$bench" -eq 0 ]
