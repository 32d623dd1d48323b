"""report.py explain: a gap between two machines set against their rooflines."""
import pytest

import report
from ladderreport.testing import GPU_PARTS, ROOT, run


def test_explain_t4_against_a100_in_f32(capsys):
    code, out, _ = run(["explain", "nvidia-t4", "nvidia-a100-40gb", "--m", "4096", "--k", "256", "--gap", "170"], capsys)
    assert code == 0
    assert "compute ratio   f32:    2.41x" in out
    assert "n/a (nvidia-t4 has no tf32)" in out
    assert "bandwidth ratio    :    4.86x" in out
    assert "could give 19.3x" in out  # TF32 on the A100's tensor cores
    assert "leaves 8.83x that the hardware cannot explain" in out


def test_explain_puts_each_model_operation_on_both_rooflines(capsys):
    # explain --model reads the model's cases from whichever committed run has them.
    runs = [p for p in sorted((ROOT / "results").glob("*/*.json")) if p.parent.name != "specs"]
    assert any('"run_name": "model/' in p.read_text() for p in runs), "no committed run has the model's cases"
    code, out, err = run(["explain", "nvidia-t4", "nvidia-a100-40gb", "--model", "medium", "--gap", "170"], capsys)
    assert code == 0, err
    for op in ("corr_gemm", "attn_softmax", "mlp_gemm", "whole pass"):
        assert op in out
    assert "TF32" in out and "that the hardware cannot explain" in out
    code, _, err = run(["explain", "nvidia-t4", "nvidia-a100-40gb", "--model", "enormous"], capsys)
    assert code == 2 and "no result file holds the model at configuration 'enormous'" in err


def test_explain_refuses_an_unknown_machine(capsys):
    code, _, err = run(["explain", "nvidia-t4", "cray-1"], capsys)
    assert code == 2 and "unknown machine 'cray-1'" in err


def test_a_measured_gpu_is_explained_with_its_own_ceilings(capsys):
    if not GPU_PARTS:
        pytest.skip("no GPU result file committed")
    machines, _ = report.load_machines(GPU_PARTS)
    gpu = report.gpu_view(machines[0])
    ctx = machines[0].context
    assert gpu.id == f"{machines[0].id}/gpu"
    # Its peak in a format is the better of the FMA probe and cuBLAS; its memory the device's roof.
    assert gpu.peak("f16") == max(float(ctx["gpu_peak_f16_fma_flops"]), float(ctx["gpu_peak_cublas-f16_flops"]))
    assert gpu.peak("tf32") == float(ctx["gpu_peak_cublas-tf32_flops"])
    assert gpu.peak("f32", "vector") == float(ctx["gpu_peak_f32_fma_flops"])
    assert gpu.bandwidth() == float(ctx["gpu_bandwidth_memory_roof_bytes_per_second"])
    assert gpu.capacity() == float(ctx["gpu_memory_bytes"])
    assert report.gpu_view(report.load_spec(report.RESULTS / "specs" / "nvidia-h200.json")) is None
    code, out, err = run(["explain", gpu.id, "nvidia-h200", "--m", "8192", "--dtype", "f16"], capsys)
    assert code == 0, err
    assert f"{gpu.id}: peak f16" in out and "nvidia-h200: peak f16" in out
