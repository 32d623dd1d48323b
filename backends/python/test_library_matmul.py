# The GPU paths of library_matmul.py run on the CPU: a GPU is seldom where the tests run, and an
# error in the script (a PyTorch version's flag it refuses) would otherwise first show on a lent
# GPU. Tensor.cuda() is made the identity and the synchronisation a no-op, so each mode's setup,
# rounding, call, output and poison run as written. Run by ctest with the interpreter the
# library rungs use; exit 77 (skipped) where that interpreter has no PyTorch.
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

try:
    import numpy as np
    import torch
except ImportError as e:
    # The rungs look for PyTorch in LADDER_PYTHON, python3 on PATH, then /usr/bin/python3: so does this.
    for python in (os.environ.get("LADDER_PYTHON"), "/usr/bin/python3"):
        if python and os.access(python, os.X_OK) and os.path.realpath(python) != os.path.realpath(sys.executable) \
                and not os.environ.get("LADDER_TEST_REEXEC"):
            os.environ["LADDER_TEST_REEXEC"] = "1"
            os.execv(python, [python, __file__])
    print(f"skipped: {e}")
    sys.exit(77)

import library_matmul  # noqa: E402

torch.Tensor.cuda = lambda self: self
torch.cuda.synchronize = lambda: None
torch.cuda.get_device_name = lambda: "a CPU standing in for a GPU"


def check(mode, n=37):
    rng = np.random.default_rng(7)
    a, b = (rng.uniform(-1, 1, (n, n)).astype(np.float32) for _ in range(2))
    try:
        run, output, poison, describe = library_matmul.torch_cuda_kernel(np, a, b, mode)
        poison()
        assert np.isnan(output()).all(), f"{mode}: poison left numbers in the output"
        run()
    except RuntimeError as e:
        if "not implemented" in str(e):  # a CPU build of PyTorch without 16-bit GEMMs (1.13: no f16)
            print(f"{mode}: not run on this CPU ({e})")
            return
        raise
    if mode in ("f32", "tf32"):
        reference = a.astype(np.float64) @ b.astype(np.float64)
        error = np.abs(output() - reference).max() / np.abs(reference).max()
        assert error <= 1e-5, f"{mode}: relative error {error:.3g}"
    else:
        # The operands rounded to 16 bits and a 16-bit product, widened: exactly what PyTorch gives
        # for the rounded tensors (its accuracy on a CPU without bf16 units is not the GPU's, which
        # the rung's own verification checks there).
        half = torch.float16 if mode == "f16" else torch.bfloat16
        expected = torch.matmul(torch.from_numpy(a).to(half), torch.from_numpy(b).to(half)).float().numpy()
        assert np.array_equal(output(), expected), f"{mode}: not the product of the 16-bit operands"
    words = {"f32": "TF32 off", "tf32": "TF32 on", "bf16": "bf16 in and out", "f16": "f16 in and out"}[mode]
    assert words in describe(), f"{mode}: the label does not say '{words}': {describe()}"
    print(f"{mode}: as expected; {describe()}")


for mode in ("f32", "tf32", "bf16", "f16"):
    check(mode)
# JAX, where this interpreter has it: the jax rung's code on JAX's CPU backend.
try:
    import jax  # noqa: F401
except ImportError:
    print("jax: not installed here; its rung's code not run")
else:
    n = 37
    a, b = (np.random.default_rng(5).uniform(-1, 1, (n, n)).astype(np.float32) for _ in range(2))
    run, output, poison, describe = library_matmul.jax_kernel(np, a, b, platform="cpu")
    poison()
    assert np.isnan(output()).all(), "jax: poison left numbers in the output"
    run()
    reference = a.astype(np.float64) @ b.astype(np.float64)
    error = np.abs(output() - reference).max() / np.abs(reference).max()
    assert error <= 1e-5 and "precision highest" in describe(), (error, describe())
    print(f"jax: as expected; {describe()}")
# The CPU rung runs on the threads the run gives it (every rung's count), whatever PyTorch's
# default, and its label says both.
for threads in (2, 1):
    n = 37
    a, b = (np.random.default_rng(3).uniform(-1, 1, (n, n)).astype(np.float32) for _ in range(2))
    run, output, poison, describe = library_matmul.torch_kernel(np, a, b, False, threads)
    run()
    reference = a.astype(np.float64) @ b.astype(np.float64)
    error = np.abs(output() - reference).max() / np.abs(reference).max()
    assert error <= 1e-5, f"torch: relative error {error:.3g}"
    assert torch.get_num_threads() == threads and f"CPU, {threads} intra-op thread" in describe(), \
        (threads, torch.get_num_threads(), describe())
    print(f"torch on {threads} threads: as expected; {describe()}")
print("library_matmul.py's GPU modes set up, round, multiply, poison and describe as they should")
