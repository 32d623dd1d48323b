// What the GPU did while a case ran: SM and memory clocks, power, temperature and the reasons
// its clocks were held down, sampled through NVIDIA's management library (NVML). NVML is loaded
// when first asked for (libnvidia-ml.so.1 comes with the driver, not the toolkit), so every build
// has this and a machine without the driver says why it has no telemetry.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace ladder::telemetry {

struct Sample {
  double sm_clock_mhz = 0;
  double memory_clock_mhz = 0;
  double power_watts = 0;
  double temperature_c = 0;
  std::uint64_t clock_event_reasons = 0;  // NVML's bit mask (nvmlClocksEventReason*)
};

struct Summary {
  int samples = 0;
  double sm_clock_min_mhz = 0, sm_clock_median_mhz = 0, memory_clock_median_mhz = 0;
  double power_max_watts = 0, temperature_max_c = 0;
  std::uint64_t slowdown_reasons = 0;  // every reason seen that lowers the clocks (see slowing())
};

Summary summarise(const std::vector<Sample>& samples);

// The reasons among `bits` that hold the clocks below what the load asks for: power and thermal
// caps, hardware slowdowns. "Idle", "applications clocks setting", "sync boost" and "display
// clock" are a configuration, not a throttle.
std::uint64_t slowing(std::uint64_t bits);
// "power cap, thermal slowdown (software)"; empty for none.
std::string describe(std::uint64_t bits);
// The bits' names, for the context: "1 idle, 2 applications clocks setting, 4 power cap, ...".
std::string reason_legend();

// The management library of the driver, loaded once; one device, found by its PCI bus id (the
// CUDA runtime's numbering and NVML's differ where CUDA_VISIBLE_DEVICES reorders devices).
class Nvml {
 public:
  static Nvml& instance();
  const std::string& unavailable_reason() const { return reason_; }
  // Empty on success, else why that device cannot be sampled.
  std::string select(const std::string& pci_bus_id);
  bool sample(Sample& out) const;
  std::string uuid() const;
  std::string driver_version() const;

 private:
  Nvml();
  struct Api;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;
  std::string reason_;
};

// Samples the selected device every `period_ms` on a thread of its own between start() and
// stop(); stop() returns the summary (no samples where NVML is unavailable).
class Sampler {
 public:
  explicit Sampler(int period_ms = 10) : period_ms_(period_ms) {}
  ~Sampler() { stop(); }
  void start();
  Summary stop();

 private:
  int period_ms_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::vector<Sample> samples_;
};

}  // namespace ladder::telemetry
