"""Every repetition of every case in a result file (Google Benchmark JSON from ladderbench).

report.py's tables keep one figure per case (the median); comparing runs needs each repetition,
so this reads them all. A bad value is skipped with one line naming file and key, as report.py
does."""
import json
import math
import pathlib
import re
import sys

TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def warn(message):
    print(f"report: {message}", file=sys.stderr)


def safe_slug(text):
    """A machine id as it may become a folder name: lower-case letters, digits, '.', '_' and '-',
    no leading dot, never '..' or a path separator."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", str(text).lower()).strip("-.")
    slug = re.sub(r"\.{2,}", ".", slug)
    return slug[:120]


def read_json(path):
    """The parsed file, or None with one line saying why it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as e:  # deep nesting too
        warn(f"skipping {path}: cannot be read as JSON ({e.__class__.__name__}: {e})")
        return None


def read_result_doc(path):
    """A ladderbench result file's document (context, benchmarks), or None with one line saying why."""
    doc = read_json(path)
    if doc is None:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("context"), dict) or not isinstance(doc.get("benchmarks"), list):
        warn(f"skipping {path}: not a Google Benchmark result file")
        return None
    if "machine_id" not in doc["context"]:
        warn(f"skipping {path}: a Google Benchmark file, but not from ladderbench (no machine_id in its context)")
        return None
    return doc


def finite(value):
    """The value as a finite float, or None (strings holding numbers count; NaN, inf, bools do not)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


# A case's name as ladderbench made it from its axes, read back only for files written before the
# context recorded the axes (case_axes), and for a case a file's table does not list.
LEGACY_NAME = re.compile(r"^(?P<suite>[^/]+)/(?P<rung>[^/]+)/(?P<dtype>[^/]+)/(?P<size_axis>[a-z_]+):(?P<size>\d+)$")
AXES = ("suite", "rung", "dtype", "size_axis", "size")
# Above this coefficient of variation a case is noisy: the context's noisy_cv, else (older files) this.
DEFAULT_NOISY_CV = 0.10


def case_axes_table(context):
    """Every case's axes by its name, as the run's context records them (case_axes); {} where it has none."""
    text = context.get("case_axes")
    if not isinstance(text, str):
        return {}
    try:
        table = json.loads(text)
    except (ValueError, RecursionError) as e:
        warn(f"the context's case_axes cannot be read ({e.__class__.__name__}); reading the case names instead")
        return {}
    return table if isinstance(table, dict) else {}


def case_axes(table, name):
    """A case's suite, rung, dtype, size_axis and size (an int): from the table, else from its
    name where it was made from them; None for neither."""
    axes = table.get(name)
    if isinstance(axes, dict) and all(key in axes for key in AXES):
        size = finite(axes["size"])
        if size is not None and size == int(size):
            return {key: (int(size) if key == "size" else str(axes[key])) for key in AXES}
    match = LEGACY_NAME.match(name)
    if not match:
        return None
    return {key: (int(match[key]) if key == "size" else match[key]) for key in AXES}


def noisy_cv(context):
    """The coefficient of variation above which the run called a case noisy."""
    value = finite(context.get("noisy_cv"))
    return value if value is not None and value > 0 else DEFAULT_NOISY_CV


def case_name(run_name):
    """gemm/avx512/f32/n:1024/real_time → gemm/avx512/f32/n:1024 (the name ladderbench gives it)."""
    for suffix in ("/real_time", "/manual_time"):
        if run_name.endswith(suffix):
            return run_name[: -len(suffix)]
    return run_name


class Run:
    """One result file: its context, and per case the seconds of each repetition and its counters."""

    def __init__(self, path, context):
        self.path = pathlib.Path(path)
        self.context = context
        self.seconds = {}   # case → [seconds per iteration, one per repetition]
        self.counters = {}  # case → {counter: [value per repetition]}
        self.errors = {}    # case → error message
        self.order = []
        self.axes_table = case_axes_table(context)

    def suite_of(self, name):
        axes = case_axes(self.axes_table, name)
        return axes["suite"] if axes else name

    @property
    def machine(self):
        return str(self.context.get("machine_id", "?"))

    @property
    def date(self):
        return str(self.context.get("date", ""))

    @property
    def sha(self):
        return str(self.context.get("git_sha", "?"))

    def describe(self):
        return f"{self.path.name} ({self.machine}, git {self.sha}, {self.date})"


def load_run(path):
    """A Run, or None (with one line saying why) where the file is not a ladderbench result."""
    doc = read_result_doc(path)
    if doc is None:
        return None
    run = Run(path, {str(k): v for k, v in doc["context"].items()})
    for b in doc["benchmarks"]:
        if not isinstance(b, dict) or not isinstance(b.get("run_name", b.get("name")), str):
            continue
        if b.get("run_type", "iteration") != "iteration":
            continue  # aggregates are recomputed from the repetitions
        name = case_name(b.get("run_name", b.get("name")))
        if name not in run.seconds:
            run.order.append(name)
            run.seconds[name], run.counters[name] = [], {}
        if b.get("error_occurred") or b.get("skipped") not in (None, False, 0, "NotSkipped"):
            run.errors[name] = str(b.get("error_message") or b.get("skip_message") or "failed")
            continue
        unit = TIME_UNITS.get(b.get("time_unit"))  # none given: not read as ns, but said
        seconds = finite(b.get("real_time"))
        if unit is None or seconds is None or seconds <= 0:
            warn(f"{path}: {name}'s real_time {b.get('real_time')!r} {b.get('time_unit')!r} is not a time; ignored")
            continue
        run.seconds[name].append(seconds * unit)
        for key, value in b.items():
            if key in ("real_time", "cpu_time", "iterations", "repetitions", "repetition_index", "threads",
                       "family_index", "per_family_instance_index"):
                continue
            number = finite(value)
            if number is not None and not isinstance(value, str):
                run.counters[name].setdefault(key, []).append(number)
    return run


def result_files(path):
    """The result files a path stands for: itself, or the JSON files in a folder (not spec sheets)."""
    p = pathlib.Path(path)
    if p.is_dir():
        return sorted(q for q in p.rglob("*.json")
                      if q.is_file() and q.parent.name != "specs" and q.name != "tables.json")
    return [p] if p.is_file() else []


def newest_run(path):
    """A file's run, or a folder's newest (by the date in its context)."""
    files = result_files(path)
    if pathlib.Path(path).is_dir():  # an interrupted run is read when named, never as the newest
        files = [f for f in files if not f.name.endswith(".interrupted.json")]
    runs = [r for r in (load_run(f) for f in files) if r]
    if not runs:
        return None
    return max(runs, key=lambda r: (r.date, str(r.path)))
