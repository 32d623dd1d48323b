#!/usr/bin/env bash
# The habits, checked (scripts/test.sh runs this): clang-format over all the C++, ruff over the
# Python, and clang-tidy, each from the pinned versions in requirements-lint.txt that setup.sh
# --for-tests installs. clang-tidy takes the program's own layers (app/, roofs/, suites/*.cpp)
# and every C++ source the last commit changed; --all takes every C++ source of the tree (a few
# minutes on two cores: the weekly-style full run).
#   scripts/lint.sh [--all] [BUILD_DIR]   (BUILD_DIR holds compile_commands.json; default build/ci)
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
if [ "${1:-}" = --all ]; then all=1; shift; fi
build=${1:-build/ci}
bin=.venv/bin
for tool in clang-format clang-tidy ruff; do
  [ -x "$bin/$tool" ] || { echo "lint: $bin/$tool is missing (run scripts/setup.sh --for-tests)" >&2; exit 1; }
done
mapfile -t cpp < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h' | grep -v '^third_party/')
"$bin/clang-format" --dry-run --Werror "${cpp[@]}" ||
  { echo "lint: clang-format would change the lines above (.venv/bin/clang-format -i FILE fixes them)" >&2; exit 1; }
"$bin/ruff" check --quiet . || { echo "lint: ruff found the problems above" >&2; exit 1; }
# The C++ sources clang-tidy reads. Left out: CUDA sources (nvcc's dialect), and
# register_cuda.cpp, whose OpenMP loop captures a structured binding, valid C++20 that clang
# cannot yet compile.
if [ "$all" = 1 ]; then
  mapfile -t tidy < <(git ls-files '*.cpp' | grep -v -e '^third_party/' -e '^backends/cuda/register_cuda.cpp$')
else
  changed=()
  if git rev-parse -q --verify HEAD~1 >/dev/null; then
    mapfile -t changed < <(git diff --name-only --diff-filter=d HEAD~1 HEAD -- '*.cpp' | grep -v '^backends/cuda/register_cuda.cpp$' || true)
  fi
  mapfile -t tidy < <(printf '%s\n' app/*.cpp roofs/*.cpp suites/*.cpp "${changed[@]}" | sort -u)
fi
# clang-tidy parses with its own compiler: GCC's omp.h comes after clang's headers, and the one
# attribute form of it that clang does not read is spelled the way clang does; GCC's own pragmas
# and warning options, and libstdc++'s deprecations inside its own headers, are not findings.
gcc_include=$(gcc -print-file-name=include)
printf '%s\n' "${tidy[@]}" |
  xargs -P "$(nproc)" -n 2 "$bin/clang-tidy" -p "$build" --quiet --extra-arg="-idirafter$gcc_include" \
    --extra-arg='-D__malloc__(x)=__malloc__' --extra-arg=-Wno-unknown-pragmas --extra-arg=-Wno-unknown-warning-option \
    --extra-arg=-Wno-deprecated-declarations 2>/dev/null ||
  { echo "lint: clang-tidy found the problems above (in ${#tidy[@]} files)" >&2; exit 1; }
echo "lint: clang-format, ruff and clang-tidy (${#tidy[@]} files) found nothing"
