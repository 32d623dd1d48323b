"""The ladder's "why": the factor each rung's mechanism predicts over the rung it refines, from this
machine's own probes, and, where the measured factor misses it, the measured reasons (regime,
working set, traffic, fixed costs). ladder.py lays the rows out; this module reasons about them."""
import re

from .machines import GPU_LIBRARY_MODE, on_gpu


def gflops(rate):
    return f"{rate / 1e9:,.0f} GFLOP/s" if rate >= 1e12 else f"{rate / 1e9:.4g} GFLOP/s"


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


def gpu_unit(machine, rung, mechanism):
    """Whether a GPU rung computes on the tensor cores, and in which format: TF32 (f32 data), f16 or
    bf16 there; f32 on the CUDA cores (cuBLAS pedantic and the hand kernels)."""
    dtype = (machine.gemm_at(rung) or {}).get("dtype", "f32")
    tensor = mechanism == "matrix units" or "tf32" in rung or dtype in ("f16", "bf16")
    return tensor, "tf32" if "tf32" in rung else dtype


def time_per_fma(machine, rung, size):
    """(n, seconds per FMA) of the rung's two largest measured sizes below `size`, where it ran at two:
    the n^3 extrapolation holds where this stays constant (an interpreter), and flatters where it
    grows (a rung whose working set moves to a slower level as n grows)."""
    ran = sorted((n, c["seconds"] / n ** 3) for n, c in machine.gemm_ran(rung).items() if c.get("seconds") and n < size)
    return ran[-2:] if len(ran) >= 2 else []


def model_curve(machine, rung):
    """{n: FLOP/s} the rung's model allows (rung_model_rate/<rung>, "n:rate,..."); {} where none."""
    curve = {}
    for pair in str(machine.context.get(f"rung_model_rate/{rung}", "") or "").split(","):
        n, _, rate = pair.partition(":")
        try:
            curve[int(n)] = float(rate)
        except ValueError:
            continue
    return curve


def model_scaling(machine, rung, n, size):
    """(rate its model allows at n, at size), or None where the run gave no model curve through both
    (an interpreter's, a library's, older files)."""
    curve = model_curve(machine, rung)
    return (curve[n], curve[size]) if curve.get(n) and curve.get(size) else None


def extrapolation_text(machine, row):
    """How a row's time at the common size was reached from the sizes it ran at."""
    if row.get("model_rates"):
        at_n, at_size = row["model_rates"]
        return (f"{row['size']} (extrapolated from n = {row['n']} by its traffic model, its share of the model's rate "
                f"held: the model allows {gflops(at_n)} at n = {row['n']} and {gflops(at_size)} at {row['size']})")
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
        # A boxed add costs what this many FLOPs of the compiled loop do not: at the rate of one
        # chain of dependent adds where the run measured it (naive's sum is one), else at the
        # scalar FMA units' (files written before the chain probe).
        chain = probe_rate(ctx, "scalar-add-chain", "f32", 1)
        if boxed_add and chain:
            return made(boxed_add * chain, f"one boxed add ({boxed_add * 1e9:.3g} ns, overhead probe) at the "
                                           f"scalar-add-chain probe's {gflops(chain)} (its sum is one chain of adds)")
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


# A rate within this factor of one dependency chain's (either way) is taken as waiting on it.
CHAIN_FACTOR = 2.0


def chain_reason(machine, rung, rate):
    """For a rung whose sum is one chain of dependent adds (rung_serial_sum/<rung>): its rate beside one
    such chain's, measured by the scalar-add-chain probe, where within CHAIN_FACTOR of it; else ""."""
    chain = probe_rate(machine.context, "scalar-add-chain", "f32", 1)
    if not machine.context.get(f"rung_serial_sum/{rung}") or not chain or not rate:
        return ""
    if not 1 / CHAIN_FACTOR <= rate / chain <= CHAIN_FACTOR:
        return ""
    return (f"its sum is one chain of dependent adds: {rate / 1e9:.3g} GFLOP/s is {rate / chain:.2g}x the rate of one "
            f"such chain (the scalar-add-chain probe, {chain / 1e9:.3g} GFLOP/s), so it waits on each add's latency, "
            "the next element's chain overlapping its tail")


# Stack accesses in a rung's hottest compiled loop named as a reason where they are at least this
# share of its arithmetic: a loop that reloads an accumulator for every second multiply-add or more
# (Zen 3's tiled: 28 beside 24) is held by its loads and stores; a few spilled counters in a long
# unrolled loop (autovec: 4 beside 16) are not.
SPILL_SHARE = 0.5


def inner_loop(machine, rung):
    """The rung's hottest compiled loop as the build read it (rung_inner_loop/<rung>, its fields named
    by rung_inner_loop_fields), as a dict of ints; None where the run did not record it."""
    fields = str(machine.context.get("rung_inner_loop_fields", "")).split(",")
    values = str(machine.context.get(f"rung_inner_loop/{rung}", "")).split(",")
    if len(fields) != len(values) or not values[0]:
        return None
    try:
        return dict(zip(fields, map(int, values)))
    except ValueError:
        return None


def spill_reason(machine, rung):
    """Register spills counted in the rung's compiled inner loop (objdump at build), where its stack
    loads and stores are at least SPILL_SHARE of its arithmetic; else ""."""
    loop = inner_loop(machine, rung)
    if not loop or not loop.get("arithmetic"):
        return ""
    loads, stores, arithmetic = loop.get("stack_loads", 0), loop.get("stack_stores", 0), loop["arithmetic"]
    if loads + stores < SPILL_SHARE * arithmetic:
        return ""
    return (f"its compiled inner loop spills registers: {loads} loads from and {stores} stores to the stack beside "
            f"{arithmetic} arithmetic instructions a pass ({loop.get('instructions', 0)} instructions; objdump of "
            "the rung's object at build)")


# A loop within this factor of one pass a cycle is said to be held by it.
ITERATION_NEAR = (0.75, 1.1)


def iteration_reason(machine, rung, rate, threads=1):
    """A one-core rung near one pass of its compiled inner loop a cycle: a core takes one loop
    branch a cycle, so a loop doing F FLOP a pass runs at most F x the measured clock; else ""."""
    loop = inner_loop(machine, rung)
    clock = float(machine.context.get("cpu_clock_measured_hz", 0) or 0)
    if not loop or not loop.get("flops") or not clock or not rate or threads != 1:
        return ""
    bound = loop["flops"] * clock
    if not ITERATION_NEAR[0] <= rate / bound <= ITERATION_NEAR[1]:
        return ""
    return (f"one pass of its loop a cycle: its compiled inner loop does {loop['flops']} FLOP a pass in "
            f"{loop.get('instructions', 0)} instructions (objdump of the rung's object at build), and a core takes one "
            f"loop branch a cycle: {loop['flops']} x the measured clock {clock / 1e9:.3g} GHz = {bound / 1e9:.3g} GFLOP/s, "
            f"of which it reaches {rate / bound:.0%}")


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
    if (chain := chain_reason(machine, row["rung"], row.get("rate"))) and row["measured"] < row["predicted"]:
        reasons.append(chain)
    if (spills := spill_reason(machine, row["rung"])) and row["measured"] < row["predicted"]:
        reasons.append(spills)
    if (passes := iteration_reason(machine, row["rung"], row.get("rate"), threads)) and row["measured"] < row["predicted"]:
        reasons.append(passes)
    if c.get("size") != p.get("size") and not reasons:
        reasons.append(f"the two rungs were measured at different sizes (n = {p['size']} and n = {c['size']})")
    # "Reaches x% of its roof" says how far it is, not why: no mechanism found is said as such. The
    # share of a memory or overhead roof is said beside it (the % column is of the unit's peak).
    if not reasons:
        share = (f" ({100 * c['roof_fraction']:.2g}% of its {row['regime']} roof)"
                 if c.get("roof_fraction") and row["regime"] and row["regime"] != "compute" else "")
        reasons.append(f"unexplained{share}")
    return "; ".join(reasons)
