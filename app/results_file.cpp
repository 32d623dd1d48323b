#include "results_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>

namespace ladder {
namespace {

constexpr std::string_view kJsonClosing = "\n  ]\n}\n";
// Where Google Benchmark's JSON closes its context and opens the list of benchmarks.
constexpr std::string_view kContextEnd = "\n  },\n  \"benchmarks\": [";
// Room in an unfinished file's context for the keys an interrupted run carries (the noise verdict).
constexpr std::size_t kInterimRoom = 4096;

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

// What a kernel or an interpreter said can be any bytes; the file is valid UTF-8 JSON whatever it
// was: a byte that starts no valid UTF-8 sequence becomes U+FFFD, and a control character other
// than the layout's newline and tab (which Google Benchmark's JSON leaves raw) becomes a space.
std::string valid_utf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    for (std::size_t k = 1; length > 0 && k < length; ++k)
      if (i + k >= text.size() || (static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) length = 0;
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else if (length == 1 && byte < 0x20 && byte != '\n' && byte != '\t') {
      out += ' ';
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return out;
}

std::string without_json_suffix(const std::string& path) {
  return path.size() > 5 && path.ends_with(".json") ? path.substr(0, path.size() - 5) : path;
}

// What the signal handler needs, prepared beforehand: it may only make async-signal-safe calls.
struct InterruptState {
  volatile sig_atomic_t fd = -1;
  volatile sig_atomic_t has_context = 0;
  bool json = false;
  char partial[4096] = {};
  char interrupted[4096] = {};
  char lock[4096] = {};
  char message[8192] = {};
  char nothing_message[512] = {};
};
InterruptState g_interrupt;

void on_interrupt(int signal_number) {
  const int fd = g_interrupt.fd;
  if (fd >= 0) {
    g_interrupt.fd = -1;
    if (g_interrupt.has_context) {
      if (g_interrupt.json) (void)!::write(fd, kJsonClosing.data(), kJsonClosing.size());
      ::close(fd);
      ::rename(g_interrupt.partial, g_interrupt.interrupted);
      (void)!::write(STDERR_FILENO, g_interrupt.message, std::strlen(g_interrupt.message));
    } else {
      ::close(fd);
      ::unlink(g_interrupt.partial);
      (void)!::write(STDERR_FILENO, g_interrupt.nothing_message, std::strlen(g_interrupt.nothing_message));
    }
  }
  if (g_interrupt.lock[0]) ::unlink(g_interrupt.lock);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

constexpr int kInterruptSignals[] = {SIGINT, SIGTERM, SIGHUP};

sigset_t interrupt_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kInterruptSignals) sigaddset(&set, s);
  return set;
}

void copy_to(char* target, std::size_t capacity, const std::string& text) { std::snprintf(target, capacity, "%s", text.c_str()); }

}  // namespace

std::optional<ResultsFormat> parse_results_format(std::string_view name) {
  if (name == "json") return ResultsFormat::json;
  if (name == "csv") return ResultsFormat::csv;
  if (name == "console") return ResultsFormat::console;
  return std::nullopt;
}

std::string write_file_atomically(const std::string& path, const std::string& text, std::optional<mode_t> mode) {
  std::string pattern = path + ".XXXXXX.tmp";
  const int fd = ::mkstemps(pattern.data(), 4);
  if (fd < 0) return fmt::format("cannot create a file beside {}: {}", path, std::strerror(errno));
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, mode ? *mode : 0666 & ~mask);  // mkstemp's 0600 would hide results from other users
  const bool written = write_all(fd, text.data(), text.size());
  const int write_errno = errno;
  const bool synced = written && ::fsync(fd) == 0;
  const int sync_errno = errno;
  const bool closed = ::close(fd) == 0;
  const int close_errno = errno;
  std::string error;
  if (!written)
    error = fmt::format("writing {} failed: {}", pattern, std::strerror(write_errno));
  else if (!synced)
    error = fmt::format("flushing {} to disk failed: {}", pattern, std::strerror(sync_errno));
  else if (!closed)
    error = fmt::format("closing {} failed: {}", pattern, std::strerror(close_errno));
  else if (::rename(pattern.c_str(), path.c_str()) != 0)
    error = fmt::format("renaming {} to {} failed: {}", pattern, path, std::strerror(errno));
  if (!error.empty()) {
    ::unlink(pattern.c_str());
    return error;
  }
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (const int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY); dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return {};
}

std::optional<std::string> finish_results_json(const std::string& text,
                                               const std::vector<std::pair<std::string, std::string>>& late_context) {
  // Google Benchmark writes NaN and Infinity bare, as Python's json reads them; nlohmann does not.
  static const std::regex bare_non_finite(R"(:\s*-?(NaN|Infinity)\b)");
  const auto doc = nlohmann::json::parse(std::regex_replace(text, bare_non_finite, ": null"), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("context") || !doc.contains("benchmarks") ||
      !doc["benchmarks"].is_array() || doc["benchmarks"].empty())
    return std::nullopt;
  const std::size_t at = text.find(kContextEnd);
  if (at == std::string::npos) return std::nullopt;
  std::string added;
  for (const auto& [key, value] : late_context)
    added += fmt::format(",\n    {}: {}", nlohmann::json(key).dump(),
                         nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return text.substr(0, at) + added + text.substr(at);
}

ResultsFile::ResultsFile(std::string path, ResultsFormat format) : path_(std::move(path)), format_(format) {
  if (struct stat st{}; ::lstat(path_.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                         : S_ISLNK(st.st_mode)  ? "a symbolic link"
                         : S_ISCHR(st.st_mode)  ? "a character device"
                         : S_ISBLK(st.st_mode)  ? "a block device"
                         : S_ISFIFO(st.st_mode) ? "a FIFO"
                                                : "not a regular file";
      throw std::runtime_error(
          fmt::format("--benchmark_out '{}' is {}: results replace only a regular file (or go to a new "
                      "path), so it is left alone",
                      path_, what));
    }
    mode_ = st.st_mode & 07777;
  }
  // One run at a time into a file: a second would replace the first's figures without a word.
  lock_path_ = path_ + ".lock";
  for (;;) {
    lock_fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (lock_fd_ < 0) throw std::runtime_error(fmt::format("cannot write results beside '{}': {}", path_, std::strerror(errno)));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(lock_fd_);
      lock_fd_ = -1;
      throw std::runtime_error(fmt::format(
          "another ladderbench run is writing '{}' (it holds {}); wait for it, or write elsewhere", path_, lock_path_));
    }
    // The holder before may have removed the lock file as it finished: then lock the new one.
    struct stat held {
    }, named{};
    if (::fstat(lock_fd_, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev)
      break;
    ::close(lock_fd_);
  }
  // Holding the lock, every other `<path>.XXXXXX.partial` or `.tmp` is a killed run's.
  const std::filesystem::path target(path_);
  const std::string prefix = target.filename().string() + ".";
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(target.has_parent_path() ? target.parent_path() : ".", ignored))
    if (const std::string name = entry.path().filename().string();
        name.starts_with(prefix) && (name.ends_with(".partial") || name.ends_with(".tmp")) && entry.is_regular_file(ignored))
      stale_files_.push_back(entry.path().string());
  std::sort(stale_files_.begin(), stale_files_.end());
  std::string pattern = path_ + ".XXXXXX.partial";
  partial_fd_ = ::mkstemps(pattern.data(), 8);
  if (partial_fd_ < 0) throw std::runtime_error(fmt::format("cannot write results beside '{}': {}", path_, std::strerror(errno)));
  partial_path_ = pattern;
  switch (format_) {
    case ResultsFormat::json:
      inner_ = std::make_unique<benchmark::JSONReporter>();
      break;
    case ResultsFormat::csv:
      // Deprecated in Google Benchmark, still the only CSV it writes; --benchmark_out_format=csv asks for it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      inner_ = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
      break;
    case ResultsFormat::console:
      inner_ = std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
      break;
  }
  inner_->SetOutputStream(&buffer_);
  inner_->SetErrorStream(&buffer_);

  const std::string interrupted = without_json_suffix(path_) + ".interrupted" + (format_ == ResultsFormat::json ? ".json" : "");
  g_interrupt.json = format_ == ResultsFormat::json;
  copy_to(g_interrupt.partial, sizeof g_interrupt.partial, partial_path_);
  copy_to(g_interrupt.interrupted, sizeof g_interrupt.interrupted, interrupted);
  copy_to(g_interrupt.lock, sizeof g_interrupt.lock, lock_path_);
  copy_to(g_interrupt.message, sizeof g_interrupt.message,
          fmt::format("\nladderbench: interrupted; the cases measured so far are in {} ({} is unchanged)\n", interrupted, path_));
  copy_to(g_interrupt.nothing_message, sizeof g_interrupt.nothing_message,
          fmt::format("\nladderbench: interrupted before any case ran; {} is unchanged\n", path_));
  g_interrupt.has_context = 0;
  g_interrupt.fd = partial_fd_;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (int s : kInterruptSignals) sigaction(s, &action, nullptr);
}

ResultsFile::~ResultsFile() {
  if (partial_fd_ >= 0) {
    g_interrupt.fd = -1;
    ::close(partial_fd_);
  }
  if (lock_fd_ >= 0) {
    g_interrupt.lock[0] = '\0';
    ::unlink(lock_path_.c_str());
    ::close(lock_fd_);
  }
}

bool ResultsFile::ReportContext(const Context& context) {
  if (context_reported_) return true;
  context_reported_ = true;
  const bool ok = inner_->ReportContext(context);
  const std::string piece = valid_utf8(buffer_.str());
  buffer_.str("");
  text_ += piece;
  // Only the partial file gets the room (spaces, which JSON allows there); text_ stays the document.
  if (const std::size_t at = piece.find(kContextEnd); interim_ && format_ == ResultsFormat::json && at != std::string::npos) {
    interim_offset_ = static_cast<off_t>(at);
    write_piece(piece.substr(0, at) + std::string(kInterimRoom, ' ') + piece.substr(at));
    write_interim_context();
  } else {
    write_piece(piece);
  }
  g_interrupt.has_context = 1;
  return ok;
}

void ResultsFile::ReportRuns(const std::vector<Run>& runs) {
  const std::vector<Run> reported = merge_rounds_ ? numbering_.repetitions(runs) : runs;
  if (reported.empty()) return;
  inner_->ReportRuns(reported);
  runs_reported_ += static_cast<int>(reported.size());
  append_new_output();
  write_interim_context();
}

void ResultsFile::report_merged_aggregates(const std::vector<Run>& aggregates) {
  if (aggregates.empty()) return;
  inner_->ReportRuns(aggregates);
  runs_reported_ += static_cast<int>(aggregates.size());
  append_new_output();
}

// Each case's figures go to disk as soon as they exist; the interrupt signals wait while a piece
// is written, so that the file is always whole pieces.
void ResultsFile::append_new_output() {
  // The reporter's new output moves to text_; only that piece is written.
  const std::string piece = valid_utf8(buffer_.str());
  buffer_.str("");
  text_ += piece;
  write_piece(piece);
}

void ResultsFile::write_piece(const std::string& piece) {
  if (partial_fd_ < 0 || partial_failed_ || piece.empty()) return;
  const sigset_t set = interrupt_set();
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &set, &previous);
  if (!write_all(partial_fd_, piece.data(), piece.size())) {
    partial_failed_ = true;
    std::fprintf(stderr, "ladderbench: warning: writing %s failed (%s); the figures are kept in memory until the end\n",
                 partial_path_.c_str(), std::strerror(errno));
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

// The interim keys overwrite the room kept in the partial file's context, padded with spaces; a
// text too long for the room loses the end of its longest value, never the JSON's shape.
void ResultsFile::write_interim_context() {
  if (interim_offset_ < 0 || partial_fd_ < 0 || partial_failed_) return;
  ContextKeys keys = interim_();
  std::string text;
  for (;;) {
    text.clear();
    for (const auto& [key, value] : keys)
      text += fmt::format(",\n    {}: {}", nlohmann::json(key).dump(),
                          nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (text.size() <= kInterimRoom || keys.empty()) break;
    auto longest = std::max_element(keys.begin(), keys.end(),
                                    [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    if (longest->second.size() <= 3) break;
    const std::size_t cut = std::min(longest->second.size(), text.size() - kInterimRoom + 8);
    longest->second = valid_utf8(longest->second.substr(0, longest->second.size() - cut)) + "...";
  }
  if (text.size() > kInterimRoom) return;
  text.resize(kInterimRoom, ' ');
  const sigset_t set = interrupt_set();
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &set, &previous);
  // A failed write leaves the room's spaces (or an earlier case's keys): still valid JSON.
  (void)!::pwrite(partial_fd_, text.data(), text.size(), interim_offset_);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

void ResultsFile::discard() {
  g_interrupt.fd = -1;
  if (partial_fd_ >= 0) ::close(partial_fd_);
  partial_fd_ = -1;
  ::unlink(partial_path_.c_str());
}

std::string ResultsFile::commit(const ContextKeys& late_context) {
  inner_->Finalize();
  text_ += valid_utf8(buffer_.str());  // what Finalize wrote
  buffer_.str("");
  std::string text = text_;
  std::string error;
  if (format_ == ResultsFormat::json) {
    if (auto finished = finish_results_json(text, late_context))
      text = std::move(*finished);
    else
      error = "the results are not a complete Google Benchmark JSON document";
  }
  if (error.empty()) error = write_file_atomically(path_, text, mode_);
  if (error.empty()) {
    discard();
    return {};
  }
  // The target keeps what it had; the figures must survive somewhere, named for what they are.
  g_interrupt.fd = -1;
  const std::string unsaved = without_json_suffix(path_) + ".unsaved" + (format_ == ResultsFormat::json ? ".json" : "");
  if (write_file_atomically(unsaved, text).empty()) {
    discard();
    return fmt::format("{}; {} is unchanged; the figures are in {}", error, path_, unsaved);
  }
  const std::string fallback =
      fmt::format("{}/ladderbench-unsaved-{}.json", std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp", ::getpid());
  if (write_file_atomically(fallback, text).empty()) {
    discard();
    return fmt::format("{}; {} is unchanged; the figures are in {}", error, path_, fallback);
  }
  discard();
  return fmt::format("{}; {} is unchanged; the figures could not be saved anywhere", error, path_);
}

}  // namespace ladder
