// --device all: the command once per GPU, in turn, each a child process given --device N: every
// case of it on device 0, the GPU cases alone on the others (the host's cases are the host's
// whatever the device), each device's results in a file of its own named for it. Each file's
// context names its device (index, UUID, PCI bus id), and each GPU case carries the
// gpu_device_index counter, so the files are comparable columns of one machine.
#pragma once
#include <string>
#include <vector>

namespace ladder {

// The results path for device `device`: "out.json" → "out.gpu1.json" ("out" → "out.gpu1").
std::string per_device_out_path(const std::string& path, int device);

// The arguments (without argv[0]) the child for `device` runs with: --device all (or
// --device=all) becomes --device N, and --benchmark_out=PATH names that device's file.
std::vector<std::string> per_device_arguments(const std::vector<std::string>& args, int device);

// Runs the children one after another; returns the first non-zero exit status (each device is
// still run), or 0. `devices` > 0.
int run_on_every_device(const std::vector<std::string>& args, int devices);

// Set in the children after device 0: only the cases that run on the device.
inline constexpr const char* kOnlyDeviceCasesVariable = "LADDER_ONLY_DEVICE_CASES";

}  // namespace ladder
