// Rungs numpy, torch, torch-bf16, torch-cuda(-tf32, -f16, -bf16), jax and cupy: the GEMM as a
// Python user writes it, `numpy.matmul(a, b)`, `torch.matmul(a, b)`, `jax.numpy.matmul(a, b)` or
// `cupy.matmul(a, b)` on f32 arrays (16-bit tensors for the 16-bit rungs), called from the real
// interpreter. What changed from the
// `python` rung: the triple loop is one call into a compiled BLAS (NumPy's OpenBLAS, PyTorch's
// own), so the interpreter runs one dispatch instead of n^3 multiply-adds; against the `openblas`
// rung what remains is the interpreter's and the library's per-call cost (the overhead suite's
// small sizes show it). The interpreter starts once per case (library_matmul.py answers
// commands on a pipe) and times each call itself, the call from Python included.
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <tuple>

#include <omp.h>

#include "../core/cpu_features.hpp"
#include "../core/registry.hpp"
#include "library_matmul_py.hpp"  // generated: kLibraryMatmulPy, the text of library_matmul.py
#include "python_process.hpp"

namespace ladder {
namespace {

// How long the interpreter may take to import its library and place the operands (a GPU's
// libraries start a context, JAX compiles its first call) before the rung is called unavailable.
constexpr int kStartSeconds = 300;

class LibraryKernel final : public GemmKernel {
 public:
  LibraryKernel(const GemmOperands& op, const std::string& python, const std::string& library)
      : op_(op), session_(python, "library_matmul", kLibraryMatmulPy) {
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(op.n * op.n);
    const auto& dir = session_.dir();
    write_binary_file(dir / "a.bin", op.a, bytes);
    write_binary_file(dir / "b.bin", op.b, bytes);
    const std::string first = session_.start({library, std::to_string(op.n), (dir / "a.bin").string(), (dir / "b.bin").string(),
                                              (dir / "c.bin").string(), std::to_string(omp_get_max_threads())},
                                             kStartSeconds);
    if (first.rfind("ready ", 0) != 0) throw std::runtime_error(python + " library_matmul.py: " + first);
    label_ = first.substr(6) + " (" + python + ")";
    record_software(library, label_);
    // Enough calls a run for about a millisecond: a call of microseconds (n = 1) costs less than
    // the round trip on the pipe that asks for it. Measured on the second of two calls.
    session_.ask("run");
    const double one_call = std::strtod(session_.ask("run").c_str(), nullptr);
    calls_ = batch_for_case(library + "@" + std::to_string(op.n), [&] { return calls_for(one_call, 1e-3, 100000); });
    run_command_ = calls_ > 1 ? "run " + std::to_string(calls_) : "run";
  }

  void run() override { seconds_ = std::strtod(session_.ask(run_command_).c_str(), nullptr); }
  std::int64_t calls_per_run() const override { return calls_; }
  void copy_output() override {
    session_.ask("output");
    std::ifstream in(session_.dir() / "c.bin", std::ios::binary);
    in.read(reinterpret_cast<char*>(op_.c), static_cast<std::streamsize>(sizeof(float) * op_.n * op_.n));
    if (!in) throw std::runtime_error("the library wrote no result");
  }
  void poison_output() override { session_.ask("poison"); }
  std::optional<double> self_timed_seconds() const override { return seconds_; }
  std::string label() const override { return label_; }

 private:
  GemmOperands op_;
  PythonSession session_;
  std::string label_;
  double seconds_ = 0;
  std::int64_t calls_ = 1;
  std::string run_command_ = "run";
};

// What a library rung needs of the interpreter: a probe that exits 0 where it can run, and what
// to say where none can.
struct Needs {
  std::string probe;    // "import numpy"
  std::string missing;  // "imports numpy (Debian: apt-get install python3-numpy; or set LADDER_PYTHON)"
};

Needs module(const std::string& name, const std::string& package) {
  return {"import " + name, "imports " + name + " (Debian: apt-get install " + package + "; or set LADDER_PYTHON)"};
}

// PyTorch built with CUDA, and a device it can use.
const Needs kTorchWithGpu{"import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)",
                          "has PyTorch that sees a GPU (torch.cuda.is_available(); or set LADDER_PYTHON)"};

// PyTorch on a GPU with bf16 tensor cores (compute capability 8.0 on).
const Needs kTorchWithBf16Gpu{
    "import sys, torch; sys.exit(0 if torch.cuda.is_available() and torch.cuda.get_device_capability() >= (8, 0) else 1)",
    "has PyTorch that sees a GPU with bf16 tensor cores (compute capability 8.0 or later; or set LADDER_PYTHON)"};

// `library` is what library_matmul.py runs: numpy, torch, torch-bf16, torch-cuda(-tf32, -f16, -bf16).
// A library rung is set against the library it reaches, called from C (numpy and torch: their BLAS).
std::string c_library_of(const std::string& name) {
  if (name == "torch-bf16") return optional_rung::onednn_bf16.name;
  if (name == "torch-cuda-tf32") return optional_rung::cublas_tf32.name;
  if (name == "torch-cuda-f16") return optional_rung::cublas_f16.name;
  if (name == "torch-cuda-bf16") return optional_rung::cublas_bf16.name;
  if (name == "torch-cuda" || name == "jax" || name == "cupy") return optional_rung::cublas.name;
  return optional_rung::openblas.name;
}

GemmRung library_rung(const std::string& name, const std::string& library, const Needs& needs, std::string summary,
                      DType dtype = DType::f32, Threading threading = Threading::all_cores) {
  GemmRung rung;
  rung.name = name;
  rung.parent = c_library_of(name);
  rung.dtype = dtype;
  rung.threading = threading;
  rung.picks_own_threads = true;  // the library's own pool; small calls run on one thread
  rung.self_timed = true;
  rung.mechanism = Mechanism::python_call;
  rung.unit = threading == Threading::device ? gpu_unit(dtype) : Unit::fastest;
  rung.traffic = compulsory_traffic_only;
  // The overhead suite times it at n = 1 … 64 too, beside the C++ libraries called directly
  // (cuBLAS for the GPU's): what the interpreter and the library's dispatch cost a call.
  rung.small_gemm_sweep = true;
  rung.summary = std::move(summary);
  rung.unavailable_reason = [needs] {
    return python_with(needs.probe).empty() ? no_python_reason(needs.missing) : std::string();
  };
  rung.prepare = [needs, library](const GemmOperands& op) {
    return std::unique_ptr<GemmKernel>(std::make_unique<LibraryKernel>(op, python_with(needs.probe), library));
  };
  return rung;
}

}  // namespace

void register_python(Registry& r) {
  r.add(library_rung("numpy", "numpy", module("numpy", "python3-numpy"),
                     "numpy.matmul on f32 arrays, from the real interpreter (one call timed)"));
  r.add(library_rung("torch", "torch", module("torch", "python3-torch"),
                     "torch.matmul on f32 CPU tensors, from the real interpreter (one call timed)"));
  // bf16 tensors in and out, where the CPU has bf16 units (AVX512_BF16, or AMX beside it).
  GemmRung bf16 =
      library_rung("torch-bf16", "torch-bf16", module("torch", "python3-torch"),
                   "torch.matmul on bf16 CPU tensors (bf16 out), from the real interpreter (one call timed)", DType::bf16);
  bf16.rounds_output = true;
  // Its n = 1 … 64 would fail verification at some sizes: PyTorch 1.13's path for small bf16
  // products (n = 7 and 16 here) rounds its sums, not only its output, to bf16.
  bf16.small_gemm_sweep = false;
  bf16.unavailable_reason = [python = bf16.unavailable_reason] {
    if (auto isa = isa_unavailable_reason(Isa::avx512_bf16); !isa.empty()) return isa;
    return python();
  };
  r.add(bf16);
  // The same call on the GPU: what a PyTorch user's matmul costs there, beside cuBLAS called
  // directly (cublas, cublas-tf32).
  r.add(library_rung("torch-cuda", "torch-cuda", kTorchWithGpu,
                     "torch.matmul on f32 CUDA tensors, TF32 off, from the real interpreter (one call, to a synchronize)",
                     DType::f32, Threading::device));
  r.add(library_rung("torch-cuda-tf32", "torch-cuda-tf32", kTorchWithGpu,
                     "torch.matmul on f32 CUDA tensors with TF32 tensor cores, from the real interpreter (one call, to a "
                     "synchronize)",
                     DType::tf32, Threading::device));
  // The same product through the other array libraries a GPU user reaches for, where installed.
  r.add(library_rung("jax", "jax",
                     {"import sys, jax; sys.exit(0 if jax.devices('gpu') else 1)",
                      "has JAX with a GPU backend (pip install jax[cuda12]; or set LADDER_PYTHON)"},
                     "jax.numpy.matmul on f32 GPU arrays at precision highest, from the real interpreter (one call, to "
                     "block_until_ready)",
                     DType::f32, Threading::device));
  r.add(library_rung("cupy", "cupy",
                     {"import sys, cupy; sys.exit(0 if cupy.cuda.runtime.getDeviceCount() > 0 else 1)",
                      "has CuPy that sees a GPU (pip install cupy-cuda12x; or set LADDER_PYTHON)"},
                     "cupy.matmul on f32 GPU arrays, TF32 off, from the real interpreter (one call, to a synchronize)",
                     DType::f32, Threading::device));
  for (const auto& [name, dtype, needs] : {std::tuple{"torch-cuda-f16", DType::f16, &kTorchWithGpu},
                                           std::tuple{"torch-cuda-bf16", DType::bf16, &kTorchWithBf16Gpu}}) {
    GemmRung half = library_rung(name, name, *needs,
                                 "torch.matmul on " + std::string(dtype_name(dtype)) +
                                     " CUDA tensors (16-bit out, f32 reductions), from the real interpreter (one call, to "
                                     "a synchronize)",
                                 dtype, Threading::device);
    half.rounds_output = true;
    half.small_gemm_sweep = false;  // the f32 rungs show the per-call cost; these add only rounding
    r.add(half);
  }
}

}  // namespace ladder
