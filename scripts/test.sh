#!/usr/bin/env bash
# Installs what is missing, builds the ci preset (all dependencies required) and runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh ci
ctest --preset ci -j "$(nproc)" "$@"
