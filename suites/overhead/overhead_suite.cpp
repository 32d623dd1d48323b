#include "overhead_suite.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "core/registry.hpp"
#include "gemm/gemm_suite.hpp"
#include "python/python_process.hpp"
#include "roofs/overhead_probes.hpp"

namespace ladder {
namespace {

// The real interpreter's cost of calling a Python function that does nothing: the bottom layer
// of every call a Python user makes into a library (numpy.matmul, torch.matmul), timed in the
// interpreter itself (manual time), the pipe's round trip outside it.
constexpr const char* kPythonCallScript = R"ladder_python(import sys, time
def empty():
    pass
print("ready", sys.version.split()[0], flush=True)
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["run"]:
        calls = int(words[1])
        start = time.perf_counter()
        for _ in range(calls):
            empty()
        print(repr(time.perf_counter() - start), flush=True)
    elif words[:1] == ["quit"]:
        break
)ladder_python";

// The interpreter the numpy rung runs in where there is one, so that the layers of a call through
// Python (this call, the library's dispatch, its kernel) are measured in one interpreter.
std::string call_python() {
  const std::string with_numpy = python_with("import numpy");
  return with_numpy.empty() ? python_with("import sys") : with_numpy;
}

// A fixed cost's counters: its ops per iteration as seconds per op, and the threads it ran on.
void set_fixed_cost_counters(benchmark::State& state, std::int64_t ops, int threads) {
  using benchmark::Counter;
  state.counters["seconds_per_op"] = Counter(static_cast<double>(ops), Counter::kIsIterationInvariantRate | Counter::kInvert);
  state.SetItemsProcessed(ops * state.iterations());
  state.counters["threads"] = threads;
}

BenchmarkCase python_call_cost(const std::string& name, std::int64_t calls) {
  BenchmarkCase c = case_with_axes({kOverheadSuite, name, "-", "ops", calls});
  c.timing = Timing::manual;
  c.body = [calls](benchmark::State& state) {
    PythonSession session(call_python(), "python_call", kPythonCallScript);
    const std::string ready = session.start({});
    if (ready.rfind("ready ", 0) != 0) {
      state.SkipWithError(("the interpreter did not start: " + ready).c_str());
      return;
    }
    const std::string run = "run " + std::to_string(calls);
    session.ask(run);  // the loop's first pass outside the timing
    for (auto _ : state) state.SetIterationTime(std::strtod(session.ask(run).c_str(), nullptr));
    set_fixed_cost_counters(state, calls, 1);
    state.SetLabel("CPython " + ready.substr(6) + " (" + session.python() + ")");
    record_software("python-call", "CPython " + ready.substr(6) + " (" + session.python() + ")");
  };
  return c;
}

BenchmarkCase fixed_cost(const std::string& name, std::int64_t ops, std::function<void()> batch, int threads = 1) {
  BenchmarkCase c = case_with_axes({kOverheadSuite, name, "-", "ops", ops});
  c.body = [ops, batch = std::move(batch), threads](benchmark::State& state) {
    for (auto _ : state) batch();
    set_fixed_cost_counters(state, ops, threads);
  };
  return c;
}

// The fixed costs: each rung's name, what it is, its threads and the batch it times.
struct FixedCost {
  const char* name;
  const char* summary;
  bool all_threads;
  std::function<BenchmarkCase(const std::string& name, int threads)> make;
  std::function<std::string()> unavailable_reason = [] { return std::string(); };
};

BenchmarkCase boxed_cost(const std::string& name, overhead::BoxedProgram::Kind kind) {
  auto program = std::make_shared<overhead::BoxedProgram>(kind);
  return fixed_cost(name, program->ops(), [program] { program->run(); });
}

const std::vector<FixedCost>& fixed_costs() {
  static const std::vector<FixedCost> all = {
      {"empty-call", "a call of an empty function through a pointer", false,
       [](const std::string& name, int) { return fixed_cost(name, 1000, [] { overhead::empty_calls(1000); }); }},
      {"omp-fork-join", "an empty OpenMP parallel region on all threads: fork, barrier, join", true,
       [](const std::string& name, int threads) { return fixed_cost(name, 100, [] { overhead::fork_joins(100); }, threads); }},
      {"bytecode-dispatch", "one instruction dispatch of the boxed interpreter", false,
       [](const std::string& name, int) { return boxed_cost(name, overhead::BoxedProgram::Kind::dispatch); }},
      {"boxed-add", "one boxed float add of the boxed interpreter (loads, add, allocation, pop)", false,
       [](const std::string& name, int) { return boxed_cost(name, overhead::BoxedProgram::Kind::add); }},
      {"python-call", "a call of an empty Python function in the real interpreter (CPython)", false,
       [](const std::string& name, int) { return python_call_cost(name, 100000); },
       [] { return call_python().empty() ? no_python_reason("runs") : std::string(); }},
  };
  return all;
}

}  // namespace

std::vector<BenchmarkCase> overhead_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  for (const FixedCost& cost : fixed_costs())
    if (rung_requested(request, cost.name) && cost.unavailable_reason().empty())
      cases.push_back(cost.make(cost.name, request.machine->threads));

  // The smallest GEMMs through each library (and our own all-core kernels beside them).
  SuiteRequest small = request;
  small.sizes =
      request.profile == Profile::smoke ? std::vector<std::int64_t>{1, 8} : std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64};
  small.rungs.clear();
  for (const GemmRung& rung : registry().gemm)
    if (rung.small_gemm_sweep && rung_requested(request, rung.name) && gemm_rung_unavailable_reason(rung).empty())
      small.rungs.push_back(rung.name);
  if (!small.rungs.empty()) {
    auto gemms = gemm_cases(small);
    cases.insert(cases.end(), gemms.begin(), gemms.end());
  }
  return cases;
}

namespace {

std::vector<SuiteRung> overhead_rungs() {
  std::vector<SuiteRung> rungs;
  for (const FixedCost& cost : fixed_costs())
    rungs.push_back({cost.name, "-", cost.all_threads ? "all cores" : "1 core", "", cost.summary, cost.unavailable_reason});
  rungs.push_back(device_rung(kCudaLaunch, "-", "one empty kernel launch, back to back"));
  rungs.push_back(device_rung(kCudaSync, "-", "one empty kernel launch and a wait for it"));
  rungs.push_back(device_rung(kCublasSmall, "f32", "one cuBLAS SGEMM at n = 16"));
  rungs.push_back(device_rung(kCudaChain, "-", "20 empty kernels launched one by one"));
  rungs.push_back(device_rung(kCudaGraph, "-", "the same 20 kernels replayed as one CUDA graph"));
  return rungs;
}

}  // namespace

Suite overhead_suite() {
  return {.name = std::string(kOverheadSuite),
          .summary = "fixed costs: a call, a parallel region, a bytecode, tiny GEMMs, GPU launches",
          .rungs = overhead_rungs,
          .cases = host_then_device(overhead_cases, device_overhead_cases)};
}

}  // namespace ladder
