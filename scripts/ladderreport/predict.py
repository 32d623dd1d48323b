"""What a spec sheet predicts: the roofline of a machine we cannot run on.

A prediction is for a problem some file measured: its FLOPs and bytes are that case's counters,
never derived here. The device and unit a rung ran on come from the measuring file too."""
import re

# Files written before rung_where/<rung> name the GPU's rungs only by these names.
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


def spec_peak(spec, dtype):
    """The spec's peak for a number format, which a GEMM large enough to be compute-bound reaches:
    f32 and f64 on the vector units (a matrix unit's f32 is another format, tf32), the others on
    the best unit that has them."""
    return spec.peak(dtype, "vector" if dtype in ("f32", "f64") else "best")


def predict_case(spec, case, on_gpu, floor):
    """FLOP/s a spec'd machine should reach on a measured GEMM case's problem (its counters' FLOPs
    and bytes): min(peak, bandwidth x intensity), floored by the fixed cost; None where the
    case ran on the other kind of device or its file does not say its FLOPs and bytes."""
    if (spec.kind == "gpu") != on_gpu or not case.get("bytes") or not case.get("intensity"):
        return None
    peak = spec_peak(spec, case["dtype"])
    if not peak:
        return None
    bytes_ = case["bytes"]
    flops = case["intensity"] * bytes_
    return flops / gemm_bound(flops, bytes_, peak, spec.bandwidth(), floor)


def predict_stream(spec, rung):
    if (spec.kind == "gpu") != rung.startswith("device-"):
        return None
    return spec.bandwidth()
