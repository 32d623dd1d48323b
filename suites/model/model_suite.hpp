// The model suite: model/<backend>/<dtype>/tokens:<HW>, each backend verified against the double
// reference on `tiny` and `small` before anything is timed, the time split by operation type.
#pragma once
#include <string_view>
#include <functional>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/gemm.hpp"
#include "forward.hpp"
#include "model.hpp"
#include "suite.hpp"

namespace ladder::model {

// What a backend's own profiler says of a pass (the PyTorch backends: torch.profiler's ranges).
struct ProfiledPass {
  // false: a compiled graph whose kernels each span several operations (torch.compile), split
  // instead into the library's kernels and the generated ones; per_pass is then unset.
  bool by_operation = true;
  OpTimes per_pass;                                // seconds per pass, per operation
  double pass_seconds = 0;                         // the profiled passes' wall time, per pass
  std::optional<double> framework_seconds;         // of it, outside the kernels' time (see `basis`), where known
  std::string basis;                               // what an operation's time is ("kernel time under each range (CUDA)")
  std::optional<double> library_kernel_seconds;    // not by operation: the library's kernels (GEMMs), per pass
  std::optional<double> generated_kernel_seconds;  // not by operation: the compiler's (fused) kernels, per pass
  std::optional<double> compile_seconds;           // the compilation before the first pass, once
};

// A backend made ready for one configuration: its weights and inputs in place.
struct Prepared {
  std::function<void(Output&, OpTimes&)> run;  // one forward pass
  std::function<double()> allocated_bytes;     // what it holds now (footprint_bytes' count)
  // The library kernels its GEMMs ran on, where the library says (oneDNN: e.g. brg:avx512_core_amx).
  std::function<std::string()> gemm_implementation = [] { return std::string(); };
  // What ran the pass where it is a framework (PyTorch's version, device, threads), for the label.
  std::function<std::string()> framework = [] { return std::string(); };
  // Backends that run elsewhere (a Python process) and time their passes themselves:
  std::function<double()> last_pass_seconds = {};  // the last run's passes, as timed where they ran
  std::int64_t passes_per_run = 1;                 // how many passes one run() makes, back to back
  std::function<void()> poison = [] {};            // makes the output the next pass must overwrite NaN
  // One pass split by operation by the backend's own profiler, instead of a timer around each
  // operation here.
  std::function<ProfiledPass()> profile = {};
};

struct Backend {
  std::string name;                           // "reference", "naive", "cpu", "cpu-bf16", "cuda", ...
  DType dtype = DType::f32;                   // the GEMMs' number format; everything else is f32 (f64 for the reference)
  Threading threading = Threading::one_core;  // where it runs, as for the GEMM rungs
  std::string summary;
  std::function<std::string()> unavailable_reason = [] { return std::string(); };
  std::function<Prepared(const Config&, const Weights&, const Inputs&)> prepare;
  int max_layers_tokens = 0;  // 0: any size; else the largest HW it is run at (the slow ones)
  bool self_timed = false;    // Prepared::last_pass_seconds is its time (manual time)
  // Each operation makes a new tensor (PyTorch): the (HW)^2 volumes exist twice at once.
  bool out_of_place = false;
};

// The same network as a PyTorch module (model_torch.cpp), on the CPU and on a GPU.
std::vector<Backend> torch_backends();

const std::vector<Backend>& backends();

// footprint_bytes() for this backend's number formats: f64 for the reference, f32 otherwise,
// and the bf16 or f16 copies of the GEMM operands where it makes them.
double backend_footprint_bytes(const Backend& b, const Config& c);

// Relative L2 error of flow and head against the reference, the larger of the two.
double output_error(const Output& got, const Output& reference);
constexpr double kTolerance = 1e-4;  // f32 through softmax, LayerNorm and GELU against double
// bf16 GEMM inputs keep 8 bits of mantissa; through a softmax of the correlation volume and two
// layers the outputs' relative error is a few 1e-3.
constexpr double kToleranceBf16 = 2e-2;
// TF32 and f16 keep 10 stored mantissa bits: the pass with its GEMM operands rounded so on the
// host shows 3.4e-4 (small) and 5.6e-4 (tiny); tests/test_model.cpp keeps that under this bound.
constexpr double kToleranceTf32 = 5e-3;
double tolerance(DType dtype);

// What the double reference of a configuration costs, and the configuration a backend is verified
// at before timing `timed`: `timed` itself where its reference costs at most
// kModelReferenceFlopBudget (medium: 4 GFLOP, seconds on one core), else the same channels, layers
// and heads on the largest H x W (same aspect) within it. The case's label says which.
inline constexpr double kModelReferenceFlopBudget = 6e9;
double reference_flops(const Config& c);
Config verification_config(const Config& timed);

std::vector<std::string> backend_names();

}  // namespace ladder::model

namespace ladder {
// One case: the backend verified (verification_config), its passes timed, verified again after.
BenchmarkCase model_case(CaseAxes axes, const model::Backend& b, const model::Config& c, const Ceilings* ceilings);
inline constexpr std::string_view kModelSuite = "model";
inline constexpr std::string_view kModelSweepSuite = "model-sweep";
Suite model_suite();
Suite model_sweep_suite();
std::vector<BenchmarkCase> model_cases(const SuiteRequest& request);
// The model's rungs: its backends, as --list and --rungs know them.
std::vector<SuiteRung> model_rungs();

// The resolution sweep (model_sweep.cpp). cases(): model-sweep/<backend>/<dtype>/side:<H=W> at
// the `large` configuration's C, layers and heads (or --model's), from 16 up to where the memory
// a case may use (host, or GPU for the CUDA backends; the request's usable bytes) ends.
// trim(), unless --no-cap: drops the sides whose pass is predicted to exceed the profile's time
// budget (1 s quick, 5 s full), predicting from real passes at smaller sides; run after the
// filter, so that only what would run is tried. context(): what each sweep covers (also said on
// stderr). cases() writes these notes, trim() completes them, context() reads them.
class ModelSweep {
 public:
  std::vector<BenchmarkCase> cases(const SuiteRequest& request);
  void trim(std::vector<BenchmarkCase>& cases, const SuiteRequest& request);
  std::vector<std::pair<std::string, std::string>> context() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> notes_;  // model_sweep/<backend> → its note
};
// The footprint's O((HW)^2) growth, and the resolution at which a 16, 40 and 80 GB device runs
// out: as printed lines, and as context entries.
std::string model_memory_table();
std::vector<std::pair<std::string, std::string>> model_memory_context();
}  // namespace ladder
