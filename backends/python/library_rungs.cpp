// Rungs numpy, torch, torch-cuda and torch-cuda-tf32: the GEMM as a Python user writes it,
// `numpy.matmul(a, b)` or `torch.matmul(a, b)` on f32 arrays, called from the real interpreter. What changed from the
// `python` rung: the triple loop is one call into a compiled BLAS (NumPy's OpenBLAS, PyTorch's
// own), so the interpreter runs one dispatch instead of n^3 multiply-adds; against the `openblas`
// rung what remains is the interpreter's and the library's per-call cost (the overhead suite's
// small sizes show it). The interpreter starts once per case (library_matmul.py answers
// commands on a pipe) and times each call itself, the call from Python included.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

#include "../core/registry.hpp"
#include "library_matmul_py.hpp"
#include "python_process.hpp"  // generated: kLibraryMatmulPy, the text of library_matmul.py

namespace ladder {
namespace {

namespace fs = std::filesystem;

// The interpreters a user may mean: LADDER_PYTHON alone where set, else every python3 on PATH,
// then the distribution's /usr/bin/python3 (where Debian's python3-numpy and python3-torch go).
std::vector<std::string> candidate_pythons() {
  std::vector<std::string> found = pythons_on_path();
  if (const char* env = std::getenv("LADDER_PYTHON"); !env || !*env)
    found.push_back("/usr/bin/python3");  // as pythons_on_path reads it
  return found;
}

// The first interpreter in which `probe` (Python, no single quotes) runs and exits 0, or empty;
// asked once per probe.
std::string python_with(const std::string& probe) {
  static std::mutex mutex;
  static std::map<std::string, std::string> found;
  std::lock_guard lock(mutex);
  if (auto it = found.find(probe); it != found.end()) return it->second;
  std::string chosen;
  for (const auto& python : candidate_pythons()) {
    if (access(python.c_str(), X_OK) != 0) continue;
    const std::string command = "'" + python + "' -c '" + probe + "' >/dev/null 2>&1";
    if (std::system(command.c_str()) == 0) {
      chosen = python;
      break;
    }
  }
  return found[probe] = chosen;
}

class LibraryKernel final : public GemmKernel {
 public:
  LibraryKernel(const GemmOperands& op, const std::string& python, const std::string& library) : op_(op) {
    char pattern[] = "/tmp/ladderbench-library-XXXXXX";
    if (!mkdtemp(pattern)) throw std::runtime_error("cannot create a temporary directory");
    dir_ = pattern;
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(op.n * op.n);
    write_binary_file(dir_ / "library_matmul.py", kLibraryMatmulPy, std::char_traits<char>::length(kLibraryMatmulPy));
    write_binary_file(dir_ / "a.bin", op.a, bytes);
    write_binary_file(dir_ / "b.bin", op.b, bytes);
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("cannot create pipes");
    child_ = fork();
    if (child_ == 0) {
      dup2(to_child[0], STDIN_FILENO);
      dup2(from_child[1], STDOUT_FILENO);
      close(to_child[1]);
      close(from_child[0]);
      const std::string n = std::to_string(op.n), script = (dir_ / "library_matmul.py").string();
      const std::string a = (dir_ / "a.bin").string(), b = (dir_ / "b.bin").string(), c = (dir_ / "c.bin").string();
      execl(python.c_str(), python.c_str(), script.c_str(), library.c_str(), n.c_str(), a.c_str(), b.c_str(), c.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    if (child_ < 0) throw std::runtime_error("cannot start " + python);
    commands_ = fdopen(to_child[1], "w");
    answers_ = fdopen(from_child[0], "r");
    const std::string first = answer();
    if (first.rfind("ready ", 0) != 0) throw std::runtime_error(python + " library_matmul.py: " + first);
    label_ = first.substr(6) + " (" + python + ")";
    // Enough calls a run for about a millisecond: a call of microseconds (n = 1) costs less than
    // the round trip on the pipe that asks for it. Measured on the second of two calls.
    ask("run");
    const double one_call = std::strtod(ask("run").c_str(), nullptr);
    calls_ = calls_for(one_call, 1e-3, 100000);
    run_command_ = calls_ > 1 ? "run " + std::to_string(calls_) : "run";
  }
  ~LibraryKernel() override {
    if (commands_) {
      std::fputs("quit\n", commands_);
      std::fclose(commands_);
    }
    if (answers_) std::fclose(answers_);
    if (child_ > 0) waitpid(child_, nullptr, 0);
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  void run() override { seconds_ = std::strtod(ask(run_command_.c_str()).c_str(), nullptr); }
  std::int64_t calls_per_run() const override { return calls_; }
  void copy_output() override {
    ask("output");
    std::ifstream in(dir_ / "c.bin", std::ios::binary);
    in.read(reinterpret_cast<char*>(op_.c), static_cast<std::streamsize>(sizeof(float) * op_.n * op_.n));
    if (!in) throw std::runtime_error("the library wrote no result");
  }
  void poison_output() override { ask("poison"); }
  std::optional<double> self_timed_seconds() const override { return seconds_; }
  std::string label() const override { return label_; }

 private:
  std::string answer() {
    char line[4096] = {};
    if (!std::fgets(line, sizeof line, answers_)) throw std::runtime_error("the Python library process ended");
    std::string text = line;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
  }
  std::string ask(const char* command) {
    if (std::fprintf(commands_, "%s\n", command) < 0 || std::fflush(commands_) != 0)
      throw std::runtime_error("the Python library process does not listen");
    return answer();
  }

  GemmOperands op_;
  fs::path dir_;
  pid_t child_ = -1;
  FILE* commands_ = nullptr;
  FILE* answers_ = nullptr;
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

// `library` is what library_matmul.py runs: numpy, torch, torch-cuda, torch-cuda-tf32.
GemmRung library_rung(const std::string& name, const std::string& library, const Needs& needs, std::string summary,
                      DType dtype = DType::f32, Threading threading = Threading::all_cores) {
  GemmRung rung;
  rung.name = name;
  rung.dtype = dtype;
  rung.threading = threading;
  rung.picks_own_threads = true;  // the library's own pool; small calls run on one thread
  rung.self_timed = true;
  rung.mechanism = "Python library call";
  // The overhead suite times it at n = 1 … 64 too, beside the C++ libraries called directly:
  // what the interpreter and the library's dispatch cost a call.
  rung.small_gemm_sweep = threading != Threading::device;
  rung.summary = std::move(summary);
  rung.unavailable_reason = [needs] {
    return python_with(needs.probe).empty() ? "no python3 on PATH (nor /usr/bin/python3) " + needs.missing : std::string();
  };
  rung.prepare = [needs, library](const GemmOperands& op) {
    return std::unique_ptr<GemmKernel>(std::make_unique<LibraryKernel>(op, python_with(needs.probe), library));
  };
  return rung;
}

}  // namespace

void register_python(Registry& r) {
  // A closed pipe to a Python process that ended must be an error to report, not a signal.
  signal(SIGPIPE, SIG_IGN);
  r.add(library_rung("numpy", "numpy", module("numpy", "python3-numpy"),
                     "numpy.matmul on f32 arrays, from the real interpreter (one call timed)"));
  r.add(library_rung("torch", "torch", module("torch", "python3-torch"),
                     "torch.matmul on f32 CPU tensors, from the real interpreter (one call timed)"));
  // The same call on the GPU: what a PyTorch user's matmul costs there, beside cuBLAS called
  // directly (cublas, cublas-tf32). 16-bit inputs give 16-bit outputs in PyTorch, which the f16
  // and bf16 rungs' tolerance (an f32 output of rounded operands) would not accept; not yet here.
  r.add(library_rung("torch-cuda", "torch-cuda", kTorchWithGpu,
                     "torch.matmul on f32 CUDA tensors, TF32 off, from the real interpreter (one call, to a synchronize)",
                     DType::f32, Threading::device));
  r.add(library_rung("torch-cuda-tf32", "torch-cuda-tf32", kTorchWithGpu,
                     "torch.matmul on f32 CUDA tensors with TF32 tensor cores, from the real interpreter (one call, to a "
                     "synchronize)",
                     DType::tf32, Threading::device));
}

}  // namespace ladder
