#!/usr/bin/env bash
# Installs the system packages ladderbench builds with, where any is missing, on Debian 12 and 13
# and Ubuntu 22.04 and 24.04; then the report tools' Python packages in .venv/. Run by run.sh and
# test.sh; needs root (or sudo) only when something must be installed.
#   scripts/setup.sh              what building and running need
#   scripts/setup.sh --for-tests  also what only the tests use (a browser for the report page, Slurm)
# A required package that cannot be installed stops it with one line naming the package and the
# command that would install it. An optional one that the distribution lacks is left out, and
# the build leaves its backend out with the reason (the AUTO options).
set -euo pipefail
cd "$(dirname "$0")/.."

for_tests=false
[ "${1:-}" = --for-tests ] && for_tests=true

distribution="unknown"
if [ -r /etc/os-release ]; then
  # shellcheck disable=SC1091
  distribution="$(. /etc/os-release && echo "${ID:-unknown}-${VERSION_CODENAME:-${VERSION_ID:-}}")"
fi

required=(build-essential cmake ninja-build git pkg-config libbenchmark-dev libfmt-dev libgtest-dev libhwloc-dev
          nlohmann-json3-dev python3 python3-venv)
# The OpenMP build of OpenBLAS where the distribution has it (its threads and ours share a pool).
# NumPy and PyTorch are rungs (numpy, torch: Python calling a library), measured, not used as tools.
optional=(libdnnl-dev ocl-icd-opencl-dev libopenblas-openmp-dev libbenchmark-tools python3-numpy python3-torch)
# PyTorch 2's compiler (torch.compile's Inductor, the torch-compile backend) imports setuptools and
# compiles C++ against PyTorch's headers and Python's, none of which Debian 13's python3-torch
# pulls in (libtorch-dev brings the headers and python3-dev). Debian 12's PyTorch 1.13 has no
# compiler, Ubuntu 22.04's neither. Without them the backend is unavailable, saying why.
case "$distribution" in
  debian-bookworm | ubuntu-jammy) ;;
  *) optional+=(python3-setuptools libtorch-dev) ;;
esac
if $for_tests; then
  case "$distribution" in
    # Ubuntu's chromium is a snap wrapper that fails in containers: its browser test is skipped.
    ubuntu-*) echo "setup: no browser on $distribution (its chromium is a snap); the report page's browser test will be skipped" ;;
    *) optional+=(chromium) ;;
  esac
  # A two-node Slurm cluster on one host, with accounting, for the fleet test
  # (tests/fleet/slurm_cluster.sh); its daemons are started by the test alone, under a temporary prefix.
  optional+=(munge slurmctld slurmd slurm-client slurmdbd mariadb-server)
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then as_root=(sudo); else as_root=(none); fi
fi

missing_required=() missing_optional=()
for p in "${required[@]}"; do installed "$p" || missing_required+=("$p"); done
for p in "${optional[@]}"; do installed "$p" || missing_optional+=("$p"); done

if [ ${#missing_required[@]} -gt 0 ] || [ ${#missing_optional[@]} -gt 0 ]; then
  wanted=("${missing_required[@]}" "${missing_optional[@]}")
  if [ "${as_root[0]:-}" = none ]; then
    if [ ${#missing_required[@]} -gt 0 ]; then
      echo "setup: missing ${missing_required[*]} and no root or sudo here; as root: apt-get install ${wanted[*]}" >&2
      exit 1
    fi
    echo "setup: note: optional ${missing_optional[*]} not installed (no root or sudo); their backends are left out"
  else
    export DEBIAN_FRONTEND=noninteractive
    if ! "${as_root[@]}" apt-get update -qq >/tmp/ladderbench-apt.log 2>&1; then
      if [ ${#missing_required[@]} -gt 0 ]; then
        echo "setup: apt-get update failed (no network or no package source?): missing ${missing_required[*]}; once it works: apt-get install ${wanted[*]} (see /tmp/ladderbench-apt.log)" >&2
        exit 1
      fi
      echo "setup: note: apt-get update failed; optional ${missing_optional[*]} not installed"
    else
      # What this distribution has of the optional ones; the rest are named and left out.
      available=()
      for p in "${missing_optional[@]}"; do
        if apt-cache show "$p" >/dev/null 2>&1; then available+=("$p"); else echo "setup: note: $distribution has no package $p; its backend is left out"; fi
      done
      if [[ " ${available[*]} " != *" libopenblas-openmp-dev "* ]] && ! installed libopenblas-openmp-dev &&
         apt-cache show libopenblas-pthread-dev >/dev/null 2>&1 && ! installed libopenblas-pthread-dev; then
        available+=(libopenblas-pthread-dev)  # OpenBLAS's pthread build, where the OpenMP one is missing
      fi
      to_install=("${missing_required[@]}" "${available[@]}")
      if [ ${#to_install[@]} -gt 0 ]; then
        echo "setup: installing ${to_install[*]} ($distribution)"
        if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${to_install[@]}" >>/tmp/ladderbench-apt.log 2>&1; then
          tail -5 /tmp/ladderbench-apt.log >&2
          echo "setup: apt-get install failed; as root: apt-get install ${to_install[*]} (see /tmp/ladderbench-apt.log)" >&2
          exit 1
        fi
      fi
    fi
  fi
fi

# OpenBLAS's OpenMP build must be the one linked, so that its threads and ours share one pool.
if [ -e /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0 ] &&
   ! readlink -f /usr/lib/x86_64-linux-gnu/libopenblas.so.0 | grep -q openblas-openmp; then
  echo "setup: note: libopenblas.so.0 does not point at the OpenMP build; ladderbench links that build directly"
fi

# The report tools' Python packages, pinned, in a virtual environment of the project's own. Where
# the system's CMake is older than the presets need (3.25; Ubuntu 22.04 has 3.22), CMake from PyPI
# joins them, pinned too, and build.sh uses it.
venv="$PWD/.venv"
requirements=(requirements.txt)
cmake_version="$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')"
if [ -n "$cmake_version" ] && [ "$(printf '%s\n3.25\n' "$cmake_version" | sort -V | head -1)" != 3.25 ]; then
  requirements+=(requirements-cmake.txt)
  echo "setup: CMake $cmake_version is older than 3.25: the virtual environment gets CMake from PyPI"
fi
if ! [ -x "$venv/bin/python" ] || ! cat "${requirements[@]}" | cmp -s - "$venv/requirements.installed"; then
  echo "setup: creating $venv from ${requirements[*]}"
  python3 -m venv "$venv"
  for r in "${requirements[@]}"; do
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$r"; then
      echo "setup: pip could not install $r (no network to PyPI?); once it can: $venv/bin/pip install -r $r" >&2
      exit 1
    fi
  done
  cat "${requirements[@]}" >"$venv/requirements.installed"
fi
# The linters scripts/test.sh runs (clang-format, clang-tidy, ruff), pinned, into the same
# environment, only for the tests.
if $for_tests && ! cmp -s requirements-lint.txt "$venv/lint.installed"; then
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check -r requirements-lint.txt; then
    echo "setup: pip could not install requirements-lint.txt (no network to PyPI?)" >&2
    exit 1
  fi
  cp requirements-lint.txt "$venv/lint.installed"
fi
# ReFrame, pinned, for the fleet's regression test (without it that test is skipped, saying so).
if $for_tests && ! cmp -s requirements-fleet.txt "$venv/fleet.installed"; then
  if "$venv/bin/pip" install --quiet --disable-pip-version-check -r requirements-fleet.txt; then
    cp requirements-fleet.txt "$venv/fleet.installed"
  else
    echo "setup: note: pip could not install requirements-fleet.txt (no network to PyPI?); the ReFrame tests will be skipped"
  fi
fi
