// What the rungs that run in a Python interpreter share: which interpreters there are, and the
// files they hand it.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ladder {

// LADDER_PYTHON alone where set; else every python3 on PATH, in PATH's order.
inline std::vector<std::string> pythons_on_path() {
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

inline void write_binary_file(const std::filesystem::path& path, const void* data, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace ladder
