#!/usr/bin/env bash
# Every GPU rung, device suite and model backend verified and timed at tiny sizes; the rungs are
# those --list places on the GPU. Exit 77 (skipped) where no device answers.
set -euo pipefail
exe=$1
list=$("$exe" --list)
gpu_rungs() { grep -v '^ ' <<<"$list" | grep -E "^$1/" | grep ' GPU ' | cut -d' ' -f1 | cut -d/ -f2 | sort -u | paste -sd, -; }
if ! grep -q '^gemm/cuda-naive .* available$' <<<"$list"; then
  grep '^gemm/cuda-naive' <<<"$list"
  exit 77
fi
"$exe" --suite gemm --rungs "$(gpu_rungs gemm)" --sizes 1,7,33,100,257,1024 --benchmark_min_time=0.001
exec "$exe" --profile smoke --suite stream,pcie,roofline,overhead,model,model-sweep \
  --rungs "$(gpu_rungs 'stream|pcie|roofline|overhead|model')" --benchmark_min_time=0.001
