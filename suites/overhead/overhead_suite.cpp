#include "overhead_suite.hpp"

#include <fmt/format.h>

#include "core/registry.hpp"
#include "gemm/gemm_suite.hpp"
#include "overhead_probes.hpp"

namespace ladder {
namespace {

BenchmarkCase fixed_cost(const std::string& name, std::int64_t ops, std::function<void()> batch, int threads = 1) {
  BenchmarkCase c;
  c.name = fmt::format("overhead/{}/-/ops:{}", name, ops);
  c.body = [ops, batch, threads](benchmark::State& state) {
    for (auto _ : state) batch();
    using benchmark::Counter;
    // ops per iteration, as a rate, inverted: seconds per operation.
    state.counters["seconds_per_op"] = Counter(static_cast<double>(ops), Counter::kIsIterationInvariantRate | Counter::kInvert);
    state.SetItemsProcessed(ops * state.iterations());
    state.counters["threads"] = threads;
  };
  return c;
}

}  // namespace

std::vector<std::string> overhead_rung_names() { return {"empty-call", "omp-fork-join", "bytecode-dispatch", "boxed-add"}; }

std::vector<BenchmarkCase> overhead_cases(const SuiteRequest& request, const MachineInfo& machine) {
  std::vector<BenchmarkCase> cases;
  if (rung_requested(request, "empty-call"))
    cases.push_back(fixed_cost("empty-call", 1000, [] { overhead::empty_calls(1000); }));
  if (rung_requested(request, "omp-fork-join"))
    cases.push_back(fixed_cost("omp-fork-join", 100, [] { overhead::fork_joins(100); }, machine.threads));
  for (auto [name, kind] : {std::pair{"bytecode-dispatch", overhead::BoxedProgram::Kind::dispatch},
                            std::pair{"boxed-add", overhead::BoxedProgram::Kind::add}}) {
    if (!rung_requested(request, name)) continue;
    auto program = std::make_shared<overhead::BoxedProgram>(kind);
    cases.push_back(fixed_cost(name, program->ops(), [program] { program->run(); }));
  }

  // The smallest GEMMs through each library (and our own all-core kernels beside them).
  SuiteRequest small = request;
  small.sizes = request.profile == "smoke" ? std::vector<std::int64_t>{1, 8} : std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64};
  small.rungs.clear();
  for (const char* name : {"avx512", "openblas", "onednn", "amx", "onednn-bf16"}) {
    const GemmRung* rung = registry().find_gemm(name);
    if (rung && rung_requested(request, name) && rung->unavailable_reason().empty()) small.rungs.push_back(name);
  }
  if (!small.rungs.empty()) {
    auto gemms = gemm_cases(small);
    cases.insert(cases.end(), gemms.begin(), gemms.end());
  }
  return cases;
}

}  // namespace ladder
