# The GEMM as a Python user calls a library: one matmul call from the real interpreter, timed
# around the call, so the interpreter's and the library's dispatch are in the figure. Started
# once per case by the C++ rung, it answers commands on stdin, one per line:
#   run [K]   one C = A·B (or K of them, back to back), timed; prints the seconds
#   output    writes C to the output file (float32, row-major); prints "ok"
#   poison    fills C with NaN (so that a call that skips its work shows); prints "ok"
# Usage: library_matmul.py LIBRARY n a.bin b.bin c.bin THREADS, LIBRARY one of numpy, torch,
# torch-bf16, torch-cuda, torch-cuda-tf32, torch-cuda-f16, torch-cuda-bf16, jax, cupy (the last two
# on a GPU); THREADS the threads every CPU rung of the run uses (OpenMP's count).
# It prints one line first: "ready <what ran: library, version, BLAS and threads>", or
# "unavailable <why>" and exits.
import os
import sys
import time


def loaded_blas():
    """The BLAS shared libraries mapped into this process, by their real file names."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "blas" in line.lower() and ".so" in line}
    except OSError:
        return "?"
    return ", ".join(sorted(os.path.basename(os.path.realpath(p)) for p in paths)) or "?"


def numpy_kernel(np, a, b):
    c = np.empty_like(a)

    def run():
        np.matmul(a, b, out=c)

    def describe():
        threads = ""
        try:
            from threadpoolctl import threadpool_info
            pools = [f"{p['internal_api']} {p['version']} x{p['num_threads']}" for p in threadpool_info()]
            threads = ", " + ", ".join(pools)
        except ImportError:  # without threadpoolctl: the BLAS library the process has loaded
            threads = f", BLAS {loaded_blas()}"
        return f"NumPy {np.__version__}{threads}"

    def poison():
        c[...] = float("nan")

    return run, (lambda: c), poison, describe


def torch_kernel(np, a, b, bf16, threads):
    """torch.matmul on CPU tensors, f32; or bf16: the operands rounded to bf16 once, outside the
    timing (a user's tensors are already bf16), and a bf16 output, which the rung is verified with.
    It runs on the threads every rung of the run gets: PyTorch's own default counts physical cores
    (one on a VM whose two vCPUs are one core's two threads, where OpenBLAS, NumPy and the C++ rungs
    run two), and a ladder of rungs on different thread counts would measure the thread count, not
    the layer. Its default is named in the label."""
    import torch
    # PyTorch's default, as it was before this process first set it
    default_threads = torch_kernel.__dict__.setdefault("default_threads", torch.get_num_threads())
    torch.set_num_threads(threads)  # also the BLAS's pool, where PyTorch's GEMM goes to one
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    if bf16:
        ta, tb = ta.bfloat16(), tb.bfloat16()
    tc = torch.empty_like(ta)

    def run():
        torch.matmul(ta, tb, out=tc)

    def describe():
        count = torch.get_num_threads()
        threads_said = f"{count} intra-op thread{'s' if count != 1 else ''} (PyTorch's default here: {default_threads})"
        if bf16:
            return f"PyTorch {torch.__version__} CPU bf16, {threads_said}"
        # A GEMM may go to a BLAS (Debian's PyTorch: the system OpenBLAS), so it is named.
        return f"PyTorch {torch.__version__} CPU, {threads_said}, BLAS {loaded_blas()}"

    return run, (lambda: tc.float().numpy()), (lambda: tc.fill_(float("nan"))), describe


def torch_cuda_kernel(np, a, b, mode):
    """torch.matmul on the GPU. mode f32: f32 in and out, TF32 off; tf32: the same with TF32 tensor
    cores allowed; f16, bf16: the operands rounded once outside the timing (a user's tensors are
    already 16-bit), a 16-bit output (which the rung is verified with), and the reductions kept in
    f32 (PyTorch's reduced-precision reductions off), as the cuBLAS rungs compute. A call is timed
    as a user's is: the call from Python, the library's dispatch and the kernel, up to a
    torch.cuda.synchronize() (the kernels run asynchronously otherwise)."""
    import torch
    matmul = torch.backends.cuda.matmul
    matmul.allow_tf32 = mode == "tf32"
    torch.backends.cudnn.allow_tf32 = mode == "tf32"
    for flag in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
        try:  # PyTorch 1.12+ and 2.0+ have them; 1.13 refuses the second with an AssertionError
            setattr(matmul, flag, False)
        except (AttributeError, AssertionError, RuntimeError):
            pass
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    if mode in ("f16", "bf16"):
        to = torch.float16 if mode == "f16" else torch.bfloat16
        ta, tb = ta.to(to), tb.to(to)
    tc = torch.empty_like(ta)

    def run():
        torch.matmul(ta, tb, out=tc)
        torch.cuda.synchronize()

    def describe():
        how = {"f32": "f32, TF32 off", "tf32": "f32, TF32 on", "f16": "f16 in and out, f32 reductions",
               "bf16": "bf16 in and out, f32 reductions"}[mode]
        return (f"PyTorch {torch.__version__} CUDA {torch.version.cuda} (cuBLAS) on {torch.cuda.get_device_name()}, "
                f"{how}, timed to torch.cuda.synchronize()")

    return run, (lambda: tc.float().cpu().numpy()), (lambda: tc.fill_(float("nan"))), describe


def jax_kernel(np, a, b, platform="gpu"):
    """jax.numpy.matmul on the GPU, f32 at full precision (JAX's default lets a GPU use TF32 or
    bf16 passes for f32 products: "highest" asks for f32, as the cuBLAS f32 rung computes). The
    call is the eager one a user writes (XLA compiles it on the first call, outside the timing),
    its result a new array each call (JAX arrays are immutable), timed to block_until_ready()."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_default_matmul_precision", "highest")
    device = jax.devices(platform)[0]
    ta, tb = jax.device_put(a, device), jax.device_put(b, device)
    state = {"c": jnp.matmul(ta, tb).block_until_ready()}

    def run():
        state["c"] = jnp.matmul(ta, tb).block_until_ready()

    def poison():
        state["c"] = jnp.full_like(state["c"], float("nan"))

    def describe():
        return (f"JAX {jax.__version__} on {device.device_kind} ({device.platform}), f32 at precision highest, "
                "timed to block_until_ready()")

    return run, (lambda: np.asarray(state["c"])), poison, describe


def cupy_kernel(np, a, b):
    """cupy.matmul on the GPU, f32 (CuPy's cuBLAS call; TF32 only where CUPY_TF32=1, which is not
    set here), into a preallocated output, timed to a device synchronisation."""
    import cupy
    if os.environ.get("CUPY_TF32", "0") != "0":
        raise RuntimeError("CUPY_TF32 is set: the cupy rung is f32")
    ta, tb = cupy.asarray(a), cupy.asarray(b)
    tc = cupy.empty_like(ta)

    def run():
        cupy.matmul(ta, tb, out=tc)
        cupy.cuda.Device().synchronize()

    def describe():
        name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
        name = name.decode() if isinstance(name, bytes) else name
        return (f"CuPy {cupy.__version__} CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()} (cuBLAS) on {name}, "
                "f32, timed to a device synchronize")

    return run, (lambda: cupy.asnumpy(tc)), (lambda: tc.fill(float("nan"))), describe


def main():
    library, n = sys.argv[1], int(sys.argv[2])
    a_path, b_path, c_path = sys.argv[3:6]
    threads = int(sys.argv[6])
    try:
        import numpy as np
        make = {"numpy": numpy_kernel,
                "torch": lambda np, a, b: torch_kernel(np, a, b, False, threads),
                "torch-bf16": lambda np, a, b: torch_kernel(np, a, b, True, threads),
                "torch-cuda": lambda np, a, b: torch_cuda_kernel(np, a, b, "f32"),
                "torch-cuda-tf32": lambda np, a, b: torch_cuda_kernel(np, a, b, "tf32"),
                "torch-cuda-f16": lambda np, a, b: torch_cuda_kernel(np, a, b, "f16"),
                "torch-cuda-bf16": lambda np, a, b: torch_cuda_kernel(np, a, b, "bf16"),
                "jax": jax_kernel,
                "cupy": cupy_kernel}[library]
        a = np.fromfile(a_path, dtype=np.float32).reshape(n, n)
        b = np.fromfile(b_path, dtype=np.float32).reshape(n, n)
        # poison: NaN into the array the library writes (on the GPU for the CUDA kernels), so that
        # a call that skips its work shows.
        run, output, poison, describe = make(np, a, b)
    except Exception as e:  # an import that fails is the rung's reason to be unavailable
        print(f"unavailable {library}: {e.__class__.__name__}: {e}".replace("\n", " "), flush=True)
        return
    print(f"ready {describe()}", flush=True)
    for line in sys.stdin:
        command = line.strip()
        if command.split()[0:1] == ["run"]:  # "run" or "run K": K calls, their total seconds
            calls = int(command.split()[1]) if len(command.split()) > 1 else 1
            start = time.perf_counter()
            for _ in range(calls):
                run()
            print(repr(time.perf_counter() - start), flush=True)
        elif command == "output":
            output().astype(np.float32).tofile(c_path)
            print("ok", flush=True)
        elif command == "poison":
            poison()
            print("ok", flush=True)
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
