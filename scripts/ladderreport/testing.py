"""What the report's tests share: the committed result files and the ways they make bad ones."""
import json
import pathlib

import numpy as np

import report
from ladderreport import compare, runs

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _profile(path):
    try:
        return json.loads(path.read_text())["context"].get("profile")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


_RUNS = sorted(p for p in (ROOT / "results").glob("*/*.json") if p.parent.name != "specs")
# A measured machine's whole run (not one of the parts a GPU check writes, one file per group of
# suites, nor a sweep run, which measures a few rungs over n).
RESULT = [p for p in _RUNS if "-gpu-" not in p.name and _profile(p) != "sweep"][-1]
# The newest committed sweep-profile run, or None.
SWEEP = ([p for p in _RUNS if _profile(p) == "sweep"] or [None])[-1]
# The newest committed ladder-profile run, or None.
LADDER = ([p for p in _RUNS if _profile(p) == "ladder"] or [None])[-1]
GPU_PARTS = sorted((ROOT / "results").glob("*/*-gpu-*.json"))


def run(args, capsys):
    """report.py's exit status and what it printed."""
    code = report.main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def hostile_copy(tmp_path, name, edit):
    """The committed result file, with one value made bad by `edit(doc)`, in a folder of its own."""
    doc = json.loads(RESULT.read_text())
    edit(doc)
    folder = tmp_path / name
    folder.mkdir()
    path = folder / RESULT.name
    path.write_text(json.dumps(doc, allow_nan=True))
    return path


def first_gemm(doc):
    return next(b for b in doc["benchmarks"] if b["run_name"].startswith("gemm/") and "flops" in b)


def synthetic_run(path, seconds_by_case, date, sha="abc", machine="synthetic-2c"):
    """A ladderbench-shaped Google Benchmark file: every case's repetitions, in ms."""
    benchmarks = []
    for name, times in seconds_by_case.items():
        for i, t in enumerate(times):
            benchmarks.append({"name": name + "/real_time", "run_name": name + "/real_time", "run_type": "iteration",
                               "repetitions": len(times), "repetition_index": i, "iterations": 10,
                               "real_time": t * 1e3, "cpu_time": t * 1e3, "time_unit": "ms", "flops": 1e9 / t})
    doc = {"context": {"machine_id": machine, "date": date, "git_sha": sha, "profile": "full"}, "benchmarks": benchmarks}
    path.write_text(json.dumps(doc))
    return path


def shifted_pair(tmp_path, shift=0.10, noise=0.03, cases=20, repetitions=15, seed=7):
    """Two synthetic runs: every other case slower by `shift` in the second, all with `noise`."""
    rng = np.random.default_rng(seed)
    base = {f"gemm/rung{i}/f32/n:{64 * (i + 1)}": 1e-3 * (i + 1) for i in range(cases)}
    a, b, shifted = {}, {}, set()
    for i, (name, t) in enumerate(base.items()):
        factor = 1 + shift if i % 2 == 0 else 1.0
        if factor != 1:
            shifted.add(name)
        a[name] = list(t * (1 + noise * rng.standard_normal(repetitions)))
        b[name] = list(t * factor * (1 + noise * rng.standard_normal(repetitions)))
    return (synthetic_run(tmp_path / "a.json", a, "2026-12-01T00:00:00"),
            synthetic_run(tmp_path / "b.json", b, "2026-12-02T00:00:00"), shifted)


HOSTILE_EDITS = {
    "string-peak": lambda d: d["context"].update(peak_f32_flops="fast"),
    "nan-peak": lambda d: d["context"].update(peak_f32_flops="nan"),
    "numeric-date": lambda d: d["context"].update(date=20261204),
    "list-value": lambda d: d["context"].update(threads=[1, 2]),
    "nan-counter": lambda d: first_gemm(d).update(flops=float("nan"), peak_fraction=float("nan")),
    "inf-counter": lambda d: first_gemm(d).update(flops=float("inf")),
    "string-counter": lambda d: first_gemm(d).update(flops="1e9"),
    "null-counter": lambda d: first_gemm(d).update(rel_error=None),
    "bool-counter": lambda d: first_gemm(d).update(roof_fraction=True),
    "bad-op-counter": lambda d: d["benchmarks"].append({**first_gemm(d), "op/corr_gemm/seconds": "x"}),
    "slash-machine-id": lambda d: d["context"].update(machine_id="a/b"),
    "numeric-machine-id": lambda d: d["context"].update(machine_id=42),
    "null-benchmark": lambda d: d["benchmarks"].append(None),
    "numeric-run-name": lambda d: d["benchmarks"].append({"run_name": 7, "name": 7}),
    "nan-cv": lambda d: d["benchmarks"].append({**first_gemm(d), "run_type": "aggregate", "aggregate_name": "cv",
                                                "real_time": float("nan")}),
}


def ladder_machine(cases, context=None):
    """A made-up machine: cases as (rung, n, seconds, extra counters), every rung f32 on one core
    unless its context says otherwise."""
    m = report.Machine("host", "host", "cpu", True)
    m.context = {"threads": "2", "peak_f32_flops_one_core": "100e9", "peak_f32_flops": "200e9",
                 "cache_l1_data": "32768 bytes, shared by 1 cpus", "cache_l2_unified": "1048576 bytes, shared by 1 cpus",
                 "cache_l3_unified": "33554432 bytes, shared by 2 cpus",
                 "bandwidth_L2_one_core_bytes_per_second": "100e9", "bandwidth_L3_one_core_bytes_per_second": "80e9",
                 "bandwidth_DRAM_one_core_bytes_per_second": "20e9", **(context or {})}
    for rung, n, seconds, extra in cases:
        key = f"gemm/{rung}/f32/n:{n}"
        m.cases[key] = {"suite": "gemm", "rung": rung, "dtype": "f32", "size": n, "error": None, "label": "",
                        "seconds": seconds, "flops": 2.0 * n ** 3 / seconds, "bytes": 12.0 * n * n, "threads": 1,
                        **extra}
        m.order.append(key)
    return m


def verdicts(path_a, path_b):
    rows, _ = compare.compare_runs(runs.load_run(path_a), runs.load_run(path_b))
    return {r["case"]: r for r in rows}


# Run in the page after it loads: what a reader's browser made of it, left in the DOM for
# --dump-dom to print.
PAGE_CHECK = """<script>
window.addEventListener("load", () => {
  const found = {
    tables: [...document.querySelectorAll("table")].map(t => t.rows.length),
    images: [...document.images].map(i => [i.alt, i.complete && i.naturalWidth > 0]),
    links: [...document.querySelectorAll("a[href]")].map(a => a.getAttribute("href")),
  };
  const pre = document.createElement("pre");
  pre.id = "ladder-page-check";
  pre.textContent = JSON.stringify(found);
  document.body.appendChild(pre);
});
</script>"""


def browser_view(chromium, page, tmp_path):
    """{tables: rows each, images: [alt, loaded], links} as headless Chromium loaded `page`."""
    import html
    import re
    import subprocess
    copy = tmp_path / f"check-{page.parent.name}-{page.name}"
    text = page.read_text()
    copy.write_text(text.replace("</body>", PAGE_CHECK + "</body>") if "</body>" in text else text + PAGE_CHECK)
    result = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
                             "--dump-dom", copy.as_uri()], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    found = re.search(r'<pre id="ladder-page-check">(.*?)</pre>', result.stdout, re.S)
    assert found, f"{page}: the page's check never ran (a script error or no load event)\n{result.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))
