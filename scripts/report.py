#!/usr/bin/env python3
"""ladderbench's report tools: turn results/ into tables, plots, explanations and the ladder report.

  report.py tables  [PATHS...]        Markdown, CSV and one self-contained HTML page
  report.py plot    [PATHS...]        PNG and SVG figures
  report.py explain A B [--m M ...]   how much of a speed gap between two machines the hardware explains
  report.py ladder  [PATH]            results/<machine-id>/ladder.md: each rung's predicted and measured factor
  report.py compare A B               two runs: ratio of medians, 95% interval, verdict per case (exit 1: slower)
  report.py history MACHINE           chosen cases against commit and date, from every run of the machine
  report.py db [PATHS...]             every result into one SQLite file (report.py db --schema)

PATHS are result files (Google Benchmark JSON written by ladderbench), machine folders under
results/, or spec sheets under results/specs/; the default is all of results/. Files that cannot be
read, or that are not ladderbench results, are named on stderr and skipped.
"""
import argparse
import base64
import csv
import html
import io
import math
import pathlib
import re
import sys

# One definition each of a usable number, a safe folder name, and how a file is read.
from ladderreport.runs import finite as finite_number, read_json, read_result_doc, safe_slug, warn

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
LADDER_SIZE = 1024  # the GEMM ladder's size, as in ladderbench
# A case whose repetitions' coefficient of variation exceeds this is marked noisy in the tables.
NOISY_CV = 0.10
NAME = re.compile(r"^(?P<suite>[^/]+)/(?P<rung>[^/]+)/(?P<dtype>[^/]+)/(?P<key>[a-z_]+):(?P<size>\d+)")


# --- machines: measured (result files) and specified (spec sheets) ---------------------------------


class Machine:
    """One column of a table: a measured machine (its newest result file) or a spec sheet."""

    def __init__(self, ident, name, kind, measured):
        self.id, self.name, self.kind, self.measured = ident, name, kind, measured
        self.context = {}
        self.cases = {}  # "suite/rung/dtype/key:size" → {"suite", "rung", "dtype", "size", "flops", ...}
        self.order = []  # case names in the order the program ran them (registry order)
        self.spec = None
        self.source = None

    # Ceilings, from the context of a run or from a spec sheet.
    def peak(self, dtype, unit="best"):
        if self.spec:
            flops = self.spec.get("peak_flops", {})
            units = ["vector", "matrix"] if unit == "best" else [unit]
            values = [flops.get(u, {}).get(dtype) for u in units]
            values = [v for v in values if v]
            return max(values) if values else None
        value = self.context.get(f"peak_{dtype}_flops")
        return float(value) if value else None

    def bandwidth(self):
        if self.spec:
            return self.spec.get("memory", {}).get("bandwidth_bytes_per_second")
        # The program's own main-memory roof; older files: the best of what they measured, as it was then.
        if "bandwidth_main_memory_roof_bytes_per_second" in self.context:
            return float(self.context["bandwidth_main_memory_roof_bytes_per_second"])
        values = [float(self.context[key]) for key in ("bandwidth_DRAM_all_cores_bytes_per_second",
                                                       "bandwidth_stream_triad_bytes_per_second") if key in self.context]
        return max(values) if values else None

    def capacity(self):
        if self.spec:
            return self.spec.get("memory", {}).get("capacity_bytes")
        value = self.context.get("memory_total_bytes")
        return float(value) if value else None

    def gemm_at(self, rung, ladder_size=LADDER_SIZE):
        """The rung's GEMM case at the ladder size, else the largest size below it, else the smallest."""
        sizes = sorted(c["size"] for c in self.cases.values() if c["suite"] == "gemm" and c["rung"] == rung)
        if not sizes:
            return None
        below = [s for s in sizes if s <= ladder_size]
        size = below[-1] if below else sizes[0]
        return next(c for c in self.cases.values() if c["suite"] == "gemm" and c["rung"] == rung and c["size"] == size)


# Context keys the report reads as numbers; a value that is not a finite number is dropped.
NUMERIC_CONTEXT = re.compile(r"(_flops|_seconds|_bytes|_bytes_per_second)$|^threads$|^cpu_logical_cores$|^peak_probe/")
# Context keys the report reads as text (and puts in titles and file names).
TEXT_CONTEXT = ("date", "git_sha", "cpu_model", "gpu_name", "ladder_order")


def clean_context(path, context):
    """The context with every value the report reads checked: strings stay strings, the numeric
    keys hold finite numbers; a bad value is dropped with one line naming file and key."""
    clean = {}
    for key, value in context.items():
        key = str(key)
        if isinstance(value, (dict, list)) and not NUMERIC_CONTEXT.search(key) and key not in TEXT_CONTEXT:
            clean[key] = value  # Google Benchmark's own structured keys (caches, load_avg)
            continue
        if value is None or isinstance(value, (dict, list)):
            warn(f"{path}: context key '{key}' is not a plain value; ignored")
            continue
        if NUMERIC_CONTEXT.search(key):
            number = finite_number(value)
            if number is None or number < 0:
                warn(f"{path}: context key '{key}' is {value!r}, not a finite number; ignored")
                continue
            clean[key] = str(value)
        elif key in TEXT_CONTEXT and not isinstance(value, str):
            warn(f"{path}: context key '{key}' is {value!r}, not text; ignored")
        else:
            clean[key] = value if isinstance(value, str) else str(value)
    return clean


def load_result_file(path):
    doc = read_result_doc(path)
    if doc is None:
        return None
    context = clean_context(path, doc["context"])
    if "machine_id" not in context:
        warn(f"skipping {path}: a Google Benchmark file, but not from ladderbench (no machine_id in its context)")
        return None
    if safe_slug(context["machine_id"]) != context["machine_id"]:
        slug = safe_slug(context["machine_id"])
        if not slug:
            warn(f"skipping {path}: its machine_id {context['machine_id']!r} has nothing usable as a folder name")
            return None
        warn(f"{path}: machine_id {context['machine_id']!r} is not a safe folder name; read as '{slug}'")
        context["machine_id"] = slug
    name = str(context.get("cpu_model", context["machine_id"]))
    if context.get("gpu_name"):  # its GPU rungs ran on that device: the column names both
        name += f" + {context['gpu_name']}"
    m = Machine(str(context["machine_id"]), name, "cpu", True)
    m.context = {k: v for k, v in context.items()}
    m.source = str(path)
    cvs = {}
    regime_names = regime_codes(m.context)
    for b in doc["benchmarks"]:
        if not isinstance(b, dict) or "run_name" not in b:
            continue
        aggregate = b.get("aggregate_name")
        match = NAME.match(str(b["run_name"]))
        if not match:
            continue
        key = match.group(0)
        if b.get("run_type") == "aggregate" and aggregate == "cv":
            cv = finite_number(b.get("real_time"))  # the repetitions' coefficient of variation, a fraction
            if cv is not None:
                cvs[key] = cv
        if b.get("run_type") == "aggregate" and aggregate != "median":
            continue
        if key in m.cases and not aggregate:  # a repetition: keep the first unless a median comes
            continue
        case = {
            "suite": match["suite"], "rung": match["rung"], "dtype": match["dtype"], "size": int(match["size"]),
            "error": b.get("error_message") if b.get("error_occurred") else None,
            "label": str(b.get("label", "")),
        }
        for counter in ("flops", "bytes_per_second", "peak_fraction", "roof_fraction", "intensity", "seconds_per_op",
                        "threads", "bytes", "memory_bytes", "rel_error", "cv"):
            if counter in b and not isinstance(b[counter], str):
                number = finite_number(b[counter])
                if number is None:
                    warn(f"{path}: {key}'s {counter} is {b[counter]!r}, not a finite number; ignored")
                else:
                    case[counter] = number
        ops = {}
        for counter, value in b.items():
            if str(counter).startswith("op/") and str(counter).count("/") >= 2:
                number = finite_number(value)
                if number is None:
                    warn(f"{path}: {key}'s {counter} is {value!r}, not a finite number; ignored")
                    continue
                _, op, what = str(counter).split("/", 2)
                ops.setdefault(op, {})[what] = number
        if ops:  # a model case: its configuration and the time of a pass (its operations' median seconds)
            case["ops"] = ops
            config = re.match(r"config (.+?) \(", case["label"])
            case["config"] = config.group(1) if config else None
            case["pass_seconds"] = sum(o.get("seconds", 0) for o in ops.values())
        case["regime"] = regime_of(b, case["label"], regime_names)
        if key not in m.cases:
            m.order.append(key)
        m.cases[key] = case
    for key, cv in cvs.items():
        if key in m.cases:
            m.cases[key]["cv"] = cv
            m.cases[key]["noisy"] = cv > NOISY_CV
    sort_in_ladder_order(m)
    return m


def regime_codes(context):
    """{code: name} from the context's regime_codes ("0 compute, 1 memory, 2 overhead"), or {}."""
    codes = {}
    for entry in str(context.get("regime_codes", "")).split(","):
        code, _, name = entry.strip().partition(" ")
        if code.isdigit() and name:
            codes[int(code)] = name
    return codes


def regime_of(benchmark, label, names):
    """The case's regime: its `regime` counter, named by the context; files written before the
    counter existed say it only in the label ("compute-bound")."""
    code = finite_number(benchmark.get("regime"))
    if code is not None and names:
        return names.get(round(code))
    found = re.search(r"(compute|memory|overhead)-bound", label)
    return found.group(1) if found else None


def sort_in_ladder_order(m):
    """The program may interleave cases at random; the ladder's order is the registry's, which the
    context states as ladder_order (files without it keep the order they were written in)."""
    rung_rank = {name: i for i, name in enumerate(str(m.context.get("ladder_order", "")).split(",")) if name}
    if rung_rank:
        m.order.sort(key=lambda key: (m.cases[key]["suite"], rung_rank.get(m.cases[key]["rung"], len(rung_rank)),
                                      m.cases[key]["size"]))


def parts_of_one_run(a, b):
    """Two files of one machine at one commit with no case in common are parts of one run
    (scripts/gpu-check.sh writes one file per group of suites); a repeated run overlaps."""
    sha = a.context.get("git_sha")
    return sha and sha == b.context.get("git_sha") and not set(a.cases) & set(b.cases)


def merge_parts(older, newer):
    """One machine column from the parts of a run: every case, the newer part's context on top."""
    m = Machine(newer.id, newer.name, newer.kind, True)
    m.context = {**older.context, **newer.context}
    m.cases = {**older.cases, **newer.cases}
    m.order = older.order + newer.order
    m.source = f"{older.source} + {newer.source}"
    sort_in_ladder_order(m)
    return m


def load_spec(path):
    spec = read_json(path)
    if spec is None:
        return None
    if not isinstance(spec, dict) or "id" not in spec or "peak_flops" not in spec:
        warn(f"skipping {path}: not a spec sheet (needs id and peak_flops)")
        return None
    m = Machine(spec["id"], spec.get("name", spec["id"]), spec.get("kind", "cpu"), False)
    m.spec = spec
    m.source = str(path)
    return m


def load_machines(paths):
    """Measured machines (newest run per machine, its parts merged) and spec sheets, from files and folders."""
    files = []
    for p in [pathlib.Path(p) for p in (paths or [RESULTS])]:
        if p.is_dir():
            files += sorted(q for q in p.rglob("*.json"))
        elif p.exists():
            files.append(p)
        else:
            warn(f"skipping {p}: no such file or folder")
    measured, specs = {}, {}
    for f in files:
        if f.parent.name == "specs":
            m = load_spec(f)
            if m:
                specs[m.id] = m
            continue
        m = load_result_file(f)
        if not m:
            continue
        held = measured.get(m.id)
        newer = held is None or m.context.get("date", "") >= held.context.get("date", "")
        if held is not None and parts_of_one_run(held, m):
            measured[m.id] = merge_parts(held, m) if newer else merge_parts(m, held)
        elif newer:
            measured[m.id] = m
    # Two machines whose CPUs say the same name (a VM's "AMD EPYC" on Zen 3 and on Zen 4) are told
    # apart by their ids in the column titles.
    names = [m.name for m in measured.values()]
    for m in measured.values():
        if names.count(m.name) > 1:
            m.name = f"{m.name} ({m.id})"
    # A spec sheet of a measured machine (its theoretical figures) is kept apart from its column.
    return list(measured.values()), [s for s in specs.values() if s.spec.get("measured_machine") not in measured]


# --- prediction: the roofline of a spec sheet -------------------------------------------------------

GPU_RUNG = re.compile(r"^(cuda|cublas)")
INPUT_BYTES = {"f32": 4, "tf32": 4, "f64": 8, "f16": 2, "bf16": 2}


def overhead_floor(measured, kind):
    """The smallest measured fixed cost of a call on this kind of device, if any run measured it."""
    key = "gpu_overhead_launch_seconds" if kind == "gpu" else "overhead_omp_fork_join_seconds"
    values = [float(m.context[key]) for m in measured if key in m.context]
    return min(values) if values else 0.0


def gemm_bound(flops, bytes_, peak, bandwidth, floor):
    """Seconds: the largest of the three lower bounds (compute, memory, fixed cost)."""
    return max(flops / peak if peak else 0, bytes_ / bandwidth if bandwidth else 0, floor)


def predict_gemm(spec, rung, dtype, n, floor):
    """FLOP/s a spec'd machine should reach on rung's GEMM at n: min(peak, bandwidth x intensity), floored."""
    if (spec.kind == "gpu") != bool(GPU_RUNG.match(rung)):
        return None
    unit = "vector" if dtype in ("f32", "f64") and rung in ("cublas", "cuda-regtile", "cuda-tiled", "cuda-naive") else "best"
    peak = spec.peak(dtype, unit) or (spec.peak("f32", "best") if dtype == "tf32" and spec.kind == "cpu" else None)
    bandwidth = spec.bandwidth()
    if not peak:
        return None
    flops = 2.0 * n ** 3
    bytes_ = n * n * (2 * INPUT_BYTES.get(dtype, 4) + 4)
    return flops / gemm_bound(flops, bytes_, peak, bandwidth, floor)


def predict_stream(spec, rung):
    if (spec.kind == "gpu") != rung.startswith("device-"):
        return None
    return spec.bandwidth()


# --- tables ---------------------------------------------------------------------------------------


def fmt_rate(value, unit):
    if value is None:
        return ""
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def build_tables(measured, specs):
    """{workload: (rows, columns, cells)}; a cell: {"text", "predicted", "value"}."""
    tables = {}
    machines = measured + specs
    columns = [f"{m.name}" + ("" if m.measured else " (spec)") for m in machines]

    # GEMM: the ladder, at the ladder size (or each rung's cap).
    rungs = []
    for m in measured:
        for key in m.order:
            c = m.cases[key]
            if c["suite"] == "gemm" and c["rung"] not in [r for r, _ in rungs]:
                rungs.append((c["rung"], c["dtype"]))
    floors = {kind: overhead_floor(measured, kind) for kind in ("cpu", "gpu")}
    # A spec sheet predicts what tuned code reaches, so only the library and matrix-unit rungs.
    mechanisms = {}
    for m in measured:
        for key, value in m.context.items():
            if key.startswith("rung/"):
                mechanisms[key[5:]] = str(value).partition(": ")[0]
    predictable = {r for r, mech in mechanisms.items() if mech in ("tuned library", "matrix units")} or \
        {"openblas", "onednn", "onednn-bf16", "cublas", "cublas-tf32", "cublas-f16", "cublas-bf16"}
    cells = []
    for rung, dtype in rungs:
        row = []
        for m in machines:
            if m.measured:
                c = m.gemm_at(rung)
                if not c or c.get("error") or "flops" not in c:
                    row.append({"text": "failed" if c and c.get("error") else "", "predicted": False, "value": None})
                    continue
                pct = f" · {100 * c['peak_fraction']:.0f}% of peak" if c.get("peak_fraction") else ""
                noisy = f" · noisy (CV {100 * c['cv']:.0f}%)" if c.get("noisy") else ""
                row.append({"text": f"{fmt_rate(c['flops'], 'FLOP/s')}{pct} (n={c['size']}){noisy}", "predicted": False,
                            "value": c["flops"]})
            else:
                value = predict_gemm(m, rung, dtype, LADDER_SIZE, floors[m.kind]) if rung in predictable else None
                row.append({"text": f"≈ {fmt_rate(value, 'FLOP/s')} predicted (n={LADDER_SIZE})" if value else "",
                            "predicted": True, "value": value})
        cells.append(row)
    # Speedup over the rung below, per machine column.
    for j in range(len(machines)):
        previous = None
        for i in range(len(rungs)):
            value = cells[i][j]["value"]
            if value and previous and not cells[i][j]["predicted"]:
                cells[i][j]["text"] += f" · {value / previous:.2f}x the rung above"
            previous = value or previous
    tables["gemm"] = ([f"{r} ({d})" for r, d in rungs], columns, cells)

    # Across machines: the best GEMM per number format, measured (any rung, any n) or predicted
    # for a large problem (n = 8192) through the roofline.
    formats, cells = ("f32", "tf32", "f16", "bf16"), []
    for dtype in formats:
        row = []
        for m in machines:
            if m.measured:
                best = max((c for c in m.cases.values() if c["suite"] == "gemm" and c["dtype"] == dtype and c.get("flops")),
                           key=lambda c: c["flops"], default=None)
                row.append({"text": f"{fmt_rate(best['flops'], 'FLOP/s')} ({best['rung']}, n={best['size']})" if best else "",
                            "predicted": False, "value": best["flops"] if best else None})
            else:
                libraries = ({"f32": "cublas", "tf32": "cublas-tf32", "f16": "cublas-f16", "bf16": "cublas-bf16"}
                             if m.kind == "gpu" else {"f32": "openblas", "bf16": "onednn-bf16", "f16": "onednn-f16"})
                rung = libraries[dtype] if dtype != "tf32" or m.kind == "gpu" else None
                value = predict_gemm(m, rung, dtype, 8192, floors[m.kind]) if rung else None
                row.append({"text": f"≈ {fmt_rate(value, 'FLOP/s')} predicted" if value else "",
                            "predicted": True, "value": value})
        cells.append(row)
    tables["gemm: the best per number format"] = (list(formats), columns, cells)

    # STREAM: every kernel, f64 (device kernels in f32).
    kernels = []
    for m in measured:
        for key in m.order:
            c = m.cases[key]
            if (c["suite"] == "stream" and (c["rung"], c["dtype"]) not in kernels
                    and (c["dtype"] == "f64" or c["rung"].startswith("device-"))):
                kernels.append((c["rung"], c["dtype"]))
    cells = []
    for rung, dtype in kernels:
        row = []
        for m in machines:
            if m.measured:
                c = next((c for c in m.cases.values()
                          if c["suite"] == "stream" and c["rung"] == rung and c["dtype"] == dtype), None)
                value = c.get("bytes_per_second") if c and not c.get("error") else None
                noisy = f" · noisy (CV {100 * c['cv']:.0f}%)" if value and c.get("noisy") else ""
                row.append({"text": fmt_rate(value, "B/s") + noisy, "predicted": False, "value": value})
            else:
                value = predict_stream(m, rung)
                row.append({"text": f"≈ {fmt_rate(value, 'B/s')} predicted (datasheet)" if value else "", "predicted": True,
                            "value": value})
        cells.append(row)
    tables["stream"] = ([f"{r} ({d})" for r, d in kernels], columns, cells)

    # The model: each backend's time a pass, per configuration; and on every machine the pass's
    # f32 lower bound through that machine's roofline (each operation's FLOPs and bytes, from the
    # result file that ran it).
    configs, rows, cells = {}, [], []
    for m in measured:
        for key in m.order:
            c = m.cases[key]
            if c["suite"] != "model" or not c.get("ops"):
                continue
            configs.setdefault(c["config"], c)
            if (c["rung"], c["dtype"], c["config"]) not in rows:
                rows.append((c["rung"], c["dtype"], c["config"]))
    for rung, _dtype, config in rows:
        row = []
        for m in machines:
            c = next((c for c in m.cases.values() if c["suite"] == "model" and c["rung"] == rung and c.get("ops")
                      and c["config"] == config), None) if m.measured else None
            if c and not c.get("error"):
                seconds = c["pass_seconds"]
                row.append({"text": f"{seconds * 1e3:.3g} ms a pass · {fmt_rate(c.get('flops'), 'FLOP/s')}", "predicted": False,
                            "value": seconds})
            else:
                row.append({"text": "", "predicted": not m.measured, "value": None})
        cells.append(row)
    labels = [f"{r} ({d}), {cfg}" for r, d, cfg in rows]
    for config, c in configs.items():
        row = []
        for m in machines:
            peak, bandwidth = m.peak("f32", "vector") or m.peak("f32"), m.bandwidth()
            bound = sum(gemm_bound(o.get("flop_count", 0), o.get("byte_count", 0), peak, bandwidth, 0)
                        for o in c["ops"].values()) if peak and bandwidth else None
            row.append({"text": f"≈ {bound * 1e3:.3g} ms (f32 roofline bound, no per-call costs)" if bound else "",
                        "predicted": True, "value": bound})
        cells.append(row)
        labels.append(f"lower bound (f32), {config}")
    if rows:
        tables["model: time a forward pass"] = (labels, columns, cells)
    return tables


def write_markdown(tables, out, measured=()):
    lines = ["# ladderbench results", "",
             "Measured cells come from result files; cells marked ≈ are predicted from a spec sheet through the roofline:",
             "min(peak, bandwidth × intensity), floored by the measured fixed cost of a call.", ""]
    if measured:  # which run each column's figures come from (every run stays in results/: report.py history)
        lines += ["Runs:", ""] + [f"- {m.name}: `{str(m.source).replace(str(ROOT) + '/', '')}` "
                                  f"(git {m.context.get('git_sha', '?')}, {m.context.get('date', '?')})"
                                  for m in measured] + [""]
    for workload, (rows, columns, cells) in tables.items():
        lines += [f"## {workload}", "", "| rung | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
        for name, row in zip(rows, cells):
            lines.append(f"| {name} | " + " | ".join(c["text"] for c in row) + " |")
        lines.append("")
    out.write_text("\n".join(lines), encoding="utf-8")


def write_csv(tables, out):
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["workload", "rung", "machine", "value", "kind", "text"])
        for workload, (rows, columns, cells) in tables.items():
            for name, row in zip(rows, cells):
                for column, cell in zip(columns, row):
                    if cell["text"]:
                        writer.writerow([workload, name, column, cell["value"] if cell["value"] is not None else "",
                                         "predicted" if cell["predicted"] else "measured", cell["text"]])


def vector_lanes(machine):
    """f32 lanes of the widest vector unit the machine's flags name: AVX-512's 16, else AVX2's 8."""
    return 16 if "avx512f" in machine.context.get("cpu_isa_flags", "") else 8


def ladder_rows(machine):
    """The ladder of one measured machine: each rung, its mechanism, predicted and measured factor."""
    rows, previous, previous_mechanism = [], None, None
    gemm_rungs = []
    for key in machine.order:
        c = machine.cases[key]
        if c["suite"] == "gemm" and c["rung"] not in gemm_rungs:
            gemm_rungs.append(c["rung"])
    ctx = machine.context
    lanes = vector_lanes(machine)
    threads = float(ctx.get("threads", 1))
    one_core = float(ctx.get("peak_f32_flops_one_core", 0) or 0)
    all_cores = float(ctx.get("peak_f32_flops", 0) or 0)
    bf16 = float(ctx.get("peak_bf16_flops", 0) or 0)
    scalar = float(ctx.get("peak_probe/scalar-fma/f32/threads:1", 0) or 0)
    boxed_add = float(ctx.get("overhead_boxed_add_seconds", 0) or 0)
    gpu = float(ctx.get("gpu_peak_f32_fma_flops", 0) or 0)

    def device_peak(rung):
        """A GPU rung's roof: cuBLAS's best rate in its mode, else the f32 FMA probe."""
        return float(ctx.get(f"gpu_peak_{rung}_flops", 0) or 0) or gpu

    previous_rung = None
    for rung in gemm_rungs:
        c = machine.gemm_at(rung)
        description = ctx.get(f"rung/{rung}", "")
        mechanism, _, summary = description.partition(": ")
        rate = c.get("flops") if c and not c.get("error") else None
        predicted = None
        if previous and GPU_RUNG.match(rung):
            # On the GPU the roof is the device's: tensor cores allow the ratio of the two rungs'
            # measured cuBLAS peaks; the other mechanisms at most the headroom to this rung's peak.
            peak = device_peak(rung)
            if mechanism == "matrix units" and previous_rung and GPU_RUNG.match(previous_rung):
                below = device_peak(previous_rung)
                predicted = peak / below if below else None
            elif mechanism == "tuned library" and previous_mechanism in ("hand-written kernel", "tuned library"):
                predicted = 1.0
            else:
                predicted = peak / previous if peak else None
        elif previous:
            predicted = {
                # A boxed add costs what a whole scalar FMA at the core's peak does not.
                "interpretation and boxing": boxed_add * scalar if boxed_add and scalar else None,
                "loop order and cache lines": 16.0,  # a 64-byte line serves 16 floats instead of one
                "SIMD width": float(lanes),
                "cache tiling": one_core / previous if one_core else None,  # the headroom to the core's roof
                "cores": threads,
                "hand-written kernel": all_cores / previous if all_cores else None,
                # As fast as a hand-written kernel; above the compiler's rungs, the headroom to the peak.
                "tuned library": 1.0 if previous_mechanism in ("hand-written kernel", "tuned library")
                else (all_cores / previous if all_cores else None),
                # The matrix units' peak over the vector units'; after another matrix-unit rung, the
                # headroom to that peak.
                "matrix units": (bf16 / previous if previous_mechanism == "matrix units" else bf16 / all_cores)
                if bf16 and all_cores else None,
                "GPU": gpu / all_cores if gpu and all_cores else None,
                # The weights prepared once: at most the headroom to the peak of the rung's unit.
                "ahead-of-time layout": ((bf16 if "bf16" in rung else all_cores) / previous)
                if (bf16 if "bf16" in rung else all_cores) else None,
            }.get(mechanism)
        measured = rate / previous if rate and previous else None
        rows.append({"rung": rung, "n": c["size"] if c else None, "rate": rate, "mechanism": mechanism or "—",
                     "summary": summary, "predicted": predicted, "measured": measured,
                     "regime": c.get("regime") if c else None, "rel_error": c.get("rel_error") if c else None})
        if rate:
            previous, previous_mechanism, previous_rung = rate, mechanism, rung
    return rows


def ladder_markdown(machine):
    rows = ladder_rows(machine)
    lines = [f"# The ladder on {machine.name} ({machine.id})", "",
             f"From `{pathlib.Path(machine.source).name}` (git {machine.context.get('git_sha', '?')}, "
             f"{machine.context.get('date', '?')}). C = A·B at n = {LADDER_SIZE} or the rung's cap. "
             "Predicted: the factor the mechanism allows on this machine "
             f"({vector_lanes(machine)} f32 lanes of {'AVX-512' if vector_lanes(machine) == 16 else 'AVX2'}, the core count, "
             "the headroom to the measured peak; on a GPU, the headroom to the device's peak for the rung, and for tensor "
             "cores the ratio of the two rungs' measured cuBLAS peaks); measured: the rate over the rung above. "
             "rel error: the relative L2 error against a double-precision product, what the number format costs.", "",
             "| rung | n | GFLOP/s | regime | mechanism | what it is | predicted | measured | rel error |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| {rung} | {n} | {rate} | {regime} | {mechanism} | {summary} | {pred} | {meas} | {error} |".format(
            rung=r["rung"], n=r["n"] or "", rate=f"{r['rate'] / 1e9:.4g}" if r["rate"] else "failed",
            regime=r["regime"] or "", mechanism=r["mechanism"], summary=r["summary"],
            pred=f"{r['predicted']:.3g}x" if r["predicted"] else "", meas=f"{r['measured']:.3g}x" if r["measured"] else "",
            error=f"{r['rel_error']:.1e}" if r["rel_error"] is not None else ""))
    return "\n".join(lines) + "\n"


def write_html(tables, measured, figures, out):
    e = html.escape
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>ladderbench results</title><style>",
             "body{font-family:sans-serif;margin:2em;max-width:90em}table{border-collapse:collapse;margin:1em 0}",
             "td,th{border:1px solid #ccc;padding:.3em .6em;font-size:90%;vertical-align:top}th{background:#eee}",
             "td.predicted{font-style:italic;color:#555;background:#f6f6ff}img{max-width:100%}</style></head><body>",
             "<h1>ladderbench results</h1><p>Measured cells are plain; <span style='font-style:italic;color:#555;"
             "background:#f6f6ff'>predicted cells</span> come from a spec sheet through the roofline.</p>"]
    for workload, (rows, columns, cells) in tables.items():
        parts.append(f"<h2>{e(workload)}</h2><table><tr><th>rung</th>" + "".join(f"<th>{e(c)}</th>" for c in columns) + "</tr>")
        for name, row in zip(rows, cells):
            parts.append(f"<tr><th>{e(name)}</th>" + "".join(
                f"<td class='{'predicted' if c['predicted'] else 'measured'}'>{e(c['text'])}</td>" for c in row) + "</tr>")
        parts.append("</table>")
    for m in measured:
        parts.append(f"<h2>The ladder on {e(m.name)}</h2><table><tr><th>rung</th><th>n</th><th>GFLOP/s</th><th>regime</th>"
                     "<th>mechanism</th><th>predicted</th><th>measured</th></tr>")
        for r in ladder_rows(m):
            parts.append("<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in (
                r["rung"], r["n"] or "", f"{r['rate'] / 1e9:.4g}" if r["rate"] else "failed", r["regime"] or "",
                r["mechanism"], f"{r['predicted']:.3g}x" if r["predicted"] else "",
                f"{r['measured']:.3g}x" if r["measured"] else "")) + "</tr>")
        parts.append("</table>")
    for title, png in figures:
        parts.append(f"<h2>{e(title)}</h2><img alt='{e(title)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'>")
    parts.append("</body></html>")
    out.write_text("\n".join(parts), encoding="utf-8")


# --- plots ----------------------------------------------------------------------------------------

REGIME_COLOURS = {"compute": "#1f77b4", "memory": "#ff7f0e", "overhead": "#d62728", None: "#999999"}


def make_figures(measured, specs):
    """[(title, file stem, matplotlib figure)]."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = []
    for m in measured:
        rows = [r for r in ladder_rows(m) if r["rate"]]
        if rows:
            fig, ax = plt.subplots(figsize=(10, 4.5))
            ax.bar([r["rung"] for r in rows], [r["rate"] / 1e9 for r in rows],
                   color=[REGIME_COLOURS[r["regime"]] for r in rows])
            ax.set_yscale("log")
            ax.set_ylabel("GFLOP/s (log)")
            ax.set_title(f"The GEMM ladder on {m.id} (colour: regime)")
            ax.tick_params(axis="x", rotation=45)
            handles = [plt.Rectangle((0, 0), 1, 1, color=c) for k, c in REGIME_COLOURS.items() if k]
            ax.legend(handles, [f"{k}-bound" for k in REGIME_COLOURS if k], loc="upper left")
            fig.tight_layout()
            figures.append((f"The ladder on {m.id}", f"ladder-{m.id}", fig))

        # The roofline: measured compute roofs and bandwidth per level, every GEMM and sweep point.
        fig, ax = plt.subplots(figsize=(8, 6))
        x = [2 ** (i / 4) for i in range(-24, 41)]
        for dtype, style in (("f32", "-"), ("f64", ":"), ("bf16", "--")):
            peak = m.peak(dtype)
            if not peak:
                continue
            for level in ("L1", "L2", "L3", "DRAM"):
                bw = m.context.get(f"bandwidth_{level}_all_cores_bytes_per_second")
                if bw and dtype == "f32":
                    ax.plot(x, [min(peak, float(bw) * i) / 1e9 for i in x], "-", linewidth=0.8,
                            label=f"{level} {float(bw) / 1e9:.0f} GB/s")
            ax.axhline(peak / 1e9, linestyle=style, color="k", linewidth=0.8)
            ax.text(x[0], peak / 1e9 * 1.08, f"peak {dtype} {peak / 1e9:.0f} GFLOP/s", fontsize=8)
        # The GPU's own roofs where its rungs ran: device memory, the f32 FMA probe, cuBLAS per mode.
        gpu_memory = float(m.context.get("gpu_bandwidth_memory_roof_bytes_per_second",
                                         m.context.get("gpu_bandwidth_copy_bytes_per_second", 0)) or 0)
        gpu_f32 = float(m.context.get("gpu_peak_f32_fma_flops", 0) or 0)
        if gpu_memory and gpu_f32:
            ax.plot(x, [min(gpu_f32, gpu_memory * i) / 1e9 for i in x], "-", color="purple", linewidth=1.2,
                    label=f"GPU memory {gpu_memory / 1e9:.0f} GB/s")
            for mode in ("cublas-tf32", "cublas-f16", "cublas-bf16"):
                if (rate := float(m.context.get(f"gpu_peak_{mode}_flops", 0) or 0)):
                    ax.axhline(rate / 1e9, linestyle="--", color="purple", linewidth=0.6)
                    ax.text(x[-1], rate / 1e9 * 1.08, f"GPU {mode} {rate / 1e12:.0f} TFLOP/s", fontsize=7, ha="right")
            ax.text(x[-1], gpu_f32 / 1e9 * 1.08, f"GPU f32 FMA {gpu_f32 / 1e12:.0f} TFLOP/s", fontsize=7, ha="right")
        for c in m.cases.values():
            if c.get("intensity") and c.get("flops") and c["suite"] in ("gemm", "roofline"):
                ax.plot(c["intensity"], c["flops"] / 1e9, "o" if c["suite"] == "gemm" else "s", markersize=3,
                        color=REGIME_COLOURS[c.get("regime")], alpha=0.7)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (FLOP/byte)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"Roofline of {m.id}: measured ceilings, every GEMM (o) and sweep (s) case")
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        figures.append((f"The roofline of {m.id}", f"roofline-{m.id}", fig))

    # The model's time by operation, per backend, at the largest configuration each ran.
    for m in measured:
        runs = {}
        for c in m.cases.values():
            if c["suite"] == "model" and c.get("ops") and c["size"] >= runs.get(c["rung"], {"size": 0})["size"]:
                runs[c["rung"]] = c
        if not runs:
            continue
        fig, ax = plt.subplots(figsize=(10, 2.4 + 0.45 * len(runs)))
        ops = sorted({op for c in runs.values() for op in c["ops"]})
        colours = plt.cm.tab20.colors
        for row, (_rung, c) in enumerate(sorted(runs.items())):
            # Shares from the (median) seconds: medians of the shares themselves need not add up to 100%.
            total = c["pass_seconds"] or 1
            left = 0.0
            for i, op in enumerate(ops):
                share = c["ops"].get(op, {}).get("seconds", 0) / total * 100
                ax.barh(row, share, left=left, color=colours[i % len(colours)], label=op if row == 0 else None)
                left += share
        ax.set_yticks(range(len(runs)), [f"{r} (tokens {c['size']})" for r, c in sorted(runs.items())])
        ax.set_xlabel("% of the forward pass")
        ax.set_title(f"The model on {m.id}: where the time goes, by operation")
        ax.set_xlim(0, 100)
        ax.legend(fontsize=7, ncol=7, loc="upper center", bbox_to_anchor=(0.5, -0.3 * 4 / (len(runs) + 2)))
        fig.tight_layout()
        figures.append((f"The model on {m.id}, by operation", f"model-{m.id}", fig))

    # The model against resolution: time per pass over tokens (log-log), a (HW)^2 slope for
    # reference, and where a 16, 40 and 80 GB device runs out of memory (from the context).
    for m in measured:
        sweeps = {}
        for c in m.cases.values():
            if c["suite"] == "model-sweep" and c.get("flops") and not c.get("error"):
                tokens = c["size"] * c["size"]
                sweeps.setdefault(f'{c["rung"]} ({c["dtype"]})', []).append((tokens, c["pass_seconds"]))
        if not sweeps:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        for label, points in sorted(sweeps.items()):
            points.sort()
            x = [t for t, _ in points]
            y = [seconds for _, seconds in points]
            ax.plot(x, y, "o-", label=label)
        x_last, y_last = x[-1], y[-1]
        guide = [x[0], x_last * 16]
        ax.plot(guide, [y_last * (g / x_last) ** 2 for g in guide], "k--", linewidth=0.8, label="∝ (HW)²")
        for key, value in sorted(m.context.items()):
            found = re.match(r"model_out_of_memory_side_(\d+)GB", key)
            if found:
                side, _, shape = str(value).partition(" ")
                side = int(side)
                ax.axvline(side * side, color="grey", linestyle=":", linewidth=0.8)
                ax.text(side * side, 0.03, f" {found.group(1)} GB device full at {side}×{side} {shape}",
                        transform=ax.get_xaxis_transform(), rotation=90, fontsize=7, va="bottom", ha="right")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("tokens HW (the correlation volume and each head's scores are (HW)²)")
        ax.set_ylabel("seconds per forward pass")
        ax.set_title(f"The model on {m.id} against resolution")
        ax.legend(fontsize=8)
        fig.tight_layout()
        figures.append((f"The model on {m.id} against resolution", f"model-sweep-{m.id}", fig))

    # Across machines: the best GEMM rate per dtype, measured and predicted.
    labels, values, colours = [], [], []
    floors = {kind: overhead_floor(measured, kind) for kind in ("cpu", "gpu")}
    for m in measured:
        best = max((c["flops"] for c in m.cases.values() if c["suite"] == "gemm" and c.get("flops")), default=None)
        if best:
            labels.append(f"{m.id}\n(measured)")
            values.append(best / 1e9)
            colours.append("#1f77b4")
    for s in specs:
        for dtype in ("f32", "tf32", "f16", "bf16"):
            gpu_libraries = {"f32": "cublas", "tf32": "cublas-tf32", "f16": "cublas-f16", "bf16": "cublas-bf16"}
            rung = gpu_libraries[dtype] if s.kind == "gpu" else {"f32": "openblas", "bf16": "onednn-bf16"}.get(dtype)
            value = predict_gemm(s, rung, dtype, 8192, floors[s.kind]) if rung else None
            if value:
                labels.append(f"{s.id}\n{dtype} (predicted)")
                values.append(value / 1e9)
                colours.append("#aaaaaa")
    if values:
        fig, ax = plt.subplots(figsize=(max(8, len(values) * 0.6), 5))
        ax.bar(range(len(values)), values, color=colours)
        ax.set_xticks(range(len(values)), labels, rotation=90, fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("GEMM GFLOP/s (log)")
        ax.set_title("Across machines: measured best GEMM, and datasheet roofline predictions (n=8192)")
        fig.tight_layout()
        figures.append(("Across machines", "machines", fig))
    return figures


def render(figures, out_dir, formats=("png", "svg")):
    out_dir.mkdir(parents=True, exist_ok=True)
    pngs = []
    for title, stem, fig in figures:
        for fmt in formats:
            fig.savefig(out_dir / f"{stem}.{fmt}", dpi=110)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=80)
        pngs.append((title, buffer.getvalue()))
    return pngs


# --- explain --------------------------------------------------------------------------------------


def explain(a, b, m, n, k, dtype, gap):
    """Text: the compute, bandwidth and capacity ratios of b over a for a GEMM-shaped workload."""
    flops = 2.0 * m * n * k
    bytes_ = INPUT_BYTES.get(dtype, 4) * (m * k + k * n) + 4 * m * n
    lines = [f"Workload: C[{m}x{n}] = A[{m}x{k}] B[{k}x{n}] in {dtype}: {flops / 1e9:.3g} GFLOP, {bytes_ / 1e6:.3g} MB "
             f"(intensity {flops / bytes_:.3g} FLOP/byte).", ""]
    times = {}
    for mach in (a, b):
        peak, bw, cap = mach.peak(dtype), mach.bandwidth(), mach.capacity()
        if not peak:
            lines.append(f"{mach.id}: no {dtype} peak known")
            continue
        t = gemm_bound(flops, bytes_, peak, bw, 0)
        bound = "compute" if t == flops / peak else "memory"
        fits = "fits" if cap is None or bytes_ <= cap else "does NOT fit"
        lines.append(f"{mach.id:>18}: peak {dtype} {peak / 1e12:8.3f} TFLOP/s, memory "
                     f"{(bw or 0) / 1e9:7.0f} GB/s, capacity {(cap or 0) / 1e9:6.0f} GB ({fits}); bound: {bound}, "
                     f"{t * 1e3:.3g} ms")
        times[mach.id] = t
    lines.append("")
    for d in ("f32", "tf32", "f16", "bf16"):
        pa, pb = a.peak(d), b.peak(d)
        lines.append(f"  compute ratio {d:>5}: " + (f"{pb / pa:7.2f}x" if pa and pb else "   n/a (" +
                     ", ".join(x.id for x, p in ((a, pa), (b, pb)) if not p) + f" has no {d})"))
    if a.bandwidth() and b.bandwidth():
        lines.append(f"  bandwidth ratio    : {b.bandwidth() / a.bandwidth():7.2f}x")
    if a.capacity() and b.capacity():
        lines.append(f"  capacity ratio     : {b.capacity() / a.capacity():7.2f}x")
    if len(times) == 2:
        hardware = times[a.id] / times[b.id]
        lines += ["", f"The roofline gives {b.id} a {hardware:.3g}x advantage on this workload in {dtype}."]
        # f32 code can run as TF32 on Ampere and later without a change (PyTorch's default for
        # convolutions); f16 and bf16 need the code to ask for them.
        silent = ("f32", "tf32") if dtype == "f32" else (dtype,)
        best = max((b.peak(d) or 0) / (a.peak(dtype) or math.inf) for d in silent)
        if best > hardware * 1.01:
            lines.append(f"If {b.id} ran the f32 work as TF32 on its tensor cores, as frameworks may do without being "
                         f"asked, compute alone could give {best:.3g}x.")
        if gap:
            lines.append(f"A measured gap of {gap:g}x leaves {gap / max(hardware, best):.3g}x that the hardware cannot "
                         "explain: look for something else (a slower code path, host transfers, clock throttling, "
                         "memory running out, work falling back to the CPU).")
    return "\n".join(lines)


# Files written before each operation carried op/<op>/is_gemm name their GEMMs only implicitly.
GEMM_OPS_OF_OLDER_FILES = ("corr_gemm", "qkv_gemm", "attn_scores", "attn_values", "out_gemm", "mlp_gemm", "head_gemm")


def model_ops(measured, config):
    """{op: {"flop_count", "byte_count", ...}} and the footprint of a model configuration, from any
    result file that ran it (the counts are defined once, in ladderbench)."""
    for m in measured:
        for c in m.cases.values():
            if c["suite"] == "model" and c.get("ops") and c["config"] == config:
                return c["ops"], c.get("memory_bytes"), c["label"].split(";")[0]
    return None, None, None


def explain_model(a, b, ops, footprint, description, gap):
    """Each operation of the model on both machines' rooflines, in f32, and with TF32 GEMMs on b."""
    lines = [f"The model, {description}, in f32: each operation's lower bound on each machine", "",
             f"{'operation':<14} {a.id:>18} {b.id:>18}   ratio  bound on {b.id}"]
    totals = {a.id: 0.0, b.id: 0.0, "tf32": 0.0}
    for op, cost in sorted(ops.items(), key=lambda kv: -kv[1].get("flop_count", 0)):
        flops, bytes_ = cost.get("flop_count", 0), cost.get("byte_count", 0)
        bound = {}
        for mach in (a, b):
            t = gemm_bound(flops, bytes_, mach.peak("f32", "vector") or mach.peak("f32"), mach.bandwidth(), 0)
            bound[mach.id] = t
            totals[mach.id] += t
        is_gemm = cost["is_gemm"] > 0.5 if "is_gemm" in cost else op in GEMM_OPS_OF_OLDER_FILES
        tf32 = b.peak("tf32") if is_gemm else None
        totals["tf32"] += gemm_bound(flops, bytes_, tf32, b.bandwidth(), 0) if tf32 else bound[b.id]
        which = "compute" if flops / (b.peak("f32", "vector") or b.peak("f32")) >= bytes_ / b.bandwidth() else "memory"
        lines.append(f"{op:<14} {bound[a.id] * 1e3:>15.3f} ms {bound[b.id] * 1e3:>15.3f} ms "
                     f"{bound[a.id] / bound[b.id]:>7.2f}  {which}")
    hardware = totals[a.id] / totals[b.id]
    lines += ["", f"{'whole pass':<14} {totals[a.id] * 1e3:>15.3f} ms {totals[b.id] * 1e3:>15.3f} ms {hardware:>7.2f}"]
    for mach in (a, b):
        cap = mach.capacity()
        if footprint and cap:
            lines.append(f"memory on {mach.id}: needs {footprint / 1e9:.3g} GB of {cap / 1e9:.0f} GB"
                         + ("" if footprint <= cap else "  -- does NOT fit"))
    lines.append("")
    lines.append(f"The hardware gives {b.id} {hardware:.3g}x in f32 (FMA units and memory bandwidth).")
    if totals["tf32"] < totals[b.id] * 0.99:
        lines.append(f"With its GEMMs as TF32 on the tensor cores (what frameworks may do to f32 on Ampere and later "
                     f"unless told not to), {totals[a.id] / totals['tf32']:.3g}x.")
    best = max(hardware, totals[a.id] / totals["tf32"])
    if gap:
        lines.append(f"A measured gap of {gap:g}x leaves {gap / best:.3g}x that the hardware cannot explain: not compute, not "
                     "bandwidth, not capacity. Look for the software: a slow kernel chosen on one device, host "
                     "transfers or synchronisation in the loop, clocks throttled under a power cap, or work falling back "
                     "to the CPU.")
    return "\n".join(lines)


# --- commands -------------------------------------------------------------------------------------


def cmd_tables(args):
    measured, specs = load_machines(args.paths)
    if not measured and not specs:
        warn("nothing to tabulate")
        return 1
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tables = build_tables(measured, specs)
    write_markdown(tables, out / "tables.md", measured)
    write_csv(tables, out / "tables.csv")
    figures = []
    if not args.no_plots:
        figures = render(make_figures(measured, specs), pathlib.Path(args.plots))
    write_html(tables, measured, figures, out / "index.html")
    print(f"report: wrote {out / 'tables.md'}, {out / 'tables.csv'}, {out / 'index.html'} "
          f"({len(measured)} measured machine(s), {len(specs)} spec sheet(s))")
    return 0


def cmd_plot(args):
    measured, specs = load_machines(args.paths)
    if not measured and not specs:
        warn("nothing to plot")
        return 1
    figures = make_figures(measured, specs)
    render(figures, pathlib.Path(args.out))
    print(f"report: wrote {len(figures)} figure(s) as PNG and SVG into {args.out}")
    return 0


def cmd_explain(args):
    measured, specs = load_machines(args.paths)
    machines = {m.id: m for m in measured + specs}
    # A spec sheet of a measured machine is usable by name too.
    for path in (RESULTS / "specs").glob("*.json"):
        spec = load_spec(path)
        if spec and spec.id not in machines:
            machines[spec.id] = spec
    for ident in (args.a, args.b):
        if ident not in machines:
            warn(f"unknown machine '{ident}' (known: {', '.join(sorted(machines))})")
            return 2
    if args.model:
        ops, footprint, description = model_ops(measured, args.model)
        if not ops:
            warn(f"no result file holds the model at configuration '{args.model}' (run ladderbench --suite model)")
            return 2
        print(explain_model(machines[args.a], machines[args.b], ops, footprint, description, args.gap))
        return 0
    print(explain(machines[args.a], machines[args.b], args.m, args.n or args.m, args.k or args.m, args.dtype, args.gap))
    return 0


def cmd_ladder(args):
    measured, _ = load_machines([args.path] if args.path else None)
    if not measured:
        warn("no ladderbench result file found")
        return 1
    for m in measured:
        # m.id is a safe slug (load_result_file): the report stays inside results/.
        out = pathlib.Path(args.out) if args.out else RESULTS / safe_slug(m.id) / "ladder.md"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(ladder_markdown(m), encoding="utf-8")
        print(f"report: wrote {out}")
    return 0


def positive_fraction(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and 1")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(prog="report.py", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("tables", help="Markdown, CSV and HTML tables: rungs as rows, machines as columns")
    p.add_argument("paths", nargs="*", help="result files, machine folders or spec sheets (default: results/)")
    p.add_argument("--out", default=str(RESULTS / "tables"), help="folder for tables.md, tables.csv, index.html")
    p.add_argument("--plots", default=str(ROOT / "plots"), help="folder for the figures the HTML embeds")
    p.add_argument("--no-plots", action="store_true", help="tables only, no figures")
    p.set_defaults(func=cmd_tables)

    p = sub.add_parser("plot", help="PNG and SVG: the ladder, each machine's roofline, across machines")
    p.add_argument("paths", nargs="*", help="result files, machine folders or spec sheets (default: results/)")
    p.add_argument("--out", default=str(ROOT / "plots"), help="folder for the figures")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("explain", help="how much of a speed gap between machines A and B the hardware explains")
    p.add_argument("a", help="machine id (a results folder or a spec sheet), e.g. nvidia-t4")
    p.add_argument("b", help="machine id, e.g. nvidia-a100-40gb")
    p.add_argument("--m", type=int, default=4096, help="GEMM rows (default 4096)")
    p.add_argument("--n", type=int, help="GEMM columns (default: m)")
    p.add_argument("--k", type=int, help="GEMM depth (default: m)")
    p.add_argument("--dtype", default="f32", choices=sorted(INPUT_BYTES), help="number format (default f32)")
    p.add_argument("--gap", type=float, help="the speed gap measured in practice, e.g. 170")
    p.add_argument("--model", metavar="CONFIG", help="the model at a configuration a result file ran (tiny, small, "
                   "medium, large, custom) instead of a GEMM")
    p.add_argument("paths", nargs="*", default=[], help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("ladder", help="results/<machine-id>/ladder.md: predicted against measured factor per rung")
    p.add_argument("path", nargs="?", help="a result file or machine folder (default: every machine in results/)")
    p.add_argument("--out", help="write here instead of results/<machine-id>/ladder.md")
    p.set_defaults(func=cmd_ladder)

    p = sub.add_parser("compare", help="two runs side by side: ratio of medians, interval and verdict per case")
    p.add_argument("a", help="the baseline: a result file, or a folder (its newest run)")
    p.add_argument("b", help="the run compared with it")
    p.add_argument("--threshold", type=positive_fraction, default=0.05,
                   help="smallest change that counts, as a fraction (default 0.05: 5%%)")
    p.add_argument("--alpha", type=positive_fraction, default=0.05, help="the rank test's level (default 0.05)")
    p.add_argument("--out", help="also write compare.md, compare.csv and compare.html into this folder")
    p.set_defaults(func=lambda a: __import__("ladderreport.compare", fromlist=["cmd_compare"]).cmd_compare(a))

    p = sub.add_parser("history", help="chosen cases of one machine against commit and date, with their spread")
    p.add_argument("machine", help="a machine id (a folder under results/) or a folder")
    p.add_argument("--case", action="append", help="a regular expression of case names (repeatable; default: "
                   "the GEMM ladder's cases at n = 1024)")
    p.add_argument("--out", default=str(ROOT / "plots"), help="folder for history-<machine>.png/.svg and .md")
    p.set_defaults(func=lambda a: __import__("ladderreport.history", fromlist=["cmd_history"]).cmd_history(a),
                   results_root=RESULTS)

    p = sub.add_parser("db", help="every result into one SQLite file (schema: report.py db --schema)")
    p.add_argument("paths", nargs="*", help="result files or folders (default: results/)")
    p.add_argument("--out", default=str(RESULTS / "ladderbench.sqlite"), help="the database file (replaced)")
    p.add_argument("--schema", action="store_true", help="print the schema and exit")
    p.set_defaults(func=lambda a: __import__("ladderreport.db", fromlist=["cmd_db"]).cmd_db(a), results_root=RESULTS)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except OSError as e:  # a read-only or missing output folder, a full disk
        warn(f"cannot write {e.filename or 'the output'}: {e.strerror or e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
