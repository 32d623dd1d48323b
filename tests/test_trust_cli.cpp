// Nothing measured is lost, nothing good is overwritten, every error is one line: ladderbench run
// as a careless or hostile user would (a full disk, two runs at once, an interrupt, bad flags,
// tight limits, a busy machine). Over 400 lines: one fixture for every abuse of the whole program,
// each test short and reading on its own.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

namespace {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string output;
};

Result shell(const std::string& command) {
  Result r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  while (std::fgets(buffer.data(), buffer.size(), pipe)) r.output += buffer.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string exe() { return fmt::format("'{}'", LADDERBENCH_EXE); }

// A folder of the test's own, empty, removed at the end.
class TrustCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(LADDER_TEST_TMP) /
           fmt::format("trust-{}-{}", ::testing::UnitTest::GetInstance()->current_test_info()->name(), getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    out_ = dir_ / "results.json";
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A results file that must survive: what a good earlier run left.
  void write_good_file() { std::ofstream(out_) << kGood; }
  std::string content() const {
    std::ifstream in(out_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_))
      if (entry.path() != out_) names.push_back(entry.path().filename().string());
    return names;
  }
  static constexpr const char* kGood = "{\"context\": {\"machine_id\": \"earlier\"}, \"benchmarks\": [{\"name\": \"kept\"}]}\n";
  static constexpr const char* kSmoke = "--profile smoke --suite gemm --rungs naive,autovec --benchmark_min_time=0.001";
  fs::path dir_, out_;
};

void expect_one_line_usage_error(const Result& r, const std::string& message) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_EQ(r.output.rfind("ladderbench: ", 0), 0u) << r.output;
  // Refused before the ceilings' half minute.
  EXPECT_EQ(r.output.find("measuring the machine's ceilings"), std::string::npos) << r.output;
}

// Items 8 and 9: Google Benchmark's flags are checked before anything is measured.
TEST_F(TrustCli, BadBenchmarkFlagsAreOneLineAndExitTwoBeforeMeasuring) {
  const std::string base = exe() + " --sizes 8 --rungs naive ";
  expect_one_line_usage_error(shell(base + "--benchmark_repetitions=-3"), "--benchmark_repetitions '-3'");
  expect_one_line_usage_error(shell(base + "--benchmark_repetitions=0"), "--benchmark_repetitions '0'");
  expect_one_line_usage_error(shell(base + "--benchmark_repetitions=abc"), "--benchmark_repetitions 'abc'");
  expect_one_line_usage_error(shell(base + "--benchmark_min_time=abc"), "--benchmark_min_time 'abc'");
  expect_one_line_usage_error(shell(base + "--benchmark_min_time=-1"), "--benchmark_min_time '-1'");
  expect_one_line_usage_error(shell(base + "--benchmark_out_format=xml --benchmark_out=" + out_.string()),
                              "'xml' is not json, csv or console");
  expect_one_line_usage_error(shell(base + "--benchmark_format=xml"), "'xml' is not json, csv or console");
  expect_one_line_usage_error(shell(base + "--benchmark_bogus=1"), "unknown Google Benchmark flag '--benchmark_bogus=1'");
  expect_one_line_usage_error(shell(base + "--benchmark_time_unit=parsec"), "--benchmark_time_unit 'parsec' is not ns");
  EXPECT_TRUE(leftovers().empty());
}

// The program's own context (its measurements, the build, the machine, the noise verdict) cannot
// be forged from the command line; keys of the user's own, user_*, can be added, once each.
TEST_F(TrustCli, TheProgramsOwnContextCannotBeSetFromTheCommandLine) {
  const std::string base = exe() + " --sizes 8 --rungs naive ";
  expect_one_line_usage_error(shell(base + "--benchmark_context=peak_f32_flops=1e20,git_sha=deadbeef"),
                              "entry 'peak_f32_flops=1e20' is not user_KEY=VALUE");
  expect_one_line_usage_error(shell(base + "--benchmark_context=machine_id=../../evil"), "entry 'machine_id=../../evil'");
  expect_one_line_usage_error(shell(base + "--benchmark_context=noise_verdict=quiet"), "entry 'noise_verdict=quiet'");
  expect_one_line_usage_error(shell(base + "--benchmark_context=user_a=1,user_a=2"), "names 'user_a' twice");
  const Result ok = shell(base +
                          "--profile smoke --benchmark_min_time=0.001 --benchmark_context=user_site=lab3 "
                          "--benchmark_out=" +
                          out_.string());
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  const auto context = nlohmann::json::parse(content())["context"];
  EXPECT_EQ(context.value("user_site", ""), "lab3");
}

// Item 8: a process limit below what the run needs is named, not met with std::bad_alloc.
TEST_F(TrustCli, AnAddressSpaceLimitIsHonouredAndNamed) {
  // 2 GB and one thread: the CUDA libraries alone map about a gigabyte before main() runs, and
  // OpenBLAS reserves 128 MiB a thread (start-up's own refusal is NoAddressSpaceLimitHangsTheStartUp's).
  const Result r = shell("ulimit -v 2000000; OMP_NUM_THREADS=1 exec " + exe() + " --suite gemm --rungs autovec --sizes 8000");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("ulimit -v"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("start-up needs"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

// Point 15: no address-space limit makes the start-up hang (OpenBLAS retried its buffers forever
// below about 1 GB on two CPUs): from 2 GiB down to 128 MiB, every limit is answered, most tightly
// by one line naming it (below the libraries' own size the loader says so itself).
TEST_F(TrustCli, NoAddressSpaceLimitHangsTheStartUp) {
  int refused = 0;
  for (int mib = 2048; mib >= 128; mib -= 64) {
    const Result r = shell(fmt::format("ulimit -v {}; exec timeout 60 {} --help", mib * 1024, exe()));
    ASSERT_NE(r.exit_code, 124) << "ulimit -v of " << mib << " MiB: no answer in 60 s";
    if (r.output.find("the address-space limit (ulimit -v) of") == std::string::npos) continue;
    ++refused;
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
#ifdef LADDER_HAVE_OPENBLAS
  EXPECT_GT(refused, 0);
#endif
}

// Item 12: three sizes that fit one at a time but not together are refused before any allocation.
TEST_F(TrustCli, TheMemoryCheckSumsWhatTheRunHoldsAtOnce) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0, available = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") available = kib * 1024;
    meminfo.ignore(64, '\n');
  }
  ASSERT_GT(available, 0);
  // One size: its inputs (16 B an element, references sampled) and one case (16 B) = 32 n^2,
  // half of what is available; three sizes together: 3 x 16 + 16 = 64 n^2, all of it.
  const auto n = static_cast<std::int64_t>(std::sqrt(0.5 * available / 32));
  const Result one = shell(exe() + fmt::format(" --suite gemm --rungs autovec --sizes {} --benchmark_list_tests=true", n));
  EXPECT_EQ(one.exit_code, 0) << one.output;
  const Result three = shell(exe() + fmt::format(" --suite gemm --rungs autovec --sizes {},{},{}", n, n + 8, n + 16));
  EXPECT_EQ(three.exit_code, 2) << three.output;
  EXPECT_NE(three.output.find("the run would hold about"), std::string::npos) << three.output;
}

// Item 4: a full disk (here a file-size limit) never replaces a good file with a truncated one.
TEST_F(TrustCli, AFailedWriteKeepsTheGoodFileAndSaysSo) {
  write_good_file();
  const Result r = shell(fmt::format("ulimit -f 8; exec {} {} --benchmark_out='{}'", exe(), kSmoke, out_.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("the results were not written"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("results written to"), std::string::npos) << r.output;
  EXPECT_EQ(content(), kGood);
  for (const auto& name : leftovers()) EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
}

// Item 5: a run that measures nothing writes nothing.
TEST_F(TrustCli, ARunThatMeasuresNothingLeavesTheFileAlone) {
  write_good_file();
  const Result list = shell(fmt::format("{} {} --benchmark_list_tests=true --benchmark_out='{}'", exe(), kSmoke, out_.string()));
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("gemm/naive/f32/n:8"), std::string::npos) << list.output;
  const Result none = shell(fmt::format("{} {} --benchmark_repetitions=0 --benchmark_out='{}'", exe(), kSmoke, out_.string()));
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_EQ(content(), kGood);
  EXPECT_TRUE(leftovers().empty());
}

// Item 6: two runs writing the same file at once: the second is refused, saying why, while the
// first holds the file's lock (flock on FILE.lock); the file ends as one complete run.
TEST_F(TrustCli, TwoRunsIntoOneFileDoNotCorruptEachOther) {
  const std::string run = fmt::format("{} {} --benchmark_out='{}'", exe(), kSmoke, out_.string());
  const Result both =
      shell(fmt::format("({0}) 2>&1 & ({0}) 2>&1; second=$?; wait $!; first=$?; "
                        "echo \"exits $((first + second)) $((first * second))\"",
                        run));
  const bool refused = both.output.find("exits 2 0") != std::string::npos;  // one refused, the other whole
  EXPECT_TRUE(refused || both.output.find("exits 0 0") != std::string::npos) << both.output;
  if (refused) {
    EXPECT_NE(both.output.find("another ladderbench run is writing"), std::string::npos) << both.output;
  }
  const auto doc = nlohmann::json::parse(content(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << content().substr(0, 400);
  EXPECT_EQ(doc["benchmarks"].size(), 4u);  // naive and autovec at n = 8 and 33
  EXPECT_TRUE(leftovers().empty());
  // Held by another process, the lock refuses a run before anything is measured.
  const Result held =
      shell(fmt::format("flock '{}.lock' {} --sizes 8 --rungs naive --benchmark_out='{}'", out_.string(), exe(), out_.string()));
  EXPECT_EQ(held.exit_code, 2) << held.output;
  EXPECT_NE(held.output.find("another ladderbench run is writing"), std::string::npos) << held.output;
  EXPECT_EQ(held.output.find("measuring the machine's ceilings"), std::string::npos) << held.output;
}

// An interpreter that answers with arbitrary bytes (where the case, not the probe, starts it): the
// case's error holds them, and the file is valid UTF-8 JSON all the same.
TEST_F(TrustCli, AnyBytesAKernelSaysLeaveAValidUtf8File) {
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no numpy in /usr/bin/python3";
  const fs::path python = dir_ / "python3";
  std::ofstream(python)
      << "#!/bin/sh\n"
         "case \"$*\" in *library_matmul.py\\ numpy\\ 8\\ *) printf 'bad \\377\\376\\001 bytes\\n'; exit 0;; esac\n"
         "exec /usr/bin/python3 \"$@\"\n";
  fs::permissions(python, fs::perms::owner_all);
  const Result r =
      shell(fmt::format("LADDER_PYTHON='{}' {} --suite gemm --rungs numpy,naive --sizes 8 --benchmark_min_time=0.001 "
                        "--benchmark_out='{}'",
                        python.string(), exe(), out_.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the numpy case failed
  const std::string text = content();
  EXPECT_NE(text.find("bad \xEF\xBF\xBD\xEF\xBF\xBD  bytes"), std::string::npos) << text.substr(0, 2000);
  const auto doc = nlohmann::json::parse(text, nullptr, false);  // nlohmann refuses invalid UTF-8
  ASSERT_FALSE(doc.is_discarded()) << text.substr(0, 400);
}

// A closed stdout (ladderbench ... | head -1) does not lose the run's results.
TEST_F(TrustCli, AClosedStdoutDoesNotLoseTheResults) {
  const fs::path status = fs::path(LADDER_TEST_TMP) / fmt::format("closed-stdout-{}", getpid());
  const Result r = shell(fmt::format("{{ {} {} --benchmark_out='{}'; echo $? >'{}'; }} | head -1 >/dev/null", exe(), kSmoke,
                                     out_.string(), status.string()));
  std::ifstream in(status);
  int exit_code = -1;
  in >> exit_code;
  fs::remove(status);
  EXPECT_EQ(exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(content(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["benchmarks"].size(), 4u);
  EXPECT_TRUE(leftovers().empty());
}

// Point 9: what a run killed outright (SIGKILL, the OOM killer) measured stays in its partial file;
// the next run into the same file names it, and leaves it.
TEST_F(TrustCli, APartialFileLeftByAKilledRunIsNamedByTheNext) {
  const fs::path log = dir_ / "killed.log";
  // Cases of 5 s each: the kill comes while the second runs.
  shell(fmt::format(
      "{} --profile smoke --suite gemm --rungs naive,autovec --benchmark_min_time=5 --benchmark_out='{}' >'{}' 2>&1 & pid=$!; "
      "for i in $(seq 600); do grep -q '^gemm/' '{}' && break; sleep 0.1; done; kill -9 $pid; wait $pid",
      exe(), out_.string(), log.string(), log.string()));
  std::vector<std::string> stale;
  for (const auto& name : leftovers())
    if (name.ends_with(".partial")) stale.push_back(name);
  ASSERT_EQ(stale.size(), 1u);
  const Result r = shell(fmt::format("{} {} --benchmark_out='{}'", exe(), kSmoke, out_.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("note: " + (dir_ / stale[0]).string() + " was left by a run killed before it finished"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::exists(dir_ / stale[0]));
}

// Only a regular file (or a new path) is replaced; a replaced file keeps its permissions.
TEST_F(TrustCli, ResultsReplaceOnlyARegularFileAndKeepItsMode) {
  const fs::path fifo = dir_ / "fifo.json", link = dir_ / "link.json", device = dir_ / "null.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  fs::create_symlink("/proc/self/fd/1", link);
  const bool have_device = ::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;  // /dev/null's twin, as root
  std::vector<std::pair<fs::path, std::string>> targets = {
      {fifo, "is a FIFO"}, {link, "is a symbolic link"}, {dir_, "is a directory"}};
  if (have_device) targets.emplace_back(device, "is a character device");
  for (const auto& [target, what] : targets) {
    const Result r = shell(fmt::format("{} --sizes 8 --rungs naive --benchmark_out='{}'", exe(), target.string()));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(fs::is_symlink(link));
  if (have_device) {
    EXPECT_TRUE(fs::is_character_file(device));
  }
  write_good_file();
  fs::permissions(out_, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const Result r = shell(fmt::format("{} {} --benchmark_out='{}'", exe(), kSmoke, out_.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(content(), kGood);
  EXPECT_EQ(fs::status(out_).permissions(), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
}

// Item 7: an interrupted run keeps what it measured, as valid JSON named for what it is.
TEST_F(TrustCli, AnInterruptedRunKeepsWhatItMeasured) {
  write_good_file();
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  if (child == 0) {
    dup2(pipe_fds[1], STDERR_FILENO);
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    const std::string out_flag = "--benchmark_out=" + out_.string();
    execl(LADDERBENCH_EXE, LADDERBENCH_EXE, "--profile", "smoke", "--suite", "gemm", "--rungs", "naive,autovec,tiled,parallel",
          "--benchmark_min_time=0.2", out_flag.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fds[1]);
  // Interrupt once three cases' rows are printed: the first two are surely in the partial file (a
  // row is printed just before its case is written).
  std::string seen;
  std::array<char, 4096> buffer;
  const auto rows = [&seen] {
    int n = 0;
    for (std::size_t at = 0; (at = seen.find("\ngemm/", at)) != std::string::npos; ++at) ++n;
    return n;
  };
  for (ssize_t got; rows() < 3 && (got = read(pipe_fds[0], buffer.data(), buffer.size())) > 0;)
    seen.append(buffer.data(), static_cast<std::size_t>(got));
  kill(child, SIGINT);
  for (ssize_t got; (got = read(pipe_fds[0], buffer.data(), buffer.size())) > 0;)
    seen.append(buffer.data(), static_cast<std::size_t>(got));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << seen;
  const fs::path interrupted = dir_ / "results.interrupted.json";
  EXPECT_NE(seen.find("interrupted; the cases measured so far are in " + interrupted.string()), std::string::npos) << seen;
  std::ifstream in(interrupted);
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_GE(doc["benchmarks"].size(), 2u);
  // Its noise judged as far as it went (trust, second round, point 21): each key once.
  const auto& context = doc["context"];
  EXPECT_TRUE(context["noise_verdict"] == "quiet" || context["noise_verdict"] == "noisy") << context.dump();
  EXPECT_NE(context.value("noise_scope", "").find("measured before the run was interrupted"), std::string::npos);
  std::ifstream raw(interrupted);
  const std::string text{std::istreambuf_iterator<char>(raw), std::istreambuf_iterator<char>()};
  EXPECT_EQ(text.find("\"noise_verdict\""), text.rfind("\"noise_verdict\""));
  EXPECT_EQ(content(), kGood);
  for (const auto& name : leftovers()) EXPECT_EQ(name, "results.interrupted.json");
}

// Item 14: more threads than cores is named on the console and in the JSON.
TEST_F(TrustCli, OversubscribedThreadsAreNamed) {
  // The CPUs this process may run on (a CI container's cpuset may hold fewer than the machine has).
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const auto cores = static_cast<unsigned>(CPU_COUNT(&allowed));
  const Result r =
      shell(fmt::format("OMP_NUM_THREADS={} {} --profile smoke --suite gemm --rungs naive "
                        "--benchmark_min_time=0.001 --benchmark_out='{}'",
                        cores * 4, exe(), out_.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(fmt::format("{} threads on {} logical CPUs", cores * 4, cores)), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("This machine was not quiet during the run"), std::string::npos) << r.output;
  const auto doc = nlohmann::json::parse(content(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["context"]["noise_verdict"], "noisy");
  EXPECT_NE(doc["context"]["noise_reasons"].get<std::string>().find("oversubscribed"), std::string::npos);
  // Far past the CPUs (OpenMP's runtime crashed at 100000): refused in one line.
  for (const unsigned threads : {cores * 9, 100000u}) {
    const Result refused = shell(fmt::format("OMP_NUM_THREADS={} {} --sizes 8 --rungs naive", threads, exe()));
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find(fmt::format("{} threads (OMP_NUM_THREADS)", threads)), std::string::npos) << refused.output;
    EXPECT_EQ(std::count(refused.output.begin(), refused.output.end(), '\n'), 1) << refused.output;
  }
}

}  // namespace

namespace {

// Adaptive repetitions: however many rounds ran, the file holds each case under its own name,
// every repetition numbered once, and one set of statistics over all of them.
TEST_F(TrustCli, AdaptiveRoundsLeaveOneCaseNameAndStatisticsOverEveryRepetition) {
  // A target no case meets and a budget that pays for it: every case gets at least one more round.
  const Result run =
      shell(fmt::format("{} --profile smoke --suite gemm --rungs naive,autovec --adaptive-cv 0 --adaptive-budget 50 "
                        "--benchmark_min_time=0.001 --benchmark_out='{}'",
                        exe(), out_.string()));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("round 2: 4 case(s) spread more than 0%; 4 of them fit"), std::string::npos) << run.output;
  const auto doc = nlohmann::json::parse(content(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_NE(doc["context"]["repetitions"].get<std::string>().find("adaptive"), std::string::npos);
  std::map<std::string, std::vector<int>> indices;
  std::map<std::string, std::map<std::string, int>> aggregates;  // case → aggregate → repetitions
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["run_name"];
    EXPECT_EQ(name.find("repeats:"), std::string::npos) << name;
    if (b["run_type"] == "iteration")
      indices[name].push_back(b["repetition_index"].get<int>());
    else
      aggregates[name][b["aggregate_name"]] = b["repetitions"].get<int>();
  }
  ASSERT_EQ(indices.size(), 4u);  // naive and autovec at n = 8 and 33
  for (auto& [name, seen] : indices) {
    std::sort(seen.begin(), seen.end());
    EXPECT_GE(seen.size(), 8u) << name;  // the floor, and at least one more round
    for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], static_cast<int>(i)) << name;
    ASSERT_EQ(aggregates[name].size(), 4u) << name;  // mean, median, stddev, cv: once
    for (const auto& [aggregate, repetitions] : aggregates[name])
      EXPECT_EQ(repetitions, static_cast<int>(seen.size())) << name << " " << aggregate;
  }
  EXPECT_TRUE(leftovers().empty());
}

// The extra rounds stay within their budget: with none, no case gets a second round, and the
// run says what is left noisy instead of running it.
TEST_F(TrustCli, AdaptiveRoundsStartNothingTheirBudgetCannotPayFor) {
  const Result run =
      shell(fmt::format("{} --profile smoke --suite gemm --rungs naive --adaptive-cv 0 --adaptive-budget 0 "
                        "--benchmark_min_time=0.001 --benchmark_out='{}'",
                        exe(), out_.string()));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("round 2"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("2 case(s) still spread more than 0%; the extra rounds' budget (0 s) is spent"), std::string::npos)
      << run.output;
  const auto doc = nlohmann::json::parse(content(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  int repetitions = 0;
  for (const auto& b : doc["benchmarks"]) repetitions += b["run_type"] == "iteration";
  EXPECT_EQ(repetitions, 8);  // naive at n = 8 and 33, the floor of four each
  const Result bad = shell(fmt::format("{} --adaptive-budget -1", exe()));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--adaptive-budget '-1' is not a share"), std::string::npos) << bad.output;
}

}  // namespace
