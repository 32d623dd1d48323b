"""The ladder report of one machine, as "Table 1" of Leiserson et al. (Science, 2020) has it and more:
each rung's running time at one common size, GFLOP/s, speedup over the bottom rung and over the rung
above, the fraction of the peak of the unit it runs on, its regime, the factor its mechanism predicts
and, where the measured factor misses the prediction by more than 2x, the measured reason."""
import csv
import html
import io
import pathlib
import re

from .layers import layers_html, layers_markdown
from .machines import COMMON_SIZE, GPU_COMPUTE_BOUND_SIZE, GPU_LIBRARY_MODE, RESULTS, load_spec, on_gpu, throttled

# A step whose measured factor is off its prediction by more than this, either way, says why.
MISS_FACTOR = 2.0
# A fixed cost above this share of a call's time is named as a reason.
FIXED_COST_SHARE = 0.05
CACHE_LEVELS = ("L1", "L2", "L3")
# Time per FMA within this share at two sizes: constant, and the n^3 extrapolation holds.
PER_FMA_CONSTANT = 0.10


def probe_rate(ctx, probe, dtype, threads):
    """One peak probe's measured rate (peak_probe/<probe>/<dtype>/threads:<n>), 0 where it did not run."""
    return float(ctx.get(f"peak_probe/{probe}/{dtype}/threads:{threads}", 0) or 0)


def best_vector_probe(ctx, threads=1):
    """The fastest f32 vector-FMA probe on `threads` threads: (name, rate), or (None, 0)."""
    best = (None, 0.0)
    for key, value in ctx.items():
        found = re.fullmatch(r"peak_probe/([\w-]+)/f32/threads:(\d+)", key)
        if found and int(found.group(2)) == threads and not found.group(1).startswith("scalar"):
            if float(value or 0) > best[1]:
                best = (found.group(1), float(value))
    return best


def gflops(rate):
    return f"{rate / 1e9:,.0f} GFLOP/s" if rate >= 1e12 else f"{rate / 1e9:.4g} GFLOP/s"


def unit_of(machine, rung):
    """The unit the rung's arithmetic ran on (rung_unit/<rung>); older files: the device and, from the
    rung's mechanism and number format, which of its units (so that a tensor-core rung is not set
    against the CUDA cores' peak)."""
    unit = machine.context.get(f"rung_unit/{rung}")
    if unit:
        return str(unit)
    if on_gpu(machine, rung):
        tensor, fmt = gpu_unit(machine, rung, str(machine.context.get(f"rung/{rung}", "")).partition(": ")[0])
        return f"GPU tensor cores ({fmt})" if tensor else "GPU CUDA cores"
    return "CPU bf16 units" if (machine.gemm_at(rung) or {}).get("dtype") == "bf16" else "CPU FMA units"


def gpu_datasheet(machine, specs_folder=None):
    """The spec sheet (results/specs/) of the machine's GPU: the one whose device_names hold the name
    CUDA reported (gpu_name), or None."""
    name = machine.context.get("gpu_name")
    if not name:
        return None
    for path in sorted((specs_folder or RESULTS / "specs").glob("*.json")):
        spec = load_spec(path)
        if spec and name in spec.spec.get("device_names", []):
            return spec.spec
    return None


def gpu_unit(machine, rung, mechanism):
    """Whether a GPU rung computes on the tensor cores, and in which format: TF32 (f32 data), f16 or
    bf16 there; f32 on the CUDA cores (cuBLAS pedantic and the hand kernels)."""
    dtype = (machine.gemm_at(rung) or {}).get("dtype", "f32")
    tensor = mechanism == "matrix units" or "tf32" in rung or dtype in ("f16", "bf16")
    return tensor, "tf32" if "tf32" in rung else dtype


def datasheet_peak(datasheet, machine, rung, mechanism):
    """The datasheet's peak for the unit and format a GPU rung computes in, and its words."""
    if not datasheet:
        return None, ""
    tensor, fmt = gpu_unit(machine, rung, mechanism)
    peak = (datasheet.get("peak_flops", {}).get("matrix" if tensor else "vector", {}) or {}).get(fmt)
    what = f"{fmt} tensor cores" if tensor else f"{fmt} CUDA cores"
    return (float(peak), what) if peak else (None, "")


def time_per_fma(machine, rung, size):
    """(n, seconds per FMA) of the rung's two largest measured sizes below `size`, where it ran at two:
    the n^3 extrapolation holds where this stays constant (an interpreter), and flatters where it
    grows (a rung whose working set moves to a slower level as n grows)."""
    ran = sorted((n, c["seconds"] / n ** 3) for n, c in machine.gemm_ran(rung).items() if c.get("seconds") and n < size)
    return ran[-2:] if len(ran) >= 2 else []


def extrapolation_text(machine, row):
    """How a row's time at the common size was reached from the sizes it ran at."""
    text = f"{row['size']} (extrapolated from n = {row['n']} by n³"
    pair = time_per_fma(machine, row["rung"], row["size"])
    if not pair:
        return text + ")"
    (n1, t1), (n2, t2) = pair
    text += f"; time per FMA {t1 * 1e9:.3g} ns at n = {n1}, {t2 * 1e9:.3g} ns at {n2}"
    growth = t2 / t1 - 1
    if abs(growth) <= PER_FMA_CONSTANT:
        return text + ": constant, so the extrapolation holds)"
    if growth > 0:
        return text + f": grew {100 * growth:.0f}%, so the time at {row['size']} is at least this, likely more)"
    return text + f": fell {100 * -growth:.0f}%)"


def unit_kind(machine, rung):
    """The unit the rung ran on as one of the program's unit names (the context's unit_names,
    rung_unit_kind/<rung>); None in files written before the program exported them."""
    kind = machine.context.get(f"rung_unit_kind/{rung}")
    return str(kind) if kind else None


def mechanism_on(machine, rung, mechanism):
    """The rung's mechanism as this machine ran it: a CPU bf16 rung without AMX used AVX512-BF16
    dot products, not matrix units (files written before the program said so itself)."""
    kind = unit_kind(machine, rung)
    dot_products = kind == "CPU AVX512-BF16 dot products" if kind else "dot products" in unit_of(machine, rung)
    if mechanism == "matrix units" and dot_products:
        return "bf16 dot products"
    return mechanism or "—"


def gemm_rungs(machine):
    rungs = []
    for key in machine.order:
        c = machine.cases[key]
        if c["suite"] == "gemm" and c["rung"] not in rungs:
            rungs.append(c["rung"])
    return rungs


def predicted_factor(machine, rung, mechanism, previous):
    """What the rung's mechanism allows over `previous` (the rung it refines), from this run's own probes:
    {"factor", "from": the probes (or the headroom) it came from}, or None."""
    ctx = machine.context
    one_core = float(ctx.get("peak_f32_flops_one_core", 0) or 0)
    all_cores = float(ctx.get("peak_f32_flops", 0) or 0)
    bf16 = float(ctx.get("peak_bf16_flops", 0) or 0)
    threads = int(float(ctx.get("threads", 1) or 1))
    scalar = probe_rate(ctx, "scalar-fma", "f32", 1)
    boxed_add = float(ctx.get("overhead_boxed_add_seconds", 0) or 0)
    gpu = float(ctx.get("gpu_peak_f32_fma_flops", 0) or 0)
    below_rate, below_mechanism, below_rung = previous["rate"], previous["mechanism"], previous["rung"]

    # The peak of the unit this rung runs on (its own probe where it is held to one), else the machine's.
    unit_peak = float(ctx.get(f"rung_unit_peak_flops/{rung}", 0) or 0)
    unit_name = ctx.get(f"rung_unit/{rung}", "its unit")

    def unit_headroom(fallback, what):
        return headroom(unit_peak, f"the peak of {unit_name}") if unit_peak else headroom(fallback, what)

    def made(factor, basis):
        return {"factor": factor, "from": basis} if factor else None

    def headroom(peak, what):
        return made(peak / below_rate, f"headroom to {what} ({gflops(peak)}) from {below_rung}'s {gflops(below_rate)}") \
            if peak and below_rate else None

    def device_peak(name):
        """A GPU rung's roof: cuBLAS's best rate in its mode; else the peak of the unit it runs on
        (rung_unit_peak_flops: the FMA probe or cuBLAS in its dtype); files written before that
        entry: cuBLAS in the rung's dtype, the f32 FMA probe for f32."""
        for key in (f"gpu_peak_{name}_flops", f"rung_unit_peak_flops/{name}"):
            if float(ctx.get(key, 0) or 0):
                return float(ctx[key])
        dtype = (machine.gemm_at(name) or {}).get("dtype", "f32")
        return float(ctx.get(f"gpu_peak_{GPU_LIBRARY_MODE.get(dtype, '')}_flops", 0) or 0) if dtype != "f32" else gpu

    if on_gpu(machine, rung):
        # On the GPU the roof is the device's: tensor cores allow the ratio of the two rungs'
        # measured cuBLAS peaks; the other mechanisms at most the headroom to this rung's peak.
        peak = device_peak(rung)
        if mechanism == "matrix units" and on_gpu(machine, below_rung):
            below = device_peak(below_rung)
            return made(peak / below, f"{rung}'s peak {gflops(peak)} / {below_rung}'s {gflops(below)}") if below else None
        if mechanism == "tuned library" and below_mechanism in ("hand-written kernel", "tuned library"):
            return made(1.0, "a tuned library matches a hand-written kernel at best")
        if mechanism == "Python library call":
            return made(1.0, "the same cuBLAS call, made from Python")
        return headroom(peak, f"{rung}'s peak")
    if mechanism == "interpretation and boxing":
        # A boxed add costs what this many scalar FMA FLOPs at the core's peak do not.
        return made(boxed_add * scalar, f"one boxed add ({boxed_add * 1e9:.3g} ns, overhead probe) at the scalar-fma "
                                        f"probe's {gflops(scalar)}") if boxed_add and scalar else None
    if mechanism == "loop order and cache lines":
        line = int(float(ctx.get("cache_line_bytes", 0) or 0))
        return made(line / 4, f"a {line}-byte cache line (this machine's) serves {line // 4} floats instead of one") \
            if line else made(16.0, "a 64-byte cache line serves 16 floats instead of one (the file predates cache_line_bytes)")
    if mechanism == "SIMD width":
        name, vector = best_vector_probe(ctx)
        return made(vector / scalar, f"{name} {gflops(vector)} / scalar-fma {gflops(scalar)}, one core") \
            if vector and scalar else None
    if mechanism == "cache tiling":
        return unit_headroom(one_core, "one core's f32 peak")
    if mechanism == "cores":
        return made(all_cores / one_core, f"f32 peak on {threads} threads {gflops(all_cores)} / one core's "
                                          f"{gflops(one_core)}") if all_cores and one_core else None
    if mechanism == "hand-written kernel":
        return unit_headroom(all_cores, "the all-core f32 peak")
    if mechanism == "tuned library":
        return made(1.0, "a tuned library matches a hand-written kernel at best") \
            if below_mechanism in ("hand-written kernel", "tuned library") else headroom(all_cores, "the all-core f32 peak")
    if mechanism in ("matrix units", "bf16 dot products"):
        # The bf16 unit's peak over the f32 FMA units'; after another bf16 rung, the headroom to that peak.
        if below_mechanism in ("matrix units", "bf16 dot products"):
            return headroom(bf16, f"the bf16 peak ({ctx.get('peak_bf16_source', '?')})")
        return made(bf16 / all_cores, f"bf16 peak ({ctx.get('peak_bf16_source', '?')}) {gflops(bf16)} / f32 peak "
                                      f"({ctx.get('peak_f32_source', '?')}) {gflops(all_cores)}") if bf16 and all_cores else None
    if mechanism == "GPU":
        return made(gpu / all_cores, f"the GPU's f32 FMA probe {gflops(gpu)} / the CPU's all-core f32 peak "
                                     f"{gflops(all_cores)}") if gpu and all_cores else None
    if mechanism == "Python library call":
        return made(1.0, "the same library call, made from Python (its cost per call: the overhead suite)")
    if mechanism == "ahead-of-time layout":
        return headroom(bf16, "the bf16 peak") if "bf16" in rung else headroom(all_cores, "the all-core f32 peak")
    return None


# --- why a prediction missed: from the run's own ceilings and counters ---------------------------


def cache_level(machine, working_set, threads):
    """The smallest cache level whose capacity (for `threads` cores) holds the working set, else DRAM."""
    for level in CACHE_LEVELS:
        for key, value in machine.context.items():
            if not key.startswith(f"cache_{level.lower()}_") or key.endswith("_instruction"):
                continue
            found = re.match(r"(\d+) bytes, shared by (\d+)", str(value))
            if not found:
                continue
            size, shared_by = int(found.group(1)), max(1, int(found.group(2)))
            if working_set <= size * max(1.0, threads / shared_by):
                return level
    return "DRAM"


def level_bandwidth(machine, level, threads):
    key = f"bandwidth_{level}_{'one_core' if threads <= 1 else 'all_cores'}_bytes_per_second"
    value = machine.context.get(key)
    return float(value) if value else None


def fmt_bytes(value):
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} B"


# A time's spread: its repetitions' coefficient of variation, and the interval of +-2 CV around it
# (about 95% of the repetitions where they spread normally).
SPREAD_CVS = 2.0


def within_noise(row, parent):
    """Whether the two rungs' times are closer than their repetitions' spread: their intervals of
    +-2 CV overlap (None where either has no CV: one repetition)."""
    def interval(r):
        cv, seconds = r["case"].get("cv"), r["seconds_at_size"]
        return None if cv is None or not seconds else (seconds * (1 - SPREAD_CVS * cv), seconds * (1 + SPREAD_CVS * cv))

    a, b = interval(row), interval(parent)
    return None if a is None or b is None else a[0] <= b[1] and b[0] <= a[1]


def traffic_text(machine, row):
    """For a CPU rung whose regime came from its traffic model: the term that bound it, the level
    its working set lives in, and the bandwidth the rung reached there (files from before the
    models: nothing)."""
    c = row["case"]
    term, moved, working_set = c.get("traffic_term"), c.get("traffic_bytes"), c.get("traffic_working_set")
    if term is None or not moved or not row["seconds"] or row["gpu"]:
        return ""
    what = machine.context.get(f"rung_traffic/{row['rung']}/{int(term)}", "")
    threads = c.get("threads", 1)
    level = cache_level(machine, working_set, 1)  # the working set is one thread's
    reached = moved / row["seconds"]
    roof = level_bandwidth(machine, level, threads)
    share = f", {reached / roof:.0%} of {level}'s {roof / 1e9:.3g} GB/s" if roof else ""
    return (f"{what}: {fmt_bytes(moved)} a call from {level} ({fmt_bytes(working_set)} working set), "
            f"{reached / 1e9:.3g} GB/s{share}")


def why_missed(machine, row, previous):
    """The measured reasons a step's factor is off its prediction, computed from the two cases."""
    reasons = []
    c, p = row["case"], previous["case"]
    if row["regime"] and previous["regime"] and row["regime"] != previous["regime"]:
        reasons.append(f"the regime changed: {previous['rung']} is {previous['regime']}-bound, "
                       f"{row['rung']} {row['regime']}-bound")
    threads, previous_threads = c.get("threads", 1), p.get("threads", 1)
    if not on_gpu(machine, row["rung"]) and not on_gpu(machine, previous["rung"]) and c.get("bytes") and p.get("bytes"):
        # The working set of the traffic term that bound each (one thread's), else the compulsory bytes.
        def working_set(case, case_threads):
            if case.get("traffic_working_set"):
                return case["traffic_working_set"], cache_level(machine, case["traffic_working_set"], 1)
            return case["bytes"], cache_level(machine, case["bytes"], case_threads)
        (here_set, level), (there_set, previous_level) = working_set(c, threads), working_set(p, previous_threads)
        here, there = level_bandwidth(machine, level, threads), level_bandwidth(machine, previous_level, previous_threads)
        # A move explains a miss only in its own direction: to a slower level where the rung fell
        # short of its prediction, to a faster one where it beat it.
        short = row["measured"] < row["predicted"]
        if level != previous_level and here and there and (here < there) == short:
            reasons.append(f"the working set moved from {previous_level} ({fmt_bytes(there_set)} at n = {p['size']}) "
                           f"to {level} ({fmt_bytes(here_set)} at n = {c['size']}); {level} reads at "
                           f"{here / 1e9:.3g} GB/s, {previous_level} at {there / 1e9:.3g} GB/s")
    if c.get("reorder_seconds") and row["seconds"]:
        reasons.append(f"its operand's one-time reorder, outside the timed calls, takes {c['reorder_seconds'] * 1e3:.3g} ms "
                       f"({c['reorder_seconds'] / row['seconds']:.2g} calls' time)")
    fixed = float(machine.context.get("gpu_overhead_launch_seconds" if on_gpu(machine, row["rung"])
                                      else "overhead_omp_fork_join_seconds" if threads > 1
                                      else "overhead_call_seconds", 0) or 0)
    if fixed and row["seconds"] and fixed / row["seconds"] > FIXED_COST_SHARE:
        reasons.append(f"a fixed cost of {fixed * 1e6:.3g} µs a call is {fixed / row['seconds']:.0%} of its time")
    # Its traffic model's bound, where that is what held it: a mechanism, measured (bytes at the
    # level's bandwidth), not a restatement of the shortfall.
    if row["regime"] == "memory" and row.get("traffic") and row["measured"] < row["predicted"]:
        reasons.append(f"its loops' traffic bounds it: {row['traffic']}")
    if c.get("size") != p.get("size") and not reasons:
        reasons.append(f"the two rungs were measured at different sizes (n = {p['size']} and n = {c['size']})")
    # "Reaches x% of its roof" says how far it is, not why: no mechanism found is said as such.
    if not reasons:
        share = (f" ({100 * c['roof_fraction']:.2g}% of its {row['regime']} roof)"
                 if c.get("roof_fraction") and row["regime"] else "")
        reasons.append(f"unexplained{share}")
    return "; ".join(reasons)


# --- the rows -------------------------------------------------------------------------------------


def ladder_rows(machine, size=COMMON_SIZE, gpu_only=False):
    """One row per GEMM rung at `size` (every rung, or the GPU's alone): its case, time at `size`
    (measured, or extrapolated by n^3 from the size it ran at), speedups, unit, regime, factors."""
    rows, previous, bottom = [], None, None
    datasheet = gpu_datasheet(machine)
    for rung in gemm_rungs(machine):
        if gpu_only and not on_gpu(machine, rung):
            continue
        c = machine.gemm_at(rung, size) or {}
        description = machine.context.get(f"rung/{rung}", "")
        mechanism, _, summary = description.partition(": ")
        rate = c.get("flops") if c and not c.get("error") else None
        seconds = c.get("seconds") if rate else None
        n = c.get("size")
        row = {"rung": rung, "n": n, "size": size, "extrapolated": bool(n and n != size), "rate": rate,
               "seconds": seconds, "seconds_at_size": seconds * (size / n) ** 3 if seconds and n else None,
               "mechanism": mechanism_on(machine, rung, mechanism), "summary": summary, "unit": unit_of(machine, rung),
               "gpu": on_gpu(machine, rung), "peak_fraction": c.get("peak_fraction") if rate else None,
               "regime": c.get("regime") if rate else None, "rel_error": c.get("rel_error") if rate else None,
               "predicted": None, "predicted_from": "", "measured": None, "absolute": None, "why": "", "case": c,
               "unit_peak": float(machine.context.get(f"rung_unit_peak_flops/{rung}", 0) or 0) or None}
        row["traffic"] = traffic_text(machine, row) if rate else ""
        if row["gpu"] and rate:
            peak, what = datasheet_peak(datasheet, machine, rung, row["mechanism"])
            row["datasheet"] = {"fraction": rate / peak, "peak": peak, "what": what,
                                "sheet": datasheet.get("name", "")} if peak else None
        if not row["unit_peak"] and rate and row["peak_fraction"]:  # files written before rung_unit_peak_flops
            row["unit_peak"] = rate / row["peak_fraction"]
        # Over the rung it refines (or the baseline a library is set against) where the file names
        # one that ran; older files: the rung above.
        parents = [p for p in str(machine.context.get(f"rung_parent/{rung}", "")).split("|") if p]
        by_name = {r["rung"]: r for r in rows if r["rate"]}
        above = next((by_name[p] for p in parents if p in by_name), None) if parents else previous
        row["parent"] = above["rung"] if above and parents else None
        if parents and not above:
            row["parent_missing"] = parents[0]
        if rate and above:
            prediction = predicted_factor(machine, rung, row["mechanism"], above)
            row["predicted"] = prediction["factor"] if prediction else None
            row["predicted_from"] = prediction["from"] if prediction else ""
            row["measured"] = above["seconds_at_size"] / row["seconds_at_size"] if row["seconds_at_size"] else None
            row["parent"] = above["rung"]  # older files: the rung above, named too
            row["within_noise"] = within_noise(row, above)
            if row["predicted"] and row["measured"] and not (
                    1 / MISS_FACTOR <= row["measured"] / row["predicted"] <= MISS_FACTOR):
                row["why"] = why_missed(machine, row, above)
        if rate and row["seconds_at_size"]:
            bottom = bottom or row
            row["absolute"] = bottom["seconds_at_size"] / row["seconds_at_size"]
        rows.append(row)
        if rate:
            previous = row
    return rows


def gpu_large_rows(machine):
    """The GPU's rungs at the size where tensor cores are bound by their arithmetic, where it ran."""
    if not any(c["suite"] == "gemm" and c["size"] == GPU_COMPUTE_BOUND_SIZE and on_gpu(machine, c["rung"])
               for c in machine.cases.values()):
        return []
    return ladder_rows(machine, GPU_COMPUTE_BOUND_SIZE, gpu_only=True)


# --- the table as Markdown, CSV and HTML ---------------------------------------------------------

COLUMNS = ("rung", "what it is", "device · unit", "n", "time (s)", "GFLOP/s", "absolute speedup", "relative speedup",
           "% of unit peak", "regime", "mechanism", "predicted", "why it differs", "rel error")


def cells(row, machine=None):
    """The row's cells as text, in COLUMNS order (with the machine: a throttled GPU case says so)."""
    ok = row["rate"] is not None
    n = ((extrapolation_text(machine, row) if machine else f"{row['size']} (extrapolated from n = {row['n']})")
         if row["extrapolated"] else str(row["n"])) if row["n"] else ""
    seconds = row["seconds_at_size"]
    return (row["rung"], row["summary"], row["unit"], n,
            ((f"{seconds:.4g}" + (f" ± {100 * row['case']['cv']:.2g}%" if row["case"].get("cv") is not None else ""))
             if seconds else "") if ok else "failed",
            (f"{row['rate'] / 1e9:,.0f}" if row["rate"] >= 1e12 else f"{row['rate'] / 1e9:.4g}") if ok else "",
            f"{row['absolute']:,.0f}x" if row["absolute"] and row["absolute"] >= 10 else
            f"{row['absolute']:.3g}x" if row["absolute"] else "",
            (f"{row['measured']:.3g}x over {row['parent']}" + (" (within noise)" if row.get("within_noise") else "")
             if row["measured"] else
             f"({row['parent_missing']} did not run)" if row.get("parent_missing") else ""),
            (f"{100 * row['peak_fraction']:.3g}%" if row["peak_fraction"] else "")
            + (f" ({100 * row['datasheet']['fraction']:.3g}% of the datasheet's {row['datasheet']['what']}, "
               f"{row['datasheet']['peak'] / 1e12:,.1f} TFLOP/s)" if row.get("datasheet") else ""),
            (row["regime"] or "") + (f" ({row['traffic']})" if row.get("traffic") and row["regime"] == "memory" else "")
            + (f" ({throttled(machine, row['case'])})" if machine and row["case"] and
               throttled(machine, row["case"]) else ""), row["mechanism"],
            f"{row['predicted']:.3g}x ({row['predicted_from']})" if row["predicted"] else "",
            row["why"], f"{row['rel_error']:.1e}" if row["rel_error"] is not None else "")


def peaks_line(machine, rows):
    """Each unit's peak that the rows are set against, once."""
    seen = {}
    for r in rows:
        if r["unit_peak"] and r["unit"] not in seen:
            seen[r["unit"]] = r["unit_peak"]
    return ", ".join(f"{unit} {peak / 1e9:,.0f} GFLOP/s" for unit, peak in seen.items())


def host_title(machine):
    """The host and its devices: "<cpu> (CPU)", and "<gpu> (GPU)" where its GPU rungs ran."""
    ctx = machine.context
    devices = f"{ctx.get('cpu_model', machine.id)} (CPU)"
    if any(on_gpu(machine, rung) for rung in gemm_rungs(machine)):
        devices += f" and {ctx.get('gpu_name', 'a GPU')} (GPU)"
    return f"host {machine.id}: {devices}"


def introduction(machine, rows):
    """The two paragraphs that open the report: where the figures come from, and what each column is."""
    ctx = machine.context
    # Every file the machine's figures come from (a ladder run completing an earlier run's other suites).
    files = " + ".join(f"`{pathlib.Path(part).name}`" for part in str(machine.source).split(" + "))
    return [f"From {files} (git {ctx.get('git_sha', '?')}, "
             f"{ctx.get('date', '?')}, profile {ctx.get('profile', '?')}). C = A·B, n×n, every rung at n = {COMMON_SIZE}: "
             f"a rung measured at another n (slow rungs stop at their cap) has its time extrapolated by n³ from the size "
             "it ran at, marked \"extrapolated from n = …\", and where it ran at two sizes its time per FMA at both says "
             "whether the extrapolation holds (constant, as an interpreter's is) or flatters it (growing, as a rung's "
             "whose working set moves to a slower level does); its GFLOP/s and % of peak are those it was measured at.",
             "Time: the median of the repetitions, ± their coefficient of variation (CV); a relative speedup whose "
             f"two times lie within ±{SPREAD_CVS:g} CV of each other reads \"within noise\". "
             "Absolute speedup: over the bottom rung; relative: over the rung it refines, named in the cell (a "
             "library or framework rung: over the baseline it is set against; both from the times at "
             f"n = {COMMON_SIZE}). % of unit peak: against the measured peak of the unit the rung runs on"
             + (f" ({peaks_line(machine, rows)})" if peaks_line(machine, rows) else "")
             + ("; a GPU row also gives its share of the datasheet's peak for its unit and format"
                + (f" ({next(r['datasheet']['sheet'] for r in rows if r.get('datasheet'))}, results/specs/)"
                   if any(r.get("datasheet") for r in rows) else "") if any(r["gpu"] for r in rows) else "") + ". "
             "Predicted: the factor the rung's mechanism allows over that rung, from this run's own probes, "
             "each named beside it (a vector FMA probe over the scalar one, the all-core peak over one core's, the bf16 "
             "peak over the f32 one, or the headroom to the measured peak; on a GPU, the headroom to the device's peak "
             "for the rung, and for tensor cores the ratio of the two rungs' measured cuBLAS peaks). "
             f"Where the measured factor is off by more than "
             f"{MISS_FACTOR:g}x, \"why it differs\" names what the run's own counters and ceilings show. rel error: the "
             "relative L2 error against a double-precision product, what the number format costs."]


def ladder_markdown(machine):
    rows, large = ladder_rows(machine), gpu_large_rows(machine)
    first, second = introduction(machine, rows + large)
    lines = [f"# The ladder on {host_title(machine)}", "", first, "", second, ""]
    lines += table_markdown(rows, machine)
    if large:
        lines += ["", f"## The GPU's rungs at n = {GPU_COMPUTE_BOUND_SIZE}", "",
                  "Where a tensor-core GEMM runs long enough to be bound by its arithmetic rather than its launch; "
                  "absolute speedup over the GPU's bottom rung at this size.", ""]
        lines += table_markdown(large, machine)
    lines += layers_markdown(machine)
    return "\n".join(lines) + "\n"


def table_markdown(rows, machine=None):
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        lines.append("| " + " | ".join(str(v).replace("|", "/") for v in cells(r, machine)) + " |")
    return lines


def ladder_csv(machine):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("machine", "rung", "what it is", "device · unit", "n measured", "n", "extrapolated", "seconds at n",
                     "flops per second", "absolute speedup", "relative speedup", "over", "peak fraction", "unit peak flops",
                     "regime", "mechanism", "predicted factor", "predicted from", "why it differs", "rel error",
                     "time cv", "within noise", "datasheet fraction", "datasheet peak flops", "datasheet unit"))
    for r in ladder_rows(machine) + gpu_large_rows(machine):
        writer.writerow((machine.id, r["rung"], r["summary"], r["unit"], r["n"] or "", r["size"], int(r["extrapolated"]),
                         *("" if v is None else f"{v:.6g}" for v in (r["seconds_at_size"], r["rate"], r["absolute"],
                                                                      r["measured"])),
                         r.get("parent") or "",
                         *("" if v is None else f"{v:.6g}" for v in (r["peak_fraction"], r["unit_peak"])),
                         r["regime"] or "", r["mechanism"], "" if r["predicted"] is None else f"{r['predicted']:.6g}",
                         r["predicted_from"], r["why"], "" if r["rel_error"] is None else f"{r['rel_error']:.3g}",
                         "" if r["case"].get("cv") is None else f"{r['case']['cv']:.3g}",
                         "" if r.get("within_noise") is None else int(r["within_noise"]),
                         *((f"{r['datasheet']['fraction']:.6g}", f"{r['datasheet']['peak']:.6g}", r["datasheet"]["what"])
                           if r.get("datasheet") else ("", "", ""))))
    return out.getvalue()


def ladder_html(machine, figure_png=None):
    """One self-contained page: the tables and, where given, the figure (PNG bytes)."""
    import base64
    e = html.escape
    rows, large = ladder_rows(machine), gpu_large_rows(machine)
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
             f"<title>The ladder on {e(host_title(machine))}</title><style>",
             "body{font-family:sans-serif;margin:2em;max-width:110em}table{border-collapse:collapse;margin:1em 0}",
             "td,th{border:1px solid #ccc;padding:.3em .5em;font-size:85%;vertical-align:top}th{background:#eee}",
             "td.num{text-align:right;white-space:nowrap}img{max-width:100%}</style></head><body>",
             f"<h1>The ladder on {e(host_title(machine))}</h1>"]
    parts += [f"<p>{e(p)}</p>" for p in introduction(machine, rows + large)]
    if figure_png:
        parts.append(f"<img alt='the ladder on {e(machine.id)}' src='data:image/png;base64,"
                     f"{base64.b64encode(figure_png).decode()}'>")
    numeric = {"n", "time (s)", "GFLOP/s", "absolute speedup", "relative speedup", "% of unit peak", "predicted", "rel error"}
    for title, table in ((f"Every rung at n = {COMMON_SIZE}", rows), (f"The GPU's rungs at n = {GPU_COMPUTE_BOUND_SIZE}", large)):
        if not table:
            continue
        parts.append(f"<h2>{e(title)}</h2><table><tr>" + "".join(f"<th>{e(c)}</th>" for c in COLUMNS) + "</tr>")
        for r in table:
            parts.append("<tr>" + "".join(f"<td class='{'num' if col in numeric else 'text'}'>{e(str(v))}</td>"
                                          for col, v in zip(COLUMNS, cells(r, machine))) + "</tr>")
        parts.append("</table>")
    parts += layers_html(machine)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
