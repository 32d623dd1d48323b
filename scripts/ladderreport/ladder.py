"""The ladder report of one machine: each rung's predicted and measured factor over the one below."""
import pathlib
from .machines import LADDER_SIZE
from .predict import GPU_RUNG


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

    def on_gpu(rung):
        """Where the rung ran, as the file says (rung_where/<rung>); files written before it, by name."""
        where = ctx.get(f"rung_where/{rung}")
        return where == "GPU" if where else bool(GPU_RUNG.match(rung))

    previous_rung = None
    for rung in gemm_rungs:
        c = machine.gemm_at(rung)
        description = ctx.get(f"rung/{rung}", "")
        mechanism, _, summary = description.partition(": ")
        rate = c.get("flops") if c and not c.get("error") else None
        predicted = None
        if previous and on_gpu(rung):
            # On the GPU the roof is the device's: tensor cores allow the ratio of the two rungs'
            # measured cuBLAS peaks; the other mechanisms at most the headroom to this rung's peak.
            peak = device_peak(rung)
            if mechanism == "matrix units" and previous_rung and on_gpu(previous_rung):
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
