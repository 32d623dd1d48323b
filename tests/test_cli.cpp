// ladderbench as a user runs it: bad input gets one clear line on stderr and exit code 2.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

Result run_ladderbench_command(const std::string& command);

Result run_ladderbench(const std::string& args, const std::string& env = "") {
  return run_ladderbench_command(fmt::format("{} '{}' {} 2>&1", env, LADDERBENCH_EXE, args));
}

Result run_ladderbench_command(const std::string& command) {
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  while (std::fgets(buffer.data(), buffer.size(), pipe)) r.output += buffer.data();
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

void expect_usage_error(const std::string& args, const std::string& message, const std::string& env = "") {
  Result r = run_ladderbench(args, env);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  EXPECT_EQ(count_lines(r.output), 1) << "one clear line, got:\n" << r.output;
  EXPECT_EQ(r.output.rfind("ladderbench: ", 0), 0u) << r.output;
}

TEST(Cli, RejectsUnknownSuite) { expect_usage_error("--suite gemm,fft", "unknown suite 'fft'"); }
TEST(Cli, RejectsARungNoSuiteKnows) { expect_usage_error("--suite stream --rungs triad,quad", "unknown rung 'quad'"); }
TEST(Cli, RejectsUnknownRung) { expect_usage_error("--rungs naive,turbo", "unknown rung 'turbo'"); }
TEST(Cli, RejectsSizesThatAreNotPositiveIntegers) {
  expect_usage_error("--sizes 0", "size '0' is not a positive integer");
  expect_usage_error("--sizes=-5", "size '-5' is not a positive integer");
  expect_usage_error("--sizes 12x", "size '12x' is not a positive integer");
  expect_usage_error("--sizes 1.5", "size '1.5' is not a positive integer");
  expect_usage_error("--sizes 64,", "size '' is not a positive integer");
  expect_usage_error("--sizes 99999999999", "is not a positive integer");
}
TEST(Cli, RejectsASizeThatCannotFitInMemory) {
  expect_usage_error("--suite gemm --rungs autovec --sizes 200000", "the run would hold about");
  expect_usage_error("--suite gemm --rungs autovec --sizes 200000", "gemm/autovec/f32/n:200000");
}
TEST(Cli, RejectsUnknownOptionsAndProfiles) {
  expect_usage_error("--turbo", "unknown option '--turbo'");
  expect_usage_error("--profile huge", "unknown profile 'huge'");
  expect_usage_error("--sizes", "--sizes needs a value");
}
TEST(Cli, RejectsABadFilterAndAFilterThatSelectsNothing) {
  expect_usage_error("'--benchmark_filter=gemm/(' --sizes 8", "is not a valid regular expression");
  expect_usage_error("--benchmark_filter=^nothing$ --sizes 8", "no case to run");
}
TEST(Cli, RejectsAnUnwritableResultsFile) {
  expect_usage_error("--rungs autovec --sizes 8 --benchmark_out=/nonexistent-dir/x.json",
                     "cannot write results beside '/nonexistent-dir/x.json'");
}
TEST(Cli, RefusesAModelThatCannotFitBeforeAllocating) {
  // naive: in every build (cpu needs OpenBLAS), and no cap on an explicit --model.
  expect_usage_error("--suite model --rungs naive --model 512,512,64,1,1", "its largest case, model/naive/f32/tokens:262144");
  expect_usage_error("--suite model --model 4,4,10,1,3", "C must be a multiple of heads");
}
// Notes about the run's set-up (the environment a library was given by running again, arrays
// capped below 4x the cache) come under the header, so a refusal stays one line on every machine.
TEST(Cli, SetUpNotesComeWithTheHeaderNeverAheadOfAnError) {
  const std::string fixed = "LADDER_ENVIRONMENT_FIXED='a library was given its environment'";
  expect_usage_error("--benchmark_filter=^nothing$ --sizes 8", "no case to run", fixed);
  expect_usage_error("--suite gemm --rungs autovec --sizes 200000", "the run would hold about", fixed);
  const Result r = run_ladderbench("--profile smoke --suite gemm --rungs naive --sizes 8 --benchmark_list_tests=true", fixed);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto header = r.output.find("measuring the machine's ceilings");
  const auto note = r.output.find("ladderbench: note: a library was given its environment\n");
  ASSERT_NE(header, std::string::npos) << r.output;
  ASSERT_NE(note, std::string::npos) << r.output;
  EXPECT_LT(header, note) << r.output;
  // Arrays capped by a tight address space (the note a 300 MiB L3 gets from the profile's cap); 2 GB
  // and one thread, as AnAddressSpaceLimit: the CUDA libraries map about 1 GB and OpenBLAS 128 MiB a
  // thread, which on a many-core machine alone passes 2 GB.
  const std::string tight = "ulimit -v 2000000; export OMP_NUM_THREADS=1;";
  expect_usage_error("--suite stream --benchmark_filter=^nothing$", "no case to run", tight);
  const Result capped = run_ladderbench("--suite stream --benchmark_list_tests=true", tight);
  EXPECT_EQ(capped.exit_code, 0) << capped.output;
  if (const auto cap = capped.output.find("instead of 4 x the last-level cache"); cap != std::string::npos) {
    EXPECT_LT(capped.output.find("measuring the machine's ceilings"), cap) << capped.output;
  }
}
// A pipe, a file or CI gets plain text (Google Benchmark coloured its rows wherever TERM named a
// colour terminal); a terminal still gets colour, and --benchmark_color=true asks for it anywhere.
TEST(Cli, APipeGetsNoColourCodes) {
  const std::string run = "--profile smoke --suite gemm --rungs naive --sizes 8 --benchmark_min_time=0.001";
  const Result piped = run_ladderbench(run, "TERM=xterm-256color");
  EXPECT_EQ(piped.exit_code, 0) << piped.output;
  EXPECT_EQ(piped.output.find('\x1b'), std::string::npos) << piped.output;
  const Result asked = run_ladderbench(run + " --verbose --benchmark_color=true", "TERM=xterm-256color");
  EXPECT_NE(asked.output.find('\x1b'), std::string::npos) << asked.output;
}

// What a terminal of 100 columns shows (a pseudo-terminal through script(1)): no line wider than
// it once each carriage return has redrawn it, a status line that updates in place, and an ending
// that names the results file and the next command; --quiet keeps the ending and drops the rows.
TEST(Cli, ATerminalOf100ColumnsGetsLinesThatFitAndAStatusLine) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) here";
  // A name relative to the test folder: the ending's lines hold it, and a long build path would be
  // wrapped on 100 columns, making the test depend on where the project was cloned.
  const std::string out = fmt::format("terminal-{}.json", getpid());
  const auto on_terminal = [&out](const std::string& flags) {
    const std::string inner = fmt::format(
        "stty cols 100 rows 40; cd '{}' && '{}' --profile smoke --suite gemm,stream --rungs naive,avx2,triad "
        "--benchmark_min_time=0.01 --benchmark_out='{}' {}",
        LADDER_TEST_TMP, LADDERBENCH_EXE, out, flags);
    return run_ladderbench_command(fmt::format("TERM=xterm script -qefc \"{}\" /dev/null", inner));
  };
  const Result r = on_terminal("");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::set<std::string> statuses;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the terminal's own CR LF
    // Each carriage return starts the line again: every piece is what the terminal shows.
    std::istringstream pieces(line);
    for (std::string piece; std::getline(pieces, piece, '\r');) {
      if (piece.rfind("\x1b[K", 0) == 0) {
        piece.erase(0, 3);
        if (!piece.empty()) statuses.insert(piece);
      }
      EXPECT_EQ(piece.find('\x1b'), std::string::npos) << "an escape other than erase-line: " << piece;
      int columns = 0;
      for (const char c : piece) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      EXPECT_LE(columns, 100) << piece;
    }
  }
  EXPECT_GE(statuses.size(), 2u) << "the status line is redrawn with new content:\n" << r.output;
  EXPECT_NE(r.output.find(" left: gemm/naive/f32/n:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Results: " + out), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("report.py ladder " + out), std::string::npos) << r.output;
  const Result quiet = on_terminal("--quiet");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("gemm/naive/f32/n:8 "), std::string::npos) << quiet.output;
  EXPECT_EQ(quiet.output.find("measuring the machine's ceilings"), std::string::npos) << quiet.output;
  EXPECT_EQ(quiet.output.find('\x1b'), std::string::npos) << "no status line under --quiet: " << quiet.output;
  EXPECT_NE(quiet.output.find("Results: " + out), std::string::npos) << quiet.output;
  // Through a pipe: plain progress lines, no control characters at all.
  const Result piped =
      run_ladderbench(fmt::format("--profile smoke --suite gemm --rungs naive --benchmark_min_time=0.01 "
                                  "--benchmark_out='{}/{}'",
                                  LADDER_TEST_TMP, out));
  EXPECT_EQ(piped.exit_code, 0) << piped.output;
  EXPECT_EQ(piped.output.find('\x1b'), std::string::npos) << piped.output;
  EXPECT_EQ(piped.output.find('\r'), std::string::npos) << piped.output;
  EXPECT_NE(piped.output.find("[1/"), std::string::npos) << piped.output;
  std::filesystem::remove(std::filesystem::path(LADDER_TEST_TMP) / out);
}

TEST(Cli, RejectsABadIsaCap) { expect_usage_error("--list", "LADDER_MAX_ISA='sse9'", "LADDER_MAX_ISA=sse9"); }

// Availability is the real path having worked once, here. An interpreter whose PyTorch imports
// and has torch.compile, but whose compile fails as Debian 13's does without setuptools, and whose
// torch.matmul gives wrong numbers: exactly those paths are unavailable, each with its error.
TEST(Availability, ARungIsAvailableOnlyWhereItsRealCallWorked) {
  if (std::system("/usr/bin/python3 -c 'import numpy, torch' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no numpy and torch";
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(LADDER_TEST_TMP) / fmt::format("availability-{}", getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "sitecustomize.py") << R"(import torch
def _broken_compile(*args, **kwargs):
    try:
        raise ModuleNotFoundError("No module named 'setuptools.command'")
    except ModuleNotFoundError as e:
        raise RuntimeError("backend='inductor' raised:\nModuleNotFoundError: No module named 'setuptools.command'") from e
_matmul = torch.matmul
def _wrong_matmul(a, b, out=None):
    c = _matmul(a, b, out=out)
    c[0, 0] += 1
    return c
torch.compile = _broken_compile
torch.matmul = _wrong_matmul
)";
  const fs::path python = dir / "python3";
  std::ofstream(python) << "#!/bin/sh\nPYTHONPATH='" << dir.string() << "' exec /usr/bin/python3 \"$@\"\n";
  fs::permissions(python, fs::perms::owner_all);
  const Result r = run_ladderbench("--list", "LADDER_PYTHON='" + python.string() + "'");
  fs::remove_all(dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto line_of = [&r](const std::string& start) {
    const auto at = r.output.find("\n" + start + " ");
    return at == std::string::npos ? std::string() : r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(line_of("model/torch-compile")
                .find("unavailable: " + python.string() +
                      ": RuntimeError: backend='inductor' "
                      "raised: (ModuleNotFoundError: No module named 'setuptools.command')"),
            std::string::npos)
      << r.output;
  EXPECT_NE(line_of("gemm/torch").find("unavailable: a real call at n = 64 failed: "), std::string::npos) << r.output;
  EXPECT_NE(line_of("model/torch").find(" available"), std::string::npos) << r.output;
  EXPECT_NE(line_of("gemm/numpy").find(" available"), std::string::npos) << r.output;
}

// An interpreter that is not one: every Python rung unavailable, naming it (`python`, whose
// interpreter imports nothing, through its real call), never a crash.
TEST(Availability, AStubInterpreterMakesEveryPythonRungUnavailableWithItsReason) {
  const Result r = run_ladderbench("--list", "LADDER_PYTHON=/bin/false");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string listed = "\n" + r.output;
  for (const char* rung : {"gemm/python ", "gemm/numpy ", "gemm/torch ", "model/torch ", "model/torch-compile "}) {
    const auto at = listed.find(std::string("\n") + rung);
    ASSERT_NE(at, std::string::npos) << rung << "\n" << r.output;
    const std::string line = listed.substr(at + 1, listed.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find("unavailable: "), std::string::npos) << line;
    EXPECT_NE(line.find("/bin/false"), std::string::npos) << line;
  }
}

// A run held to fewer CPUs than the machine has (taskset) measured a smaller machine: filed apart.
TEST(Cli, ARunOnFewerCpusIsFiledUnderItsOwnMachineId) {
  // On one CPU of those this process may use (a container's cpuset need not hold CPU 0).
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  const Result whole = run_ladderbench("--machine-id");
  const Result one = run_ladderbench("--machine-id", fmt::format("taskset -c {}", first));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  ASSERT_EQ(one.exit_code, 0) << one.output;
  // The machine's own id, without the "-on-N" of a run already held to fewer CPUs.
  std::string id = whole.output.substr(0, whole.output.size() - 1);
  if (const auto on = id.rfind("-on-"); on != std::string::npos) id.erase(on);
  if (id.ends_with("-1c")) GTEST_SKIP() << "one CPU: nothing to restrict";
  EXPECT_EQ(one.output, id + "-on-1\n");
}

TEST(Cli, HelpDescribesTheOptions) {
  Result r = run_ladderbench("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--suite", "--rungs", "--sizes", "--profile", "--list", "--benchmark_filter"})
    EXPECT_NE(r.output.find(option), std::string::npos) << option;
}

// A rung or model backend that exists but cannot run here (no GPU, no AMX) is named with the
// reason when it alone was asked for.
TEST(Cli, AnUnavailableRungAloneIsRefusedWithItsReason) {
  const Result list = run_ladderbench("--list");
  for (const char* prefix : {"\nmodel/", "\ngemm/"}) {
    for (std::size_t pos = 0; (pos = list.output.find(prefix, pos)) != std::string::npos; ++pos) {
      const std::string line = list.output.substr(pos + 1, list.output.find('\n', pos + 1) - pos - 1);
      const auto reason = line.find("unavailable: ");
      if (reason == std::string::npos) continue;
      const std::string suite = line.substr(0, line.find('/'));
      const std::string rung = line.substr(suite.size() + 1, line.find(' ') - suite.size() - 1);
      expect_usage_error(fmt::format("--suite {} --rungs {}", suite, rung),
                         fmt::format("{} is unavailable: {}", rung, line.substr(reason + 13)));
      return;
    }
  }
  GTEST_SKIP() << "every rung is available on this machine";
}

TEST(Cli, ARecordedMachineIsPlannedNeverMeasured) {
  const std::string zen3 = fmt::format(
      "env -u OMP_NUM_THREADS -u OMP_PROC_BIND -u HWLOC_FSROOT -u HWLOC_THISSYSTEM "
      "LADDER_TEST_CPU='{}/tests/machines/amd-epyc-zen3-2vcpu.machine' HWLOC_SYNTHETIC="
      "'pack:1 [numa(memory=8589934592)] l3:1(size=33554432) l2:2(size=524288) core:1 pu:1' "
      "LADDER_PYTHON=/bin/false",
      LADDER_SOURCE_DIR);
  expect_usage_error("--profile smoke --suite stream", "describes another machine: only --list, --plan and --machine-id run",
                     zen3);
  const Result plan = run_ladderbench("--plan --profile quick --suite gemm,stream", zen3);
  EXPECT_EQ(plan.exit_code, 0) << plan.output;
  for (const char* line : {"\nthreads: 2 on 2 cores", "\nlast-level cache of the CPUs that run: 32 MiB (1 x 32 MiB)",
                           "\nlarge arrays: 128 MiB each", "\nmemory held at once: ", "\nplan: quick profile, "})
    EXPECT_NE(plan.output.find(line), std::string::npos) << line << "\n" << plan.output;
  EXPECT_EQ(plan.output.find("gemm/avx512/"), std::string::npos) << "Zen 3 has no AVX-512:\n" << plan.output;
  EXPECT_NE(plan.output.find("gemm/avx2/f32/n:2048"), std::string::npos) << plan.output;
  expect_usage_error("--plan", "LADDER_TEST_CPU=/nonexistent: cannot read it", "LADDER_TEST_CPU=/nonexistent");
  // HWLOC_THISSYSTEM=1 (set to read a machine's gathered /sys under HWLOC_FSROOT) makes a recorded
  // topology claim to be this machine: the one line names it, not only a load that failed.
  expect_usage_error("--plan", "taken as this machine, as HWLOC_THISSYSTEM=1 asks",
                     "env -u HWLOC_FSROOT HWLOC_THISSYSTEM=1 HWLOC_SYNTHETIC="
                     "'pack:1 [numa(memory=8589934592)] l3:1(size=33554432) l2:2(size=524288) core:1 pu:1'");
}

TEST(Cli, APlacementThisMachineCannotMeetIsOneLine) {
  expect_usage_error("--cores 0", "--cores '0' is not a positive number of cores");
  expect_usage_error("--cores 99999 --plan", "--cores 99999: this process may use ");
  expect_usage_error("--numa 4096 --plan", "--numa 4096: no such NUMA node among those this process may use");
  // The placement is ladderbench's own only where the shell sets none.
  const Result one =
      run_ladderbench("--cores 1 --plan --suite stream --profile quick", "env -u OMP_NUM_THREADS -u OMP_PROC_BIND");
  EXPECT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("\nthreads: 1 on 1 core\nplacement: 1 thread on 1 core of 1 package"), std::string::npos)
      << one.output;
  // One core of several measures a smaller machine: filed apart.
  const std::string id = run_ladderbench("--machine-id").output, one_core = run_ladderbench("--cores 1 --machine-id").output;
  if (id.find("-1c\n") == std::string::npos) {
    EXPECT_NE(one_core.find("-on-1\n"), std::string::npos) << one_core;
  }
}

TEST(Cli, ListShowsEveryRungWithItsStatus) {
  Result r = run_ladderbench("--list");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* rung : {"gemm/boxed ", "gemm/naive ", "gemm/avx512 ", "gemm/amx ", "model/naive ", "model/cpu "})
    EXPECT_NE(r.output.find(rung), std::string::npos) << rung << "\n" << r.output;
  std::size_t lines = 0, with_status = 0;
  for (std::size_t pos = 0; (pos = r.output.find("\ngemm/", pos)) != std::string::npos || lines == 0;) {
    if (pos == std::string::npos) break;
    ++lines;
    std::string line = r.output.substr(pos + 1, r.output.find('\n', pos + 1) - pos - 1);
    if (line.find(" available") != std::string::npos || line.find("unavailable: ") != std::string::npos) ++with_status;
    ++pos;
  }
  EXPECT_EQ(lines, with_status);
}

// Without a GPU (as in CI) the GPU rungs say why, with the CUDA runtime's own words (or, in a
// build without CUDA, that it was left out), and asking for one alone is refused; with a GPU they
// are available. The same holds for the GPU suites' rungs.
TEST(Cli, GpuRungsAreAvailableOrSayWhy) {
  Result list = run_ladderbench("--list");
  bool naive_unavailable = false;
  for (const char* rung :
       {"gemm/cuda-naive ", "gemm/cuda-tiled ", "gemm/cuda-regtile ", "gemm/cuda-warptile ", "gemm/cublas ", "gemm/cublas-tf32 ",
        "gemm/cuda-mma-f16 ", "gemm/cuda-mma-bf16 ", "gemm/cublas-f16 ", "gemm/cublas-bf16 ", "gemm/torch-cuda ",
        "gemm/torch-cuda-tf32 ", "gemm/torch-cuda-f16 ", "gemm/torch-cuda-bf16 ", "gemm/jax ", "gemm/cupy "}) {
    auto at = list.output.find(rung);
    ASSERT_NE(at, std::string::npos) << rung;
    std::string line = list.output.substr(at, list.output.find('\n', at) - at);
    bool available = line.size() >= 10 && line.compare(line.size() - 10, 10, " available") == 0;
    auto reason = line.find("unavailable: ");
    EXPECT_TRUE(available || (reason != std::string::npos && line.size() > reason + 14)) << line;
    if (std::string(rung) == "gemm/cuda-naive ") naive_unavailable = !available;
  }
  // The suites' GPU rungs, each listed by its suite, share the device's status.
  for (const char* rung : {"stream/device-copy ", "stream/device-triad ", "pcie/h2d-pinned ", "pcie/d2h-pageable ",
                           "roofline/cuda ", "overhead/cuda-launch ", "overhead/cuda-graph "}) {
    auto at = list.output.find(rung);
    ASSERT_NE(at, std::string::npos) << rung << "\n" << list.output;
    std::string line = list.output.substr(at, list.output.find('\n', at) - at);
    EXPECT_NE(line.find(naive_unavailable ? " unavailable: " : " available"), std::string::npos) << line;
  }
  if (naive_unavailable) {
    Result r = run_ladderbench("--rungs cuda-naive --sizes 8");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("no case to run: cuda-naive is unavailable: "), std::string::npos) << r.output;
    EXPECT_EQ(count_lines(r.output), 1) << r.output;
    Result pcie = run_ladderbench("--suite pcie --rungs h2d-pinned");
    EXPECT_EQ(pcie.exit_code, 2);
    EXPECT_NE(pcie.output.find("no case to run: h2d-pinned is unavailable: "), std::string::npos) << pcie.output;
    Result pcie_alone = run_ladderbench("--suite pcie");
    EXPECT_EQ(pcie_alone.exit_code, 2);
    EXPECT_NE(pcie_alone.output.find("no case to run: every rung of the pcie suite is unavailable: "), std::string::npos)
        << pcie_alone.output;
    // --device all with no device: one line saying why, before anything runs.
    Result every = run_ladderbench("--device all --suite stream");
    EXPECT_EQ(every.exit_code, 2);
    EXPECT_NE(every.output.find("--device all: "), std::string::npos) << every.output;
    EXPECT_EQ(every.output.find("device 0 of"), std::string::npos) << every.output;
  }
}

TEST(Cli, IsaCapMakesHandWrittenRungsUnavailable) {
  Result r = run_ladderbench("--list", "LADDER_MAX_ISA=avx2");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("unavailable: capped by LADDER_MAX_ISA=avx2"), std::string::npos) << r.output;
}

TEST(Cli, AnUnavailableRungIsSkippedWithItsReason) {
  // Capped, avx512 cannot run; asking for it alone leaves nothing to run: one line says why.
  expect_usage_error("--rungs avx512 --sizes 8", "no case to run: avx512 is unavailable: capped by LADDER_MAX_ISA=avx2",
                     "LADDER_MAX_ISA=avx2");
  // Beside a rung that runs, it is skipped, saying so under the run's header.
  const Result r = run_ladderbench("--rungs avx512,naive --sizes 8 --benchmark_list_tests=true", "LADDER_MAX_ISA=avx2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto note = r.output.find("note: skipping gemm/avx512: unavailable: capped by LADDER_MAX_ISA=avx2");
  ASSERT_NE(note, std::string::npos) << r.output;
  EXPECT_LT(r.output.find("measuring the machine's ceilings"), note) << r.output;
}

}  // namespace
