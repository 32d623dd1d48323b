"""How much of a speed gap between two machines their hardware explains."""
import math
from .predict import INPUT_BYTES, gemm_bound


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
