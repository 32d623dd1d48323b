#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (CMake, nvcc and cuBLAS present; no network needed): build from
# source with the CUDA backend required, run the tests (the GPU ones included), then the GPU
# rungs' quick profile. Leaves in the folder given (default: gpu-check-out):
#   machine.txt      the CPU, its ISA flags and the GPU as nvidia-smi sees them (before and after)
#   list.txt         every rung, available or why not
#   ctest.log        the whole test run
#   gpu-gemm.json    the GEMM ladder's GPU rungs at n = 1024, 2048 (and the CPU's fastest beside them)
#   gpu-targets.json the hand-written rungs beside the libraries they aim at, n = 2048, 4096, five
#                    interleaved repetitions (the head to head prints each ratio and its target)
#   gpu-device.json  the device's stream, pcie, roofline and overhead suites
#   gpu-stream-sweep.json  device STREAM (f32, f64) with arrays from L2/8 to 8x L2
#   gpu-every-device.gpuN.json  --device all: the overhead suite's launch costs, one file per GPU
#   gpu-layers.json  torch.matmul on the GPU at n = 1 ... 64 beside cuBLAS from C and an empty Python call
#   gpu-model.json   the model's GPU backends, PyTorch's included (the host's all-core ones beside them)
#   gpu-model-sweep.json  the model's resolution sweep on the GPU
#   gpu-model-compiled.json  torch.compile's module on the GPU beside the eager one
#   gpu-ladder.json  with LADDER_GPU_LADDER=1: the whole GEMM ladder, every rung of both devices at n = 4096
#   gpu-check.log    everything printed, tables included (kept even where a step runs out of time)
#   scripts/gpu-check.sh OUT_DIR
# The whole check is held to LADDER_GPU_CHECK_SECONDS (default 480): each step runs under a timeout
# of what is left (and its own cap), so a step that hangs costs that step, not the others' output.
# LADDER_SOURCE_SHA=<sha> names the code in the results where the tree sent here has no .git or
# an older one than its files (git would stamp that one's SHA, -dirty).
# Each library (Google Benchmark, fmt, gtest, nlohmann-json, OpenBLAS, oneDNN) is the host's where
# installed; otherwise the .deb files in .deps/ (from scripts/gpu-deps.sh) are unpacked into
# build/gpu-deps and used from there where they load on this host (LADDER_GPU_DEPS=force uses
# them even where the system has its own, to test this path); machine.txt says which came whence.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out="$(mkdir -p "${1:-gpu-check-out}" && cd "${1:-gpu-check-out}" && pwd)"
exec > >(tee "$out/gpu-check.log") 2>&1
start=$(date +%s)
budget=${LADDER_GPU_CHECK_SECONDS:-480}
failed=()

# step NAME CAP COMMAND...: COMMAND under a timeout of its CAP or the budget's rest, whichever is
# less; its exit status is recorded, and the check goes on to the next step.
step() {
  local name=$1 cap=$2 left
  shift 2
  left=$(( budget - ($(date +%s) - start) ))
  (( left < cap )) && cap=$left
  if (( cap < 15 )); then
    echo "gpu-check: $name not run: ${budget} s budget spent"
    failed+=("$name: not run")
    return 1
  fi
  echo "gpu-check: $name (at most $cap s)"
  local began rc
  began=$(date +%s)
  timeout --signal=INT --kill-after=15 "$cap" "$@"
  rc=$?
  echo "gpu-check: $name exit $rc after $(( $(date +%s) - began )) s"
  (( rc == 0 )) || failed+=("$name: exit $rc$( (( rc == 124 )) && echo ' (out of time)')")
  return "$rc"
}

describe_gpu() {
  command -v nvidia-smi >/dev/null || { echo "nvidia-smi: not found"; return; }
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv || true
}
{
  echo "date: $(date -u +%FT%TZ); host: $(hostname); cores: $(nproc)"
  grep -m1 'model name' /proc/cpuinfo
  echo "isa flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512bw|avx512vl|avx512dq|avx512_bf16|avx512_fp16|amx_tile|amx_bf16|amx_int8)$' | tr '\n' ' ')"
  free -g | head -n 2
  describe_gpu
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

# nvcc may sit in the toolkit's folder without being on PATH.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
echo "gpu-check: $(cmake --version | head -n 1); $(c++ --version 2>/dev/null | head -n 1); $(nvcc --version 2>/dev/null | tail -n 1)"
generator=Ninja
command -v ninja >/dev/null || generator="Unix Makefiles"

# Each library from the host where it has it, else from the .deb files in .deps/ (unpacked into a
# private prefix, each checked to load on this host's C library first), so that the GPU host's run
# has every CPU rung and model backend beside the GPU ones. LADDER_GPU_DEPS=force takes every one
# from .deps/ (to test this path). machine.txt says where each came from.
lib=/usr/lib/x86_64-linux-gnu
root="$PWD/build/gpu-deps"
prefix_args=()
deps_unpacked=false
unpack_deps() {
  $deps_unpacked && return 0
  ls .deps/*.deb >/dev/null 2>&1 || return 1
  rm -rf "$root" && mkdir -p "$root"
  for deb in .deps/*.deb; do
    if command -v dpkg >/dev/null; then dpkg -x "$deb" "$root"
    else (cd "$root" && ar p "$OLDPWD/$deb" "$(ar t "$OLDPWD/$deb" | grep '^data.tar')" | tar -x -J 2>/dev/null || ar p "$OLDPWD/$deb" "$(ar t "$OLDPWD/$deb" | grep '^data.tar')" | tar -x --zstd); fi
  done
  deps_unpacked=true
}
# Whether a shared library from .deps/ loads here: every dependency found, no newer glibc needed.
loads_here() {
  local so=$1 missing
  [ -e "$so" ] || { echo "not in .deps/"; return 1; }
  missing=$(LD_LIBRARY_PATH="$root$lib:$root$lib/openblas-openmp:${LD_LIBRARY_PATH:-}" ldd "$so" 2>&1 | grep -E 'not found|version .GLIBC' | head -1)
  [ -z "$missing" ] || { echo "$missing"; return 1; }
}
sources=()
use() {  # use NAME HOST_FILE DEPS_FILE CMAKE_ARGS...: the host's, or .deps/'s where it loads
  local name=$1 host_file=$2 deps_file=$3 why
  shift 3
  if [ "${LADDER_GPU_DEPS:-}" != force ] && [ -e "$host_file" ]; then sources+=("$name: host"); return; fi
  if ! unpack_deps; then sources+=("$name: missing (not on the host; .deps/ is empty: run scripts/gpu-deps.sh where apt works)"); return 1; fi
  if ! why=$(loads_here "$root$deps_file"); then sources+=("$name: missing (.deps/'s does not load here: $why)"); return 1; fi
  sources+=("$name: .deps/ ($(basename "$(ls "$root$deps_file")"))")
  prefix_args+=("$@")
  export LD_LIBRARY_PATH="$root$lib:$root$lib/openblas-openmp:${LD_LIBRARY_PATH:-}"
}
use "Google Benchmark" $lib/cmake/benchmark/benchmarkConfig.cmake $lib/libbenchmark.so -Dbenchmark_DIR="$root$lib/cmake/benchmark" ||
  { echo "gpu-check: Google Benchmark is not installed and .deps/ has none that loads here (${sources[-1]})" >&2; exit 2; }
use fmt $lib/cmake/fmt/fmt-config.cmake $lib/libfmt.so -Dfmt_DIR="$root$lib/cmake/fmt" ||
  { echo "gpu-check: fmt is not installed and .deps/ has none that loads here" >&2; exit 2; }
use gtest $lib/cmake/GTest/GTestConfig.cmake $lib/libgtest.a -DGTest_DIR="$root$lib/cmake/GTest" || true
use hwloc $lib/libhwloc.so $lib/libhwloc.so.15 -DHWLOC_INCLUDE_DIR="$root/usr/include" -DHWLOC_LIBRARY="$root$lib/libhwloc.so" ||
  { echo "gpu-check: hwloc is not installed and .deps/ has none that loads here" >&2; exit 2; }
use nlohmann-json /usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake /usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake \
  -Dnlohmann_json_DIR="$root/usr/share/cmake/nlohmann_json" ||
  { echo "gpu-check: nlohmann-json is not installed and .deps/ has none" >&2; exit 2; }
if [ "${LADDER_GPU_DEPS:-}" != force ] && { [ -e $lib/openblas-pthread/libopenblas.so ] || [ -e $lib/libopenblas.so ]; }; then
  sources+=("OpenBLAS: host")
else
  use OpenBLAS $lib/openblas-openmp/libopenblas.so $lib/openblas-openmp/libopenblas.so.0 \
    -DLADDER_OPENBLAS_LIBRARY="$root$lib/openblas-openmp/libopenblas.so" -DLADDER_OPENBLAS_INCLUDE_DIR="$root/usr/include/x86_64-linux-gnu/openblas-openmp" || true
fi
use oneDNN $lib/cmake/dnnl/dnnl-config.cmake "$lib/libdnnl.so" -Ddnnl_DIR="$root$lib/cmake/dnnl" -DOpenCL_LIBRARY="$root$lib/libOpenCL.so.1" \
  -DOpenCL_INCLUDE_DIR="$root/usr/include" || true
{ echo "libraries:"; printf '  %s\n' "${sources[@]}"; } | tee -a "$out/machine.txt"

step configure 120 cmake -S . -B build/gpu -G "$generator" -DCMAKE_BUILD_TYPE=Release -DLADDER_WITH_CUDA=ON "${prefix_args[@]}" &&
  step build 300 cmake --build build/gpu -j "$(nproc)" ||
  { echo "gpu-check: the build failed; nothing to run"; exit 1; }
exe=build/gpu/ladderbench
# LADDER_GPU_DEVICE=N: the GPU every step runs on (ladderbench --device N), default 0.
device_args=()
[ -n "${LADDER_GPU_DEVICE:-}" ] && device_args=(--device "$LADDER_GPU_DEVICE")

step list 30 "$exe" "${device_args[@]}" --list > "$out/list.txt"
cat "$out/list.txt"
# The rungs --list places on the GPU (or where $2 says: "all cores") in the given suites (a
# regular expression), comma-separated.
rungs_on() {
  grep -v '^ ' "$out/list.txt" | grep -E "^($1)/" | grep " ${2:-GPU} " | cut -d' ' -f1 | cut -d/ -f2 | sort -u | paste -sd, -
}
(cd build/gpu && step ctest 240 ctest -j "$(nproc)" --output-on-failure --timeout 150) > "$out/ctest.log" 2>&1 ||
  failed+=("ctest")
grep -E '^gpu-check:|tests passed|tests failed|\*\*\*Failed|Timeout|Total Test' "$out/ctest.log"

# The GEMM rungs on the GPU ($1 = GPU) or the CPU (anything else) whose mechanism (the first
# words of their --list summary) is one of $2.
gemm_rungs_by() {
  awk -v on_gpu="$([ "$1" = GPU ] && echo 1 || echo 0)" -v mechanisms="^    ($2):" \
    '/^gemm\// { name = $1; where = $0; next }
    name && $0 ~ mechanisms && (where ~ / GPU /) == on_gpu { sub("^gemm/", "", name); print name } { name = "" }' "$out/list.txt" |
    paste -sd, -
}
fastest='hand-written kernel|tuned library|matrix units'
# The GEMM ladder's GPU rungs, with the CPU's fastest of this machine beside them (hand-written
# kernels, tuned libraries, matrix units).
step gemm 150 "$exe" "${device_args[@]}" --suite gemm --profile quick \
  --rungs "$(rungs_on gemm),$(gemm_rungs_by CPU "$fastest")" \
  --benchmark_out="$out/gpu-gemm.json" --benchmark_out_format=json
# The hand-written rungs beside the libraries they aim at (the console's head to head prints each
# ratio and its target): medians of five interleaved repetitions, at n = 2048 (the CPU's targets)
# and 4096 (the GPU's); the CPU's weights-packed rungs too, the amx rung's yardstick.
step targets 200 "$exe" "${device_args[@]}" --suite gemm --sizes 2048,4096 --benchmark_repetitions=5 \
  --benchmark_enable_random_interleaving=true \
  --rungs "$(gemm_rungs_by GPU "$fastest"),$(gemm_rungs_by CPU "$fastest|ahead-of-time layout")" \
  --benchmark_out="$out/gpu-targets.json" --benchmark_out_format=json
# The device's suites: bandwidth, host-device copies, the intensity sweep, fixed costs.
step device-suites 150 "$exe" "${device_args[@]}" --suite stream,pcie,roofline,overhead --profile quick \
  --rungs "$(rungs_on 'stream|pcie|roofline|overhead')" \
  --benchmark_out="$out/gpu-device.json" --benchmark_out_format=json
# Device memory from L2/8 to 8x L2 (the full profile's sweep), f32 and f64: the L2 to HBM step.
step stream-sweep 90 "$exe" "${device_args[@]}" --suite stream --profile full --rungs device-copy,device-triad \
  --benchmark_repetitions=1 --benchmark_out="$out/gpu-stream-sweep.json" --benchmark_out_format=json
# --device all: the command once per GPU (here the fixed costs, cheap), each device's own file.
step every-device 120 "$exe" --device all --suite overhead --profile quick --rungs cuda-launch,cuda-sync,empty-call \
  --benchmark_out="$out/gpu-every-device.json" --benchmark_out_format=json
# A GEMM call from Python on the GPU, layer by layer: torch.matmul at n = 1 ... 64 beside cuBLAS
# called from C and an empty Python call (report.py ladder's "A call from Python, by layer").
step python-layers 120 "$exe" "${device_args[@]}" --suite overhead --profile quick --rungs python-call,cublas,torch-cuda \
  --benchmark_out="$out/gpu-layers.json" --benchmark_out_format=json
# The model's GPU backends, PyTorch's among them, with the host's all-core ones beside them.
# (torch.compile's backends have their own step: each configuration compiles anew.)
not_compiled() { tr , '\n' | grep -v '^torch-compile' | paste -sd, -; }
step model 240 "$exe" "${device_args[@]}" --suite model --profile quick \
  --rungs "$( (rungs_on model; rungs_on model 'all cores') | paste -sd, - | not_compiled)" \
  --benchmark_out="$out/gpu-model.json" --benchmark_out_format=json
# The resolution sweep (a pass may take 1 s in the quick profile): our GPU backends and PyTorch's
# f32 one; its TF32 and f16 variants stay out, each side of theirs a fresh interpreter and CUDA context.
step model-sweep 200 "$exe" "${device_args[@]}" --suite model-sweep --profile quick \
  --rungs "$(rungs_on model | not_compiled | tr , '\n' | grep -v '^torch-cuda-' | paste -sd, -)" \
  --benchmark_out="$out/gpu-model-sweep.json" --benchmark_out_format=json
# torch.compile on the GPU beside the same module run eagerly: what compiling buys a PyTorch user
# (the framework's share of a pass, kernels fused), its compile time apart.
step model-compiled 150 "$exe" "${device_args[@]}" --suite model --profile quick --rungs torch-cuda,torch-compile-cuda \
  --benchmark_out="$out/gpu-model-compiled.json" --benchmark_out_format=json

# Last, in whatever time is left (every other step matters more): the whole ladder, from python to
# the tensor cores, every rung at n = 4096 (the GPU's also at 8192), when asked for:
# LADDER_GPU_LADDER=1 (about five minutes on 16 cores; give the check the time:
# LADDER_GPU_CHECK_SECONDS=900).
if [ "${LADDER_GPU_LADDER:-0}" = 1 ]; then
  step ladder 420 "$exe" "${device_args[@]}" --profile ladder --benchmark_out="$out/gpu-ladder.json" --benchmark_out_format=json
fi

echo "gpu-check: the GPU after the runs:"
describe_gpu
echo "gpu-check: $(( $(date +%s) - start )) s in all"
if (( ${#failed[@]} )); then
  echo "gpu-check: FAILED: ${failed[*]}"
  exit 1
fi
echo "gpu-check: every step passed"
