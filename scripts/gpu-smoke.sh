#!/usr/bin/env bash
# Every GPU rung, device suite and model backend verified and timed at tiny sizes; the rungs are
# those --list places on the GPU. Where NVML loads, every GPU case must carry its telemetry
# counters. Exit 77 (skipped) where no device answers.
set -euo pipefail
exe=$1
list=$("$exe" --list)
gpu_rungs() { grep -v '^ ' <<<"$list" | grep -E "^$1/" | grep ' GPU ' | cut -d' ' -f1 | cut -d/ -f2 | sort -u | paste -sd, -; }
if ! grep -q '^gemm/cuda-naive .* available$' <<<"$list"; then
  grep '^gemm/cuda-naive' <<<"$list"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$exe" --suite gemm --rungs "$(gpu_rungs gemm)" --sizes 1,7,33,100,257,1024 --benchmark_min_time=0.001 \
  --benchmark_out="$out/gemm.json"
"$exe" --profile smoke --suite stream,pcie,roofline,overhead,model,model-sweep \
  --rungs "$(gpu_rungs 'stream|pcie|roofline|overhead|model')" --benchmark_min_time=0.001 --benchmark_out="$out/device.json"
python3 - "$out/gemm.json" "$out/device.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    doc = json.load(open(path))
    telemetry = doc["context"].get("gpu_telemetry", "")
    print(f"gpu-smoke: {path.rsplit('/', 1)[-1]}: gpu_telemetry: {telemetry}")
    if not telemetry.startswith("NVML"):
        continue
    # Both runs asked for the GPU's rungs alone: every case that ran is a GPU case.
    gpu = [b for b in doc["benchmarks"] if b.get("run_type") == "iteration" and not b.get("error_occurred")]
    bare = [b["run_name"] for b in gpu if "gpu_sm_clock_median_mhz" not in b]
    if bare:
        sys.exit(f"gpu-smoke: GPU cases without telemetry counters: {bare[:5]}")
    print(f"gpu-smoke: {len(gpu)} GPU cases, each with its SM clock, power and slowdown reasons")
PY
