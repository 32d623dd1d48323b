// The console a person reads: lines within the terminal, rows with the few figures that matter,
// an estimate of the time left, and an ending that names the results and the next commands.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "case_rows.hpp"
#include "console.hpp"
#include "console_report.hpp"
#include "progress.hpp"

namespace ladder {
namespace {

namespace fs = std::filesystem;
using BenchRun = benchmark::BenchmarkReporter::Run;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(Console, ProseWrapsAtSpacesWithAHangingIndent) {
  const std::string text = "  peak f32 theoretical 542.3 GFLOP/s = 2 cores x 64 FLOP/cycle x 4.24 GHz (measured)\n";
  const std::string wrapped = wrap_lines(text, 40);
  for (const auto& line : lines(wrapped)) EXPECT_LE(display_width(line), 40) << wrapped;
  EXPECT_EQ(lines(wrapped).size(), 3u) << wrapped;
  EXPECT_EQ(lines(wrapped)[1].rfind("    ", 0), 0u) << "the indent and two more: " << wrapped;
  EXPECT_EQ(wrap_lines(text, 0), text) << "no terminal: as it is";
  // Words are kept whole; only a word longer than the line is cut.
  std::string joined;
  for (const auto& line : lines(wrapped)) joined += line.substr(line.find_first_not_of(' ')) + " ";
  EXPECT_EQ(joined, text.substr(2, text.size() - 3) + " ");
  EXPECT_LE(display_width(lines(wrap_lines(std::string(90, 'x'), 40))[0]), 40);
}

TEST(Console, TablesAreClippedAndMarkedButTheirNotesWrap) {
  const std::string table = std::string(60, 'a') + "\nshort\nnote: " + std::string(30, 'b') + " " + std::string(30, 'c') + "\n";
  Console console(false, 40, false);
  const std::string clipped = clip_lines(table, 40);
  EXPECT_EQ(lines(clipped)[0], std::string(39, 'a') + "~");
  EXPECT_EQ(lines(clipped)[1], "short");
  EXPECT_EQ(display_width("é"), 1) << "a UTF-8 letter takes one column";
}

TEST(Console, TheEstimateFollowsTheCasesDoneAndStartsFromThePrior) {
  EXPECT_DOUBLE_EQ(estimated_seconds_left(100, 0, 0, 0.5), 50);
  // 50 of 100 done in 100 s: 2 s a case, pulled a little toward the prior of 0.5 s.
  const double left = estimated_seconds_left(100, 50, 100, 0.5);
  EXPECT_NEAR(left, 50 * (100 + 3 * 0.5) / 53, 1e-9);
  EXPECT_GT(left, 90);
  EXPECT_EQ(estimated_seconds_left(10, 10, 30, 0.5), 0);
  EXPECT_EQ(format_duration(42.4), "42 s");
  EXPECT_EQ(format_duration(185), "3 min 05 s");
  EXPECT_EQ(format_duration(3720), "1 h 02 min");
}

TEST(Console, ThePlannedEstimateFollowsThePlanScaledByThePaceSoFar) {
  // Nothing done: the plan as it stands, less the time the first case has run.
  EXPECT_DOUBLE_EQ(planned_seconds_left(200, 0, 0, 0, 1), 200);
  EXPECT_DOUBLE_EQ(planned_seconds_left(200, 0, 0, 5, 1), 195);
  // Half the plan done in twice its time: the rest at nearly twice its plan (pulled toward it).
  const double left = planned_seconds_left(200, 100, 200, 0, 1);
  EXPECT_NEAR(left, 100 * (200 + 3.0) / (100 + 3.0), 1e-9);
  EXPECT_GT(left, 190);
  // Slow cases planned as slow keep the pace: the rest stays as planned.
  EXPECT_DOUBLE_EQ(planned_seconds_left(200, 150, 150, 0, 1), 50);
  EXPECT_EQ(planned_seconds_left(200, 200, 180, 10, 1), 0);
}

BenchRun one_run(const std::string& name, std::map<std::string, double> counters, double seconds) {
  BenchRun r;
  r.run_name.function_name = name;
  r.run_name.time_type = "real_time";
  r.iterations = 10;
  r.repetitions = 1;  // Google Benchmark 1.9 leaves it uninitialised; a real run always sets it
  r.real_accumulated_time = 10 * seconds;
  r.time_unit = benchmark::kMillisecond;
  for (const auto& [key, value] : counters) r.counters[key] = value;
  return r;
}

TEST(Console, ACaseRowHasTheFiguresAPersonReadsWithin100Columns) {
  BenchRun median = one_run(
      "gemm/onednn-bf16-packed/bf16/n:4096",
      {{"flops", 4.367e11}, {"regime", 0}, {"roof_fraction", 0.81}, {"rel_error", 3.7e-3}, {"traffic_bytes", 1e9}, {"n", 4096}},
      0.3147);
  median.run_type = BenchRun::RT_Aggregate;
  median.aggregate_name = "median";
  BenchRun cv = median;
  cv.aggregate_name = "cv";
  cv.real_accumulated_time = 0.012;
  BenchRun repetition = median;
  repetition.run_type = BenchRun::RT_Iteration;
  repetition.repetitions = 4;
  EXPECT_EQ(case_row({repetition, repetition}), "") << "the repetitions wait for their median, reported next";
  const std::string row = case_row({median, cv});
  EXPECT_NE(row.find("gemm/onednn-bf16-packed/bf16/n:4096 "), std::string::npos) << row;
  EXPECT_EQ(row.find("real_time"), std::string::npos) << row;
  EXPECT_NE(row.find("315 ms"), std::string::npos) << row;
  EXPECT_NE(row.find("1.2%"), std::string::npos) << row;
  EXPECT_NE(row.find("436.7 GFLOP/s"), std::string::npos) << row;
  EXPECT_NE(row.find("compute 81%; err 3.7e-03"), std::string::npos) << row;
  EXPECT_EQ(row.find("traffic"), std::string::npos) << "the other counters stay in the file: " << row;
  EXPECT_LE(display_width(row.substr(0, row.size() - 1)), 100) << row;
  EXPECT_LE(display_width(case_row_header()), 101);
  const std::string stream = case_row({one_run("stream/triad/f64/n:1048576", {{"bytes_per_second", 2.33e11}}, 1e-4)});
  EXPECT_NE(stream.find("233 GB/s"), std::string::npos) << stream;
  EXPECT_NE(stream.find("100 us"), std::string::npos) << stream;
  EXPECT_EQ(case_row({}), "");
}

TEST(Console, TheEndingNamesTheVerdictTheResultsAndTheNextCommands) {
  ClosingFacts facts;
  facts.noise.other_share = 0.004;
  facts.cases = 226;
  facts.seconds = 265;
  facts.results_path = "results/m/new.json";
  facts.previous_run = "results/m/old.json";
  facts.report_commands = {{"ladder", "the ladder report: each rung's speed and why"}};
  std::string text = closing_lines(facts);
  EXPECT_NE(text.find("quiet during the run: others took 0.4%"), std::string::npos) << text;
  EXPECT_NE(text.find("226 case(s) in 4 min 25 s"), std::string::npos) << text;
  EXPECT_NE(text.find("Results: results/m/new.json"), std::string::npos) << text;
  EXPECT_NE(text.find("report.py ladder results/m/new.json"), std::string::npos) << text;
  EXPECT_NE(text.find("report.py compare results/m/old.json results/m/new.json"), std::string::npos) << text;
  EXPECT_NE(text.find("report.py publish"), std::string::npos) << text;
  facts.noise.reasons = {"others took 31% of the CPUs", "the load average was 3.1"};
  facts.failed = 2;
  facts.previous_run.reset();
  facts.results_path.reset();
  text = closing_lines(facts);
  EXPECT_NE(text.find("not quiet during the run (noise_verdict noisy): others took 31% of the CPUs; the load average"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2 FAILED"), std::string::npos) << text;
  EXPECT_NE(text.find("No results file was written"), std::string::npos) << text;
  EXPECT_EQ(text.find("compare"), std::string::npos) << text;
}

TEST(Console, ThePreviousRunIsTheNewestOtherFileOfTheSameProfile) {
  const fs::path dir = fs::temp_directory_path() / ("ladder-previous-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const auto write = [&dir](const std::string& name, const std::string& profile, int age_seconds) {
    std::ofstream(dir / name) << R"({"context": {"profile": ")" << profile << R"("}, "benchmarks": []})";
    fs::last_write_time(dir / name, fs::file_time_type::clock::now() - std::chrono::seconds(age_seconds));
  };
  write("a.json", "quick", 300);
  write("b.json", "quick", 200);
  write("c.json", "full", 100);
  write("d.json.x.partial", "quick", 50);
  write("new.json", "quick", 0);
  // A FIFO and a link of the same name pattern are passed over, never opened (the read would hang).
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0644), 0);
  fs::create_symlink(dir / "a.json", dir / "link.json");
  EXPECT_EQ(previous_run((dir / "new.json").string(), "quick"), (dir / "b.json").string());
  EXPECT_EQ(previous_run((dir / "new.json").string(), "full"), (dir / "c.json").string());
  EXPECT_EQ(previous_run((dir / "new.json").string(), "smoke"), std::nullopt);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ladder
