// The host-side half of the GPU's ceilings and telemetry: the theoretical peaks and their
// derivation, the clock they are taken at, and what the NVML samples of a case are summarised to.
#include <gtest/gtest.h>

#include "core/gpu_telemetry.hpp"
#include <map>

#include "roofs/ceilings.hpp"
#include "roofs/device_ceilings.hpp"
#include "roofs/gpu_theoretical.hpp"
#include "stream/device_stream_sizes.hpp"

namespace ladder {
namespace {

double figure(const std::vector<GpuTheoretical>& peaks, const std::string& format) {
  for (const auto& p : peaks)
    if (p.name == "gpu_theoretical_peak_" + format + "_flops") return p.value;
  return 0;
}

TEST(GpuTheoretical, MatchesTheDatasheetsAtTheirBoostClocks) {
  // H100/H200 (sm_90): 132 SMs at 1980 MHz: 66.9 TFLOP/s f32, 133.8 f16 and bf16, 33.5 f64.
  const auto hopper = gpu_theoretical_peaks(90, 132, 1980e6, "datasheet");
  EXPECT_NEAR(figure(hopper, "f32"), 66.9e12, 0.1e12);
  EXPECT_NEAR(figure(hopper, "f16"), 133.8e12, 0.1e12);
  EXPECT_NEAR(figure(hopper, "bf16"), 133.8e12, 0.1e12);
  EXPECT_NEAR(figure(hopper, "f64"), 33.45e12, 0.1e12);
  // A100 (sm_80): 108 SMs at 1410 MHz: 19.5 f32, 78 f16, 39 bf16, 9.7 f64.
  const auto ampere = gpu_theoretical_peaks(80, 108, 1410e6, "datasheet");
  EXPECT_NEAR(figure(ampere, "f32"), 19.5e12, 0.1e12);
  EXPECT_NEAR(figure(ampere, "f16"), 78.0e12, 0.1e12);
  EXPECT_NEAR(figure(ampere, "bf16"), 39.0e12, 0.1e12);
  EXPECT_NEAR(figure(ampere, "f64"), 9.75e12, 0.1e12);
  // T4 (sm_75): 40 SMs at 1590 MHz: 8.1 f32; no bf16 unit, so no bf16 figure.
  const auto turing = gpu_theoretical_peaks(75, 40, 1590e6, "datasheet");
  EXPECT_NEAR(figure(turing, "f32"), 8.14e12, 0.01e12);
  EXPECT_EQ(figure(turing, "bf16"), 0);
  // Each figure says how it was made, the clock's source included.
  EXPECT_EQ(hopper[0].derivation, "132 SMs x 128 f32 FMA results per clock per SM (sm_90) x 2 x 1980 MHz (datasheet)");
  // A device the table does not know gets no figure rather than a guess.
  EXPECT_TRUE(gpu_theoretical_peaks(100, 148, 1965e6, "x").empty());
  EXPECT_TRUE(gpu_theoretical_peaks(90, 0, 1980e6, "x").empty());
}

TEST(GpuTheoretical, TakesTheClockTheProbeRanAtWhereNvmlReadIt) {
  DeviceCeilings d;
  d.compute_capability = 90, d.sms = 132, d.max_clock_hz = 1980e6;
  EXPECT_NEAR(figure(d.theoretical(), "f32"), 66.9e12, 0.1e12);
  EXPECT_NE(d.theoretical()[0].derivation.find("maximum SM clock"), std::string::npos);
  d.probe_clock_hz = 1755e6;  // a device that did not hold its boost clock under the probe
  EXPECT_NEAR(figure(d.theoretical(), "f32"), 2.0 * 132 * 128 * 1755e6, 1e6);
  EXPECT_NE(d.theoretical()[0].derivation.find("while the f32 FMA probe ran"), std::string::npos);
}

// Every FMA probe measured goes into the context and the printed ceilings beside its theoretical
// figure, as a fraction: the number that says whether the probe reached the hardware's limit.
TEST(GpuTheoretical, EachProbeIsSetBesideItsTheoreticalFigure) {
  Ceilings c;
  c.device.name = "NVIDIA H200";
  c.device.compute_capability = 90, c.device.sms = 132, c.device.max_clock_hz = 1980e6, c.device.probe_clock_hz = 1755e6;
  c.device.fma_f32 = 56e12, c.device.fma_f16 = 112e12, c.device.fma_bf16 = 110e12, c.device.fma_f64 = 29e12;
  std::map<std::string, std::string> ctx;
  for (const auto& [key, value] : ceilings_context(c)) ctx[key] = value;
  const double f32_theory = 2.0 * 132 * 128 * 1755e6;  // 59.3 TFLOP/s at the clock the probe ran at
  ASSERT_TRUE(ctx.count("gpu_peak_f32_fma_of_theoretical"));
  EXPECT_NEAR(std::stod(ctx["gpu_peak_f32_fma_of_theoretical"]), 56e12 / f32_theory, 1e-4);
  EXPECT_NEAR(std::stod(ctx["gpu_peak_f16_fma_of_theoretical"]), 112e12 / (2 * f32_theory), 1e-4);
  EXPECT_NEAR(std::stod(ctx["gpu_peak_bf16_fma_flops"]), 110e12, 1e8);
  EXPECT_NEAR(std::stod(ctx["gpu_peak_f64_fma_of_theoretical"]), 29e12 / (f32_theory / 2), 1e-4);
  EXPECT_NE(format_ceilings(c).find("f32 56.0 TFLOP/s (94% of 59.3)"), std::string::npos) << format_ceilings(c);
  // The bf16 peak of a GPU rung is the better of the probe and cuBLAS; f64's is the probe's.
  EXPECT_DOUBLE_EQ(c.device.peak(DType::bf16), 110e12);
  EXPECT_DOUBLE_EQ(c.device.peak(DType::f64), 29e12);
  // A device without bf16 units (a T4) has no bf16 probe, and no entry for one.
  c.device.fma_bf16 = 0;
  ctx.clear();
  for (const auto& [key, value] : ceilings_context(c)) ctx[key] = value;
  EXPECT_FALSE(ctx.count("gpu_peak_bf16_fma_flops"));
  EXPECT_FALSE(ctx.count("gpu_peak_bf16_fma_of_theoretical"));
}

// The device STREAM's arrays: eight times L2 by default, a sweep L2/8 … 8×L2 in the full
// profile, never more than the memory to spare, and a stated fallback where L2 is unknown.
TEST(DeviceStream, ArraysAreAStatedMultipleOfL2) {
  const double l2 = 60.0 * (1 << 20);  // an H200's
  auto quick = device_stream_sizes(Profile::quick, l2, 4, 3, 130e9);
  ASSERT_EQ(quick.size(), 1u);
  EXPECT_EQ(quick[0].elements, static_cast<std::int64_t>(8 * l2 / 4));
  EXPECT_DOUBLE_EQ(quick[0].of_l2, 8);
  auto full = device_stream_sizes(Profile::full, l2, 8, 3, 130e9);
  std::vector<double> multiples;
  for (const auto& s : full) multiples.push_back(s.of_l2);
  EXPECT_EQ(multiples, (std::vector<double>{0.125, 0.25, 0.5, 1, 2, 4, 8}));
  EXPECT_EQ(full.back().elements, static_cast<std::int64_t>(8 * l2 / 8));
  // Three arrays of 8×L2 (1.5 GB) do not fit in 1 GB: the sweep stops below them.
  EXPECT_DOUBLE_EQ(device_stream_sizes(Profile::full, l2, 4, 3, 1e9).back().of_l2, 4);
  // L2's size unknown: one size of 256 MiB an array, with no multiple claimed.
  auto unknown = device_stream_sizes(Profile::full, 0, 4, 2, 0);
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].elements, (std::int64_t{1} << 28) / 4);
  EXPECT_EQ(unknown[0].of_l2, 0);
  EXPECT_EQ(device_stream_sizes(Profile::smoke, l2, 8, 3, 130e9)[0].elements, (1 << 16) + 6);
}

TEST(GpuTelemetry, SummarisesACasesSamples) {
  using telemetry::Sample;
  const std::vector<Sample> samples{{1980, 3201, 410.5, 51, 0x0},
                                    {1755, 3201, 699.0, 63, 0x4},   // power cap
                                    {1830, 3201, 650.0, 60, 0x1}};  // idle: not a slowdown
  const telemetry::Summary s = telemetry::summarise(samples);
  EXPECT_EQ(s.samples, 3);
  EXPECT_DOUBLE_EQ(s.sm_clock_min_mhz, 1755);
  EXPECT_DOUBLE_EQ(s.sm_clock_median_mhz, 1830);
  EXPECT_DOUBLE_EQ(s.memory_clock_median_mhz, 3201);
  EXPECT_DOUBLE_EQ(s.power_max_watts, 699.0);
  EXPECT_DOUBLE_EQ(s.temperature_max_c, 63);
  EXPECT_EQ(s.slowdown_reasons, 0x4u);
  EXPECT_EQ(telemetry::summarise({}).samples, 0);
}

TEST(GpuTelemetry, NamesTheReasonsThatSlowTheClocks) {
  EXPECT_EQ(telemetry::slowing(0x1 | 0x2 | 0x10 | 0x100), 0u);  // settings, not throttling
  EXPECT_EQ(telemetry::slowing(0x4 | 0x8 | 0x20 | 0x40 | 0x80), 0xecu);
  EXPECT_EQ(telemetry::describe(0x4 | 0x40), "power cap, thermal slowdown (hardware)");
  EXPECT_EQ(telemetry::describe(0), "");
  EXPECT_EQ(telemetry::describe(0x1000), "other (0x1000)");
  EXPECT_EQ(telemetry::reason_legend().substr(0, 39), "1 idle, 2 applications clocks setting, ");
}

TEST(GpuTelemetry, WithoutTheDriverItSaysWhyAndSamplesNothing) {
  const auto& nvml = telemetry::Nvml::instance();
  if (nvml.unavailable_reason().empty()) GTEST_SKIP() << "NVML loads here: a machine with the NVIDIA driver";
  EXPECT_NE(nvml.unavailable_reason().find("libnvidia-ml.so.1"), std::string::npos);
  EXPECT_EQ(telemetry::Nvml::instance().select("0000:00:00.0"), nvml.unavailable_reason());
  telemetry::Sampler sampler(1);
  sampler.start();
  EXPECT_EQ(sampler.stop().samples, 0);
}

}  // namespace
}  // namespace ladder
