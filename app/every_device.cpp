#include "every_device.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

extern char** environ;

namespace ladder {
namespace {

// A null-terminated array of pointers into `strings`, as exec's argv and envp are.
std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

std::string per_device_out_path(const std::string& path, int device) {
  const std::filesystem::path p(path);
  const std::string tag = ".gpu" + std::to_string(device);
  if (!p.has_extension()) return path + tag;
  return (p.parent_path() / (p.stem().string() + tag + p.extension().string())).string();
}

std::vector<std::string> per_device_arguments(const std::vector<std::string>& args, int device) {
  std::vector<std::string> out;
  const std::string index = std::to_string(device);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--device=all") {
      out.push_back("--device=" + index);
    } else if (a == "--device" && i + 1 < args.size() && args[i + 1] == "all") {
      out.push_back("--device");
      out.push_back(index);
      ++i;
    } else if (a.rfind("--benchmark_out=", 0) == 0) {
      out.push_back("--benchmark_out=" + per_device_out_path(a.substr(16), device));
    } else if (a == "--benchmark_out" && i + 1 < args.size()) {
      out.push_back(a);
      out.push_back(per_device_out_path(args[++i], device));
    } else {
      out.push_back(a);
    }
  }
  return out;
}

int run_on_every_device(const std::vector<std::string>& args, int devices) {
  int first_failure = 0;
  for (int device = 0; device < devices; ++device) {
    std::vector<std::string> child = per_device_arguments(args, device);
    child.insert(child.begin(), "/proc/self/exe");
    std::vector<char*> argv = c_strings(child);
    // The cases that are the host's run once, with device 0: the others get the variable.
    std::vector<std::string> variables;
    for (char** e = environ; *e; ++e)
      if (std::string(*e).rfind(std::string(kOnlyDeviceCasesVariable) + "=", 0) != 0) variables.emplace_back(*e);
    if (device > 0) variables.push_back(std::string(kOnlyDeviceCasesVariable) + "=1");
    std::vector<char*> envp = c_strings(variables);
    std::fprintf(stderr, "ladderbench: --device all: device %d of %d\n", device, devices);
    pid_t pid = 0;
    int status = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data()) != 0 || waitpid(pid, &status, 0) < 0) {
      std::fprintf(stderr, "ladderbench: --device all: could not start the run for device %d\n", device);
      if (first_failure == 0) first_failure = 1;
      continue;
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code != 0) {
      std::fprintf(stderr, "ladderbench: --device all: device %d's run ended with status %d\n", device, code);
      if (first_failure == 0) first_failure = code;
    }
  }
  return first_failure;
}

}  // namespace ladder
