#!/usr/bin/env bash
# Proves the README's two commands on a clean Debian 13 (trixie): in a Debian 13 root made with
# debootstrap (debian13-root.sh), scripts/test.sh and then `LADDER_PROFILE=quick scripts/run.sh`
# (Debian 13 brings oneDNN 3.x, Google Benchmark 1.9, OpenBLAS 0.3.29, GCC 14, CMake 3.31). Needs
# root; about 25 minutes on two cores. The logs stay in the root's /src/build/debian13-*.log.
#   scripts/debian13-check.sh [root folder]     (default /var/tmp/ladderbench-trixie)
set -euo pipefail
cd "$(dirname "$0")/.."
root="${1:-/var/tmp/ladderbench-trixie}"
status=0
scripts/debian13-root.sh "$root" '
  . /etc/os-release && echo "debian13-check: $PRETTY_NAME, $(nproc) cores"
  start=$(date +%s)
  scripts/test.sh >build/debian13-test.log 2>&1; test_status=$?
  echo "debian13-check: scripts/test.sh exit $test_status in $(( $(date +%s) - start )) s"
  grep -E "tests passed|test:|check-onednn3|Failed" build/debian13-test.log | tail -12
  start=$(date +%s)
  LADDER_PROFILE=quick scripts/run.sh >build/debian13-run.log 2>&1; run_status=$?
  echo "debian13-check: LADDER_PROFILE=quick scripts/run.sh exit $run_status in $(( $(date +%s) - start )) s"
  grep -E "^(setup|run|ladderbench): |results written|FAILED" build/debian13-run.log | tail -8
  for v in "cmake --version" "g++ --version" "dpkg-query -W libdnnl-dev libbenchmark-dev libopenblas-openmp-dev libfmt-dev python3-torch"; do $v 2>/dev/null | head -4; done
  exit $(( test_status || run_status ))
' || status=$?
echo "debian13-check: logs in $root/src/build/debian13-test.log and debian13-run.log; exit $status"
exit "$status"
