// ladderbench: one workload at every rung of the abstraction ladder, each verified against a
// reference, timed by Google Benchmark, and set against this machine's measured peaks.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
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
#include "ladder_table.hpp"
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

constexpr int kUsageError = 2;
const std::vector<std::string> kSuites = {"gemm", "stream", "cache", "roofline", "overhead", "pcie", "model", "model-sweep"};

const char* const kHelp = R"(ladderbench: one workload measured at every rung of the abstraction ladder.

Usage: ladderbench [options] [Google Benchmark flags]

Options:
  --suite LIST      suites to run, comma-separated (default: all of them):
                      gemm      the ladder: C = A*B at every rung
                      stream    STREAM copy/scale/add/triad (f64, f32; cached and streaming stores)
                      cache     read bandwidth against working-set size, one core and all cores
                      roofline  FLOP/s against arithmetic intensity (scalar, avx2, avx512, boxed)
                      overhead  fixed costs: a call, a parallel region, a bytecode, tiny GEMMs
                      pcie      host-device copies, pinned and pageable (GPU builds, with a device)
                      model     a dense-matching network (4D correlation + transformer) per backend
                      model-sweep  that network at H = W = 16, 24, ... as far as memory (and,
                                unless --no-cap, the profile's time budget a pass) allows
                    With a GPU, stream, roofline and overhead also run their device kernels.
  --rungs LIST      rungs (or kernels) to run, comma-separated (default: all available; see --list)
  --sizes LIST      GEMM sizes n, comma-separated positive integers (replaces the profile's)
  --model H,W,C,L,N the model suite at this configuration (L layers, N heads) instead of the
                    profile's named ones (tiny, small, medium, large)
  --profile NAME    quick: every rung at n=1024 and 2048, once (under a minute here);
                    full (the default): n=64..4096, each case 3 times in random order across
                    cases (medians in the table);
                    smoke: every case at tiny sizes, for tests (its figures mean nothing)
  --no-cap          also run slow rungs (python, boxed, naive, interchange) above their size cap
  --list            list every rung with "available" or "unavailable: <reason>", then exit
  --machine-id      print this machine's results folder name (results/<id>/), then exit
  --help            this text

Google Benchmark's flags pass through, among them:
  --benchmark_filter=REGEX      run cases whose name matches, e.g. '^gemm/avx512/f32/n:1024$'
                                (a leading '-' excludes matches)
  --benchmark_out=FILE          write results there (written to FILE.partial, renamed when done)
  --benchmark_out_format=json   json (default for --benchmark_out), csv or console
  --benchmark_repetitions=N     repeat each case N times and report mean/median/stddev/cv
                                (default: 3 in the full profile, 1 otherwise)
  --benchmark_min_time=SECONDS  minimum time per case (default: 0.2 quick, 0.5 full)

Cases are named suite/rung/dtype/size (Google Benchmark appends /real_time or /manual_time
to the name in its output). Every case is verified before it is timed (GEMM against a double
reference; the other kernels by a checksum with a closed form); a case that fails is reported
as an error and gets no speed. Before the cases, the machine's ceilings are measured (peak
FLOP/s per dtype, read bandwidth per memory level, fixed costs) and written to the context.
Environment: OMP_NUM_THREADS sets the all-core rungs' threads; LADDER_MAX_ISA caps the
hand-written ISA rungs and probes (scalar, avx2, avx512, avx512_bf16, amx).
)";

struct Options {
  std::set<std::string> suites;
  std::vector<std::string> rungs;
  std::optional<std::vector<std::int64_t>> sizes;
  std::string profile = "full";
  bool uncapped = false;
  bool list = false;
  bool print_machine_id = false;
  std::optional<std::string> filter;
  std::optional<std::string> model_config;
  std::optional<std::string> out_path;
  bool user_min_time = false;
  bool user_repetitions = false;
  std::vector<std::string> benchmark_args;  // passed on to Google Benchmark
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "ladderbench: %s (see --help)\n", message.c_str());
  std::exit(kUsageError);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (;;) {
    auto comma = text.find(',', start);
    items.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::int64_t parse_size(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoll(text) <= 0)
    usage_error(fmt::format("size '{}' is not a positive integer (at most 9 digits)", text));
  return std::stoll(text);
}

// Every rung or kernel name some suite knows, for checking --rungs.
std::vector<std::string> known_rungs() {
  std::vector<std::string> names;
  for (const auto& g : registry().gemm) names.push_back(g.name);
  // The GPU suites' rungs are known whether or not this build has CUDA.
  for (auto list : {stream_rung_names(), std::vector<std::string>{"one-core", "all-cores"}, roofline_rung_names(),
                    overhead_rung_names(), optional_rung_names(RungKind::gpu_suite), model::backend_names()})
    for (auto& n : list)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.benchmark_args.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto take_value = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) usage_error(name + " needs a value");
      return argv[++i];
    };
    if (name == "--help" || name == "-h") {
      std::fputs(kHelp, stdout);
      std::exit(0);
    } else if (name == "--list") {
      o.list = true;
    } else if (name == "--machine-id") {
      o.print_machine_id = true;
    } else if (name == "--no-cap") {
      o.uncapped = true;
    } else if (name == "--suite") {
      for (auto& s : split_list(take_value())) {
        if (std::find(kSuites.begin(), kSuites.end(), s) == kSuites.end())
          usage_error(fmt::format("unknown suite '{}' (available: gemm, stream, cache, roofline, overhead, pcie, model, model-sweep)", s));
        o.suites.insert(s);
      }
    } else if (name == "--rungs") {
      const auto known = known_rungs();
      for (auto& r : split_list(take_value())) {
        if (std::find(known.begin(), known.end(), r) == known.end()) {
          std::string list;
          for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
          usage_error(fmt::format("unknown rung '{}' (known: {})", r, list));
        }
        o.rungs.push_back(r);
      }
    } else if (name == "--sizes") {
      std::vector<std::int64_t> sizes;
      for (auto& s : split_list(take_value())) sizes.push_back(parse_size(s));
      o.sizes = sizes;
    } else if (name == "--model") {
      o.model_config = take_value();
      std::string error;
      if (!model::parse_config(*o.model_config, error)) usage_error(error);
    } else if (name == "--profile") {
      o.profile = take_value();
      if (o.profile != "quick" && o.profile != "full" && o.profile != "smoke")
        usage_error(fmt::format("unknown profile '{}' (quick, full or smoke)", o.profile));
    } else if (name == "--benchmark_filter") {
      o.filter = take_value();
    } else if (name == "--benchmark_out") {
      o.out_path = take_value();
      if (o.out_path->empty()) usage_error("--benchmark_out needs a file name");
    } else if (name.rfind("--benchmark_", 0) == 0 || name == "--v") {
      if (name == "--benchmark_min_time") o.user_min_time = true;
      if (name == "--benchmark_repetitions") o.user_repetitions = true;
      o.benchmark_args.push_back(name == "--benchmark_min_time" && has_value ? min_time_flag(value, LADDER_BENCHMARK_VERSION) : arg);
    } else {
      usage_error(fmt::format("unknown option '{}'", arg));
    }
  }
  return o;
}

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
    fmt::print("gemm/{:<12} {:<5} {:<10} {:<8} {}\n", rung.name, dtype_name(rung.dtype),
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
}

}  // namespace

int main(int argc, char** argv) {
  Options opt = parse_options(argc, argv);
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
  // What the cases may use: 80% of the host's available memory, 90% of the GPU's free memory. The
  // GPU is asked only where a case needs it (the query starts a CUDA context).
  const double available = static_cast<double>(memory_available_bytes()), host_usable = 0.8 * available;
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

  // Refuse what cannot fit before allocating anything.
  for (const auto& c : cases) {
    if (available > 0 && c.memory_bytes > host_usable)
      usage_error(fmt::format("{} needs about {:.1f} GB for its buffers, but only {:.1f} GB of memory is available",
                              c.name, c.memory_bytes / 1e9, available / 1e9));
    if (c.device_memory_bytes > 0 && c.device_memory_bytes > device_usable())
      usage_error(fmt::format("{} needs about {:.1f} GB of GPU memory, but only {:.1f} GB is free on the device", c.name,
                              c.device_memory_bytes / 1e9, device_free.value_or(0) / 1e9));
  }
  if (selected("model-sweep")) trim_model_sweep(cases, request);

  // Results go to FILE.partial and are renamed into place only when the run completed.
  std::string partial_path;
  if (opt.out_path) {
    partial_path = *opt.out_path + ".partial";
    std::ofstream probe(partial_path);
    if (!probe) usage_error(fmt::format("cannot write results file '{}'", partial_path));
    opt.benchmark_args.push_back("--benchmark_out=" + partial_path);
  }

  std::fprintf(stderr, "ladderbench: %s, %d threads, %zu cases; measuring the machine's ceilings ...\n",
               machine.cpu_model.c_str(), machine.threads, cases.size());
  ceilings = measure_ceilings(reg, machine, opt.profile == "smoke");
  std::fputs(format_ceilings(ceilings).c_str(), stderr);
  add_context(machine, ceilings, opt.sizes ? "custom sizes" : opt.profile);

  int started = 0;
  const int total = static_cast<int>(cases.size());
  register_cases(cases, [&started, total](const BenchmarkCase& c) {
    std::fprintf(stderr, "[%d/%d] %s: verifying and timing\n", ++started, total, c.name.c_str());
  });

  // The profile's time per case, as the flag (a per-case MinTime would rename every case).
  if (!opt.user_min_time) opt.benchmark_args.push_back(min_time_flag(opt.profile == "quick" ? "0.2" : "0.5", LADDER_BENCHMARK_VERSION));
  // Shared machines are noisy: the full profile repeats each case, in random order across cases
  // (so that a noisy spell hits both sides of a ratio alike), and the tables use medians.
  if (!opt.user_repetitions && opt.profile == "full" && !opt.sizes) {
    opt.benchmark_args.push_back("--benchmark_repetitions=3");
    opt.benchmark_args.push_back("--benchmark_enable_random_interleaving=true");
  }
  std::vector<char*> bench_argv;
  for (auto& a : opt.benchmark_args) bench_argv.push_back(a.data());
  int bench_argc = static_cast<int>(bench_argv.size());
  benchmark::Initialize(&bench_argc, bench_argv.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, bench_argv.data())) return kUsageError;

  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  if (opt.out_path) {
    std::error_code ec;
    std::filesystem::rename(partial_path, *opt.out_path, ec);
    if (ec) {
      std::fprintf(stderr, "ladderbench: results are in %s; renaming to %s failed: %s\n", partial_path.c_str(),
                   opt.out_path->c_str(), ec.message().c_str());
      return 1;
    }
    std::fprintf(stderr, "ladderbench: results written to %s\n", opt.out_path->c_str());
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

  int failed = 0;
  for (const auto& run : reporter.runs())
    if (run_failed(run)) {
      ++failed;
      std::fprintf(stderr, "ladderbench: FAILED %s: %s\n", run.run_name.str().c_str(), run_error(run).c_str());
    }
  return failed > 0 ? 1 : 0;
}
