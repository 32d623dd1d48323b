"""report.py explain: a gap between two machines set against their rooflines."""
import json

import pytest

from ladderreport.testing import RESULT, run


def test_explain_t4_against_a100_in_f32(capsys):
    code, out, _ = run(["explain", "nvidia-t4", "nvidia-a100-40gb", "--m", "4096", "--k", "256", "--gap", "170"], capsys)
    assert code == 0
    assert "compute ratio   f32:    2.41x" in out
    assert "n/a (nvidia-t4 has no tf32)" in out
    assert "bandwidth ratio    :    4.86x" in out
    assert "could give 19.3x" in out  # TF32 on the A100's tensor cores
    assert "leaves 8.83x that the hardware cannot explain" in out


def test_explain_puts_each_model_operation_on_both_rooflines(capsys):
    doc = json.loads(RESULT.read_text())
    if not any(b["run_name"].startswith("model/") for b in doc["benchmarks"]):
        pytest.skip("the newest result file has no model cases")
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
