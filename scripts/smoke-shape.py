#!/usr/bin/env python3
"""The shape of a smoke run: its case names and each case's counter keys.

    smoke-shape.py write LADDERBENCH GOLDEN   record the shape of this build's smoke run
    smoke-shape.py check LADDERBENCH GOLDEN   exit 1 where this build's smoke run differs

A restructuring of the program must leave the results the report tools read as they were; this
records them once and checks them after. A machine differs from the one that wrote GOLDEN in what
it can run (no AVX-512, no OpenBLAS, a GPU), so a case is allowed to be missing where its rung is
unavailable here, and to be new where its rung was unavailable there. Standard library only: it
runs before the virtual environment exists.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# Google Benchmark's own fields of a benchmark entry; every other key is a counter.
STANDARD_FIELDS = {
    "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "label",
    "error_occurred", "error_message", "aggregate_name", "aggregate_unit", "bytes_per_second",
    "items_per_second", "skipped", "skip_message",
}


def unavailable_rungs(ladderbench):
    """Rung names that --list calls unavailable ('suite/rung ...' or 'suite/{a,b} ...' lines)."""
    listing = subprocess.run([ladderbench, "--list"], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in listing.splitlines():
        if "unavailable" not in line or not line.strip() or line.startswith(" "):
            continue
        path = line.split()[0]
        rung_part = path.split("/", 1)[1] if "/" in path else path
        names.update(re.sub(r"[{}]", "", rung_part).split(","))
    return sorted(names)


def smoke_shape(ladderbench):
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "smoke.json")
        run = subprocess.run([ladderbench, "--profile", "smoke", "--benchmark_min_time=0.001",
                              f"--benchmark_out={out}"], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"smoke-shape: the smoke run failed (exit {run.returncode}):\n{run.stderr[-3000:]}")
        with open(out) as f:
            doc = json.load(f)
    axes = json.loads(doc["context"].get("case_axes", "{}"))  # every case's axes, as the program states them
    cases, rungs = {}, {}
    for entry in doc["benchmarks"]:
        name = re.sub(r"/(real|manual)_time$", "", entry["run_name"])
        cases[name] = sorted(k for k in entry if k not in STANDARD_FIELDS)
        if name not in axes:
            sys.exit(f"smoke-shape: the run's case_axes does not list {name}")
        rungs[name] = axes[name]["rung"]
    return cases, rungs


def main(argv):
    if len(argv) != 4 or argv[1] not in ("write", "check"):
        sys.exit(__doc__.strip())
    mode, ladderbench, golden_path = argv[1:]
    cases, rungs = smoke_shape(ladderbench)
    unavailable = unavailable_rungs(ladderbench)
    if mode == "write":
        # One case a line, so that a change to the shape reads as a short diff.
        lines = [f" {json.dumps(name)}: {json.dumps(keys)}" for name, keys in sorted(cases.items())]
        with open(golden_path, "w") as f:
            f.write('{"unavailable_rungs": %s,\n"case_rungs": %s,\n"cases": {\n%s\n}}\n'
                    % (json.dumps(unavailable), json.dumps(dict(sorted(rungs.items()))), ",\n".join(lines)))
        print(f"smoke-shape: {len(cases)} cases written to {golden_path}")
        return 0
    with open(golden_path) as f:
        golden = json.load(f)
    problems = []
    for name, keys in sorted(golden["cases"].items()):
        if name not in cases:
            if golden["case_rungs"].get(name) not in unavailable:
                problems.append(f"missing: {name}")
        elif cases[name] != keys:
            added = sorted(set(cases[name]) - set(keys))
            lost = sorted(set(keys) - set(cases[name]))
            problems.append(f"counters of {name} differ: added {added}, lost {lost}")
    for name in sorted(set(cases) - set(golden["cases"])):
        if rungs[name] not in golden["unavailable_rungs"]:
            problems.append(f"new: {name}")
    for problem in problems:
        print(f"smoke-shape: {problem}", file=sys.stderr)
    if problems:
        print(f"smoke-shape: the smoke run differs from {golden_path} in {len(problems)} places", file=sys.stderr)
        return 1
    print(f"smoke-shape: {len(cases)} cases, each with the counters of {golden_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
