"""What a spec sheet predicts: the roofline of a machine we cannot run on."""
import re


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
