"""A call from Python, split into its layers."""

import pytest

import report
from ladderreport.layers import layer_rows
from ladderreport.testing import ladder_machine


def test_a_call_from_python_is_split_into_interpreter_dispatch_and_kernel():
    m = ladder_machine([("openblas", 1, 0.02e-6, {}), ("numpy", 1, 0.9e-6, {}), ("numpy", 64, 5.6e-6, {}),
                        ("openblas", 64, 4.6e-6, {}), ("torch", 1, 0.7e-6, {})],
                       {"rung/openblas": "tuned library: cblas_sgemm", "rung/numpy": "Python library call: numpy.matmul",
                        "rung/torch": "Python library call: torch.matmul"})
    for key in ("gemm/numpy/f32/n:1", "gemm/numpy/f32/n:64"):
        m.cases[key]["label"] = "NumPy 1.24.2, BLAS libopenblasp-r0.3.21.so"
    m.cases["gemm/torch/f32/n:1"]["label"] = "PyTorch 2.4 CPU, its own BLAS"  # names no C library rung here
    m.cases["overhead/python-call/-/ops:100000"] = {"suite": "overhead", "rung": "python-call", "dtype": "-",
                                                     "size": 100000, "error": None, "label": "", "seconds_per_op": 0.05e-6}
    rows = {(r["rung"], r["n"]): r for r in layer_rows(m)}
    assert set(rows) == {("numpy", 1), ("numpy", 64)}  # torch: no kernel of its own measured from C
    assert rows[("numpy", 1)]["dispatch"] == pytest.approx(0.9e-6 - 0.05e-6 - 0.02e-6)
    assert rows[("numpy", 64)]["kernel_rung"] == "openblas"
    text = report.ladder_markdown(m)
    assert "## A call from Python, by layer" in text and "| numpy | 1 | 0.900 | 0.050 | 0.830 | 0.020 (openblas) |" in text
    del m.cases["overhead/python-call/-/ops:100000"]  # without the interpreter's own cost, no section
    assert "by layer" not in report.ladder_markdown(m)


def test_a_call_from_python_on_the_gpu_is_set_against_cublas_in_the_same_number_format():
    m = ladder_machine([("cublas", 1, 4e-6, {}), ("cublas-tf32", 1, 4.5e-6, {"dtype": "tf32"}),
                        ("torch-cuda", 1, 14e-6, {}), ("torch-cuda-tf32", 1, 15e-6, {"dtype": "tf32"})],
                       {"rung/cublas": "tuned library: cuBLAS f32", "rung/cublas-tf32": "matrix units: cuBLAS TF32",
                        "rung/torch-cuda": "Python library call: torch.matmul",
                        "rung/torch-cuda-tf32": "Python library call: torch.matmul, TF32",
                        **{f"rung_where/{r}": "GPU" for r in ("cublas", "cublas-tf32", "torch-cuda", "torch-cuda-tf32")}})
    for rung in ("torch-cuda", "torch-cuda-tf32"):
        m.cases[f"gemm/{rung}/f32/n:1"]["label"] = "PyTorch 2.11 CUDA 13.0 (cuBLAS) on NVIDIA H200"
    m.cases["overhead/python-call/-/ops:100000"] = {"suite": "overhead", "rung": "python-call", "dtype": "-",
                                                     "size": 100000, "error": None, "label": "", "seconds_per_op": 0.05e-6}
    rows = {r["rung"]: r for r in layer_rows(m)}
    assert rows["torch-cuda"]["kernel_rung"] == "cublas"
    assert rows["torch-cuda-tf32"]["kernel_rung"] == "cublas-tf32"  # same format, though not "tuned library"
    assert rows["torch-cuda"]["dispatch"] == pytest.approx(14e-6 - 0.05e-6 - 4e-6)
