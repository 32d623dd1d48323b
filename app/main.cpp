// ladderbench: one workload at every rung of the abstraction ladder, each verified against a
// reference, timed by Google Benchmark, and set against this machine's measured peaks.
// Parse, select, budget, run, report; the suites themselves are known only through suites().
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <memory>
#include <string>
#include <vector>

#include "roofs/ceilings.hpp"
#include "case_rows.hpp"
#include "console.hpp"
#include "console_report.hpp"
#include "core/load.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "every_device.hpp"
#include "benchmark_compat.hpp"
#include "options.hpp"
#include "plan.hpp"
#include "progress.hpp"
#include "repetitions.hpp"
#include "results_file.hpp"
#include "selection.hpp"
#include "startup.hpp"

namespace {

using namespace ladder;

constexpr int kMostThreadsPerCpu = 8;

// The profile's minimum time a repetition runs, in seconds: the quick profile's shorter.
double profile_min_time(Profile profile) { return profile == Profile::quick || profile == Profile::sweep ? 0.2 : 0.5; }

// Google Benchmark's own flags, with the profile's defaults, through its parser before the
// ceilings' half minute: an unknown one is refused now.
void initialize_benchmark(Options& opt) {
  if (!opt.user_min_time)
    opt.benchmark_args.push_back(min_time_flag(fmt::format("{}", profile_min_time(opt.profile)), LADDER_BENCHMARK_VERSION));
  // Adaptive repetitions (the full and ladder profiles' default, options.cpp) run in random order
  // across cases, so that a noisy spell hits both sides of a ratio alike.
  if (opt.adaptive) opt.benchmark_args.push_back("--benchmark_enable_random_interleaving=true");
  // The results file is ours to write (results_file.hpp); Google Benchmark's own goes nowhere.
  if (opt.out_path) opt.benchmark_args.push_back("--benchmark_out=/dev/null");
  std::vector<char*> bench_argv;
  bench_argv.reserve(opt.benchmark_args.size());
  for (auto& a : opt.benchmark_args) bench_argv.push_back(a.data());
  int bench_argc = static_cast<int>(bench_argv.size());
  benchmark::Initialize(&bench_argc, bench_argv.data());
  if (bench_argc > 1) usage_error(fmt::format("unknown Google Benchmark flag '{}'", bench_argv[1]));
}

// Whether the console's rows are coloured: --benchmark_color=VALUE where given (auto as below);
// else only on a terminal, and never under NO_COLOR (no-color.org) or --no-color. (Google
// Benchmark coloured them wherever TERM named a colour terminal, a pipe or a file included.)
bool console_colour(const Options& opt) {
  for (const std::string& arg : opt.benchmark_args)
    if (arg.rfind("--benchmark_color=", 0) == 0) {
      const std::string value = arg.substr(std::string("--benchmark_color=").size());
      if (value != "auto") return !(value == "false" || value == "no" || value == "0" || value == "off");
    }
  const char* no_color = std::getenv("NO_COLOR");
  return !opt.no_color && !(no_color && *no_color) && isatty(STDOUT_FILENO);
}

// The minimum time a repetition runs (Google Benchmark's --benchmark_min_time): the user's, or
// the profile's.
double min_time_seconds(const Options& opt) { return opt.min_time_seconds.value_or(profile_min_time(opt.profile)); }

// Each timed case's own noise counters, for the verdict.
std::vector<CaseNoise> case_noise(const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  std::vector<CaseNoise> cases;
  for (const auto& run : runs) {
    if (run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    CaseNoise c{run.run_name.str()};
    if (const auto it = run.counters.find(kCaseNoiseCounter); it != run.counters.end()) c.other_share = it->second.value;
    if (const auto it = run.counters.find(kCaseThrottledCounter); it != run.counters.end()) c.throttled_share = it->second.value;
    cases.push_back(std::move(c));
  }
  return cases;
}

// Writes the results where asked; the exit status (0, or kRunError where nothing could be written).
int commit_results(ResultsFile* results, const Options& opt, const NoiseReport& noise, Console& console) {
  if (!results) return 0;
  if (results->runs_reported() == 0) {
    results->discard();
    console.always(stderr,
                   fmt::format("ladderbench: no case ran, so nothing was written; {} is unchanged\n", opt.out_path.value_or("")));
    return kRunError;
  }
  auto late = noise.context();
  for (auto& entry : take_software_context()) late.push_back(std::move(entry));  // started after the context was written
  if (auto error = results->commit(late); !error.empty()) {
    console.always(stderr, fmt::format("ladderbench: the results were not written: {}\n", error));
    return kRunError;
  }
  return 0;
}

// Adaptive repetitions after the first round: the cases whose repetitions still spread more than
// the target run again, a few more repetitions each round, as many as the budget left pays for
// (each case's cost estimated from its own repetitions); then the statistics over every round
// replace each round's own, in the file and in the console's tables.
void run_more_rounds(const std::vector<BenchmarkCase>& cases, const RepetitionPolicy& policy,
                     std::chrono::steady_clock::duration first_round, CollectingReporter& reporter, ResultsFile* results,
                     Console& console, Progress& progress) {
  using Seconds = std::chrono::duration<double>;
  const double first_round_seconds = Seconds(first_round).count();
  const double timed = timed_seconds(reporter.runs());
  const double wall_per_timed_second = timed > 0 ? std::max(1.0, first_round_seconds / timed) : 1.0;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(first_round * policy.budget_share);
  for (int round = 2;; ++round) {
    const double left = Seconds(deadline - std::chrono::steady_clock::now()).count();
    const std::size_t noisy = cases_needing_more(reporter.runs(), policy).size();
    if (noisy == 0) break;
    const std::vector<std::string> chosen = cases_for_round(reporter.runs(), policy, left, wall_per_timed_second);
    if (chosen.empty()) {
      console.say(stderr, fmt::format("ladderbench: {} case(s) still spread more than {:.0f}%; the extra rounds' budget "
                                      "({:.0f} s) is spent\n",
                                      noisy, 100 * policy.target_cv, policy.budget_share * first_round_seconds));
      break;
    }
    std::vector<BenchmarkCase> again;
    for (const BenchmarkCase& c : cases)
      if (std::find(chosen.begin(), chosen.end(), c.name) != chosen.end()) again.push_back(c);
    console.say(stderr, fmt::format("ladderbench: round {}: {} case(s) spread more than {:.0f}%; {} of them fit in the "
                                    "{:.1f} s left; {} more repetitions each\n",
                                    round, noisy, 100 * policy.target_cv, again.size(), std::max(0.0, left), policy.step));
    progress.round(round, static_cast<int>(again.size()), std::max(0.0, left));
    register_cases(again, [&progress](const BenchmarkCase& c) { progress.case_started(c.name); }, policy.step);
    benchmark::RunSpecifiedBenchmarks(&reporter, results);
  }
  std::vector<benchmark::BenchmarkReporter::Run> runs = renumbered_repetitions(reporter.runs());
  const auto aggregates = merged_aggregates(runs);
  runs.insert(runs.end(), aggregates.begin(), aggregates.end());
  reporter.replace_runs(std::move(runs));
  if (results) results->report_merged_aggregates(aggregates);
}

int run(int argc, char** argv) {
  Options opt = parse_options(argc, argv);
  if (!opt.list && !opt.print_machine_id) apply_environment_fixes(argv);
  if (opt.device)
    if (const std::string reason = select_device(*opt.device); !reason.empty())
      usage_error(fmt::format("--device {}: {}", *opt.device, reason));
  if (opt.every_device && !opt.list && !opt.print_machine_id) {
    const int devices = device_count();
    if (devices == 0) usage_error(fmt::format("--device all: {}", device_unavailable_reason()));
    return run_on_every_device(std::vector<std::string>(argv + 1, argv + argc), devices);
  }
  if (auto error = max_isa_error(); !error.empty()) usage_error(error);
  if (auto error = cpu_description_error(); !error.empty()) usage_error(error);
  if (auto error = topology_error(); !error.empty()) usage_error(error);
  if (const Placement placed = place_threads({opt.cores, opt.numa, opt.smt}); !placed.error.empty()) usage_error(placed.error);
  const MachineInfo machine = machine_info();
  // A recorded machine is planned, never measured: the figures would be this machine's.
  if (!machine.recorded.empty() && !opt.list && !opt.plan && !opt.print_machine_id)
    usage_error(fmt::format("{} describes another machine: only --list, --plan and --machine-id run with it", machine.recorded));
  // A deliberate oversubscription is measured and named (noise_reasons); a count far past the
  // CPUs only stalls the probes for minutes, or crashes OpenMP's runtime (100000).
  if (machine.allowed_cpus > 0 && machine.threads > kMostThreadsPerCpu * machine.allowed_cpus)
    usage_error(
        fmt::format("{} threads (OMP_NUM_THREADS) on the {} logical CPUs this process may use: at most {} x as "
                    "many are run",
                    machine.threads, machine.allowed_cpus, kMostThreadsPerCpu));
  if (opt.print_machine_id) {
    fmt::print("{}\n", machine_id(machine));
    return 0;
  }
  if (opt.list) {
    print_list();
    return 0;
  }

  // Select: the suites' cases for this request. The cases read the ceilings, measured below.
  // They may use 80% of the memory this process can still allocate (the machine's available
  // memory, or a tighter ulimit -v or cgroup limit) and 90% of the GPU's free memory, asked only
  // where a case needs it (the query starts a CUDA context).
  Ceilings ceilings;
  const MemoryLimit memory = memory_limit();
  SuiteRequest request = suite_request(opt);
  request.ceilings = &ceilings;
  request.machine = &machine;
  request.host_usable_bytes = 0.8 * memory.bytes;
  request.device_usable_bytes = [free = std::make_shared<std::optional<double>>()] {
    if (!*free) *free = device_free_memory_bytes();
    return 0.9 * free->value();
  };
  Console console(opt.quiet);
  // The run's profile as its results file names it (an earlier run of the same is its history).
  const std::string profile = opt.sizes ? "custom sizes" : profile_name(opt.profile);
  const int repetitions = opt.adaptive ? RepetitionPolicy{}.floor : opt.repetitions;
  Progress progress(console, prior_case_seconds(repetitions, min_time_seconds(opt)));
  progress.phase("finding the rungs that run here (each makes one real call) and the cases");
  std::vector<BenchmarkCase> cases = select_cases(opt, request);
  // --device all's runs after device 0's: the GPU's cases alone (the host's ran once already).
  if (const char* only = std::getenv(kOnlyDeviceCasesVariable); only && std::string(only) == "1") {
    std::erase_if(cases, [](const BenchmarkCase& c) { return !c.on_device; });
    if (cases.empty()) {
      std::fprintf(stderr, "ladderbench: --device %d: nothing of this request runs on a GPU\n", opt.device.value_or(0));
      return 0;
    }
  }

  // Budget: let suites drop what would not run in the profile's time or beside the rest of the
  // run (a sweep's cases up to where memory ends), then refuse what cannot fit, before anything
  // large is allocated (a trim times passes of its small cases only).
  for (const Suite& suite : suites())
    if (suite.trim && suite_selected(opt, suite)) suite.trim(cases, request);
  check_memory(cases, memory, request);
  progress.phase("");
  PlanRequest want;
  want.profile = profile;
  want.smoke = opt.profile == Profile::smoke;
  want.cases = cases;
  want.memory_usable_bytes = request.host_usable_bytes;
  want.memory_source = memory.source;
  want.repetitions = repetitions;
  want.min_time_seconds = min_time_seconds(opt);
  if (opt.adaptive) want.extra_rounds_share = opt.adaptive_budget.value_or(RepetitionPolicy{}.budget_share);
  if (opt.out_path) want.history_path = previous_run(*opt.out_path, profile);
  want.array_notes = array_cap_notes();
  want.array_sizes = large_array_sizes();
  want.setup_seconds = progress.elapsed_seconds();
  const Plan plan = make_plan(machine, want);
  if (opt.plan) {
    // Through the console: on a terminal the case rows clipped and the prose wrapped to its width.
    std::string rows = fmt::format("  {:<44} {:>9} {:>9}\n", "case", "memory", "estimate");
    for (const auto& line : plan.case_lines) rows += line + "\n";
    console.table(stdout, rows);
    for (const auto& line : plan.lines) console.always(stdout, line + "\n");
    console.always(stdout, plan.summary + "\n");
    return 0;
  }
  progress.planned(plan.case_seconds);

  // Run.
  initialize_benchmark(opt);
  std::unique_ptr<ResultsFile> results;
  if (opt.out_path && !opt.list_tests) {
    try {
      results = std::make_unique<ResultsFile>(*opt.out_path, opt.out_format);
    } catch (const std::exception& e) {
      usage_error(e.what());
    }
  }
  start_gpu_telemetry();
  const CpuSample before = sample_cpu();
  if (!opt.list_tests) console.say(stderr, fmt::format("ladderbench: {}\n", plan.summary));
  console.say(stderr, fmt::format("ladderbench: {}, {} threads, {} cases; measuring the machine's ceilings ...\n",
                                  machine.cpu_model, machine.threads, cases.size()));
  for (const auto& note : setup_notes()) console.say(stderr, fmt::format("ladderbench: note: {}\n", note));
  if (results)
    for (const auto& stale : results->stale_files())
      console.say(stderr, fmt::format("ladderbench: note: {} was left by a run killed before it finished (SIGKILL, out of "
                                      "memory); it holds what that run measured, as unfinished JSON, and is left as it is\n",
                                      stale));
  progress.phase("measuring the machine's ceilings");
  const double ceilings_start = progress.elapsed_seconds();
  ceilings = opt.list_tests ? Ceilings{} : measure_ceilings(registry(), machine, opt.profile == Profile::smoke);
  const double ceilings_seconds = progress.elapsed_seconds() - ceilings_start;
  progress.phase("");
  if (!opt.list_tests) console.say(stderr, format_ceilings(ceilings));
  for (const auto& warning : startup_noise_warnings(before, sample_cpu(), machine.logical_cpus, machine.threads))
    console.say(stderr, fmt::format("ladderbench: warning: {}\n", warning));
  add_context(machine, ceilings, profile);
  benchmark::AddCustomContext("case_axes", case_axes_json(cases));
  for (const auto& note : array_cap_notes()) benchmark::AddCustomContext("array_size_capped", note);
  benchmark::AddCustomContext("ceilings_seconds", fmt::format("{:.1f}", ceilings_seconds));
  RepetitionPolicy policy;
  if (opt.adaptive_cv) policy.target_cv = *opt.adaptive_cv;
  if (opt.adaptive_budget) policy.budget_share = *opt.adaptive_budget;
  if (opt.adaptive) {
    benchmark::AddCustomContext("repetitions", policy.describe());
    if (results) results->merge_rounds();
  }
  CollectingReporter reporter(console,
                              opt.quiet || opt.list_tests ? RowStyle::none
                              : opt.verbose               ? RowStyle::verbose
                                                          : RowStyle::compact,
                              console_colour(opt));
  if (results)
    results->set_interim_context([&] {
      NoiseReport noise = assess_noise(before, sample_cpu(), machine.logical_cpus, machine.threads, peak_pairs(ceilings));
      const std::vector<CaseNoise> measured = case_noise(reporter.runs());
      name_noisy_cases(noise, measured);
      auto keys = noise.context();
      keys.emplace_back("noise_scope",
                        fmt::format("judged over the {} timed run(s) measured before the run was interrupted", measured.size()));
      return keys;
    });
  progress.round(1, static_cast<int>(cases.size()));
  if (opt.adaptive) progress.extra_rounds(policy.budget_share);
  register_cases(cases, [&progress](const BenchmarkCase& c) { progress.case_started(c.name); }, opt.adaptive ? policy.floor : 0);
  const auto first_round_start = std::chrono::steady_clock::now();
  benchmark::RunSpecifiedBenchmarks(&reporter, results.get());
  if (opt.adaptive && !opt.list_tests)
    run_more_rounds(cases, policy, std::chrono::steady_clock::now() - first_round_start, reporter, results.get(), console,
                    progress);
  progress.finish();
  benchmark::Shutdown();
  if (opt.list_tests) return 0;

  // Report.
  NoiseReport noise = assess_noise(before, sample_cpu(), machine.logical_cpus, machine.threads, peak_pairs(ceilings));
  name_noisy_cases(noise, case_noise(reporter.runs()));
  const int status = commit_results(results.get(), opt, noise, console);
  print_console_reports(reporter.runs(), ceilings, opt.profile, console);
  int failed = 0;
  for (const auto& run : reporter.runs())
    if (run_failed(run)) {
      ++failed;
      console.always(stderr, fmt::format("ladderbench: FAILED {}: {}\n", run.run_name.str(), run_error(run)));
    }
  ClosingFacts closing;
  closing.noise = noise;
  if (results && status == 0 && opt.out_path) {
    closing.results_path = opt.out_path;
    closing.previous_run = want.history_path;  // found once, before the run wrote its own file
  }
  closing.cases = count_cases(reporter.runs());
  closing.failed = failed;
  closing.seconds = progress.elapsed_seconds();
  closing.report_commands = report_commands(reporter.runs());
  console.always(stdout, closing_lines(closing));
  return failed > 0 ? kRunError : status;
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit must fail a write (EFBIG, reported), not kill the process with SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  // A closed stdout (ladderbench ... | head -1) must fail a console write, not kill the run
  // before its results are written.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ladderbench: ran out of memory (see the memory limits: ulimit -v, the cgroup, MemAvailable)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ladderbench: %s\n", e.what());
  }
  return kRunError;
}
