// What the rungs that run in a Python interpreter share: which interpreters there are, the files
// they hand it, and a script kept running for a whole case that answers commands on a pipe.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ladder {

// Whether a `timeout` command's status says it ran past its limit (124, or 137 after the KILL).
bool ran_past_limit(int status);

// LADDER_PYTHON alone where set; else every python3 on PATH, in PATH's order.
std::vector<std::string> pythons_on_path();

// `text` as one word for the shell: in single quotes, each of its own written '\''.
std::string shell_quote(const std::string& text);

// The first interpreter in which `probe` (Python) runs and exits 0, or empty:
// LADDER_PYTHON alone where set, else every python3 on PATH, then the distribution's
// /usr/bin/python3 (where Debian's python3-numpy and python3-torch go). Asked once per probe, each
// interpreter under a limit of kImportSeconds with no input (one that runs past it is not asked
// again).
inline constexpr int kImportSeconds = 60;
std::string python_with(const std::string& probe);

// A script's own check that its real path works here: `python <script> <arguments...>` under a
// limit of `seconds`, the script written from `script_text` into a temporary directory. It answers
// `answers` lines, one for each thing it checks: "ok", or "unavailable <why>". Returns, for each,
// empty or why not in one line: the rest of its "unavailable" line, or where the line is missing
// the last line the script wrote (a traceback's error) or that it ran past its limit. Asked once
// per interpreter, script and arguments.
std::vector<std::string> python_probe(const std::string& python, const std::string& name, const char* script_text,
                                      const std::vector<std::string>& arguments, int seconds, std::size_t answers);

// Why no interpreter could be used: "<which interpreters> <what none does>" (e.g. "imports numpy").
std::string no_python_reason(const std::string& what_none_does);

// How many calls (or passes) one timed run of a case makes: `measure` on the case's first prepare,
// the same number for every later one. Google Benchmark requires every repetition of a case to run
// the same iteration count, which a batch measured again each time would break.
std::int64_t batch_for_case(const std::string& key, const std::function<std::int64_t()>& measure);

void write_binary_file(const std::filesystem::path& path, const void* data, std::size_t bytes);

// A Python script started once in its own temporary directory (which it may write to, and which
// goes with it): `ask` sends one command line and returns the one line it answers.
class PythonSession {
 public:
  // `name` names the temporary directory and the script's file there.
  PythonSession(const std::string& python, const std::string& name, const char* script_text);
  ~PythonSession();
  PythonSession(const PythonSession&) = delete;
  PythonSession& operator=(const PythonSession&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // Starts the script with these arguments (files written into dir() before); returns its first
  // line, or throws where none came within `limit_seconds` (0: no limit).
  std::string start(const std::vector<std::string>& arguments, int limit_seconds = 0);
  std::string ask(const std::string& command);
  const std::string& python() const { return python_; }

 private:
  std::string answer(int limit_seconds = 0);

  std::string python_;
  std::filesystem::path dir_, script_;
  pid_t child_ = -1;
  FILE* commands_ = nullptr;
  FILE* answers_ = nullptr;
};

}  // namespace ladder
