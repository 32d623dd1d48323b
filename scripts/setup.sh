#!/usr/bin/env bash
# Installs the Debian packages ladderbench builds with, if any is missing. Sourced or run by
# run.sh and test.sh; needs root (or sudo) only when something must be installed.
set -euo pipefail

packages=(build-essential cmake ninja-build git pkg-config
          libbenchmark-dev libfmt-dev libgtest-dev nlohmann-json3-dev
          libdnnl-dev ocl-icd-opencl-dev libopenblas0-openmp libopenblas-openmp-dev python3 python3-venv chromium libbenchmark-tools)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "setup: missing packages (${missing[*]}) and no root or sudo to install them" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# OpenBLAS's OpenMP build must be the one linked, so that its threads and ours share one pool.
if [ -e /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0 ] &&
   ! readlink -f /usr/lib/x86_64-linux-gnu/libopenblas.so.0 | grep -q openblas-openmp; then
  echo "setup: note: libopenblas.so.0 does not point at the OpenMP build; ladderbench links that build directly"
fi

# The report tools' Python packages, pinned, in a virtual environment of the project's own.
venv="$(dirname "$0")/../.venv"
if ! [ -x "$venv/bin/python" ] || ! cmp -s "$(dirname "$0")/../requirements.txt" "$venv/requirements.installed"; then
  echo "setup: creating $venv from requirements.txt"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$(dirname "$0")/../requirements.txt"
  cp "$(dirname "$0")/../requirements.txt" "$venv/requirements.installed"
fi
