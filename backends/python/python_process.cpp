#include "python_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

namespace ladder {

std::vector<std::string> pythons_on_path() {
  if (const char* env = std::getenv("LADDER_PYTHON"); env && *env) return {env};
  std::vector<std::string> found;
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / "python3";
    if (access(candidate.c_str(), X_OK) == 0) found.push_back(candidate.string());
    start = end + 1;
  }
  return found;
}

bool ran_past_limit(int status) { return WIFEXITED(status) && (WEXITSTATUS(status) == 124 || WEXITSTATUS(status) == 137); }

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string python_with(const std::string& probe) {
  static std::mutex mutex;
  static std::map<std::string, std::string> found;
  static std::set<std::string> silent;  // interpreters that ran past the limit once: not asked again
  std::lock_guard lock(mutex);
  if (auto it = found.find(probe); it != found.end()) return it->second;
  std::vector<std::string> candidates = pythons_on_path();
  if (const char* env = std::getenv("LADDER_PYTHON"); !env || !*env) candidates.push_back("/usr/bin/python3");
  std::string chosen;
  for (const auto& python : candidates) {
    if (access(python.c_str(), X_OK) != 0 || silent.count(python)) continue;
    // Under a limit and with no input: a program that sleeps, reads or loops is no interpreter.
    const std::string command = "timeout -k 5 " + std::to_string(kImportSeconds) + " " + shell_quote(python) + " -c " +
                                shell_quote(probe) + " </dev/null >/dev/null 2>&1";
    const int status = std::system(command.c_str());
    if (status == 0) {
      chosen = python;
      break;
    }
    if (ran_past_limit(status)) silent.insert(python);
  }
  return found[probe] = chosen;
}

std::vector<std::string> python_probe(const std::string& python, const std::string& name, const char* script_text,
                                      const std::vector<std::string>& arguments, int seconds, std::size_t answers) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> asked;
  std::string key = python + " " + name;
  for (const auto& a : arguments) key += " " + a;
  std::lock_guard lock(mutex);
  if (auto it = asked.find(key); it != asked.end()) return it->second;
  std::string pattern = "/tmp/ladderbench-probe-XXXXXX";
  if (!mkdtemp(pattern.data())) return asked[key] = std::vector<std::string>(answers, "cannot create a temporary directory");
  const std::filesystem::path script = std::filesystem::path(pattern) / (name + ".py");
  write_binary_file(script, script_text, std::char_traits<char>::length(script_text));
  std::string command =
      "timeout -k 5 " + std::to_string(seconds) + " " + shell_quote(python) + " " + shell_quote(script.string());
  for (const auto& a : arguments) command += " " + shell_quote(a);
  std::string output;
  int status = -1;
  if (FILE* pipe = popen((command + " 2>&1 </dev/null").c_str(), "r")) {
    std::array<char, 4096> buffer;
    while (std::fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
    status = pclose(pipe);
  }
  std::error_code ignored;
  std::filesystem::remove_all(pattern, ignored);
  // Its answers are the lines "ok" and "unavailable ..."; anything else is a library's warning on
  // stderr, or the traceback of a script that died, whose last line is its error.
  std::vector<std::string> said, other;
  for (std::size_t start = 0; start < output.size();) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    if (!line.empty()) (line == "ok" || line.rfind("unavailable ", 0) == 0 ? said : other).push_back(line);
    start = end + 1;
  }
  const std::string unanswered = ran_past_limit(status) ? name + ".py ran past its limit of " + std::to_string(seconds) + " s"
                                 : other.empty() ? name + ".py ended (status " + std::to_string(status) + ") and said nothing"
                                                 : other.back();
  std::vector<std::string> reasons;
  for (std::size_t i = 0; i < answers; ++i)
    reasons.push_back(i >= said.size() ? unanswered : said[i] == "ok" ? "" : said[i].substr(12));
  return asked[key] = reasons;
}

std::string no_python_reason(const std::string& what_none_does) {
  if (const char* env = std::getenv("LADDER_PYTHON"); env && *env)
    return "LADDER_PYTHON=" + std::string(env) + " is not a Python that " + what_none_does;
  return "no python3 on PATH (nor /usr/bin/python3) " + what_none_does;
}

std::int64_t batch_for_case(const std::string& key, const std::function<std::int64_t()>& measure) {
  static std::mutex mutex;
  static std::map<std::string, std::int64_t> batches;
  {
    std::lock_guard lock(mutex);
    if (auto it = batches.find(key); it != batches.end()) return it->second;
  }
  const std::int64_t batch = measure();
  std::lock_guard lock(mutex);
  return batches.emplace(key, batch).first->second;
}

void write_binary_file(const std::filesystem::path& path, const void* data, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

PythonSession::PythonSession(const std::string& python, const std::string& name, const char* script_text) : python_(python) {
  // A closed pipe to a Python process that ended must be an error to report, not a signal.
  signal(SIGPIPE, SIG_IGN);
  std::string pattern = "/tmp/ladderbench-" + name + "-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory");
  dir_ = pattern;
  script_ = dir_ / (name + ".py");
  write_binary_file(script_, script_text, std::char_traits<char>::length(script_text));
}

std::string PythonSession::start(const std::vector<std::string>& arguments, int limit_seconds) {
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("cannot create pipes");
  std::vector<std::string> words = {python_, script_.string()};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  argv.reserve(words.size() + 1);
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  child_ = fork();
  if (child_ == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    close(to_child[1]);
    close(from_child[0]);
    execv(python_.c_str(), argv.data());
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  if (child_ < 0) throw std::runtime_error("cannot start " + python_);
  commands_ = fdopen(to_child[1], "w");
  answers_ = fdopen(from_child[0], "r");
  return answer(limit_seconds);
}

PythonSession::~PythonSession() {
  if (commands_) {
    std::fputs("quit\n", commands_);
    std::fclose(commands_);
  }
  if (answers_) std::fclose(answers_);
  if (child_ > 0) waitpid(child_, nullptr, 0);
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string PythonSession::answer(int limit_seconds) {
  if (limit_seconds > 0) {
    pollfd ready{fileno(answers_), POLLIN, 0};
    if (poll(&ready, 1, limit_seconds * 1000) == 0) {
      kill(child_, SIGKILL);
      throw std::runtime_error(python_ + " said nothing within " + std::to_string(limit_seconds) + " s");
    }
  }
  char line[65536] = {};
  if (!std::fgets(line, sizeof line, answers_)) throw std::runtime_error("the Python process ended");
  std::string text = line;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::string PythonSession::ask(const std::string& command) {
  if (!commands_ || std::fprintf(commands_, "%s\n", command.c_str()) < 0 || std::fflush(commands_) != 0)
    throw std::runtime_error("the Python process does not listen");
  return answer();
}

}  // namespace ladder
