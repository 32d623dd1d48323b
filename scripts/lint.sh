#!/usr/bin/env bash
# The habits, checked (scripts/test.sh runs this): clang-format over all the C++, ruff over the
# Python, clang-tidy over the program's own layers (app/, roofs/, the suite registry), each from
# the pinned versions in requirements-lint.txt that setup.sh --for-tests installs.
#   scripts/lint.sh [BUILD_DIR]   (BUILD_DIR holds compile_commands.json; default build/ci)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
bin=.venv/bin
for tool in clang-format clang-tidy ruff; do
  [ -x "$bin/$tool" ] || { echo "lint: $bin/$tool is missing (run scripts/setup.sh --for-tests)" >&2; exit 1; }
done
mapfile -t cpp < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h' | grep -v '^third_party/')
"$bin/clang-format" --dry-run --Werror "${cpp[@]}" ||
  { echo "lint: clang-format would change the lines above (.venv/bin/clang-format -i FILE fixes them)" >&2; exit 1; }
"$bin/ruff" check --quiet . || { echo "lint: ruff found the problems above" >&2; exit 1; }
# clang-tidy parses with its own compiler: GCC's omp.h comes after clang's headers, and the one
# attribute form of it that clang does not read is spelled the way clang does.
gcc_include=$(gcc -print-file-name=include)
printf '%s\n' app/*.cpp roofs/*.cpp suites/suite.cpp suites/suites.cpp |
  xargs -P "$(nproc)" -n 2 "$bin/clang-tidy" -p "$build" --quiet --extra-arg="-idirafter$gcc_include" \
    --extra-arg='-D__malloc__(x)=__malloc__' 2>/dev/null ||
  { echo "lint: clang-tidy found the problems above" >&2; exit 1; }
echo "lint: clang-format, ruff and clang-tidy found nothing"
