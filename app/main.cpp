// ladderbench: one workload at every rung of the abstraction ladder, each verified against a
// reference, timed by Google Benchmark, and set against this machine's measured peaks.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cache/cache_suite.hpp"
#include "ceilings.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "gemm/gemm_suite.hpp"
#include "core/load.hpp"
#include "ladder_table.hpp"
#include "options.hpp"
#include "results_file.hpp"
#include "model/model_suite.hpp"
#include "overhead/overhead_suite.hpp"
#include "roofline/roofline_suite.hpp"
#include "stream/stream_suite.hpp"
#ifdef LADDER_HAVE_CUDA
#include "cuda/cuda_device.hpp"
#include "gpu/gpu_cases.hpp"
#endif

namespace {

using namespace ladder;

// The cases --benchmark_filter selects, matched as Google Benchmark does (a leading '-'
// negates) but against the plain case names, so that '^gemm/avx512/f32/n:1024$' works.
std::vector<BenchmarkCase> apply_filter(const std::vector<BenchmarkCase>& cases, const std::optional<std::string>& filter) {
  if (!filter || filter->empty() || *filter == "all" || *filter == ".") return cases;
  bool negate = (*filter)[0] == '-';
  std::regex re;
  try {
    re = std::regex(negate ? filter->substr(1) : *filter, std::regex::extended);
  } catch (const std::regex_error& e) {
    usage_error(fmt::format("--benchmark_filter '{}' is not a valid regular expression: {}", *filter, e.what()));
  }
  std::vector<BenchmarkCase> kept;
  for (const auto& c : cases)
    if (std::regex_search(c.name, re) != negate) kept.push_back(c);
  return kept;
}

// Why the GPU suites' rungs cannot run: no CUDA in this build, or the CUDA runtime's reason.
std::string gpu_suites_unavailable_reason() {
#ifdef LADDER_HAVE_CUDA
  return cuda::unavailable_reason();
#else
  return not_built_reason(OptionalBackend::cuda);
#endif
}

void print_list() {
  const Registry& r = registry();
  for (const auto& rung : r.gemm) {
    std::string reason = rung.unavailable_reason();
    std::string status = reason.empty() ? "available" : "unavailable: " + reason;
    std::string cap = rung.max_n > 0 ? fmt::format("n<={}", rung.max_n) : "";
    fmt::print("gemm/{:<18} {:<5} {:<10} {:<8} {}\n", rung.name, dtype_name(rung.dtype),
               threading_name(rung.threading), cap, status);
    fmt::print("    {}\n", rung.summary);
  }
  fmt::print("stream/{{{}}}  f64, f32  all cores\n", fmt::join(stream_rung_names(), ","));
  fmt::print("cache/{{one-core,all-cores}}  read bandwidth against working-set size\n");
  fmt::print("roofline/{{{}}}  f32, f64 (boxed: f64)  k = 0..512 FMAs per element\n", fmt::join(roofline_rung_names(), ","));
  fmt::print("overhead/{{{}}}  and gemm at n = 1..64 through each library\n", fmt::join(overhead_rung_names(), ","));
  const std::string gpu_reason = gpu_suites_unavailable_reason();
  fmt::print("{{stream,pcie,roofline,overhead}}/{{{}}}  on the GPU  {}\n",
             fmt::join(optional_rung_names(RungKind::gpu_suite), ","),
             gpu_reason.empty() ? "available" : "unavailable: " + gpu_reason);
  for (const auto& b : model::backends()) {
    std::string reason = b.unavailable_reason();
    fmt::print("model/{:<11} {:<5} {:<10} {}\n", b.name, dtype_name(b.dtype), threading_name(b.threading),
               reason.empty() ? "available" : "unavailable: " + reason);
    fmt::print("    {}\n", b.summary);
  }
  for (const auto& probe : r.peak_probes) {
    std::string reason = isa_unavailable_reason(probe.isa);
    fmt::print("peak/{:<12} {:<5} {}\n", probe.name, dtype_name(probe.dtype),
               reason.empty() ? "available" : "unavailable: " + reason);
  }
}

void add_context(const MachineInfo& m, const Ceilings& ceilings, const std::string& profile) {
  using benchmark::AddCustomContext;
  AddCustomContext("machine_id", machine_id(m));
  AddCustomContext("cpu_model", m.cpu_model);
  AddCustomContext("cpu_vendor", m.cpu_vendor);
  AddCustomContext("cpu_microarchitecture", m.microarchitecture.empty() ? "unknown" : m.microarchitecture);
  AddCustomContext("cpu_isa_flags", m.isa_flags);
  AddCustomContext("cpu_logical_cores", std::to_string(m.logical_cpus));
  AddCustomContext("threads", std::to_string(m.threads));
  for (const auto& c : m.caches)
    AddCustomContext(fmt::format("cache_l{}_{}", c.level, c.type == "Unified" ? "unified" : c.type == "Data" ? "data" : "instruction"),
                     fmt::format("{} bytes, shared by {} cpus", c.bytes, c.shared_by));
  AddCustomContext("memory_total_bytes", std::to_string(m.memory_total_bytes));
  AddCustomContext("os", m.os);
  AddCustomContext("max_isa", std::string(isa_name(max_isa())));
  AddCustomContext("profile", profile);
  for (const auto& [key, value] : build_context()) AddCustomContext(key, value);
  for (const auto& [key, value] : registry().context) AddCustomContext(key, value());
  for (const auto& [key, value] : ceilings_context(ceilings)) AddCustomContext(key, value);
  for (const auto& [key, value] : model_memory_context()) AddCustomContext(key, value);
  for (const auto& [key, value] : model_sweep_context()) AddCustomContext(key, value);
  // The ladder's own description, so that report tools read it from the results, not a list.
  std::string order;  // context keys come out sorted by name: the ladder's order needs its own entry
  for (const auto& rung : registry().gemm) {
    AddCustomContext("rung/" + rung.name, rung.mechanism + ": " + rung.summary);
    order += (order.empty() ? "" : ",") + rung.name;
  }
  AddCustomContext("ladder_order", order);
  if (const char* fixed = std::getenv("LADDER_ENVIRONMENT_FIXED")) AddCustomContext("environment_fixed", fixed);
}

// The peaks a noisy machine contradicts: one core's and all cores' per dtype measured.
std::vector<PeakPair> peak_pairs(const Ceilings& c) {
  std::vector<PeakPair> pairs;
  for (DType dtype : {DType::f32, DType::f64, DType::bf16})
    if (c.threads >= 2 && c.peaks.peak_at(dtype, 1) > 0)
      pairs.push_back({std::string(dtype_name(dtype)), c.peaks.peak_at(dtype, 1), c.peaks.peak_at(dtype, c.threads)});
  return pairs;
}

// A library that reads its environment only when it loads (OpenBLAS's core type) is set up by
// running the program again with that environment; the reason goes to the console and the context.
void apply_environment_fixes(char** argv) {
  if (std::getenv("LADDER_ENVIRONMENT_FIXED")) return;
  std::string reasons;
  for (const auto& fix : registry().environment_fixes)
    if (auto f = fix()) {
      for (const auto& [name, value] : f->variables) setenv(name.c_str(), value.c_str(), 1);
      reasons += (reasons.empty() ? "" : "; ") + f->reason;
    }
  if (reasons.empty()) return;
  setenv("LADDER_ENVIRONMENT_FIXED", reasons.c_str(), 1);
  std::fprintf(stderr, "ladderbench: note: %s\n", reasons.c_str());
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "ladderbench: note: running again failed (%s); going on as it is\n", std::strerror(errno));
}

int run(int argc, char** argv) {
  Options opt = parse_options(argc, argv);
  if (!opt.list && !opt.print_machine_id) apply_environment_fixes(argv);
  if (auto error = max_isa_error(); !error.empty()) usage_error(error);
  const MachineInfo machine = machine_info();
  if (opt.print_machine_id) {
    fmt::print("{}\n", machine_id(machine));
    return 0;
  }
  if (opt.list) {
    print_list();
    return 0;
  }
  const Registry& reg = registry();

  // What to run: every selected suite's cases, then --benchmark_filter.
  Ceilings ceilings;  // measured below, before any case runs; the cases read it then
  SuiteRequest request;
  request.profile = opt.profile;
  request.sizes = opt.sizes;
  request.rungs = opt.rungs;
  request.uncapped = opt.uncapped;
  request.model_config = opt.model_config;
  request.ceilings = &ceilings;
  auto selected = [&](const char* suite) { return opt.suites.empty() || opt.suites.count(suite); };
  std::vector<BenchmarkCase> cases;
  auto add = [&](std::vector<BenchmarkCase> more) {
    for (auto& c : more)  // a name twice (overhead's tiny GEMMs and gemm's own) runs once
      if (std::none_of(cases.begin(), cases.end(), [&](const BenchmarkCase& k) { return k.name == c.name; }))
        cases.push_back(std::move(c));
  };
  if (selected("gemm")) add(gemm_cases(request));
  if (selected("stream")) add(stream_cases(request, machine));
  if (selected("cache")) add(cache_cases(request, machine));
  if (selected("roofline")) add(roofline_cases(request, machine));
  if (selected("overhead")) add(overhead_cases(request, machine));
  if (selected("model")) add(model_cases(request));
  // What the cases may use: 80% of what this process can still allocate (the machine's available
  // memory, or a tighter ulimit -v or cgroup limit), 90% of the GPU's free memory. The GPU is
  // asked only where a case needs it (the query starts a CUDA context).
  const MemoryLimit memory = memory_limit();
  const double host_usable = 0.8 * memory.bytes;
  std::optional<double> device_free;
  auto device_usable = [&device_free] {
#ifdef LADDER_HAVE_CUDA
    if (!device_free) device_free = cuda::free_memory_bytes();
#endif
    return 0.9 * device_free.value_or(0);
  };
  if (selected("model-sweep")) add(model_sweep_cases(request, host_usable, device_usable()));
#ifdef LADDER_HAVE_CUDA
  if (selected("stream")) add(gpu_stream_cases(request));
  if (selected("pcie")) add(gpu_pcie_cases(request));
  if (selected("roofline")) add(gpu_roofline_cases(request));
  if (selected("overhead")) add(gpu_overhead_cases(request));
#endif
  cases = apply_filter(cases, opt.filter);
  if (cases.empty()) {
    // Say why where a named rung is there but cannot run on this machine (no GPU, no AMX, ...).
    auto refuse_if_unavailable = [](const std::string& name, const std::string& reason) {
      if (!reason.empty()) usage_error(fmt::format("no case to run: {} is unavailable: {}", name, reason));
    };
    for (const auto& rung : opt.rungs) {
      for (const auto& g : reg.gemm)
        if (g.name == rung) refuse_if_unavailable(rung, g.unavailable_reason());
      for (const auto& b : model::backends())
        if (b.name == rung) refuse_if_unavailable(rung, b.unavailable_reason());
      for (const auto& name : optional_rung_names(RungKind::gpu_suite))
        if (name == rung) refuse_if_unavailable(rung, gpu_suites_unavailable_reason());
    }
    if (const std::string reason = gpu_suites_unavailable_reason(); opt.suites == std::set<std::string>{"pcie"} && !reason.empty())
      usage_error("no case to run: the pcie suite runs only with a GPU, which is unavailable: " + reason);
    usage_error("no case to run: the suites, filter, rungs and sizes select nothing available");
  }

  // Refuse what cannot fit before allocating anything: the run as a whole (what stays allocated
  // for all of it, a GEMM size's inputs and references, plus its largest case), then each case.
  if (memory.bytes > 0) {
    if (const double whole = run_memory_bytes(cases); whole > host_usable) {
      std::string largest;
      double largest_bytes = 0;
      for (const auto& c : cases)
        if (c.shared_memory_bytes + c.memory_bytes > largest_bytes) {
          largest_bytes = c.shared_memory_bytes + c.memory_bytes;
          largest = c.name;
        }
      usage_error(fmt::format("the run would hold about {:.1f} GB at once (its largest case, {}, {:.1f} GB), but {} leaves "
                              "{:.1f} GB, of which it may use 80%",
                              whole / 1e9, largest, largest_bytes / 1e9, memory.source, memory.bytes / 1e9));
    }
  }
  for (const auto& c : cases) {
    if (c.device_memory_bytes > 0 && c.device_memory_bytes > device_usable())
      usage_error(fmt::format("{} needs about {:.1f} GB of GPU memory, but only {:.1f} GB is free on the device", c.name,
                              c.device_memory_bytes / 1e9, device_free.value_or(0) / 1e9));
  }
  if (selected("model-sweep")) trim_model_sweep(cases, request);

  // Google Benchmark's flags go through its own parser now, before the ceilings' half minute.
  if (!opt.user_min_time) opt.benchmark_args.push_back(min_time_flag(opt.profile == "quick" ? "0.2" : "0.5", LADDER_BENCHMARK_VERSION));
  // Shared machines are noisy: the full profile repeats each case, in random order across cases
  // (so that a noisy spell hits both sides of a ratio alike), and the tables use medians.
  if (!opt.user_repetitions && opt.profile == "full" && !opt.sizes) {
    opt.benchmark_args.push_back("--benchmark_repetitions=3");
    opt.benchmark_args.push_back("--benchmark_enable_random_interleaving=true");
  }
  // The results file is ours to write (results_file.hpp); Google Benchmark's own goes nowhere.
  if (opt.out_path) opt.benchmark_args.push_back("--benchmark_out=/dev/null");
  std::vector<char*> bench_argv;
  for (auto& a : opt.benchmark_args) bench_argv.push_back(a.data());
  int bench_argc = static_cast<int>(bench_argv.size());
  benchmark::Initialize(&bench_argc, bench_argv.data());
  if (bench_argc > 1) usage_error(fmt::format("unknown Google Benchmark flag '{}'", bench_argv[1]));

  std::unique_ptr<ResultsFile> results;
  if (opt.out_path && !opt.list_tests) {
    try {
      results = std::make_unique<ResultsFile>(*opt.out_path, opt.out_format);
    } catch (const std::exception& e) {
      usage_error(e.what());
    }
  }

  const CpuSample before = sample_cpu();
  std::fprintf(stderr, "ladderbench: %s, %d threads, %zu cases; measuring the machine's ceilings ...\n",
               machine.cpu_model.c_str(), machine.threads, cases.size());
  ceilings = opt.list_tests ? Ceilings{} : measure_ceilings(reg, machine, opt.profile == "smoke");
  if (!opt.list_tests) std::fputs(format_ceilings(ceilings).c_str(), stderr);
  for (const auto& warning : startup_noise_warnings(before, sample_cpu(), machine.logical_cpus, machine.threads))
    std::fprintf(stderr, "ladderbench: warning: %s\n", warning.c_str());
  add_context(machine, ceilings, opt.sizes ? "custom sizes" : opt.profile);
  for (const auto& note : array_cap_notes()) benchmark::AddCustomContext("array_size_capped", note);

  int started = 0;
  const int total = static_cast<int>(cases.size());
  register_cases(cases, [&started, total](const BenchmarkCase& c) {
    std::fprintf(stderr, "[%d/%d] %s: verifying and timing\n", ++started, total, c.name.c_str());
  });

  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, results.get());
  benchmark::Shutdown();
  if (opt.list_tests) return 0;

  const NoiseReport noise = assess_noise(before, sample_cpu(), machine.logical_cpus, machine.threads, peak_pairs(ceilings));
  int status = 0;
  if (results) {
    if (results->runs_reported() == 0) {
      results->discard();
      std::fprintf(stderr, "ladderbench: no case ran, so nothing was written; %s is unchanged\n", opt.out_path->c_str());
      status = kRunError;
    } else if (auto error = results->commit(noise.context()); !error.empty()) {
      std::fprintf(stderr, "ladderbench: the results were not written: %s\n", error.c_str());
      status = kRunError;
    } else {
      std::fprintf(stderr, "ladderbench: results written to %s\n", opt.out_path->c_str());
    }
  }

  if (auto rows = ladder_rows(reg, reporter.runs(), kLadderSize); !rows.empty())
    std::fputs(fmt::format("\nThe ladder (gemm, C = A*B, n = {} or the rung's cap; % of this machine's measured peak; "
                           "rel error: relative L2 error against a double-precision product, what the number format costs)\n{}",
                           kLadderSize, format_ladder(rows)).c_str(), stdout);
  if (auto ratios = format_ratios(reporter.runs()); !ratios.empty())
    std::fputs(fmt::format("\nHead to head, same run:\n{}", ratios).c_str(), stdout);
  if (auto ops = format_model_ops(reporter.runs()); !ops.empty())
    std::fputs(fmt::format("\nThe model, by operation:\n{}{}", ops, model_memory_table()).c_str(), stdout);
  if (auto sweep = format_model_sweep(reporter.runs()); !sweep.empty())
    std::fputs(fmt::format("\nThe model against resolution (time per pass grows as (HW)^2 once the volumes dominate):\n{}", sweep).c_str(), stdout);
  if (auto roofs = format_roofline_summary(reporter.runs(), ceilings); !roofs.empty())
    std::fputs(fmt::format("\nThe roofline sweep against the ceilings:\n{}", roofs).c_str(), stdout);
  if (auto check = format_roof_check(reporter.runs()); !check.empty())
    std::fputs(fmt::format("\nEach case against its roof (roof_fraction, medians):\n{}", check).c_str(), stdout);
  std::fputs(("\n" + format_ceilings(ceilings)).c_str(), stdout);
  if (noise.noisy()) {
    std::fputs("\nThis machine was not quiet during the run (noise_verdict: noisy in the results):\n", stdout);
    for (const auto& reason : noise.reasons) std::fputs(("  - " + reason + "\n").c_str(), stdout);
  }

  int failed = 0;
  for (const auto& run : reporter.runs())
    if (run_failed(run)) {
      ++failed;
      std::fprintf(stderr, "ladderbench: FAILED %s: %s\n", run.run_name.str().c_str(), run_error(run).c_str());
    }
  return failed > 0 ? kRunError : status;
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit must fail a write (EFBIG, reported), not kill the process with SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ladderbench: ran out of memory (see the memory limits: ulimit -v, the cgroup, MemAvailable)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ladderbench: %s\n", e.what());
  }
  return kRunError;
}
