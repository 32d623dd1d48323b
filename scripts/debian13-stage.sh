#!/usr/bin/env bash
# scripts/test.sh's Debian 13 stage: in a Debian 13 root kept at build/debian13/ (debian13-root.sh),
# what a new user there gets from setup.sh, the cpu-only build, --list, its smoke run of the gemm
# and model suites (PyTorch's compiled backend included), and the tests labelled fast. Skipped,
# with the reason, where there is no root or debootstrap cannot be had. The logs stay in
# build/debian13/root/src/build/debian13-stage-*.log.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${LADDER_IN_DEBIAN13_ROOT:-}" ]; then
  echo "test: the Debian 13 stage skipped: this already is the Debian 13 root"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "test: the Debian 13 stage skipped: it needs root (debootstrap and chroot); scripts/debian13-check.sh as root runs it all"
  exit 0
fi
if ! command -v debootstrap >/dev/null 2>&1 &&
   ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1; then
  echo "test: the Debian 13 stage skipped: debootstrap cannot be installed (apt-get install debootstrap)"
  exit 0
fi
start=$(date +%s)
scripts/debian13-root.sh build/debian13/root '
  log() { echo "debian13-stage: $*"; }
  step() {  # step NAME COMMAND...: its output in a log, its last lines where it fails
    local name=$1; shift
    if ! "$@" >"build/debian13-stage-$name.log" 2>&1; then
      tail -20 "build/debian13-stage-$name.log" >&2
      log "$name failed (build/debian13-stage-$name.log in the root)" >&2
      exit 1
    fi
  }
  . /etc/os-release && log "$PRETTY_NAME, $(nproc) cores"
  step setup scripts/setup.sh
  step build scripts/build.sh cpu-only
  step build-tests cmake --build build/cpu-only -j "$(nproc)" --target ladder_unit_tests ladder_cli_tests tiled_avx2_object \
    tiled_avx512_object
  build/cpu-only/ladderbench --list >build/debian13-stage-list.log 2>&1 || { cat build/debian13-stage-list.log >&2; exit 1; }
  grep -E "^(gemm/(openblas|onednn|torch|numpy)|model/torch(-compile)?) " build/debian13-stage-list.log | sed "s/^/debian13-stage: /"
  step smoke build/cpu-only/ladderbench --profile smoke --suite gemm,model --benchmark_min_time=0.001
  step ctest ctest --test-dir build/cpu-only -L fast -j "$(nproc)" --output-on-failure
  log "$(grep "tests passed" build/debian13-stage-ctest.log)"
'
echo "test: the Debian 13 stage (setup, cpu-only build, --list, smoke run, fast tests) passed in $(( $(date +%s) - start )) s"
