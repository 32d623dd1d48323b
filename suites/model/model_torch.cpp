// Backends torch, torch-cuda, torch-cuda-tf32, torch-cuda-f16, torch-compile and
// torch-compile-cuda: the network as a PyTorch user writes it (torch_model.py, a plain
// torch.nn.Module), run by the real interpreter on the weights and inputs model.cpp makes, checked
// against the same reference as every backend. What changed from `cpu` and `cuda`: each operation
// is a call through PyTorch's dispatcher to its kernels, with Python between them (the compiled
// ones: one graph of fused kernels); the pass times itself in the interpreter (manual time), and
// its split by operation comes from separate passes with named ranges (torch.profiler's kernel
// times on a GPU, a clock around each operation on the CPU; a compiled pass by kind of kernel).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "model_suite.hpp"
#include "python/python_process.hpp"
#include "torch_model_py.hpp"  // generated: kTorchModelPy, the text of torch_model.py

namespace ladder::model {
namespace {

constexpr int kProfiledPasses = 3;

class TorchModel {
 public:
  TorchModel(const std::string& python, const std::string& mode, const Config& c, const Weights& w, const Inputs& in)
      : session_(python, "torch_model", kTorchModelPy), tokens_(c.tokens()) {
    std::vector<float> weights;
    const auto append = [&weights](const std::vector<float>& v) { weights.insert(weights.end(), v.begin(), v.end()); };
    for (const auto& l : w.layers)
      for (const auto* v : {&l.ln1_gamma, &l.ln1_beta, &l.w_qkv, &l.b_qkv, &l.w_out, &l.b_out, &l.ln2_gamma, &l.ln2_beta,
                            &l.w_mlp1, &l.b_mlp1, &l.w_mlp2, &l.b_mlp2})
        append(*v);
    append(w.w_head);
    append(w.b_head);
    std::vector<float> features = in.f1;
    features.insert(features.end(), in.f2.begin(), in.f2.end());
    const auto& dir = session_.dir();
    write_binary_file(dir / "weights.bin", weights.data(), weights.size() * sizeof(float));
    write_binary_file(dir / "inputs.bin", features.data(), features.size() * sizeof(float));
    const std::string first = session_.start({mode, std::to_string(c.height), std::to_string(c.width), std::to_string(c.channels),
                                              std::to_string(c.layers), std::to_string(c.heads), (dir / "weights.bin").string(),
                                              (dir / "inputs.bin").string(), (dir / "output.bin").string()});
    if (first.rfind("ready ", 0) != 0) throw std::runtime_error(session_.python() + " torch_model.py: " + first);
    description_ = first.substr(6) + " (" + session_.python() + ")";
    // The first passes of a fresh process pay PyTorch's lazy start-up (thread pool, allocator,
    // kernels chosen): ten times a steady pass on `small`. Two go before any is timed, and the
    // second sets how many passes a run makes back to back (about 0.1 s of them): a pass that
    // waits for the pipe before it starts finds PyTorch's and the BLAS's threads asleep or
    // spinning against each other, up to 30 times slower on two cores, which a user's loop of
    // passes does not see.
    number(session_.ask("run"));
    const double one_pass = number(session_.ask("run"));
    const std::string key = fmt::format("{}@{}x{}x{}x{}x{}", mode, c.height, c.width, c.channels, c.layers, c.heads);
    passes_per_run_ = batch_for_case(
        key, [&] { return std::clamp<std::int64_t>(static_cast<std::int64_t>(0.1 / std::max(one_pass, 1e-6)), 1, 1000); });
    run_command_ = "run " + std::to_string(passes_per_run_);
  }
  std::int64_t passes_per_run() const { return passes_per_run_; }

  void run(Output& out) {
    last_seconds_ = number(session_.ask(run_command_));
    expect_ok(session_.ask("output"));
    std::vector<float> both(static_cast<std::size_t>(4 * tokens_));
    std::ifstream file(session_.dir() / "output.bin", std::ios::binary);
    file.read(reinterpret_cast<char*>(both.data()), static_cast<std::streamsize>(both.size() * sizeof(float)));
    if (!file) throw std::runtime_error("torch_model.py wrote no output");
    out.flow.assign(both.begin(), both.begin() + 2 * tokens_);
    out.head.assign(both.begin() + 2 * tokens_, both.end());
  }
  double last_seconds() const { return last_seconds_; }
  void poison() { expect_ok(session_.ask("poison")); }
  double memory() { return number(session_.ask("memory")); }
  const std::string& description() const { return description_; }

  // "wall=S framework=S basis=B corr_gemm=S ...": seconds per pass; a compiled pass answers
  // "library_kernels=S generated_kernels=S compile=S" instead of the operations.
  ProfiledPass profile() {
    ProfiledPass p;
    std::istringstream fields(session_.ask("profile " + std::to_string(kProfiledPasses)));
    int ops_seen = 0;
    for (std::string field; fields >> field;) {
      const auto equals = field.find('=');
      if (equals == std::string::npos) throw std::runtime_error("torch_model.py profile: " + field);
      const std::string key = field.substr(0, equals), value = field.substr(equals + 1);
      if (key == "wall") {
        p.pass_seconds = number(value);
      } else if (key == "framework") {
        p.framework_seconds = number(value);
      } else if (key == "basis") {
        p.basis = value;
        for (char& ch : p.basis) ch = ch == '_' ? ' ' : ch;
      } else if (key == "library_kernels") {
        p.library_kernel_seconds = number(value);
      } else if (key == "generated_kernels") {
        p.generated_kernel_seconds = number(value);
      } else if (key == "compile") {
        p.compile_seconds = number(value);
      } else {
        int i = 0;
        while (i < kOps && key != op_name(static_cast<Op>(i))) ++i;
        if (i == kOps) throw std::runtime_error("torch_model.py profile: unknown operation " + key);
        p.per_pass.seconds[i] = number(value);
        ++ops_seen;
      }
    }
    p.by_operation = ops_seen > 0;
    const bool by_kernel = p.library_kernel_seconds && p.generated_kernel_seconds;
    if ((p.by_operation ? ops_seen != kOps || by_kernel : !by_kernel) || p.pass_seconds <= 0)
      throw std::runtime_error("torch_model.py profile: incomplete answer");
    return p;
  }

 private:
  static double number(const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str()) throw std::runtime_error("torch_model.py answered '" + text + "'");
    return v;
  }
  static void expect_ok(const std::string& answer) {
    if (answer != "ok") throw std::runtime_error("torch_model.py answered '" + answer + "'");
  }

  PythonSession session_;
  std::int64_t tokens_;
  std::string description_;
  double last_seconds_ = 0;
  std::int64_t passes_per_run_ = 1;
  std::string run_command_ = "run";
};

// The time a backend's smallest real call may take before it is called unavailable: a first
// torch.compile generates and compiles C++ or Triton code (tens of seconds on two cores).
constexpr int kProbeSeconds = 120, kCompileProbeSeconds = 300;

constexpr const char* kImports = "import numpy, torch";

Backend torch_backend(const std::string& name, DType dtype, Threading threading, const std::string& summary,
                      const std::string& missing) {
  Backend b;
  b.name = name;
  b.dtype = dtype;
  b.threading = threading;
  b.summary = summary;
  b.self_timed = true;
  b.out_of_place = true;
  // An interpreter that imports the libraries, then the mode's smallest real call in it
  // (torch_model.py probe): an attribute or an import that works says nothing of the path. The
  // eager modes are asked together, and the compiled ones: one interpreter's start-up each.
  b.unavailable_reason = [name, missing] {
    const std::string python = python_with(kImports);
    if (python.empty()) return no_python_reason(missing);
    const bool compiled = name.starts_with("torch-compile");
    const std::vector<std::string> modes =
        compiled ? std::vector<std::string>{"torch-compile", "torch-compile-cuda"}
                 : std::vector<std::string>{"torch", "torch-cuda", "torch-cuda-tf32", "torch-cuda-f16"};
    std::vector<std::string> arguments = {"probe"};
    arguments.insert(arguments.end(), modes.begin(), modes.end());
    const auto reasons = python_probe(python, "torch_model", kTorchModelPy, arguments,
                                      compiled ? kCompileProbeSeconds : kProbeSeconds, modes.size());
    const std::string& reason = reasons[static_cast<std::size_t>(std::find(modes.begin(), modes.end(), name) - modes.begin())];
    return reason.empty() ? reason : python + ": " + reason;
  };
  b.prepare = [name](const Config& c, const Weights& w, const Inputs& in) {
    auto model = std::make_shared<TorchModel>(python_with(kImports), name, c, w, in);
    Prepared p{[model](Output& out, OpTimes&) { model->run(out); }, [model] { return model->memory(); }};
    p.framework = [model] { return model->description(); };
    p.last_pass_seconds = [model] { return model->last_seconds(); };
    p.poison = [model] { model->poison(); };
    p.passes_per_run = model->passes_per_run();
    p.profile = [model] { return model->profile(); };
    return p;
  };
  return b;
}

}  // namespace

std::vector<Backend> torch_backends() {
  const std::string cpu_missing = "imports torch and numpy (Debian: apt-get install python3-torch; or set LADDER_PYTHON)";
  const std::string gpu_missing = "imports torch and numpy (PyTorch built with CUDA: pip install torch; or set LADDER_PYTHON)";
  return {
      torch_backend("torch", DType::f32, Threading::all_cores,
                    "the network as a torch.nn.Module on the CPU, f32, from the real interpreter", cpu_missing),
      torch_backend("torch-cuda", DType::f32, Threading::device,
                    "the torch.nn.Module on the GPU, f32 with TF32 off, timed to torch.cuda.synchronize()", gpu_missing),
      torch_backend("torch-cuda-tf32", DType::tf32, Threading::device,
                    "the torch.nn.Module on the GPU, f32 with TF32 tensor cores for its matrix products", gpu_missing),
      torch_backend("torch-cuda-f16", DType::f16, Threading::device,
                    "the torch.nn.Module on the GPU under torch.autocast(float16)", gpu_missing),
      // PyTorch 2's compiler on the same module: TorchDynamo's graph, Inductor's fused kernels.
      torch_backend("torch-compile", DType::f32, Threading::all_cores,
                    "the torch.nn.Module through torch.compile (Inductor's C++ kernels) on the CPU, f32", cpu_missing),
      torch_backend("torch-compile-cuda", DType::f32, Threading::device,
                    "the torch.nn.Module through torch.compile (Inductor's Triton kernels) on the GPU, f32 with TF32 off",
                    gpu_missing),
  };
}

}  // namespace ladder::model
