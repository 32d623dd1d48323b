#!/usr/bin/env bash
# Tries ladderbench and report.py as a hostile or careless user would and prints one Markdown
# row per input: what was tried, the exit status, and the verdict — a crash (a signal, an abort,
# an uncaught exception), a Python traceback, a good file lost or corrupted, or more than one
# line of complaint for bad input all count as failures. Exit 1 where any input failed.
#   scripts/hostile-check.sh [build-dir]      (default build/ci)
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/ci}"
[[ "$build" = /* ]] || build="$PWD/$build"
exe="$build/ladderbench"
py="$PWD/.venv/bin/python"
[ -x "$exe" ] || { echo "hostile-check: no $exe (build first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
good='{"context": {"machine_id": "earlier"}, "benchmarks": [{"name": "kept"}]}'
smoke="--profile smoke --suite gemm --rungs naive,autovec --benchmark_min_time=0.001"
count=0 failures=0

echo "| # | input | expected | exit | verdict |"
echo "|---|---|---|---|---|"

# row INPUT EXPECTED_EXIT KIND OUTPUT_FILE RC [FILE_MUST_EQUAL_GOOD]
# KIND: usage (one line, exit 2), run (any documented exit, no crash), report (no traceback)
row() {
  local input=$1 expected=$2 kind=$3 log=$4 rc=$5 keep=${6:-}
  local verdict=ok
  count=$((count + 1))
  if [ "$rc" -ge 128 ] && [ "$kind" != signal ] || grep -qE 'terminate called|Aborted|Segmentation fault|core dumped|AddressSanitizer|runtime error:' "$log"; then
    verdict="CRASH"
  elif grep -q 'Traceback' "$log"; then
    verdict="TRACEBACK"
  elif [ -n "$expected" ] && [ "$rc" != "$expected" ]; then
    verdict="exit $rc, expected $expected"
  elif [ "$kind" = usage ] && [ "$(grep -c . "$log")" != 1 ]; then
    verdict="$(grep -c . "$log") lines, expected one"
  elif [ -n "$keep" ] && [ "$(cat "$keep")" != "$good" ]; then
    verdict="GOOD FILE CHANGED"
  fi
  [ "$verdict" = ok ] || failures=$((failures + 1))
  local said
  said=$(grep -v '^\[' "$log" | grep -m1 -E 'ladderbench:|report:|setup:' | cut -c1-110 | sed 's/|/\\|/g')
  echo "| $count | \`${input//|/\\|}\` | $expected | $rc | $verdict${said:+: $said} |"
}

cli() {  # cli EXPECTED KIND ARGS...
  local expected=$1 kind=$2
  shift 2
  local log="$work/log"
  (cd "$work" && eval "$*") >"$log" 2>&1
  row "$*" "$expected" "$kind" "$log" $?
}

L="'$exe'"
cli 2 usage "$L --suite gemm,fft"
cli 2 usage "$L --rungs naive,turbo"
cli 2 usage "$L --suite stream --rungs triad,quad"
cli 2 usage "$L --sizes 0"
cli 2 usage "$L --sizes=-5"
cli 2 usage "$L --sizes 1.5"
cli 2 usage "$L --sizes 12x"
cli 2 usage "$L --sizes 64,"
cli 2 usage "$L --sizes 99999999999"
cli 2 usage "$L --sizes 200000 --rungs autovec"
cli 2 usage "$L --suite gemm --rungs autovec --sizes 16000,17000,18000,19000,20000"
cli 2 usage "$L --profile huge"
cli 2 usage "$L --turbo"
cli 2 usage "$L --sizes"
cli 2 usage "$L '--benchmark_filter=gemm/(' --sizes 8"
cli 2 usage "$L '--benchmark_filter=^nothing$' --sizes 8"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_out=/nonexistent-dir/x.json"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_out="
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_out=/proc/x.json"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_repetitions=-3"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_repetitions=0"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_repetitions=abc"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_repetitions=99999999"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_min_time=abc"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_min_time=-1"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_min_time=0"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_min_time=1e999"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_out_format=xml --benchmark_out=x.json"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_format=xml"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_bogus=1"
cli 2 usage "$L --rungs autovec --sizes 8 --benchmark_min_time"
cli 2 usage "$L --rungs autovec --sizes 8 --adaptive-budget abc"
cli 2 usage "$L --rungs autovec --sizes 8 --adaptive-budget -0.5"
cli 2 usage "$L --rungs autovec --sizes 8 --adaptive-budget 1e9"
cli 2 usage "$L --rungs autovec --sizes 8 --adaptive-budget 1 --benchmark_repetitions=3"
cli 2 usage "$L --device everything"
cli 2 usage "$L --device -1"
cli 2 usage "$L --suite model --model 4,4,10,1,3"
cli 2 usage "$L --suite model --rungs naive --model 512,512,64,1,1"
cli 2 usage "$L --suite model --model abc"
cli 2 usage "$L --suite model --model 0,0,0,0,0"
cli 2 usage "$L --suite model --model 8,8,-64,1,1"
cli 2 usage "LADDER_MAX_ISA=sse9 $L --list"
cli 2 usage "$L --cores 0"
cli 2 usage "$L --cores 99999 --plan"
cli 2 usage "$L --numa x"
cli 2 usage "$L --numa 4096 --plan"
cli 2 usage "HWLOC_XMLFILE=/nonexistent $L --plan"
cli 2 usage "echo '<junk' > junk.xml; HWLOC_XMLFILE=junk.xml $L --list"
cli 2 usage "HWLOC_SYNTHETIC='pack:2 core:2' $L --sizes 8 --rungs naive"
cli 2 usage "LADDER_TEST_CPU=/nonexistent $L --plan"
cli 2 usage "printf 'vendor: x\nbrand: y\nflags: avx9000\n' > cpu.txt; LADDER_TEST_CPU=cpu.txt $L --plan"
cli 2 usage "$L --suite ''"
cli 2 usage "$L --rungs ''"
cli 2 usage "$L --suite pcie"
cli 2 run "$L --rungs cuda-naive --sizes 8"
cli 2 usage "ulimit -v 2000000; OMP_NUM_THREADS=1 $L --suite gemm --rungs autovec --sizes 8000"
# Below about 1 GB OpenBLAS's load-time buffers used to spin forever (a KILL after 60 s is a crash here).
cli "" run "ulimit -v 1000000; timeout -s KILL 60 $L --help"
cli "" run "ulimit -v 600000; timeout -s KILL 60 $L --help"
cli 0 run "$L --sizes 1 --rungs naive,autovec,avx2 --benchmark_min_time=0.001"
cli 0 run "$L $smoke --benchmark_out_format=csv --benchmark_out=r.csv && grep -q '^name,' r.csv"
cli 0 run "$L $smoke --benchmark_out_format=console --benchmark_out=r.txt"
# Threads far past the CPUs (64 on a 2-vCPU VM stalled the probes; 100000 crashed OpenMP's runtime).
cli 2 usage "OMP_NUM_THREADS=$(( $(nproc) * 9 )) $L $smoke"
cli 2 usage "OMP_NUM_THREADS=100000 $L $smoke"
cli 0 run "OMP_NUM_THREADS=$(( $(nproc) * 4 )) $L $smoke"
cli 0 run "OMP_NUM_THREADS=abc $L $smoke"
cli 0 run "LADDER_PYTHON=/nonexistent $L --profile smoke --suite gemm --rungs python,naive --benchmark_min_time=0.001"
cli 0 run "$L --suite model --model 3,5,8,1,2 --rungs naive --benchmark_min_time=0.001"
# Repetitions of a self-timed rung whose batch of calls is measured (Google Benchmark aborted
# when two repetitions ran different iteration counts).
cli 0 run "$L --suite gemm --rungs python --sizes 7 --benchmark_repetitions=3 --benchmark_min_time=0.001"
# The program's own context is not the command line's; a time unit Google Benchmark would answer
# with its usage and exit 0.
cli 2 usage "$L --sizes 8 --rungs naive --benchmark_context=peak_f32_flops=1e20,git_sha=deadbeef"
cli 2 usage "$L --sizes 8 --rungs naive --benchmark_context=machine_id=../../evil"
cli 2 usage "$L --sizes 8 --rungs naive --benchmark_context=noise_verdict=quiet"
cli 2 usage "$L --sizes 8 --rungs naive --benchmark_time_unit=parsec"
# Results paths that are not regular files are left alone (the rename would replace them).
cli 2 usage "$L --sizes 8 --rungs naive --benchmark_out=."
cli 2 usage "mkfifo fifo.json; $L --sizes 8 --rungs naive --benchmark_out=fifo.json; s=\$?; test -p fifo.json && exit \$s"
cli 2 usage "ln -sf /proc/self/fd/1 out.json; $L --sizes 8 --rungs naive --benchmark_out=out.json; s=\$?; test -L out.json && exit \$s"
if [ "$(id -u)" -eq 0 ]; then
  cli 2 usage "mknod null.json c 1 3; $L --sizes 8 --rungs naive --benchmark_out=null.json; s=\$?; test -c null.json && exit \$s"
fi
# A cgroup v1 memory limit (cgroup v2's was read before): refused before allocating, not OOM-killed.
# Only where this run may make a v1 memory cgroup (root, a v1 hierarchy); the program alone goes
# into it (a script that moves itself in, then execs it), and the cgroup goes after.
v1=/sys/fs/cgroup/memory
if [ -w "$v1" ] && mkdir "$v1/ladderbench-hostile-$$" 2>/dev/null; then
  echo $((1 << 30)) >"$v1/ladderbench-hostile-$$/memory.limit_in_bytes"
  printf '#!/bin/sh\necho $$ >"$1/cgroup.procs" || exit 1\nshift\nexec "$@"\n' >"$work/in-cgroup" && chmod +x "$work/in-cgroup"
  cli 2 usage "timeout 120 '$work/in-cgroup' '$v1/ladderbench-hostile-$$' $L --suite gemm --rungs autovec --sizes 16000"
  rmdir "$v1/ladderbench-hostile-$$" 2>/dev/null
fi
# An interpreter that never answers (it sleeps, or waits on its input): the Python rungs are
# unavailable after their limit, never a hang.
printf '#!/bin/sh\nexec sleep 1000\n' >"$work/sleeper" && chmod +x "$work/sleeper"
cli 2 usage "LADDER_PYTHON='$work/sleeper' timeout 200 $L --suite gemm --rungs numpy --sizes 8"
printf '#!/bin/sh\nexec cat\n' >"$work/reader" && chmod +x "$work/reader"
cli 2 usage "LADDER_PYTHON='$work/reader' timeout 200 $L --suite gemm --rungs python --sizes 8"
# The PyTorch model where no Python has torch: unavailable, one line, nothing to run.
cli 2 usage "LADDER_PYTHON=/nonexistent $L --suite model --rungs torch"
cli 2 usage "LADDER_PYTHON=/bin/false $L --suite model --rungs torch-cuda"

# Files: a good file that must survive each of these.
file_case() {  # file_case EXPECTED DESCRIPTION COMMAND (COMMAND writes to $work/f/results.json)
  local expected=$1 description=$2 command=$3 log="$work/log"
  rm -rf "$work/f" && mkdir -p "$work/f" && printf '%s' "$good" >"$work/f/results.json"
  (cd "$work/f" && eval "$command") >"$log" 2>&1
  local rc=$?
  row "$description" "$expected" run "$log" "$rc" "$work/f/results.json"
  local stray
  stray=$(cd "$work/f" && ls | grep -vxE 'results.json|results.interrupted.json|results.unsaved.json' | head -3 | tr '\n' ' ')
  if [ -n "$stray" ]; then echo "| | (left behind: $stray) | | | FILES LEFT |"; failures=$((failures + 1)); fi
}
file_case 1 "ulimit -f 8 (a full disk) over a good file" "ulimit -f 8; $L $smoke --benchmark_out=results.json"
file_case 0 "--benchmark_list_tests=true over a good file" "$L $smoke --benchmark_list_tests=true --benchmark_out=results.json"
file_case 2 "--benchmark_repetitions=0 over a good file" "$L $smoke --benchmark_repetitions=0 --benchmark_out=results.json"
file_case 2 "--benchmark_bogus over a good file" "$L $smoke --benchmark_bogus=1 --benchmark_out=results.json"
file_case 2 "an unknown rung over a good file" "$L --rungs turbo --benchmark_out=results.json"

signal_case() {  # signal_case SIGNAL
  local log="$work/log"
  rm -rf "$work/f" && mkdir -p "$work/f" && printf '%s' "$good" >"$work/f/results.json"
  "$exe" --profile smoke --suite gemm --rungs naive,autovec,tiled,parallel --benchmark_min_time=0.3 \
    --benchmark_out="$work/f/results.json" >"$log" 2>&1 &
  local pid=$!
  # Two cases' rows printed: the third is being measured.
  for _ in $(seq 1 300); do [ "$(grep -c '^gemm/' "$log")" -ge 2 ] && break; sleep 0.1; done
  kill -"$1" "$pid"
  wait "$pid"
  local rc=$?
  local verdict_file="$work/f/results.json"
  if ! "$py" -c "import json,sys; d=json.load(open('$work/f/results.interrupted.json')); sys.exit(0 if d['benchmarks'] else 1)" 2>/dev/null; then
    echo "interrupted file missing or empty" >>"$log"
    echo "Traceback: (no valid interrupted file)" >>"$log"
  fi
  row "SIG$1 during a run writing over a good file" "" signal "$log" "$rc" "$verdict_file"
}
signal_case INT
signal_case TERM

# Two runs into one file at once.
rm -rf "$work/f" && mkdir -p "$work/f"
(cd "$work/f" && ("$exe" $smoke --benchmark_out=results.json >/dev/null 2>&1 & "$exe" $smoke --benchmark_out=results.json >"$work/log" 2>&1; wait))
rc=$?
"$py" -c "import json; d=json.load(open('$work/f/results.json')); assert len(d['benchmarks']) == 4" 2>>"$work/log" || echo "Traceback: corrupt" >>"$work/log"
row "two runs into one --benchmark_out at once" 0 run "$work/log" "$rc"

# A busy machine (item 14): a spinning process per CPU while a run measures; the run must say so.
rm -rf "$work/f" && mkdir -p "$work/f"
spinners=()
for _ in $(seq "$(nproc)"); do (while :; do :; done) & spinners+=($!); done
"$exe" $smoke --benchmark_out="$work/f/results.json" >"$work/log" 2>&1
rc=$?
kill "${spinners[@]}" 2>/dev/null
wait "${spinners[@]}" 2>/dev/null
"$py" -c "import json,sys; d=json.load(open('$work/f/results.json')); sys.exit(d['context']['noise_verdict'] != 'noisy')" 2>>"$work/log" ||
  echo "Traceback: the busy run was not marked noisy" >>"$work/log"
grep -q "This machine was not quiet" "$work/log" || echo "Traceback: no console warning" >>"$work/log"
row "a spinning process per CPU during the run" 0 run "$work/log" "$rc"

# report.py on hostile files: each must be one line per bad value, never a traceback.
if [ -x "$py" ]; then
  newest=$(ls results/*/*.json | grep -v -e specs -e -gpu- | sort | tail -1)
  report_case() {  # report_case DESCRIPTION PYTHON_EDIT [COMMAND]
    local description=$1 edit=$2 command=${3:-tables} log="$work/log"
    rm -rf "$work/r" && mkdir -p "$work/r/in"
    "$py" - "$newest" "$work/r/in/x.json" <<EOF
import json, sys
d = json.load(open(sys.argv[1]))
g = next(b for b in d["benchmarks"] if b["run_name"].startswith("gemm/") and "flops" in b)
$edit
open(sys.argv[2], "w").write(json.dumps(d) if not isinstance(d, str) else d)
EOF
    (cd "$work/r" && "$py" "$OLDPWD/scripts/report.py" $command "$work/r/in" --out "$work/r/out" $( [ "$command" = tables ] && echo --no-plots )) >"$log" 2>&1
    row "report.py $command: $description" "" report "$log" $?
    if [ -n "$(find "$work" -name ladder.md -not -path "$work/r/out*" 2>/dev/null)" ] || [ -e "$work/escaped" ]; then
      echo "| | written outside its folder | | | ESCAPED |"; failures=$((failures + 1))
    fi
  }
  report_case "a string peak" 'd["context"]["peak_f32_flops"] = "fast"'
  report_case "a NaN peak" 'd["context"]["peak_f32_flops"] = "nan"'
  report_case "a numeric date" 'd["context"]["date"] = 20261204'
  report_case "a list as threads" 'd["context"]["threads"] = [1, 2]'
  report_case "a NaN counter" 'g["flops"] = float("nan")'
  report_case "an infinite counter" 'g["flops"] = float("inf")'
  report_case "a string counter" 'g["flops"] = "1e9"'
  report_case "a null counter" 'g["rel_error"] = None'
  report_case "a boolean counter" 'g["roof_fraction"] = True'
  report_case "a bad op counter" 'd["benchmarks"].append({**g, "op/corr_gemm/seconds": "x"})'
  report_case "a null benchmark" 'd["benchmarks"].append(None)'
  report_case "a numeric run_name" 'd["benchmarks"].append({"run_name": 7})'
  report_case "a NaN cv aggregate" 'd["benchmarks"].append({**g, "run_type": "aggregate", "aggregate_name": "cv", "real_time": float("nan")})'
  report_case "machine_id with a slash" 'd["context"]["machine_id"] = "a/b"'
  report_case "a numeric machine_id" 'd["context"]["machine_id"] = 42'
  report_case "machine_id ../../../escaped" 'd["context"]["machine_id"] = "../../../escaped"' ladder
  report_case "an absolute machine_id" "d['context']['machine_id'] = '$work/escaped'" ladder
  report_case "machine_id .." 'd["context"]["machine_id"] = ".."' ladder
  report_case "a truncated file" 'd = json.dumps(d)[:5000]'
  report_case "an empty file" 'd = ""'
  report_case "a JSON array" 'd = "[1, 2, 3]"'
  report_case "a context that is a list" 'd["context"] = []'
  report_case "no benchmarks key" 'del d["benchmarks"]'
  report_case "a string as benchmarks" 'd["benchmarks"] = "none"'
  report_case "a huge integer peak" 'd["context"]["peak_f32_flops"] = 10**400'
  report_case "5000 nested lists" 'import sys; sys.setrecursionlimit(100000); x = 1
for _ in range(5000): x = [x]
d["benchmarks"].append({"run_name": "gemm/x/f32/n:8", "deep": x})'
  report_case "rates that overflow a sum" 'for b in d["benchmarks"]: b.update(flops=1.7e308, real_time=1.7e308)'
  report_case "a huge integer peak" 'd["context"]["peak_f32_flops"] = 10**400' ladder
  report_case "no time units" 'for b in d["benchmarks"]: b.pop("time_unit", None)' "compare $newest"
  # A FIFO named like a result in the folder: read, it would never return.
  rm -rf "$work/r" && mkdir -p "$work/r/in" && cp "$newest" "$work/r/in/x.json" && mkfifo "$work/r/in/pipe.json"
  for command in tables db; do
    out="$work/r/out"; [ "$command" = db ] && out="$work/r/out.sqlite"
    (cd "$work/r" && timeout 120 "$py" "$OLDPWD/scripts/report.py" $command "$work/r/in" --out "$out" $( [ "$command" = tables ] && echo --no-plots )) >"$work/log" 2>&1
    row "report.py $command: a FIFO named pipe.json in the folder" "" report "$work/log" $?
  done
  (cd "$work" && "$py" "$OLDPWD/scripts/report.py" tables /nonexistent --out "$work/o" --no-plots) >"$work/log" 2>&1
  row "report.py tables /nonexistent" "" report "$work/log" $?
  printf x >"$work/blocker"
  (cd "$work" && "$py" "$OLDPWD/scripts/report.py" tables "$newest" --out "$work/blocker/t" --no-plots) >"$work/log" 2>&1
  row "report.py tables --out under a file" 1 report "$work/log" $?
  (cd "$work" && "$py" "$OLDPWD/scripts/report.py" explain nosuch nvidia-t4) >"$work/log" 2>&1
  row "report.py explain nosuch nvidia-t4" 2 report "$work/log" $?
  for bad in "--m -5" "--m 0" "--gap nan" "--gap -1"; do
    (cd "$work" && "$py" "$OLDPWD/scripts/report.py" explain nvidia-t4 nvidia-a100-40gb $bad) >"$work/log" 2>&1
    row "report.py explain $bad" 2 report "$work/log" $?
  done
fi

echo
echo "hostile-check: $count inputs, $failures failed (crash, traceback, lost or corrupted file, wrong exit)"
[ "$failures" -eq 0 ]
