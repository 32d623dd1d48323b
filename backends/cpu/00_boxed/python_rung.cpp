// The real thing beside the model: matmul.py run by CPython itself, so the boxed rung's speed is
// checked against a real interpreter in the same run. Not a rung of ours: it needs python3 on
// PATH (or LADDER_PYTHON), runs in a child process and times only the multiply itself.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <fstream>
#include <stdexcept>

#include "../../core/registry.hpp"
#include "../../python/python_process.hpp"
#include "matmul_program.hpp"
#include "matmul_py.hpp"  // generated: kMatmulPy, the text of matmul.py

namespace ladder {
namespace {

namespace fs = std::filesystem;

std::string find_python() {
  const auto found = pythons_on_path();
  return found.empty() || access(found.front().c_str(), X_OK) != 0 ? std::string() : found.front();
}

// "CPython 3.11.2 (/usr/bin/python3)": what `python --version` says, asked once per interpreter.
std::string describe_python(const std::string& python) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(python); it != known.end()) return it->second;
  std::string version = "version unknown";
  if (FILE* pipe = popen((shell_quote(python) + " --version 2>&1 </dev/null").c_str(), "r")) {
    char line[128] = {};
    if (std::fgets(line, sizeof line, pipe)) {
      version = line;
      while (!version.empty() && (version.back() == '\n' || version.back() == ' ')) version.pop_back();
      if (version.rfind("Python ", 0) == 0) version = version.substr(7);
    }
    pclose(pipe);
  }
  return known[python] = "CPython " + version + " (" + python + ")";
}

class PythonKernel final : public GemmKernel {
 public:
  PythonKernel(const GemmOperands& op, std::string python) : op_(op), python_(std::move(python)) {
    record_software("python", describe_python(python_));
    char pattern[] = "/tmp/ladderbench-python-XXXXXX";
    if (!mkdtemp(pattern)) throw std::runtime_error("cannot create a temporary directory");
    dir_ = pattern;
    const std::size_t bytes = sizeof(float) * op.n * op.n;
    write_binary_file(dir_ / "matmul.py", kMatmulPy, std::char_traits<char>::length(kMatmulPy));
    write_binary_file(dir_ / "a.bin", op.a, bytes);
    write_binary_file(dir_ / "b.bin", op.b, bytes);
    // A small multiply takes less than starting the interpreter: enough of them a run for about
    // 50 ms, measured on one (only for the sizes where one can be that short).
    if (op.n <= kCalibratedUpTo) {
      calls_ = batch_for_case("python@" + std::to_string(op.n), [&] {
        run();
        return calls_for(seconds_, 0.05, 1000000);
      });
    }
  }
  ~PythonKernel() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  void run() override {
    std::string command = shell_quote(python_) + " " + shell_quote((dir_ / "matmul.py").string()) + " " + std::to_string(op_.n) +
                          " " + shell_quote((dir_ / "a.bin").string()) + " " + shell_quote((dir_ / "b.bin").string()) + " " +
                          shell_quote((dir_ / "c.bin").string()) + " " + std::to_string(calls_);
    // A limit far above what the calls take in CPython (tens of MFLOP/s), and no input: an
    // interpreter that hangs is an error, not a run that never ends.
    const double flops = 2.0 * static_cast<double>(op_.n) * static_cast<double>(op_.n) * static_cast<double>(op_.n);
    const auto limit = static_cast<long long>(60 + flops * static_cast<double>(calls_) / 1e5);
    command = "timeout -k 5 " + std::to_string(limit) + " " + command + " </dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot start " + python_);
    char line[128] = {};
    bool got_line = std::fgets(line, sizeof line, pipe) != nullptr;
    int status = pclose(pipe);
    if (ran_past_limit(status))
      throw std::runtime_error(python_ + " matmul.py did not finish within " + std::to_string(limit) + " s");
    if (!got_line || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw std::runtime_error(python_ + " matmul.py failed (exit status " + std::to_string(status) + ")");
    seconds_ = std::strtod(line, nullptr);
    std::ifstream in(dir_ / "c.bin", std::ios::binary);
    in.read(reinterpret_cast<char*>(op_.c), static_cast<std::streamsize>(sizeof(float) * op_.n * op_.n));
    if (!in) throw std::runtime_error("python wrote no result");
  }
  std::optional<double> self_timed_seconds() const override { return seconds_; }
  std::int64_t calls_per_run() const override { return calls_; }
  std::string label() const override { return describe_python(python_); }

 private:
  GemmOperands op_;
  std::string python_;
  static constexpr std::int64_t kCalibratedUpTo = 128;  // about 0.1 s a multiply in CPython
  fs::path dir_;
  double seconds_ = 0;
  std::int64_t calls_ = 1;
};

}  // namespace

GemmRung python_rung() {
  GemmRung rung;
  rung.name = boxed::kPythonRung;
  rung.threading = Threading::one_core;
  rung.max_n = 128;
  // The k loop runs 17 instructions (FOR_ITER … JUMP) for one multiply and one add.
  rung.dispatches_per_flop = 17.0 / 2;
  rung.self_timed = true;
  rung.mechanism = Mechanism::reference;
  rung.unit = Unit::fastest;
  rung.traffic = compulsory_traffic_only;
  rung.summary = "reference point: the same matmul.py under the real CPython (python3)";
  rung.unavailable_reason = [] {
    return find_python().empty() ? std::string("python3 not found on PATH (or set LADDER_PYTHON)") : std::string();
  };
  rung.prepare = [](const GemmOperands& op) {
    return std::unique_ptr<GemmKernel>(std::make_unique<PythonKernel>(op, find_python()));
  };
  return rung;
}

}  // namespace ladder
