"""What a small GEMM costs called from Python, layer by layer, from one run's overhead cases: the
interpreter (a call of an empty Python function, overhead/python-call), the library's dispatch
(numpy.matmul's or torch.matmul's call less the layers around it), and the kernel (the same GEMM
called from C through the BLAS the Python library runs on, cuBLAS on the GPU: the call's own cost
and the arithmetic)."""
import html

from .machines import on_gpu

LAYER_SIZES = (1, 64)
COLUMNS = ("call", "n", "whole call (µs)", "interpreter: an empty Python call (µs)", "library dispatch (µs)",
           "kernel: the same GEMM from C (µs)")


def mechanism(machine, rung):
    return str(machine.context.get(f"rung/{rung}", "")).split(":", 1)[0]


def seconds_at(machine, rung, n):
    case = next((c for c in machine.cases.values()
                 if c["suite"] == "gemm" and c["rung"] == rung and c["size"] == n and not c.get("error")), None)
    return case.get("seconds") if case else None


def kernel_rung(machine, rung, n):
    """The C library rung the Python library's own label names (its BLAS), measured at n: on the
    CPU a tuned library's; on the GPU the library's rung in the same number format (cuBLAS's
    cublas for torch-cuda, cublas-tf32 for torch-cuda-tf32), which is matrix units for tf32."""
    cases = [c for c in machine.cases.values() if c["suite"] == "gemm" and c["rung"] == rung]
    label = next((c["label"].lower() for c in cases), "")
    dtype, gpu = (cases[0]["dtype"] if cases else None), on_gpu(machine, rung)
    for key in machine.order:
        c = machine.cases[key]
        if c["suite"] != "gemm" or c["rung"] == rung or not seconds_at(machine, c["rung"], n):
            continue
        if gpu:
            if (on_gpu(machine, c["rung"]) and c["dtype"] == dtype and c["rung"].split("-")[0] in label
                    and mechanism(machine, c["rung"]) in ("tuned library", "matrix units")):
                return c["rung"]
        elif mechanism(machine, c["rung"]) == "tuned library" and c["rung"] in label:
            return c["rung"]
    return None


def layer_rows(machine):
    """One row per Python library rung and size that ran with an interpreter call and its kernel beside it."""
    call = next((c for c in machine.cases.values() if c["suite"] == "overhead" and c["rung"] == "python-call"
                 and c.get("seconds_per_op") and not c.get("error")), None)
    if not call:
        return []
    rows = []
    rungs = [r for r in dict.fromkeys(c["rung"] for c in machine.cases.values() if c["suite"] == "gemm")
             if mechanism(machine, r) == "Python library call"]
    for rung in rungs:
        for n in LAYER_SIZES:
            whole, kernel = seconds_at(machine, rung, n), kernel_rung(machine, rung, n)
            if not whole or not kernel:
                continue
            kernel_seconds = seconds_at(machine, kernel, n)
            rows.append({"rung": rung, "n": n, "whole": whole, "interpreter": call["seconds_per_op"],
                         "dispatch": whole - call["seconds_per_op"] - kernel_seconds, "kernel": kernel_seconds,
                         "kernel_rung": kernel})
    return rows


def cells(row):
    us = 1e6
    return (f"{row['rung']}", row["n"], f"{row['whole'] * us:.3f}", f"{row['interpreter'] * us:.3f}",
            f"{row['dispatch'] * us:.3f}" if row["dispatch"] >= 0 else f"{row['dispatch'] * us:.3f} (within the noise)",
            f"{row['kernel'] * us:.3f} ({row['kernel_rung']})")


INTRODUCTION = ("Each Python library call split into its layers, from this machine's overhead cases: the interpreter's "
                "part is a call of an empty Python function in the same interpreter; the kernel's is the same GEMM called "
                "from C through the BLAS the library's label names (its own call cost and the arithmetic); the library's "
                "dispatch is the rest (argument checks, the output array, the choice of kernel).")


def layers_markdown(machine):
    rows = layer_rows(machine)
    if not rows:
        return []
    lines = ["", "## A call from Python, by layer", "", INTRODUCTION, "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(str(v) for v in cells(r)) + " |" for r in rows]
    return lines


def layers_html(machine):
    rows = layer_rows(machine)
    if not rows:
        return []
    e = html.escape
    parts = ["<h2>A call from Python, by layer</h2>", f"<p>{e(INTRODUCTION)}</p><table><tr>"
             + "".join(f"<th>{e(c)}</th>" for c in COLUMNS) + "</tr>"]
    parts += ["<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in cells(r)) + "</tr>" for r in rows]
    return parts + ["</table>"]
