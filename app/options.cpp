#include "options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "console.hpp"
#include "benchmark_compat.hpp"
#include "core/text.hpp"
#include "suite.hpp"

namespace ladder {
namespace {

const char* const kHelpUsage = R"(ladderbench: one workload measured at every rung of the abstraction ladder.

Usage: ladderbench [options] [Google Benchmark flags]

Options:
  --suite LIST      suites to run, comma-separated (default: all of them):
)";

const char* const kHelpOptions = R"(                    With a GPU, stream, roofline and overhead also run their device kernels.
  --rungs LIST      rungs (or kernels) to run, comma-separated (default: all available; see --list)
  --sizes LIST      GEMM sizes n, comma-separated positive integers (replaces the profile's)
  --model H,W,C,L,N the model suite at this configuration (L layers, N heads) instead of the
                    profile's named ones (tiny, small, medium, large)
  --profile NAME    quick: every rung at n=1024 and 2048, once (about five minutes on 2 cores);
                    full (the default): n=64..4096, each case repeated adaptively (--adaptive)
                    in random order across cases (medians in the table);
                    ladder: the whole GEMM ladder at one common size, n=4096 (GPU rungs also
                    at 8192), slow rungs at their cap and half of it (python, boxed: 128;
                    naive: 1024), repeated adaptively; the gemm suite only unless --suite names
                    others (about 7 minutes on 2 cores);
                    sweep: the CPU rungs with a traffic model (naive ... avx512) at n = 64 ...
                    2048 in steps of sqrt(2) (naive to one size past its cap of 1024, so
                    that its cliff there shows), repeated adaptively, the gemm suite only unless
                    --suite names others: their rate against n across the cache levels, beside
                    the rate their traffic model allows (about 4 minutes on 2 cores);
                    smoke: every case at tiny sizes, for tests (its figures mean nothing)
  --no-cap          also run slow rungs (python, boxed, naive, interchange) above their size cap
  --adaptive        repeat each case at least 4 times, then more (4 a round, up to 16) while its
                    repetitions spread more than 3% (coefficient of variation): noisiest first,
                    as many as fit in a quarter of the first round's time (each case's cost
                    estimated from its own repetitions); the default of the full, ladder and
                    sweep profiles (unless --benchmark_repetitions or --sizes)
  --adaptive-cv X   --adaptive with another target than 3%, as a fraction (0.01 is 1%)
  --adaptive-budget X  --adaptive with another budget for the extra rounds than 0.25, as a share
                    of the first round's time (0 runs none; 2 allows twice the first round)
  --device N        the GPU to run on, among those CUDA_VISIBLE_DEVICES leaves (default 0); its
                    index, PCI bus id and UUID go into the context
  --device all      the command once per GPU, in turn: every case with device 0, the GPU cases
                    alone with the others; each device's results in its own file (out.gpuN.json)
  --list            list every rung with "available" or "unavailable: <reason>", then exit
  --cores N         run on the first N cores only (hwloc's order: one socket's cores, then the
                    next's); the results are filed as a smaller machine (<id>-on-N)
  --numa NODE       run on NUMA node NODE's cores, with the memory bound to that node
  --smt             a thread on each hardware thread (default: one thread a core, each bound
                    to its core; OMP_NUM_THREADS and OMP_PROC_BIND, where set, are kept as given)
  --plan            print what the run would do here without measuring anything: its cases,
                    the memory held at once, the threads and their placement, the machine as
                    hwloc sees it, and an estimate of the wall time (from --benchmark_out's
                    folder's last run of the profile where there is one); then exit
  --machine-id      print this machine's results folder name (results/<id>/), then exit
  --quiet, -q       only errors and the closing summary (the ladder, the verdict, where the
                    results went); no progress, no rows
  --verbose, -v     Google Benchmark's full console rows (every counter) instead of the short
                    ones; the results file holds every counter either way
  --no-color        no colour in the console; also where NO_COLOR is set or stdout is no
                    terminal (a pipe, a file, CI), unless --benchmark_color says otherwise
  --help            this text

Google Benchmark's flags pass through, among them:
  --benchmark_filter=REGEX      run cases whose name matches, e.g. '^gemm/avx512/f32/n:1024$'
                                (a leading '-' excludes matches)
  --benchmark_out=FILE          write results there: each case as it finishes to a private
                                FILE.<random>.partial, and at the end to FILE in one atomic
                                step; an interrupted run leaves FILE.interrupted.json (valid
                                JSON, the cases measured so far); a run that measures nothing,
                                or whose write fails, leaves FILE as it was
  --benchmark_out_format=json   json (default for --benchmark_out), csv or console
  --benchmark_repetitions=N     repeat each case N times and report mean/median/stddev/cv
                                (default: 1; the full, ladder and sweep profiles: --adaptive)
  --benchmark_min_time=SECONDS  minimum time per case (default: 0.2 quick, 0.5 full)
  --benchmark_time_unit=UNIT    ns, us, ms or s for the console and the results
  --benchmark_context=user_K=V,...  your own context entries; their keys must start with user_
                                (every other key is the program's own measurement or record)

Cases are named suite/rung/dtype/size (Google Benchmark appends /real_time or /manual_time to
the name in the results file and the --verbose rows). Every case is verified before it is timed
(GEMM against a double reference; the other kernels by a checksum with a closed form); a case
that fails is reported as an error and gets no speed. Before the cases, the machine's ceilings
are measured (peak FLOP/s per dtype, read bandwidth per memory level, fixed costs) and written
to the context. Every element is held to its own bound, not only the output's norm. Three timed
calls a repetition, drawn at random, start from a poisoned output and are verified with timing
paused; after timing, the output the timed calls left and one more call on a poisoned output are
too; a rate above 1.5x the machine's measured peak is an error, and so is a small case whose
calls from a poisoned output take over 3x its timed ones (it skipped work). A rung is listed as
available only once its real path ran here (a GEMM at n = 64, verified). The context records
whether the machine was quiet (noise_verdict, noise_reasons: CPU time other processes took, the
load average, more threads than CPUs, ceilings that contradict themselves); the console says so.
Exit status: 0 every case passed; 1 a case failed or the results could not be written; 2 bad input.
Environment: OMP_NUM_THREADS sets the all-core rungs' threads (OMP_PROC_BIND, where set, places
them instead of ladderbench); LADDER_MAX_ISA caps the hand-written ISA rungs and probes (scalar,
avx2, avx512, avx512_bf16, amx). For tests, another machine: HWLOC_XMLFILE or HWLOC_SYNTHETIC
(hwloc's own) for its topology and LADDER_TEST_CPU (a file of vendor:, family:, model:, brand:
and flags: lines) for its CPU; with either only --list, --plan and --machine-id run.
)";

std::int64_t parse_size(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos || std::stoll(text) <= 0)
    usage_error(fmt::format("size '{}' is not a positive integer (at most 9 digits)", text));
  return std::stoll(text);
}

// Every rung or kernel name some suite knows, for checking --rungs.
std::vector<std::string> known_rungs() {
  std::vector<std::string> names;
  for (const Suite& suite : suites())
    for (const SuiteRung& rung : suite.rungs())
      if (std::find(names.begin(), names.end(), rung.name) == names.end()) names.push_back(rung.name);
  return names;
}

std::string suite_names() {
  std::string names;
  for (const Suite& suite : suites()) names += (names.empty() ? "" : ", ") + suite.name;
  return names;
}

void print_help() {
  std::string text = kHelpUsage;
  for (const Suite& suite : suites()) text += fmt::format("                      {:<11} {}\n", suite.name, suite.summary);
  std::fputs((text + kHelpOptions).c_str(), stdout);
}

}  // namespace

[[noreturn]] void usage_error(const std::string& message) {
  clear_status_line();  // the error is the line a terminal shows, not the tail of the status
  std::fprintf(stderr, "ladderbench: %s (see --help)\n", message.c_str());
  std::exit(kUsageError);
}

std::string check_benchmark_flag(std::string_view name, std::string_view value, std::string_view version) {
  const std::string v(value);
  if (name == "--benchmark_repetitions") {
    static const std::regex whole(R"([0-9]{1,6})");
    if (!std::regex_match(v, whole) || std::stoi(v) < 1)
      return fmt::format("--benchmark_repetitions '{}' is not a whole number from 1 to 999999", v);
  } else if (name == "--benchmark_min_time") {
    int major = 0, minor = 0;
    std::sscanf(std::string(version).c_str(), "%d.%d", &major, &minor);
    const bool takes_iterations = major > 1 || (major == 1 && minor >= 8);
    static const std::regex seconds(R"(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?s?)"), iterations(R"([1-9][0-9]{0,9}x)");
    if (takes_iterations && std::regex_match(v, iterations)) return {};
    if (!std::regex_match(v, seconds) || !(std::strtod(v.c_str(), nullptr) > 0) || std::strtod(v.c_str(), nullptr) > 1e6)
      return fmt::format("--benchmark_min_time '{}' is not a number of seconds above 0 (e.g. 0.5 or 0.5s{})", v,
                         takes_iterations ? ", or iterations as 100x" : "");
  } else if (name == "--benchmark_format") {
    if (!parse_results_format(v)) return fmt::format("--benchmark_format '{}' is not json, csv or console", v);
  } else if (name == "--benchmark_time_unit") {
    if (v != "ns" && v != "us" && v != "ms" && v != "s")
      return fmt::format("--benchmark_time_unit '{}' is not ns, us, ms or s", v);
  } else if (name == "--benchmark_context") {
    // The context is the results' record of the machine, the build and the ceilings: a key the
    // program writes (peak_f32_flops, git_sha, machine_id, noise_verdict) is never the user's.
    std::vector<std::string> keys;
    for (const auto& entry : split(v, ',')) {
      const auto equals = entry.find('=');
      const std::string key = entry.substr(0, equals);
      static const std::regex user_key(R"(user_[A-Za-z0-9_.-]{1,64})");
      if (equals == std::string::npos || !std::regex_match(key, user_key))
        return fmt::format(
            "--benchmark_context entry '{}' is not user_KEY=VALUE (keys of your own start with user_; the "
            "others are the program's record)",
            entry);
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) return fmt::format("--benchmark_context names '{}' twice", key);
      keys.push_back(key);
    }
  } else if (name == "--benchmark_min_warmup_time") {
    static const std::regex seconds(R"([0-9]+\.?[0-9]*|\.[0-9]+)");
    if (!std::regex_match(v, seconds)) return fmt::format("--benchmark_min_warmup_time '{}' is not a number of seconds", v);
  }
  return {};
}

SuiteRequest suite_request(const Options& o) { return {o.profile, o.sizes, o.rungs, o.uncapped, o.model_config}; }

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
      print_help();
      std::exit(0);
    } else if (name == "--list") {
      o.list = true;
    } else if (name == "--plan") {
      o.plan = true;
    } else if (name == "--machine-id") {
      o.print_machine_id = true;
    } else if (name == "--cores" || name == "--numa") {
      const std::string value = take_value();
      static const std::regex number("[0-9]{1,6}");
      if (!std::regex_match(value, number) || (name == "--cores" && std::stoi(value) < 1))
        usage_error(fmt::format("{} '{}' is not a {}", name, value,
                                name == "--cores" ? "positive number of cores" : "NUMA node number (0, 1, ...)"));
      (name == "--cores" ? o.cores : o.numa) = std::stoi(value);
    } else if (name == "--smt") {
      o.smt = true;
    } else if (name == "--no-cap") {
      o.uncapped = true;
    } else if (name == "--no-color") {
      o.no_color = true;
    } else if (name == "--quiet" || name == "-q") {
      o.quiet = true;
    } else if (name == "--verbose" || name == "-v") {
      o.verbose = true;
    } else if (name == "--suite") {
      for (auto& s : split(take_value(), ',')) {
        if (!find_suite(s)) usage_error(fmt::format("unknown suite '{}' (available: {})", s, suite_names()));
        o.suites.insert(s);
      }
    } else if (name == "--rungs") {
      const auto known = known_rungs();
      for (auto& r : split(take_value(), ',')) {
        if (std::find(known.begin(), known.end(), r) == known.end()) {
          std::string list;
          for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
          usage_error(fmt::format("unknown rung '{}' (known: {})", r, list));
        }
        o.rungs.push_back(r);
      }
    } else if (name == "--sizes") {
      std::vector<std::int64_t> sizes;
      for (auto& s : split(take_value(), ',')) sizes.push_back(parse_size(s));
      o.sizes = sizes;
    } else if (name == "--adaptive") {
      o.adaptive = true;
    } else if (name == "--adaptive-cv") {
      const std::string value = take_value();
      char* end = nullptr;
      const double cv = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(cv >= 0 && cv < 1))
        usage_error(fmt::format("--adaptive-cv '{}' is not a fraction from 0 up to 1 (0.03 is 3%)", value));
      o.adaptive_cv = cv;
      o.adaptive = true;
    } else if (name == "--adaptive-budget") {
      const std::string value = take_value();
      char* end = nullptr;
      const double share = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(share >= 0 && share <= 100))
        usage_error(
            fmt::format("--adaptive-budget '{}' is not a share of the first round's time from 0 to 100 (0.25 is a "
                        "quarter)",
                        value));
      o.adaptive_budget = share;
      o.adaptive = true;
    } else if (name == "--device") {
      const std::string value = take_value();
      if (value == "all") {
        o.every_device = true;
      } else {
        if (value.empty() || value.size() > 3 || !std::all_of(value.begin(), value.end(), ::isdigit))
          usage_error(fmt::format("--device '{}' is not a device index (0, 1, ... or all)", value));
        o.device = std::stoi(value);
      }
    } else if (name == "--model") {
      o.model_config = take_value();
    } else if (name == "--profile") {
      const std::string name = take_value();
      const auto profile = parse_profile(name);
      if (!profile) usage_error(fmt::format("unknown profile '{}' ({})", name, profile_names()));
      o.profile = *profile;
    } else if (name == "--benchmark_filter") {
      o.filter = take_value();
    } else if (name == "--benchmark_out") {
      o.out_path = take_value();
      if (o.out_path->empty()) usage_error("--benchmark_out needs a file name");
    } else if (name == "--benchmark_out_format") {
      const std::string format = take_value();
      const auto parsed = parse_results_format(format);
      if (!parsed) usage_error(fmt::format("--benchmark_out_format '{}' is not json, csv or console", format));
      o.out_format = *parsed;
    } else if (name.rfind("--benchmark_", 0) == 0 || name == "--v") {
      if (has_value) {
        if (auto error = check_benchmark_flag(name, value, LADDER_BENCHMARK_VERSION); !error.empty()) usage_error(error);
      } else if (name == "--benchmark_min_time" || name == "--benchmark_repetitions" || name == "--benchmark_format") {
        usage_error(fmt::format("{} needs a value, as {}=VALUE", name, name));
      }
      if (name == "--benchmark_min_time") {
        o.user_min_time = true;
        // "0.5" or "0.5s" is seconds (for the progress estimate); "100x" is iterations.
        if (!value.empty() && value.back() != 'x') o.min_time_seconds = std::strtod(value.c_str(), nullptr);
      }
      if (name == "--benchmark_repetitions") {
        o.user_repetitions = true;
        o.repetitions = std::max(1, std::atoi(value.c_str()));
      }
      if (name == "--benchmark_list_tests") o.list_tests = !has_value || (value != "false" && value != "0");
      o.benchmark_args.push_back(name == "--benchmark_min_time" && has_value ? min_time_flag(value, LADDER_BENCHMARK_VERSION)
                                                                             : arg);
    } else {
      usage_error(fmt::format("unknown option '{}'", arg));
    }
  }
  if (o.quiet && o.verbose) usage_error("--quiet and --verbose ask for opposite things; give one of them");
  if (o.adaptive && o.user_repetitions)
    usage_error("--adaptive chooses the repetitions itself; leave out --benchmark_repetitions, or --adaptive");
  // Shared machines are noisy: the full, ladder and sweep profiles repeat each case adaptively
  // (repetitions.hpp), unless the repetitions or the sizes are asked for; the tables use medians.
  if (!o.user_repetitions && (o.profile == Profile::full || o.profile == Profile::ladder || o.profile == Profile::sweep) &&
      !o.sizes)
    o.adaptive = true;
  // The ladder and sweep profiles are the GEMM ladder's; the other suites come only when asked for.
  if ((o.profile == Profile::ladder || o.profile == Profile::sweep) && o.suites.empty())
    for (const Suite& suite : suites())
      if (suite.ladder_profile) o.suites.insert(suite.name);
  // What a suite cannot take of the command line (a model configuration it cannot build).
  const SuiteRequest request = suite_request(o);
  for (const Suite& suite : suites())
    if (suite.check)
      if (const std::string error = suite.check(request); !error.empty()) usage_error(error);
  return o;
}

}  // namespace ladder
