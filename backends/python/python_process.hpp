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

// LADDER_PYTHON alone where set; else every python3 on PATH, in PATH's order.
std::vector<std::string> pythons_on_path();

// `text` as one word for the shell: in single quotes, each of its own written '\''.
std::string shell_quote(const std::string& text);

// The first interpreter in which `probe` (Python) runs and exits 0, or empty:
// LADDER_PYTHON alone where set, else every python3 on PATH, then the distribution's
// /usr/bin/python3 (where Debian's python3-numpy and python3-torch go). Asked once per probe.
std::string python_with(const std::string& probe);

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
  // Starts the script with these arguments (files written into dir() before); returns its first line.
  std::string start(const std::vector<std::string>& arguments);
  std::string ask(const std::string& command);
  const std::string& python() const { return python_; }

 private:
  std::string answer();

  std::string python_;
  std::filesystem::path dir_, script_;
  pid_t child_ = -1;
  FILE* commands_ = nullptr;
  FILE* answers_ = nullptr;
};

}  // namespace ladder
