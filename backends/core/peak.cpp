#include "peak.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace ladder {
namespace {

double now_seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// FLOP/s of `threads` copies of the loop running at once: best of five trials.
double run_probe(const PeakProbe& probe, int threads, double seconds) {
  // Calibrate on one thread: grow the iteration count until a trial lasts ~`seconds`.
  std::int64_t iterations = 1000;
  for (;;) {
    double start = now_seconds();
    probe.loop(iterations);
    double elapsed = now_seconds() - start;
    if (elapsed > seconds / 4) {
      iterations = static_cast<std::int64_t>(iterations * seconds / elapsed) + 1;
      break;
    }
    iterations *= 4;
  }
  double best = 0;
  for (int trial = 0; trial < 5; ++trial) {
    double flops = 0;
    double start = now_seconds();
#pragma omp parallel num_threads(threads) reduction(+ : flops)
    flops += probe.loop(iterations);
    double elapsed = now_seconds() - start;
    best = std::max(best, flops / elapsed);
  }
  return best;
}

}  // namespace

double Peaks::machine_peak(DType dtype) const {
  double best = 0;
  for (const auto& m : measurements)
    if (m.dtype == dtype) best = std::max(best, m.flops_per_second);
  return best;
}

double Peaks::peak_at(DType dtype, int threads) const {
  double best = 0;
  for (const auto& m : measurements)
    if (m.dtype == dtype && m.threads == threads) best = std::max(best, m.flops_per_second);
  return best;
}

double Peaks::probe_peak_at(const std::string& probe, int threads) const {
  for (const auto& m : measurements)
    if (m.probe == probe && m.threads == threads) return m.flops_per_second;
  return 0;
}

std::string Peaks::machine_peak_source(DType dtype) const {
  const PeakMeasurement* best = nullptr;
  for (const auto& m : measurements)
    if (m.dtype == dtype && (!best || m.flops_per_second > best->flops_per_second)) best = &m;
  return best ? fmt::format("{} x{} threads", best->probe, best->threads) : std::string();
}

Peaks measure_peaks(const Registry& registry, double seconds) {
  Peaks peaks;
  const int all = omp_get_max_threads();
  for (const auto& probe : registry.peak_probes) {
    if (auto reason = isa_unavailable_reason(probe.isa); !reason.empty()) {
      peaks.skipped.push_back(probe.name + ": " + reason);
      continue;
    }
    const double one = run_probe(probe, 1, seconds);
    peaks.measurements.push_back({probe.name, probe.dtype, 1, one});
    if (all == 1) continue;
    // All cores, best of five short trials. On a shared VM a neighbour can take a core for longer
    // than those trials (the bf16 probe once read 235 GFLOP/s on two cores where 461 is usual,
    // and a GEMM then showed 161% of "peak"; the f32 probe once read 169 where 190-196 is usual,
    // and the roofline sweep then reached 123% of it): until the cores reach 90% of one core's
    // rate times their number, look again up to eight times, a few trials apart, and keep the
    // best. (SMT siblings never reach it: there all eight looks are taken, a second or so.)
    double best = run_probe(probe, all, seconds);
    for (int retry = 0; retry < 8 && best < 0.9 * all * one; ++retry) {
      std::this_thread::sleep_for(std::chrono::duration<double>(2.5 * seconds));
      best = std::max(best, run_probe(probe, all, seconds));
    }
    peaks.measurements.push_back({probe.name, probe.dtype, all, best});
  }
  return peaks;
}

}  // namespace ladder
