// What a suite is: a name, its rungs (each available or saying why not), and the cases it makes
// for a request; each case a Google Benchmark case with its name (suite/rung/dtype/size), its
// body, how it is timed and how much memory it needs. The program knows suites only through
// suites() (suites.cpp), so a new suite is its own folder plus one line there.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/gpu_telemetry.hpp"
#include "core/machine.hpp"
#include "roofs/array_size.hpp"

namespace ladder {

struct Ceilings;

enum class Timing {
  wall,    // wall-clock time around the loop (UseRealTime): right for multi-threaded work
  manual,  // the body reports each iteration's time (self-timed external processes)
};

// What a case measures, as data: the results carry it (the context's case_axes) and the reports
// read it, so that no one parses a case's name back into its parts.
struct CaseAxes {
  std::string suite, rung, dtype;
  std::string size_axis;  // what the size counts: n (a matrix's side, an array's elements), k, bytes, ops, tokens, side
  std::int64_t size = 0;
  CaseAxes() = default;
  CaseAxes(std::string_view suite, std::string_view rung, std::string_view dtype, std::string_view size_axis, std::int64_t size)
      : suite(suite), rung(rung), dtype(dtype), size_axis(size_axis), size(size) {}
};

// A case's name, made from its axes: <suite>/<rung>/<dtype>/<size_axis>:<size> ("gemm/avx512/f32/n:1024").
std::string case_name(const CaseAxes& axes);

struct BenchmarkCase {
  std::string name;  // case_name(axes)
  CaseAxes axes;
  std::function<void(benchmark::State&)> body;
  Timing timing = Timing::wall;
  double memory_bytes = 0;         // what the case allocates while it runs, freed after it
  double device_memory_bytes = 0;  // the same in GPU memory
  // Runs on the GPU: its clocks, power, temperature and slowdown reasons are sampled while it
  // runs and kept as counters (gpu_*), where NVML answers.
  bool on_device = false;
  // What the case uses that stays allocated for the whole run and is shared by every case with
  // the same key (a GEMM size's inputs and references): counted once per key.
  std::string shared_memory_key;
  double shared_memory_bytes = 0;
  // The rung it runs, where its preparation was timed (rung_prepare_seconds).
  std::string rung;
  // The suite's own estimate of the case's seconds beyond the minimum time, where it timed
  // something like it (a model-sweep side's pass, from the sweep's trim); 0: none.
  double expected_seconds = 0;
  // One timed call's estimated seconds, where the suite estimated it (0: none): --plan costs a case
  // whose call outlasts the minimum time by its calls.
  double call_seconds = 0;
  // Where the case runs its calls in batches (a Python rung's calls of microseconds, about a
  // millisecond of them a run), a batch's seconds: Google Benchmark's first sizing run lasts that
  // long, not one call. 0: a call a run.
  double batch_seconds = 0;
};

// What a run holds throughout: every shared allocation once.
double shared_memory_bytes(const std::vector<BenchmarkCase>& cases);

// The host memory a whole run holds at its peak: every shared allocation once, plus the largest
// case's own (cases run one at a time, in any order).
double run_memory_bytes(const std::vector<BenchmarkCase>& cases);

// What the command line asked for, as every suite reads it.
struct SuiteRequest {
  Profile profile = Profile::full;
  std::optional<std::vector<std::int64_t>> sizes;  // --sizes: replaces the profile's
  std::vector<std::string> rungs;                  // --rungs: empty means all available
  bool uncapped = false;                           // --no-cap
  std::optional<std::string> model_config;         // --model H,W,C,layers,heads
  const Ceilings* ceilings = nullptr;              // measured before the cases run
  const MachineInfo* machine = nullptr;
  // What the cases may use: host memory in bytes, and the GPU's (asked only where a suite
  // calls it, since the query starts a CUDA context).
  double host_usable_bytes = 0;
  std::function<double()> device_usable_bytes = [] { return 0.0; };
};

// A case with its axes and the name made from them; the rest is the suite's to fill.
BenchmarkCase case_with_axes(CaseAxes axes);
// The axes of a case registered in this process (register_cases records them), looked up by its
// name; null for a name never registered.
void record_axes(const std::vector<BenchmarkCase>& cases);
const CaseAxes* registered_axes(const std::string& name);

// One rung of a suite, as --list, --help, --rungs and the error messages know it.
struct SuiteRung {
  std::string name;   // the case's second part: <suite>/<name>/<dtype>/<size>
  std::string dtype;  // "f32", or several ("f64, f32")
  std::string where;  // "1 core", "all cores", "GPU"
  std::string note;   // e.g. a size cap ("n<=256"); may be empty
  std::string summary;
  std::function<std::string()> unavailable_reason = [] { return std::string(); };  // empty: available
};

// What a suite's console report reads: the runs that went to the results file, the ceilings
// measured before them, and the profile.
struct ReportRequest {
  const std::vector<benchmark::BenchmarkReporter::Run>& runs;
  const Ceilings& ceilings;
  Profile profile;
};
// One titled table of a suite's report; an empty body is not shown.
struct ReportSection {
  std::string title, body;
};
// A report.py subcommand that reads a suite's results, offered at the end of a run it took part in.
struct ReportCommand {
  std::string subcommand, what;
};
using ContextEntries = std::vector<std::pair<std::string, std::string>>;

struct Suite {
  std::string name;
  std::string summary;  // one line, for --help
  std::function<std::vector<SuiteRung>()> rungs;
  std::function<std::vector<BenchmarkCase>(const SuiteRequest&)> cases;
  // After the filter and the memory check: drops cases that would not run in the profile's time
  // (the model sweep predicts its passes); may be empty.
  std::function<void(std::vector<BenchmarkCase>&, const SuiteRequest&)> trim = nullptr;
  // The suite's entries in the results' context (written whether or not it ran); may be empty.
  std::function<ContextEntries(const Ceilings&)> context = nullptr;
  // Its tables after the cases, part of the closing summary (shown under --quiet too); may be empty.
  std::function<std::vector<ReportSection>(const ReportRequest&)> report = nullptr;
  // The report.py view of its results, offered at the end where it ran; no subcommand: none.
  ReportCommand report_command = {};
  // What of the command line the suite cannot take, in one line (empty: all of it), asked before
  // anything is measured; may be empty.
  std::function<std::string(const SuiteRequest&)> check = nullptr;
  // The ladder profile runs this suite alone where no --suite is given (its table at one size).
  bool ladder_profile = false;
};

// A suite's cases on both devices: its CPU half's, then its GPU half's (none without a device).
using CaseMaker = std::vector<BenchmarkCase> (*)(const SuiteRequest&);
std::function<std::vector<BenchmarkCase>(const SuiteRequest&)> host_then_device(CaseMaker host, CaseMaker device);

// Every suite, in the order they run and are listed.
const std::vector<Suite>& suites();
const Suite* find_suite(const std::string& name);

// Why the suites' GPU rungs cannot run here (no CUDA in this build, or the runtime's reason);
// empty where a device answers. Defined by the device halves' sources CMake builds.
std::string device_unavailable_reason();
// The GPU's free memory in bytes (0 without one); the first call starts a CUDA context.
double device_free_memory_bytes();
// --device N: the GPU the run uses, among those CUDA_VISIBLE_DEVICES leaves; empty on success,
// else why not. Its PCI bus id names it to NVML (telemetry) and in the context.
std::string select_device(int index);
std::string device_pci_bus_id();
// How many GPUs the CUDA runtime sees (after CUDA_VISIBLE_DEVICES; 0 without one), and the one
// selected (every GPU case's gpu_device_index counter).
int device_count();
int selected_device();
// A rung of a suite's GPU half: available where a device answers.
SuiteRung device_rung(std::string name, std::string dtype, std::string summary);

bool rung_requested(const SuiteRequest& request, const std::string& rung);

// large_array_size() for this request; where a cap applied, said under the run's header and kept
// for the context.
std::int64_t large_array_bytes(const SuiteRequest& request, std::int64_t last_level_cache_bytes, int arrays = 3);
// Each cap that changed a size in this run, as said on the console (for the context).
std::vector<std::string> array_cap_notes();
// Each size large_array_bytes gave this run's suites, once.
std::vector<std::int64_t> large_array_sizes();
// What a suite has to say about how it set up the run (a rung asked for by name but unavailable),
// said once under the run's header: an error that stops the run before then stays its only line.
void note_under_header(const std::string& note);
std::vector<std::string> notes_under_header();

// How long preparing the rung took at its availability check (a Python session's start, a
// primitive's creation): what each of Google Benchmark's calls of its cases pays again before
// timing, since a case prepares its rung in every call (every sizing run, every repetition).
// --plan's estimate; 0 where none was timed. Keyed by the rung's name ("torch"), which the
// model's backends of the same name share.
void record_rung_prepare_seconds(const std::string& rung, double seconds);
double rung_prepare_seconds(const std::string& rung);

// Each timed run's counter of the seconds its case has run so far, its own calls only (its
// verification, Google Benchmark's sizing runs, its iterations): repetitions run interleaved with
// other cases', whose time this leaves out. At the first round's last repetition it is the case's
// cost, which --plan reads back from a run's results file to estimate the next.
inline constexpr const char* kCaseBusyCounter = "case_busy_seconds";

// Registers the cases with Google Benchmark; `on_first_call` runs once per case before its
// first call (progress for long runs).
// Registers the cases with Google Benchmark (after clearing what an earlier round registered);
// `repetitions` > 0 sets each case's repetitions, 0 leaves them to --benchmark_repetitions.
void register_cases(const std::vector<BenchmarkCase>& cases, const std::function<void(const BenchmarkCase&)>& on_first_call,
                    int repetitions = 0);
// A GPU case's telemetry as counters: SM clock (min, median), memory clock, peak power and
// temperature, and the slowdown reasons seen (a bit mask).
void set_telemetry_counters(benchmark::State& state, const telemetry::Summary& summary);

}  // namespace ladder
