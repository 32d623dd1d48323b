# The model as a PyTorch user writes it: a plain torch.nn.Module (nn.Linear, nn.LayerNorm,
# softmax, GELU) for the same dense-matching network as suites/model/forward.hpp, with the
# weights and inputs the C++ definition made (model.cpp), so that its output is checked against
# the same double reference. What changed from our own backends: every operation is one call
# into PyTorch's dispatcher and its kernels, and the Python between them runs in the real
# interpreter; what that costs a pass is what this backend shows beside `cpu` and `cuda`.
# The compiled modes go one step further, as a PyTorch 2 user does: torch.compile (TorchDynamo
# captures the module's graph, Inductor generates fused kernels for everything but the matrix
# products, which stay library calls), so the per-operation dispatch and Python disappear and
# element-wise operations stop making a round trip through memory each. Their kernels span several
# of our operations, so their pass is split into library and generated kernels, not by operation.
#
# Started once per configuration by the C++ backend (model_torch.cpp); it answers commands on
# stdin, one per line:
#   run [K]      one forward pass (or K back to back), timed from the call to the outputs being
#                ready; prints the seconds
#   output       writes flow then head (float32, L x 2 each) to the output file; prints "ok"
#   poison       replaces the last outputs with NaN; prints "ok"
#   profile K    K passes split by operation: prints "wall=S framework=S basis=... <op>=S ..."
#                (seconds per pass; see profile()); compiled: "wall=S [framework=S] basis=...
#                library_kernels=S generated_kernels=S compile=S" (see profile_compiled())
#   memory       prints the bytes it holds at its peak (GPU: allocated by PyTorch; CPU: resident)
# Usage: torch_model.py MODE H W C LAYERS HEADS weights.bin inputs.bin output.bin
#    or: torch_model.py probe MODE...: each mode's smallest real call (a 4x4 product and GELU on its
#        device, through torch.compile for the compiled modes), checked; prints for each mode, in
#        order, a line "ok" or "unavailable <why>".
# PyTorch keeps its own thread settings, as a user's script would: its default intra-op threads for
# the element-wise kernels, and a BLAS with its own pool where its matrix products go there
# (Debian's build: the system OpenBLAS). Forcing both pools onto every core oversubscribes them: on
# the 2-core development VM, torch.set_num_threads(2) made passes of `small` vary from 4 to 40 ms.
# MODE: torch (CPU f32), torch-cuda (f32, TF32 off), torch-cuda-tf32, torch-cuda-f16 (autocast),
# torch-compile (CPU f32, torch.compile), torch-compile-cuda (GPU f32, TF32 off, torch.compile).
# It prints one line first: "ready <PyTorch, device, threads>", or "unavailable <why>" and exits.
# Over 400 lines as one file: the program runs it as one script in its own interpreter.
import contextlib
import math
import sys
import time

OPS = ("corr_gemm", "corr_softmax", "soft_argmax", "layernorm", "qkv_gemm", "attn_scores", "attn_softmax",
       "attn_values", "out_gemm", "mlp_gemm", "gelu", "residual", "head_gemm")

# Named ranges only while the pass is split by operation (a timed pass runs the module as a user
# would): torch.profiler's ranges on a GPU, a timer around each on the CPU (split_passes).
split_mode = None  # None, "profiler" or "timer"
op_seconds = {}


class OpTimer:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.start = time.perf_counter()

    def __exit__(self, *exc):
        op_seconds[self.name] = op_seconds.get(self.name, 0.0) + time.perf_counter() - self.start


def op(name):
    if split_mode == "profiler":
        import torch
        return torch.profiler.record_function(name)
    if split_mode == "timer":
        return OpTimer(name)
    return contextlib.nullcontext()


def define_module(torch):
    nn, F = torch.nn, torch.nn.functional

    class EncoderLayer(nn.Module):
        """Pre-norm transformer layer: x + attention(LN(x)), then x + MLP(LN(x))."""

        def __init__(self, channels, heads):
            super().__init__()
            self.heads, self.head_dim = heads, channels // heads
            self.ln1, self.ln2 = nn.LayerNorm(channels), nn.LayerNorm(channels)
            self.qkv = nn.Linear(channels, 3 * channels)
            self.out = nn.Linear(channels, channels)
            self.mlp1 = nn.Linear(channels, 4 * channels)
            self.mlp2 = nn.Linear(4 * channels, channels)

        def forward(self, x):
            tokens, channels = x.shape
            with op("layernorm"):
                h = self.ln1(x)
            with op("qkv_gemm"):
                qkv = self.qkv(h)
            with op("attn_scores"):
                q, k, v = qkv.view(tokens, 3, self.heads, self.head_dim).permute(1, 2, 0, 3)
                scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
            with op("attn_softmax"):
                probs = scores.softmax(dim=-1)
            with op("attn_values"):
                attn = torch.matmul(probs, v).transpose(0, 1).reshape(tokens, channels)
            with op("out_gemm"):
                out = self.out(attn)
            with op("residual"):
                x = x + out
            with op("layernorm"):
                h = self.ln2(x)
            with op("mlp_gemm"):
                m = self.mlp1(h)
            with op("gelu"):
                m = F.gelu(m, approximate="tanh")
            with op("mlp_gemm"):
                m = self.mlp2(m)
            with op("residual"):
                x = x + m
            return x

    class DenseMatcher(nn.Module):
        """All-pairs correlation of two (C, H, W) feature maps, softmax and soft-argmax to a flow
        per pixel; transformer layers over the first map's pixels, read by a linear head."""

        def __init__(self, height, width, channels, layers, heads):
            super().__init__()
            self.layers = nn.ModuleList(EncoderLayer(channels, heads) for _ in range(layers))
            self.head = nn.Linear(channels, 2)
            pixel = torch.arange(height * width)
            self.register_buffer("coords", torch.stack([pixel % width, pixel // width], dim=1).float())

        def forward(self, f1, f2):
            channels = f1.shape[0]
            f1, f2 = f1.reshape(channels, -1), f2.reshape(channels, -1)
            with op("corr_gemm"):
                corr = torch.matmul(f1.t(), f2) * (1.0 / math.sqrt(channels))
            with op("corr_softmax"):
                probs = corr.softmax(dim=-1)
            with op("soft_argmax"):
                flow = torch.matmul(probs, self.coords) - self.coords
            with op("residual"):
                x = f1.t().contiguous()
            for layer in self.layers:
                x = layer(x)
            with op("head_gemm"):
                head = self.head(x)
            return flow, head

    return DenseMatcher


def load_weights(np, torch, module, path, channels, layers):
    """The C++ order (model.hpp's Weights): per layer ln1 gamma, beta, w_qkv (C x 3C), b_qkv,
    w_out (C x C), b_out, ln2 gamma, beta, w_mlp1 (C x 4C), b_mlp1, w_mlp2 (4C x C), b_mlp2; then
    w_head (C x 2), b_head. Weights are stored input-major (x · W); nn.Linear keeps W transposed."""
    flat = np.fromfile(path, dtype=np.float32)
    at = 0

    def take(*shape):
        nonlocal at
        count = int(np.prod(shape))
        part = torch.from_numpy(flat[at:at + count].reshape(shape).copy())
        at += count
        return part

    def linear(layer, rows, cols):
        layer.weight.copy_(take(rows, cols).t())
        layer.bias.copy_(take(cols))

    C = channels
    with torch.no_grad():
        for layer in module.layers:
            layer.ln1.weight.copy_(take(C))
            layer.ln1.bias.copy_(take(C))
            linear(layer.qkv, C, 3 * C)
            linear(layer.out, C, C)
            layer.ln2.weight.copy_(take(C))
            layer.ln2.bias.copy_(take(C))
            linear(layer.mlp1, C, 4 * C)
            linear(layer.mlp2, 4 * C, C)
        linear(module.head, C, 2)
    if at != flat.size:
        raise ValueError(f"weights file holds {flat.size} numbers, the model {at}")


def error_line(e):
    """The exception's first line, and that of the error at the root of its chain where another
    (Inductor's BackendCompilerFailed says only "backend='inductor' raised:")."""
    def first(x):  # a compiler's failure names its whole command line: the start of it says enough
        line = (str(x).strip().splitlines() or [""])[0]
        return f"{x.__class__.__name__}: {line if len(line) <= 200 else line[:200] + ' ...'}"
    root = e
    while root.__cause__ is not None or root.__context__ is not None:
        root = root.__cause__ if root.__cause__ is not None else root.__context__
    return first(e) if root is e else f"{first(e)} ({first(root)})"


def probe(mode):
    """What a backend must show before it is offered: its real path, at the smallest size."""
    try:
        import numpy as np
        import torch
        cuda = mode.startswith("torch-cuda") or mode == "torch-compile-cuda"
        if cuda and not torch.cuda.is_available():
            raise RuntimeError("PyTorch sees no GPU")
        device = torch.device("cuda" if cuda else "cpu")
        x = np.arange(16, dtype=np.float32).reshape(4, 4) / 16

        def step(t):
            return torch.nn.functional.gelu(t @ t)

        if mode.startswith("torch-compile") and not hasattr(torch, "compile"):
            raise RuntimeError(f"PyTorch {torch.__version__} has no torch.compile (2.0 on; or set LADDER_PYTHON)")
        runner = torch.compile(step) if mode.startswith("torch-compile") else step
        with torch.no_grad(), (torch.autocast(device_type="cuda", dtype=torch.float16) if mode == "torch-cuda-f16"
                               else contextlib.nullcontext()):
            got = runner(torch.from_numpy(x).to(device)).float().cpu().numpy()
        y = x.astype(np.float64) @ x
        want = 0.5 * y * (1 + np.vectorize(math.erf)(y / math.sqrt(2)))
        if not np.allclose(got, want, rtol=1e-2, atol=1e-3):
            raise ArithmeticError(f"a 4x4 product and GELU came out wrong (largest error {np.abs(got - want).max():.3g})")
    except Exception as e:  # noqa: BLE001 — any failure of the real path is the reason
        print(f"unavailable {error_line(e)}", flush=True)
        return
    print("ok", flush=True)


def event_device_seconds(event):
    total = getattr(event, "device_time_total", None)  # PyTorch 2.x; cuda_time_total before
    return (total if total is not None else event.cuda_time_total) / 1e6


def main():
    if sys.argv[1] == "probe":
        for probed in sys.argv[2:]:
            probe(probed)
        return
    mode = sys.argv[1]
    height, width, channels, layers, heads = (int(v) for v in sys.argv[2:7])
    weights_path, inputs_path, output_path = sys.argv[7:10]
    try:
        import numpy as np
        import torch
        if mode not in ("torch", "torch-cuda", "torch-cuda-tf32", "torch-cuda-f16", "torch-compile", "torch-compile-cuda"):
            raise ValueError(f"unknown mode {mode}")
        cuda = mode.startswith("torch-cuda") or mode == "torch-compile-cuda"
        compiled = mode.startswith("torch-compile")
        if cuda and not torch.cuda.is_available():
            raise RuntimeError("PyTorch sees no GPU")
        if compiled and not hasattr(torch, "compile"):
            raise RuntimeError(f"PyTorch {torch.__version__} has no torch.compile (2.0 on)")
        device = torch.device("cuda" if cuda else "cpu")
        if cuda:
            tf32 = mode == "torch-cuda-tf32"
            torch.backends.cuda.matmul.allow_tf32 = tf32
            torch.backends.cudnn.allow_tf32 = tf32
        module = define_module(torch)(height, width, channels, layers, heads)
        load_weights(np, torch, module, weights_path, channels, layers)
        module = module.to(device).eval()
        features = np.fromfile(inputs_path, dtype=np.float32).reshape(2, channels, height, width)
        f1, f2 = (torch.from_numpy(features[i].copy()).to(device) for i in range(2))
        runner, compile_seconds = module, 0.0
        if compiled:
            # Inductor's default mode; the first call compiles (minutes on a small machine), here,
            # before any pass is timed, and its time is reported apart.
            runner = torch.compile(module)
            start = time.perf_counter()
            with torch.no_grad():
                runner(f1, f2)
            if cuda:
                torch.cuda.synchronize()
            compile_seconds = time.perf_counter() - start
    except Exception as e:  # an import or a device that fails is the backend's reason to be unavailable
        print(f"unavailable {mode}: {error_line(e)}", flush=True)
        return

    def synchronize():
        if cuda:
            torch.cuda.synchronize()

    def forward():
        with torch.no_grad():
            if mode == "torch-cuda-f16":
                with torch.autocast(device_type="cuda", dtype=torch.float16):
                    flow, head = runner(f1, f2)
                return flow.float(), head.float()
            return runner(f1, f2)

    last = None
    if cuda:
        where = (f"CUDA {torch.version.cuda} on {torch.cuda.get_device_name()}, "
                 f"{'TF32 on' if mode == 'torch-cuda-tf32' else 'f16 autocast' if mode == 'torch-cuda-f16' else 'TF32 off'}, "
                 "timed to torch.cuda.synchronize()")
    else:
        blas = "?"
        try:
            with open("/proc/self/maps") as maps:
                blas = ", ".join(sorted({line.split()[-1].rsplit("/", 1)[-1] for line in maps
                                         if "blas" in line.lower() and ".so" in line})) or "?"
        except OSError:
            pass
        where = f"CPU, {torch.get_num_threads()} intra-op threads (its default), BLAS {blas}"
    if compiled:
        where += ", torch.compile (Inductor, default mode)"
    print(f"ready PyTorch {torch.__version__} {where}", flush=True)
    for line in sys.stdin:
        words = line.split()
        command = words[0] if words else ""
        if command == "run":  # "run" or "run K": K passes back to back, their total seconds
            start = time.perf_counter()
            for _ in range(int(words[1]) if len(words) > 1 else 1):
                last = forward()
            synchronize()
            print(repr(time.perf_counter() - start), flush=True)
        elif command == "output":
            flow, head = last
            np.concatenate([flow.cpu().numpy().ravel(), head.cpu().numpy().ravel()]).astype(np.float32).tofile(output_path)
            print("ok", flush=True)
        elif command == "poison":
            tokens = height * width
            last = (torch.full((tokens, 2), float("nan")), torch.full((tokens, 2), float("nan")))
            print("ok", flush=True)
        elif command == "profile":
            passes = int(words[1]) if len(words) > 1 else 1
            print(profile_compiled(torch, forward, synchronize, cuda, passes, compile_seconds) if compiled
                  else profile(torch, forward, synchronize, cuda, passes), flush=True)
        elif command == "memory":
            if cuda:
                print(torch.cuda.max_memory_allocated(), flush=True)
            else:
                import resource
                print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, flush=True)
        elif command == "quit":
            return


def profile(torch, forward, synchronize, cuda, passes):
    """Per operation, seconds per pass. On a GPU from torch.profiler: the kernels' time under each
    named range (the device's clock), and `framework` = the pass's wall time less all its kernels'
    time: the time the GPU waited for Python, PyTorch's dispatch and the launches. On the CPU each
    operation is timed like our own backends' (a clock around it; PyTorch's dispatch inside), and
    `framework` is the Python between operations."""
    global split_mode
    forward()  # the profiler's and the allocator's start-up outside the passes counted
    synchronize()
    seconds = dict.fromkeys(OPS, 0.0)
    if cuda:
        from torch.autograd import DeviceType
        from torch.profiler import ProfilerActivity
        split_mode = "profiler"
        try:
            with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                start = time.perf_counter()
                for _ in range(passes):
                    forward()
                    synchronize()
                wall = (time.perf_counter() - start) / passes
        finally:
            split_mode = None
        kernels = 0.0
        for event in prof.events():
            if event.name in seconds and event.device_type == DeviceType.CPU:
                seconds[event.name] += event_device_seconds(event) / passes
            elif event.device_type == DeviceType.CUDA and event.name not in seconds:
                kernels += event.time_range.elapsed_us() / 1e6 / passes
        basis = "torch.profiler: kernel time under each range (CUDA)"
        framework = max(0.0, wall - kernels)
    else:
        op_seconds.clear()
        split_mode = "timer"
        try:
            start = time.perf_counter()
            for _ in range(passes):
                forward()
            wall = (time.perf_counter() - start) / passes
        finally:
            split_mode = None
        for name, total in op_seconds.items():
            seconds[name] = total / passes
        basis = "a clock around each operation, PyTorch's dispatch inside"
        framework = max(0.0, wall - sum(seconds.values()))
    return (f"wall={wall!r} framework={framework!r} basis={basis.replace(' ', '_')} "
            + " ".join(f"{name}={value!r}" for name, value in seconds.items()))


# The ATen operators a compiled graph's matrix products call (Inductor leaves them to the library).
LIBRARY_GEMMS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm")


def profile_compiled(torch, forward, synchronize, cuda, passes, compile_seconds):
    """A compiled pass's time by kind of kernel, seconds per pass: its kernels fuse several of our
    operations, so it is not split by operation. On a GPU from torch.profiler's kernel times:
    Inductor's generated (Triton) kernels, the library's (cuBLAS GEMMs and any ATen fallback),
    and `framework` = the wall time less both. On the CPU the library GEMMs' ATen calls are
    timed; the generated C++ kernels and their Python wrapper are the rest, not told apart."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity
    forward()
    synchronize()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with torch.profiler.profile(activities=activities) as prof:
        start = time.perf_counter()
        for _ in range(passes):
            forward()
            synchronize()
        wall = (time.perf_counter() - start) / passes
    library = generated = 0.0
    for event in prof.events():
        if cuda and event.device_type == DeviceType.CUDA:
            seconds = event.time_range.elapsed_us() / 1e6 / passes
            if event.name.startswith("triton_"):
                generated += seconds
            else:
                library += seconds
        elif not cuda and event.device_type == DeviceType.CPU and event.name in LIBRARY_GEMMS:
            library += event.time_range.elapsed_us() / 1e6 / passes
    if cuda:
        basis = "torch.profiler: kernel time, Inductor's generated kernels and the library's (CUDA)"
        fields = f"framework={max(0.0, wall - library - generated)!r} "
    else:
        basis = "torch.profiler: the library GEMMs' ATen calls; the rest generated kernels and their wrapper"
        generated = max(0.0, wall - library)
        fields = ""
    return (f"wall={wall!r} {fields}basis={basis.replace(' ', '_')} library_kernels={library!r} "
            f"generated_kernels={generated!r} compile={compile_seconds!r}")


if __name__ == "__main__":
    main()
