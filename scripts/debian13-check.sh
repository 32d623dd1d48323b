#!/usr/bin/env bash
# Proves the README's two commands on a clean Debian 13 (trixie): makes a minimal root with
# debootstrap from Debian's registry, copies the working tree's tracked files into it, and runs
# scripts/test.sh and then `LADDER_PROFILE=quick scripts/run.sh` there (Debian 13 brings oneDNN
# 3.x, Google Benchmark 1.9, OpenBLAS 0.3.29, GCC 14, CMake 3.31). Needs root; about 25 minutes on
# two cores. The logs stay in the root's /src/build/debian13-*.log.
#   scripts/debian13-check.sh [root folder]     (default /var/tmp/ladderbench-trixie)
set -euo pipefail
cd "$(dirname "$0")/.."
root="${1:-/var/tmp/ladderbench-trixie}"
[ "$(id -u)" -eq 0 ] || { echo "debian13-check: needs root (debootstrap and chroot)" >&2; exit 1; }
if ! command -v debootstrap >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
    { echo "debian13-check: cannot install debootstrap; as root: apt-get install debootstrap" >&2; exit 1; }
fi
if ! [ -x "$root/usr/bin/apt-get" ]; then
  echo "debian13-check: making a Debian 13 root in $root"
  debootstrap --variant=minbase trixie "$root" http://deb.debian.org/debian >"$root.debootstrap.log" 2>&1 ||
    { tail -5 "$root.debootstrap.log" >&2; echo "debian13-check: debootstrap failed ($root.debootstrap.log)" >&2; exit 1; }
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The host's own certificate authorities and pip configuration (a proxy's CA, a mirror) carry over.
mkdir -p "$root/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"

# The tree as it is (tracked files), not its build outputs or virtual environment.
rm -rf "$root/src"
mkdir -p "$root/src"
git ls-files -z | xargs -0 cp --parents -t "$root/src"

mounted=()
cleanup() { for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done; }
trap cleanup EXIT
for fs in proc sys dev dev/pts; do
  mount --bind "/$fs" "$root/$fs"
  mounted+=("$root/$fs")
done

status=0
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 /bin/bash -c '
  set -o pipefail
  cd /src && mkdir -p build
  if ! [ -f /etc/ssl/certs/ca-certificates.crt ] || [ /usr/local/share/ca-certificates -nt /etc/ssl/certs/ca-certificates.crt ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ca-certificates >/dev/null
    update-ca-certificates >/dev/null
  fi
  . /etc/os-release && echo "debian13-check: $PRETTY_NAME, $(nproc) cores"
  scripts/test.sh >build/debian13-test.log 2>&1; test_status=$?
  echo "debian13-check: scripts/test.sh exit $test_status"; grep -E "tests passed|test:|check-onednn3|Failed" build/debian13-test.log | tail -12
  start=$(date +%s)
  LADDER_PROFILE=quick scripts/run.sh >build/debian13-run.log 2>&1; run_status=$?
  echo "debian13-check: LADDER_PROFILE=quick scripts/run.sh exit $run_status in $(( $(date +%s) - start )) s"
  grep -E "^(setup|run|ladderbench): |results written|FAILED" build/debian13-run.log | tail -8
  for v in "cmake --version" "g++ --version" "dpkg-query -W libdnnl-dev libbenchmark-dev libopenblas-openmp-dev libfmt-dev"; do $v 2>/dev/null | head -4; done
  exit $(( test_status || run_status ))
' || status=$?
echo "debian13-check: logs in $root/src/build/debian13-test.log and debian13-run.log; exit $status"
exit "$status"
