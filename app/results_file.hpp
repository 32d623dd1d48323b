// Where a run's figures go (--benchmark_out): nothing measured is lost and nothing good is
// overwritten by something worse.
//  - While the run goes on, each case's figures are appended to a private file next to the
//    target (`<out>.<random>.partial`, one per run); on SIGINT or SIGTERM it is closed as valid
//    JSON and renamed `<out>.interrupted.json`, and the console says so. Its context keeps room
//    for what the end would have added (the noise verdict), rewritten after each case.
//  - At the end the whole is written to another private file, every write and the close checked,
//    fsync'ed, parsed back, and only then renamed over the target. A run that measured nothing
//    writes nothing. Where the final write fails (a full disk), the target keeps what it had and
//    the figures stay in the partial file, named so, with one line saying where.
#pragma once
#include <sys/types.h>
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "repetitions.hpp"

namespace ladder {

enum class ResultsFormat { json, csv, console };
std::optional<ResultsFormat> parse_results_format(std::string_view name);

class ResultsFile : public benchmark::BenchmarkReporter {
 public:
  // Creates the run's partial file beside `path`; throws std::runtime_error naming the path where
  // that is not possible, before anything is measured: a missing or read-only folder, a path that
  // is anything but a regular file (a directory, a device such as /dev/null, a FIFO, a symbolic
  // link: the final rename would replace it), or a file another run is writing (path.lock, held
  // with flock for the whole run). A file replaced keeps its permissions.
  ResultsFile(std::string path, ResultsFormat format);
  ~ResultsFile() override;

  // A run may take several rounds (adaptive repetitions), each one Google Benchmark run: the file
  // gets the first round's context, every round's runs, and its closing only at commit().
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override {}

  // Adaptive repetitions: Google Benchmark's statistics of each round are left out, each
  // repetition is numbered across rounds, and the statistics over all rounds come at the end.
  void merge_rounds() { merge_rounds_ = true; }
  void report_merged_aggregates(const std::vector<Run>& aggregates);

  // What an interrupted run's file should carry in its context (JSON only): asked after each
  // case, written into room kept in the partial file's context; a finished run gets commit()'s.
  using ContextKeys = std::vector<std::pair<std::string, std::string>>;
  void set_interim_context(std::function<ContextKeys()> interim) { interim_ = std::move(interim); }

  // Runs that reached the file (repetitions and aggregates included).
  int runs_reported() const { return runs_reported_; }

  // Writes the finished file, with `late_context` (what is known only at the end of the run)
  // added to the JSON's context. Returns an empty string, or one line saying what went wrong and
  // where the figures are.
  std::string commit(const ContextKeys& late_context);
  // A run that measured nothing: the partial file goes, the target is left as it was.
  void discard();

  // Unfinished files of runs into the same path that were killed outright (SIGKILL, the OOM
  // killer: no handler ran), found as this run took the lock: they hold what those runs measured.
  const std::vector<std::string>& stale_files() const { return stale_files_; }

  const std::string& path() const { return path_; }
  const std::string& partial_path() const { return partial_path_; }

 private:
  void append_new_output();
  void write_piece(const std::string& piece);
  void write_interim_context();

  std::string path_, partial_path_;
  ResultsFormat format_;
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::ostringstream buffer_;  // the reporter's output not yet taken
  std::string text_;           // everything the reporter wrote so far
  int partial_fd_ = -1;
  int lock_fd_ = -1;
  std::string lock_path_;
  std::vector<std::string> stale_files_;
  std::optional<mode_t> mode_;  // the replaced file's permissions
  bool context_reported_ = false;
  bool merge_rounds_ = false;
  RoundNumbering numbering_;
  bool partial_failed_ = false;
  int runs_reported_ = 0;
  std::function<ContextKeys()> interim_;
  off_t interim_offset_ = -1;  // where the room for the interim context starts in the partial file
};

// Adds keys to a Google Benchmark JSON document's context; returns the document, or nothing
// where `text` is not such a document with at least one benchmark.
std::optional<std::string> finish_results_json(const std::string& text,
                                               const std::vector<std::pair<std::string, std::string>>& late_context);

// Writes `text` to `path` atomically: a private temporary file beside it, every write and the
// close checked, fsync, rename, fsync of the folder. Returns an empty string, or why it failed
// (the target untouched). The file gets `mode`, or where none is given the umask's default.
std::string write_file_atomically(const std::string& path, const std::string& text, std::optional<mode_t> mode = std::nullopt);

}  // namespace ladder
