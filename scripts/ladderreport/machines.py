"""Machines: measured ones from result files (each case's median, counters, regime and CV) and
specified ones from spec sheets; the parts of one GPU check merged into one machine."""
import pathlib
import re

from .predict import GPU_RUNG
from .runs import (TIME_UNITS, case_axes, case_axes_table, case_name, finite as finite_number, noisy_cv, read_json,
                   read_result_doc, safe_slug, warn)

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
COMMON_SIZE = 4096  # the ladder profile's one size for every rung (kCommonSize)
GPU_COMPUTE_BOUND_SIZE = 8192  # where the ladder profile also times the GPU's rungs (kGpuComputeBoundSize)


# --- machines: measured (result files) and specified (spec sheets) ---------------------------------

# The cuBLAS rung of each number format: with the FMA probe, a measured GPU's peak in that format.
GPU_LIBRARY_MODE = {"f32": "cublas", "tf32": "cublas-tf32", "f16": "cublas-f16", "bf16": "cublas-bf16"}


def on_gpu(machine, rung):
    """Where the rung ran, as the file says (rung_where/<rung>); files written before it, by name."""
    where = machine.context.get(f"rung_where/{rung}")
    return where == "GPU" if where else bool(GPU_RUNG.match(rung))


class Machine:
    """One column of a table: a measured machine (its newest result file) or a spec sheet."""

    def __init__(self, ident, name, kind, measured):
        self.id, self.name, self.kind, self.measured = ident, name, kind, measured
        self.context = {}
        self.cases = {}  # "suite/rung/dtype/key:size" → {"suite", "rung", "dtype", "size", "flops", ...}
        self.order = []  # case names in the order the program ran them (registry order)
        self.spec = None
        self.source = None
        self.part_contexts = {}  # each result file's own context, by its path (a merged column has several)
        self.sweep = None  # its newest sweep-profile run (rate against n), kept apart from its column
        # Which rung refines which, borrowed where the file predates rung_parent (load_machines).
        self.chain, self.chain_source = None, None

    # Ceilings, from the context of a run or from a spec sheet.
    def peak(self, dtype, unit="best"):
        if self.spec:
            flops = self.spec.get("peak_flops", {})
            units = ["vector", "matrix"] if unit == "best" else [unit]
            values = [flops.get(u, {}).get(dtype) for u in units]
            values = [v for v in values if v]
            return max(values) if values else None
        if self.kind == "gpu":  # the device's measured ceilings: its FMA probe and cuBLAS in that format
            keys = [f"gpu_peak_{dtype}_fma_flops"] if unit in ("best", "vector") else []
            if unit in ("best", "matrix") and dtype in GPU_LIBRARY_MODE:
                keys.append(f"gpu_peak_{GPU_LIBRARY_MODE[dtype]}_flops")
            values = [float(self.context[k]) for k in keys if float(self.context.get(k, 0) or 0) > 0]
            return max(values) if values else None
        value = self.context.get(f"peak_{dtype}_flops")
        return float(value) if value else None

    def bandwidth(self):
        if self.spec:
            return self.spec.get("memory", {}).get("bandwidth_bytes_per_second")
        if self.kind == "gpu":
            value = self.context.get("gpu_bandwidth_memory_roof_bytes_per_second")
            return float(value) if value else None
        # The program's own main-memory roof; older files: the best of what they measured, as it was then.
        if "bandwidth_main_memory_roof_bytes_per_second" in self.context:
            return float(self.context["bandwidth_main_memory_roof_bytes_per_second"])
        values = [float(self.context[key]) for key in ("bandwidth_DRAM_all_cores_bytes_per_second",
                                                       "bandwidth_stream_triad_bytes_per_second") if key in self.context]
        return max(values) if values else None

    def capacity(self):
        if self.spec:
            return self.spec.get("memory", {}).get("capacity_bytes")
        if self.kind == "gpu":
            value = self.context.get("gpu_memory_bytes")
            return float(value) if value else None
        value = self.context.get("memory_total_bytes")
        return float(value) if value else None

    def gemm_ran(self, rung):
        """The rung's cases that ran (a rate, no error), by size."""
        return {c["size"]: c for c in self.cases.values()
                if c["suite"] == "gemm" and c["rung"] == rung and c.get("flops") and not c.get("error")}

    def gemm_at(self, rung, size=None):
        """The rung's case at `size` (default: the ladder profile's common size); else the largest
        size below it that ran (its time is extrapolated up by n^3), else the smallest above it;
        cases that failed only where none ran; None if the rung never ran."""
        size = COMMON_SIZE if size is None else size
        cases = {c["size"]: c for c in self.cases.values() if c["suite"] == "gemm" and c["rung"] == rung}
        if not cases:
            return None
        pool = self.gemm_ran(rung) or cases
        if size in pool:
            return pool[size]
        below = [n for n in pool if n < size]
        return pool[max(below)] if below else pool[min(pool)]


# Context keys the report reads as numbers; a value that is not a finite number is dropped.
NUMERIC_CONTEXT = re.compile(
    r"(_flops|_seconds|_bytes|_bytes_per_second)$|^threads$|^cpu_logical_cores$|^peak_probe/|^rung_unit_peak_flops/")
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


def load_result_file(path, doc=None):
    """A measured machine from a result file, or from its document as a database holds it."""
    doc = read_result_doc(path) if doc is None else doc
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
    m.part_contexts = {m.source: context}
    cvs = {}
    regime_names = regime_codes(m.context)
    axes_table = case_axes_table(m.context)
    for b in doc["benchmarks"]:
        if not isinstance(b, dict) or "run_name" not in b:
            continue
        aggregate = b.get("aggregate_name")
        key = case_name(str(b["run_name"]))
        axes = case_axes(axes_table, key)
        if not axes:
            continue
        if b.get("run_type") == "aggregate" and aggregate == "cv":
            cv = finite_number(b.get("real_time"))  # the repetitions' coefficient of variation, a fraction
            if cv is not None:
                cvs[key] = cv
        if b.get("run_type") == "aggregate" and aggregate != "median":
            continue
        if key in m.cases and not aggregate:  # a repetition: keep the first unless a median comes
            continue
        case = {
            "suite": axes["suite"], "rung": axes["rung"], "dtype": axes["dtype"], "size": axes["size"],
            "error": b.get("error_message") if b.get("error_occurred") else None,
            "label": str(b.get("label", "")),
        }
        seconds = finite_number(b.get("real_time"))  # a repetition's or the median's time (manual where self-timed)
        if seconds is not None and b.get("time_unit") in TIME_UNITS and seconds > 0:
            case["seconds"] = seconds * TIME_UNITS[b["time_unit"]]
        for counter in ("flops", "bytes_per_second", "peak_fraction", "roof_fraction", "intensity", "seconds_per_op",
                        "threads", "bytes", "memory_bytes", "rel_error", "cv", "reorder_seconds", "pack_seconds",
                        "gpu_slowdown_reasons", "gpu_sm_clock_median_mhz", "gpu_power_max_watts",
                        "traffic_term", "traffic_bytes", "traffic_working_set"):
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
        # A model case: its configuration and the time of a pass (as timed; else its operations' sum).
        # A compiled pass (torch.compile) is not split by operation: no ops, the time as timed.
        if ops or (case["suite"] == "model" and "seconds" in case):
            case["ops"] = ops
            case["config"] = model_config_name(m.context, b, case["label"])
            case["pass_seconds"] = case.get("seconds") or sum(o.get("seconds", 0) for o in ops.values())
        case["regime"] = regime_of(b, case["label"], regime_names)
        if key not in m.cases:
            m.order.append(key)
        m.cases[key] = case
    for key, cv in cvs.items():
        if key in m.cases:
            m.cases[key]["cv"] = cv
            m.cases[key]["noisy"] = cv > noisy_cv(m.context)
    sort_in_ladder_order(m)
    return m


def numbered_names(text):
    """{number: name} from a context list such as "0 compute, 1 memory, 2 overhead", or {}."""
    names = {}
    for entry in str(text).split(","):
        number, _, name = entry.strip().partition(" ")
        if number.isdigit() and name:
            names[int(number)] = name
    return names


def throttled(machine, case):
    """"throttled: power cap" where NVML saw the GPU's clocks held down while the case ran; the
    bits are named by the context's gpu_clock_event_reason_bits. Empty otherwise."""
    bits = int(case.get("gpu_slowdown_reasons") or 0)
    if not bits:
        return ""
    names = numbered_names(machine.context.get("gpu_clock_event_reason_bits", ""))
    reasons = [name for bit, name in sorted(names.items()) if bits & bit] or [f"reasons 0x{bits:x}"]
    return "throttled: " + ", ".join(reasons)


CONFIG_COUNTERS = ("config_height", "config_width", "config_channels", "config_layers", "config_heads")


def model_config_name(context, benchmark, label):
    """A model case's configuration: from its config_* counters, named by the context's
    model_config/<name> ("custom" where none matches); files written before the counters say
    it only in the label ("config small (…")."""
    shape = [finite_number(benchmark.get(key)) for key in CONFIG_COUNTERS]
    if all(v is not None for v in shape):
        text = " ".join(str(int(v)) for v in shape)
        return next((key.split("/", 1)[1] for key, value in context.items()
                     if key.startswith("model_config/") and str(value) == text), "custom")
    found = re.match(r"config (.+?) \(", label)
    return found.group(1) if found else None


def regime_codes(context):
    """{code: name} from the context's regime_codes ("0 compute, 1 memory, 2 overhead"), or {}."""
    return numbered_names(context.get("regime_codes", ""))


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
    """One machine column from the parts of a run (or a run and the ladder run completing it): every
    case, the newer's where both have one, and the newer's context on top."""
    m = Machine(newer.id, newer.name, newer.kind, True)
    m.context = {**older.context, **newer.context}
    m.cases = {**older.cases, **newer.cases}
    m.order = older.order + [key for key in newer.order if key not in older.cases]
    m.source = f"{older.source} + {newer.source}"
    m.part_contexts = {**older.part_contexts, **newer.part_contexts}
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


def has_chain(machine):
    """Whether the run's context names each rung's parent (rung_parent/<rung>)."""
    return any(str(k).startswith("rung_parent/") for k in machine.context)


def rung_parents(machine, rung):
    """The rungs `rung` refines, the first that ran preferred (rung_parent/<rung>, '|'-separated):
    from the run's own context, else from the chain it borrowed; [] for the chain's start; None
    where nothing says (a lone file from before rung_parent: the rung above stands in)."""
    if has_chain(machine):
        named = machine.context.get(f"rung_parent/{rung}", "")
    elif machine.chain is not None:
        named = machine.chain.get(rung, "")
    else:
        return None
    return [p for p in str(named).split("|") if p]


def load_machines(paths):
    """Measured machines (newest run per machine, its parts merged) and spec sheets, from files and folders."""
    files, documents = [], []  # documents: (file, document) from a database (report.py db)
    for p in [pathlib.Path(p) for p in (paths or [RESULTS])]:
        if p.is_dir():
            # Regular files only: a FIFO named *.json would hang the read.
            files += sorted(q for q in p.rglob("*.json") if q.is_file())
        elif p.suffix in (".sqlite", ".db") and p.exists():
            from .db import docs_from_database
            documents += docs_from_database(p)
        elif p.exists():
            files.append(p)
        else:
            warn(f"skipping {p}: no such file or folder")
    # Per machine, its newest run (parts merged) of the ladder profile and of any other: a ladder
    # run times the GEMM ladder alone, so it completes the machine's newest other run (its GEMM
    # cases replacing those of the same name) rather than hiding that run's other suites.
    runs, specs, cpus_seen, first_chained = {}, {}, {}, None
    for f, doc in [(f, None) for f in files] + documents:
        if doc is None and f.parent.name == "specs":
            m = load_spec(f)
            if m:
                specs[m.id] = m
            continue
        if doc is None and f.name.endswith(".interrupted.json"):
            # What an interrupted run measured before it stopped: never a machine's run in a table
            # (its missing cases would vanish from every column); compare reads it by name.
            warn(f"skipping {f}: an interrupted run (report.py compare reads it by name)")
            continue
        m = load_result_file(f, doc)
        if not m:
            continue
        date = str(m.context.get("date", ""))
        if has_chain(m) and (first_chained is None or date < str(first_chained.context.get("date", ""))):
            first_chained = m
        # One id for two different CPUs (two folders copied together): a conflict, not one column.
        cpu = str(m.context.get("cpu_model", ""))
        cpus_seen.setdefault(m.id, cpu)
        if cpus_seen[m.id] != cpu:
            warn(f"{f}: machine id {m.id} names CPU {cpu!r}, another file of that id {cpus_seen[m.id]!r}: "
                 f"shown apart as {m.id}@{safe_slug(cpu)}")
            m.id = f"{m.id}@{safe_slug(cpu)}"
        # The ladder profile's run completes the machine's column; a sweep run (rate against n) is
        # kept beside it, never merged into it.
        profile = m.context.get("profile")
        kind = profile if profile in ("ladder", "sweep") else "other"
        held = runs.get((m.id, kind))
        newer = held is None or m.context.get("date", "") >= held.context.get("date", "")
        if held is not None and parts_of_one_run(held, m):
            runs[(m.id, kind)] = merge_parts(held, m) if newer else merge_parts(m, held)
        elif newer:
            runs[(m.id, kind)] = m
    measured = {}
    for (ident, kind), m in runs.items():
        if kind == "other" or (kind == "ladder" and (ident, "other") not in runs):
            measured[ident] = m
    for (ident, kind), m in runs.items():
        if kind == "ladder" and (ident, "other") in runs:
            measured[ident] = merge_parts(runs[(ident, "other")], m)
    for (ident, kind), m in runs.items():
        if kind == "sweep":
            if ident not in measured:  # the machine's only run: its column too
                measured[ident] = m
            measured[ident].sweep = m
    # Which rung refines which is the program's (GemmRung::parent), the same on every machine: a run
    # written before its context named it takes the chain of the oldest file that does (the program
    # nearest its own, and a source that stays put as runs are added), and its report names that
    # file; never the row above.
    if first_chained is not None:
        for m in measured.values():
            if not has_chain(m):
                m.chain = {k.partition("/")[2]: str(v) for k, v in first_chained.context.items()
                           if k.startswith("rung_parent/")}
                m.chain_source = pathlib.Path(str(first_chained.source)).name
    # Two machines whose CPUs say the same name (a VM's "AMD EPYC" on Zen 3 and on Zen 4) are told
    # apart by their ids in the column titles.
    names = [m.name for m in measured.values()]
    for m in measured.values():
        if names.count(m.name) > 1:
            m.name = f"{m.name} ({m.id})"
    # A spec sheet of a measured machine (its theoretical figures) is kept apart from its column.
    return list(measured.values()), [s for s in specs.values() if s.spec.get("measured_machine") not in measured]


def gpu_view(machine):
    """The GPU of a measured machine as a machine of its own ("<id>/gpu"): its ceilings are the
    device's (FMA probes and cuBLAS per format, device memory's roof and size), so that explain
    sets a measured GPU against a spec sheet or another measured GPU. None without a GPU."""
    if not machine.measured or machine.spec or not machine.context.get("gpu_name") \
            or not machine.context.get("gpu_peak_f32_fma_flops"):
        return None
    g = Machine(f"{machine.id}/gpu", str(machine.context["gpu_name"]), "gpu", True)
    g.context, g.cases, g.order, g.source = machine.context, {}, [], machine.source
    g.part_contexts = machine.part_contexts
    return g
