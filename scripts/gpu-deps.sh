#!/usr/bin/env bash
# Downloads (without installing) the Debian packages the build needs into .deps/, for a GPU
# machine that has CMake, nvcc and cuBLAS but no network: carry .deps/ there and run
# scripts/gpu-check.sh, which unpacks them into a private prefix when the system lacks them.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
cd .deps
apt-get download libbenchmark-dev libbenchmark1debian libfmt-dev libfmt9 libgtest-dev nlohmann-json3-dev libhwloc-dev libhwloc15 \
  libdnnl-dev libdnnl2 ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-c-headers opencl-clhpp-headers \
  libopenblas-openmp-dev libopenblas0-openmp libgfortran5 libquadmath0 2>&1 | tail -n 2
ls -1 *.deb
