#include "core/gpu_telemetry.hpp"

#include "core/statistics.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <utility>

namespace ladder::telemetry {

namespace {

// NVML's clock event reasons (nvml.h, nvmlClocksEventReason*), and whether each slows the clocks.
struct Reason {
  std::uint64_t bit;
  const char* name;
  bool slows;
};
constexpr std::array kReasons{
    Reason{0x1, "idle", false},
    Reason{0x2, "applications clocks setting", false},
    Reason{0x4, "power cap", true},
    Reason{0x8, "hardware slowdown", true},
    Reason{0x10, "sync boost", false},
    Reason{0x20, "thermal slowdown (software)", true},
    Reason{0x40, "thermal slowdown (hardware)", true},
    Reason{0x80, "power brake (hardware)", true},
    Reason{0x100, "display clock setting", false},
};

}  // namespace

Summary summarise(const std::vector<Sample>& samples) {
  Summary s;
  s.samples = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::vector<double> sm, memory;
  s.sm_clock_min_mhz = samples.front().sm_clock_mhz;
  for (const Sample& x : samples) {
    sm.push_back(x.sm_clock_mhz);
    memory.push_back(x.memory_clock_mhz);
    s.sm_clock_min_mhz = std::min(s.sm_clock_min_mhz, x.sm_clock_mhz);
    s.power_max_watts = std::max(s.power_max_watts, x.power_watts);
    s.temperature_max_c = std::max(s.temperature_max_c, x.temperature_c);
    s.slowdown_reasons |= slowing(x.clock_event_reasons);
  }
  s.sm_clock_median_mhz = median(sm);
  s.memory_clock_median_mhz = median(memory);
  return s;
}

std::uint64_t slowing(std::uint64_t bits) {
  std::uint64_t slow = 0;
  for (const Reason& r : kReasons)
    if (r.slows) slow |= r.bit;
  return bits & slow;
}

std::string describe(std::uint64_t bits) {
  std::string text;
  for (const Reason& r : kReasons)
    if (bits & r.bit) text += (text.empty() ? "" : ", ") + std::string(r.name);
  if (const std::uint64_t unknown = bits & ~std::uint64_t{0x1ff}; unknown)
    text += (text.empty() ? "" : ", ") + fmt::format("other (0x{:x})", unknown);
  return text;
}

std::string reason_legend() {
  std::string text;
  for (const Reason& r : kReasons) text += (text.empty() ? "" : ", ") + fmt::format("{} {}", r.bit, r.name);
  return text;
}

// The few NVML entry points used, declared here with NVML's C types (nvmlReturn_t is an int, 0 on
// success; nvmlDevice_t a pointer), so that no NVML header is needed to build.
struct Nvml::Api {
  void* library = nullptr;
  int (*init)() = nullptr;
  int (*by_bus_id)(const char*, void**) = nullptr;
  int (*clock)(void*, int, unsigned*) = nullptr;  // 1: SM, 2: memory (MHz)
  int (*power)(void*, unsigned*) = nullptr;       // milliwatts
  int (*temperature)(void*, int, unsigned*) = nullptr;
  int (*reasons)(void*, unsigned long long*) = nullptr;
  int (*uuid)(void*, char*, unsigned) = nullptr;
  int (*driver)(char*, unsigned) = nullptr;
};

Nvml& Nvml::instance() {
  static Nvml nvml;
  return nvml;
}

Nvml::Nvml() : api_(std::make_unique<Api>()) {
  api_->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api_->library) {
    reason_ = "NVML (libnvidia-ml.so.1, from the NVIDIA driver) cannot be loaded";
    return;
  }
  auto find = [this](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api_->library, name));
    if (!fn && reason_.empty()) reason_ = fmt::format("NVML has no {}", name);
  };
  find(api_->init, "nvmlInit_v2");
  find(api_->by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  find(api_->clock, "nvmlDeviceGetClockInfo");
  find(api_->power, "nvmlDeviceGetPowerUsage");
  find(api_->temperature, "nvmlDeviceGetTemperature");
  find(api_->uuid, "nvmlDeviceGetUUID");
  find(api_->driver, "nvmlSystemGetDriverVersion");
  // The reasons' entry point was renamed in newer drivers; either does.
  api_->reasons = reinterpret_cast<decltype(api_->reasons)>(dlsym(api_->library, "nvmlDeviceGetCurrentClocksEventReasons"));
  if (!api_->reasons) find(api_->reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (reason_.empty())
    if (const int error = api_->init(); error != 0) reason_ = fmt::format("nvmlInit failed (NVML error {})", error);
}

std::string Nvml::select(const std::string& pci_bus_id) {
  if (!reason_.empty()) return reason_;
  void* device = nullptr;
  if (const int error = api_->by_bus_id(pci_bus_id.c_str(), &device); error != 0)
    return fmt::format("NVML finds no device at PCI bus id {} (NVML error {})", pci_bus_id, error);
  device_ = device;
  return "";
}

bool Nvml::sample(Sample& out) const {
  if (!device_) return false;
  unsigned sm = 0, memory = 0, milliwatts = 0, celsius = 0;
  unsigned long long reasons = 0;
  if (api_->clock(device_, 1, &sm) != 0 || api_->clock(device_, 2, &memory) != 0) return false;
  // Power and temperature are missing on some boards; a clock sample is still worth keeping.
  api_->power(device_, &milliwatts);
  api_->temperature(device_, 0, &celsius);
  api_->reasons(device_, &reasons);
  out = {static_cast<double>(sm), static_cast<double>(memory), milliwatts / 1000.0, static_cast<double>(celsius), reasons};
  return true;
}

std::string Nvml::uuid() const {
  std::array<char, 96> text{};
  return device_ && api_->uuid(device_, text.data(), text.size()) == 0 ? std::string(text.data()) : "";
}

std::string Nvml::driver_version() const {
  std::array<char, 96> text{};
  return reason_.empty() && api_->driver(text.data(), text.size()) == 0 ? std::string(text.data()) : "";
}

void Sampler::start() {
  stop();
  samples_.clear();
  // One sample now and one at the end: a case shorter than the period still has its clocks.
  if (Sample s; Nvml::instance().sample(s)) samples_.push_back(s);
  running_ = true;
  thread_ = std::thread([this] {
    const Nvml& nvml = Nvml::instance();
    while (running_) {
      if (Sample s; nvml.sample(s)) samples_.push_back(s);
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms_));
    }
  });
}

Summary Sampler::stop() {
  if (thread_.joinable()) {
    running_ = false;
    thread_.join();
    if (Sample s; Nvml::instance().sample(s)) samples_.push_back(s);
  }
  return summarise(samples_);
}

}  // namespace ladder::telemetry
