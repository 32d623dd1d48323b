// The ceilings and regimes machinery: plateau detection on made-up curves, the regime
// classification on constructed cases, and every kernel of stream, cache and roofline on tiny
// (and ragged) sizes against its closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "roofs/read_bandwidth.hpp"
#include "roofs/ceilings.hpp"
#include "roofs/regime.hpp"
#include "core/buffer.hpp"
#include "core/cpu_features.hpp"
#include "interpreter/interpreter.hpp"
#include "gemm/gemm_suite.hpp"
#include "roofs/overhead_probes.hpp"
#include "roofline/roofline_kernels.hpp"
#include "roofs/stream_kernels.hpp"

namespace ladder {
namespace {

// A Zen-4-like hierarchy: 32 KiB L1d and 1 MiB L2 per core, 32 MiB L3 shared by 2.
std::vector<CacheLevel> hierarchy() {
  return {{1, "Data", 32 << 10, 1}, {1, "Instruction", 32 << 10, 1}, {2, "Unified", 1 << 20, 1}, {3, "Unified", 32 << 20, 2}};
}

// 4 KiB .. 128 MiB, two points per octave: each level flat up to its size, then a geometric
// slide from L3 to DRAM over the points between 12 and 45 MiB (each its own, lone value).
std::vector<cache::BandwidthPoint> curve(double l1, double l2, double l3, double dram, double noise = 0) {
  std::vector<cache::BandwidthPoint> points;
  int i = 0;
  const double l3_end = 12e6, dram_start = 45e6;
  for (double bytes = 4096; bytes <= (128 << 20) * 1.001; bytes *= std::sqrt(2.0), ++i) {
    double bw;
    if (bytes <= (32 << 10))
      bw = l1;
    else if (bytes <= (768 << 10))
      bw = l2;
    else if (bytes <= l3_end)
      bw = l3;
    else if (bytes >= dram_start)
      bw = dram;
    else {
      const double f = std::log(bytes / l3_end) / std::log(dram_start / l3_end);
      bw = std::pow(l3, 1 - f) * std::pow(dram, f);
    }
    bw *= 1 + noise * ((i % 3) - 1);  // deterministic wobble: -noise, 0, +noise
    points.push_back({static_cast<std::int64_t>(bytes), bw});
  }
  return points;
}

TEST(Plateaus, FindsFourLevelsOnAClearCurve) {
  auto plateaus = cache::detect_plateaus(curve(200e9, 110e9, 85e9, 20e9), hierarchy(), 1);
  ASSERT_EQ(plateaus.size(), 4u);
  EXPECT_EQ(plateaus[0].level, "L1");
  EXPECT_EQ(plateaus[1].level, "L2");
  EXPECT_EQ(plateaus[2].level, "L3");
  EXPECT_EQ(plateaus[3].level, "DRAM");
  EXPECT_DOUBLE_EQ(plateaus[0].bytes_per_second, 200e9);
  EXPECT_DOUBLE_EQ(plateaus[3].bytes_per_second, 20e9);
  EXPECT_EQ(plateaus[0].from_bytes, 4096);
}

TEST(Plateaus, SurviveNoiseWithinALevel) {
  auto plateaus = cache::detect_plateaus(curve(200e9, 110e9, 85e9, 20e9, 0.05), hierarchy(), 1);
  std::vector<std::string> levels;
  for (auto& p : plateaus) levels.push_back(p.level);
  EXPECT_EQ(levels, (std::vector<std::string>{"L1", "L2", "L3", "DRAM"}));
  EXPECT_NEAR(plateaus[1].bytes_per_second, 110e9, 110e9 * 0.06);
}

TEST(Plateaus, SharedCacheCapacityIsSplitAcrossThreads) {
  // On two threads each has 16 MiB of L3: a plateau in the middle of 1..12 MiB is still L3.
  auto plateaus = cache::detect_plateaus(curve(380e9, 190e9, 160e9, 37e9), hierarchy(), 2);
  std::vector<std::string> levels;
  for (auto& p : plateaus) levels.push_back(p.level);
  EXPECT_EQ(levels, (std::vector<std::string>{"L1", "L2", "L3", "DRAM"}));
}

TEST(Plateaus, LevelsThatLookAlikeMergeAndLonePointsAreDropped) {
  auto plateaus = cache::detect_plateaus(curve(100e9, 100e9, 100e9, 10e9), hierarchy(), 1);
  ASSERT_EQ(plateaus.size(), 2u);  // one flat cache plateau, one DRAM; the transition point is dropped
  EXPECT_EQ(plateaus[1].level, "DRAM");
  EXPECT_TRUE(cache::detect_plateaus({}, hierarchy(), 1).empty());
}

TEST(Plateaus, ARunPastTheStatedCachesThatLaterPointsFallBelowIsNotMainMemory) {
  // The all-core sweep of a 2-vCPU VM told of one 32 MiB L3 (16 MiB a thread), as measured here
  // (GB/s by bytes a thread): its two vCPUs sit on two host CCDs, so 16-23 MiB still read from L3.
  const std::vector<std::pair<double, double>> measured = {{1 << 20, 264},   {1482880, 252.6},  {2 << 20, 213},   {2965760, 208},
                                                           {4 << 20, 212.2}, {5931584, 200.6},  {8 << 20, 210.5}, {11863232, 185},
                                                           {16 << 20, 161},  {23726528, 149.1}, {32 << 20, 87.9}, {47453120, 61},
                                                           {64 << 20, 89.4}, {94906240, 71.9},  {128 << 20, 86.1}};
  std::vector<cache::BandwidthPoint> points;
  for (const auto& [bytes, gbs] : measured) points.push_back({static_cast<std::int64_t>(bytes), gbs * 1e9});
  for (const auto& p : cache::detect_plateaus(points, hierarchy(), 2)) EXPECT_NE(p.level, "DRAM") << p.bytes_per_second;
  // With a flat tail the tail is main memory, and only it.
  points.push_back({180 << 20, 60e9});
  points.push_back({256 << 20, 58e9});
  points[12].bytes_per_second = 61e9, points[13].bytes_per_second = 59e9, points[14].bytes_per_second = 60e9;
  const auto plateaus = cache::detect_plateaus(points, hierarchy(), 2);
  ASSERT_FALSE(plateaus.empty());
  EXPECT_EQ(plateaus.back().level, "DRAM");
  EXPECT_NEAR(plateaus.back().bytes_per_second, 60e9, 2e9);
  EXPECT_EQ(std::count_if(plateaus.begin(), plateaus.end(), [](const auto& p) { return p.level == "DRAM"; }), 1);
}

TEST(Regime, TheLargestLowerBoundDecides) {
  // 1 GFLOP on a 100 GFLOP/s machine: 10 ms; 1 MB at 10 GB/s: 0.1 ms; 1 us of call overhead.
  Regime compute = classify(1e9, 1e6, {100e9, 10e9, 1e-6});
  EXPECT_EQ(compute.name, "compute");
  EXPECT_DOUBLE_EQ(compute.bound_seconds(), 0.01);
  Regime memory = classify(1e6, 1e9, {100e9, 10e9, 1e-6});  // a stream: 0.1 s of bytes
  EXPECT_EQ(memory.name, "memory");
  EXPECT_DOUBLE_EQ(memory.bound_seconds(), 0.1);
  Regime overhead = classify(2, 12, {100e9, 10e9, 1e-6});  // a 1x1 GEMM: the call is all
  EXPECT_EQ(overhead.name, "overhead");
  EXPECT_EQ(compute.code, 0);
  EXPECT_EQ(memory.code, 1);
  EXPECT_EQ(overhead.code, 2);
  EXPECT_EQ(regime_codes(), "0 compute, 1 memory, 2 overhead");
  EXPECT_DOUBLE_EQ(overhead.bound_seconds(), 1e-6);
}

TEST(Regime, AGemmsOverheadFloorIsWhatEveryCallSurelyPays) {
  Ceilings c;
  c.call_seconds = 2e-9, c.fork_join_seconds = 1.5e-6, c.dispatch_seconds = 3e-9;
  const GemmProblem one{1, DType::f32};
  // Our all-core rungs open a parallel region on every call, even at n=1.
  EXPECT_DOUBLE_EQ(gemm_overhead_floor(*registry().find_gemm("parallel"), one, c), 1.5e-6);
  EXPECT_DOUBLE_EQ(gemm_overhead_floor(*registry().find_gemm("naive"), one, c), 2e-9);
  // A library runs n=1 on the calling thread (OpenBLAS took 60 ns here, under a fork's 1.5 us).
  for (auto [library, backend] :
       {std::pair{"openblas", OptionalBackend::openblas}, std::pair{"onednn", OptionalBackend::onednn}}) {
    if (!backend_built(backend)) continue;
    EXPECT_DOUBLE_EQ(gemm_overhead_floor(*registry().find_gemm(library), one, c), 2e-9) << library;
  }
  // The interpreter: 17 dispatches a multiply-add (two FLOPs).
  EXPECT_DOUBLE_EQ(gemm_overhead_floor(*registry().find_gemm("boxed"), one, c), 2e-9 + 17 * 3e-9);
}

// The theoretical peak's clock is the one the cores run at, measured: a Zen 5 VM's reported
// 2.60 GHz put the "theoretical" f32 peak below what its probe measured.
TEST(Ceilings, TheTheoreticalPeakUsesTheMeasuredClock) {
#if defined(__x86_64__) || defined(__aarch64__)
  const double clock = measured_clock_hz(true);
  EXPECT_GT(clock, 0.3e9);
  EXPECT_LT(clock, 8e9);
#endif
  for (const auto& figure : theoretical_figures(machine_info(), 3.0e9))  // none on an undocumented CPU
    EXPECT_NE(figure.derivation.find("3.00 GHz (one core's clock, measured by a chain of dependent adds"), std::string::npos)
        << figure.derivation;
}

// The regime comes from the traffic each rung's loops generate, from the level its working set
// lives in: autovec at n = 4096 re-reads all of B (64 MiB, DRAM) for every row of C, so it is
// memory-bound although its compulsory traffic (3n^2 elements) would call it compute-bound.
TEST(Traffic, TheRegimeComesFromTheRungsOwnTraffic) {
  Ceilings c;
  c.threads = 1;
  c.plateaus_one_core = cache::detect_plateaus(curve(200e9, 110e9, 85e9, 20e9), hierarchy(), 1);
  c.plateaus_all_cores = c.plateaus_one_core;
  c.l1_data_bytes = 32 << 10;
  c.peaks.measurements = {
      {"avx512-fma", DType::f32, 1, 117.5e9}, {"scalar-fma", DType::f32, 1, 14.7e9}, {"scalar-add-chain", DType::f32, 1, 4.2e9}};
  const GemmRung* autovec = registry().find_gemm("autovec");
  ASSERT_TRUE(autovec && autovec->traffic);
  const GemmProblem big{4096, DType::f32};
  const GemmTraffic streamed = gemm_traffic(*autovec, big, c);
  EXPECT_EQ(streamed.term, 1);  // B streamed once per row of C
  EXPECT_DOUBLE_EQ(streamed.bytes, 4.0 * 4096 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(streamed.bytes_per_second, 20e9);  // B (64 MiB) lives in DRAM
  const Regime regime = classify(big.flops(), streamed.bytes, {117.5e9, streamed.bytes_per_second, 0});
  EXPECT_EQ(regime.name, "memory");
  // B in L3 at n = 1024 (4 MiB): still B's stream, now at L3's rate.
  EXPECT_DOUBLE_EQ(gemm_traffic(*autovec, {1024, DType::f32}, c).bytes_per_second, 85e9);
  // At n = 64 B (16 KiB) stays in L1: only the compulsory bytes are left.
  EXPECT_EQ(gemm_traffic(*autovec, {64, DType::f32}, c).term, 0);
  // The tiled loops re-read less, and from nearer levels: compute-bound at the same size.
  const GemmRung* tiled = registry().find_gemm("tiled");
  ASSERT_TRUE(tiled && tiled->traffic);
  const GemmTraffic blocked = gemm_traffic(*tiled, big, c);
  EXPECT_LT(blocked.bytes / blocked.bytes_per_second, streamed.bytes / streamed.bytes_per_second / 10);
  EXPECT_EQ(classify(big.flops(), blocked.bytes, {117.5e9, blocked.bytes_per_second, 0}).name, "compute");
  // naive walks B's column: a cache line per multiply-add once the column's lines outgrow L1.
  const GemmRung* naive = registry().find_gemm("naive");
  ASSERT_TRUE(naive && naive->traffic);
  const GemmTraffic walked = gemm_traffic(*naive, {1024, DType::f32}, c);
  EXPECT_EQ(walked.term, 1);
  EXPECT_DOUBLE_EQ(walked.working_set, cache_line_bytes() * 1024);
  // Its compute roof is the scalar unit's: it was built without vectorisation. (Its sum is one
  // chain of dependent adds, whose probe is no bound on it: the next element's chain overlaps it.)
  EXPECT_DOUBLE_EQ(gemm_unit(*naive, c).peak, 14.7e9);
  EXPECT_TRUE(naive->serial_sum);
}

// Every CPU rung below the libraries declares its traffic model (a test fails where one is removed).
TEST(Traffic, EveryHandWrittenCpuRungHasATrafficModel) {
  for (const GemmRung& rung : registry().gemm) {
    const bool hand_cpu =
        rung.threading != Threading::device && rung.dtype == DType::f32 &&
        (rung.mechanism == Mechanism::loop_order || rung.mechanism == Mechanism::simd || rung.mechanism == Mechanism::tiling ||
         rung.mechanism == Mechanism::cores || rung.mechanism == Mechanism::hand_written || rung.name == "naive");
    if (hand_cpu) {
      EXPECT_TRUE(rung.traffic) << rung.name << " has no traffic model";
    }
  }
}

TEST(Ceilings, BandwidthComesFromTheLevelHoldingTheWorkingSet) {
  Ceilings c;
  c.threads = 2;
  c.plateaus_one_core = cache::detect_plateaus(curve(200e9, 110e9, 85e9, 20e9), hierarchy(), 1);
  c.plateaus_all_cores = cache::detect_plateaus(curve(380e9, 190e9, 160e9, 37e9), hierarchy(), 2);
  EXPECT_DOUBLE_EQ(c.bandwidth(16 << 10, 1), 200e9);
  EXPECT_DOUBLE_EQ(c.bandwidth(256 << 10, 1), 110e9);
  EXPECT_DOUBLE_EQ(c.bandwidth(1 << 30, 1), 20e9);
  // Between L3 (to 12 MB) and DRAM (from 45 MB) part of the working set still fits in L3: the
  // roof is L3's rate, not DRAM's. Below the first plateau, L1's.
  EXPECT_DOUBLE_EQ(c.bandwidth(20e6, 1), 85e9);
  EXPECT_DOUBLE_EQ(c.bandwidth(40e6, 2), 160e9);
  EXPECT_DOUBLE_EQ(c.bandwidth(1024, 1), 200e9);
  EXPECT_DOUBLE_EQ(c.dram_bandwidth(2), 37e9);
  // Main memory's roof on all cores: the best of the read plateau and the two triads.
  c.triad_bytes_per_second = 40e9;
  EXPECT_DOUBLE_EQ(c.dram_bandwidth(2), 40e9);
  c.triad_nt_bytes_per_second = 45e9;
  EXPECT_DOUBLE_EQ(c.dram_bandwidth(2), 45e9);
  EXPECT_DOUBLE_EQ(c.bandwidth(1e9, 2), 45e9);
  EXPECT_DOUBLE_EQ(c.dram_bandwidth(1), 20e9);  // one core: its own read plateau
  {
    // A sweep that stopped in L3 (the quick profile's on a 32 MiB L3 found DRAM for one core only):
    // main memory's roof is never L3's plateau (it was 214 GB/s where the triad gave 39.5).
    Ceilings stopped = c;
    std::erase_if(stopped.plateaus_all_cores, [](const cache::Plateau& p) { return p.level == "DRAM"; });
    std::erase_if(stopped.plateaus_one_core, [](const cache::Plateau& p) { return p.level == "DRAM"; });
    EXPECT_FALSE(stopped.has_dram_plateau(2));
    EXPECT_DOUBLE_EQ(stopped.dram_bandwidth(2), 45e9);  // the triads'
    EXPECT_DOUBLE_EQ(stopped.dram_bandwidth(1), 45e9);  // the lower of the triad and L3's 85
    EXPECT_TRUE(c.has_dram_plateau(2));
  }
  c.triad_bytes_per_second = c.triad_nt_bytes_per_second = 0;
  c.peaks.measurements = {{"avx512-fma", DType::f32, 2, 370e9}, {"avx512-fma", DType::f32, 1, 185e9}};
  EXPECT_DOUBLE_EQ(c.peak(DType::f32, 2), 370e9);
  EXPECT_DOUBLE_EQ(c.peak(DType::f32, 1), 185e9);
  EXPECT_DOUBLE_EQ(c.ridge_point(DType::f32, 2), 10.0);
}

TEST(Ceilings, TheDevicesMemoryRoofIsL2sWhereTheDataCanSitThere) {
  DeviceCeilings d;
  d.copy_bytes_per_second = 4e12, d.l2_bytes = 50e6, d.l2_read_bytes_per_second = 10e12;
  EXPECT_DOUBLE_EQ(d.bandwidth(8e6), 10e12);
  EXPECT_DOUBLE_EQ(d.bandwidth(50e6), 10e12);
  EXPECT_DOUBLE_EQ(d.bandwidth(51e6), 4e12);
  d.l2_read_bytes_per_second = 0;  // not measured
  EXPECT_DOUBLE_EQ(d.bandwidth(8e6), 4e12);
}

// On an H200 the attention scores (mostly writes) moved 3.85 TB/s where a copy moved 3.36: device
// memory's roof is the best of copy, read and write, or it is no lower bound.
TEST(Ceilings, TheDevicesMemoryRoofIsTheBestOfCopyReadAndWrite) {
  DeviceCeilings d;
  d.copy_bytes_per_second = 3.36e12, d.read_bytes_per_second = 3.7e12, d.write_bytes_per_second = 3.9e12;
  d.l2_bytes = 60e6, d.l2_read_bytes_per_second = 3.5e12;
  EXPECT_DOUBLE_EQ(d.memory_bytes_per_second(), 3.9e12);
  EXPECT_DOUBLE_EQ(d.bandwidth(1e9), 3.9e12);
  EXPECT_DOUBLE_EQ(d.bandwidth(8e6), 3.9e12);  // L2's measured rate below device memory's is no roof
  d.l2_read_bytes_per_second = 8e12;
  EXPECT_DOUBLE_EQ(d.bandwidth(8e6), 8e12);
  d.read_bytes_per_second = d.write_bytes_per_second = 0;  // only a copy measured (older runs)
  EXPECT_DOUBLE_EQ(d.bandwidth(1e9), 3.36e12);
}

template <class T>
void check_stream(bool nontemporal) {
  const std::int64_t n = 1003;  // not a multiple of any vector width
  for (stream::Kernel k : stream::kKernels) {
    AlignedBuffer<T> a(n + 1), b(n + 1), c(n + 1);
    // One element in, so that streaming stores meet an unaligned start.
    stream::Arrays<T> arrays{n, a.data() + 1, b.data() + 1, c.data() + 1};
    stream::initialise(arrays);
    T* out = arrays.output(k);
    std::fill(out, out + n, std::numeric_limits<T>::quiet_NaN());
    stream::run(k, arrays, nontemporal);
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out[i], static_cast<T>(stream::expected_output(k))) << stream::kernel_name(k) << " " << i;
    EXPECT_EQ(stream::checksum(k, arrays), stream::expected_output(k) * n);
  }
}

TEST(Stream, EveryKernelMatchesItsClosedForm) {
  check_stream<double>(false);
  check_stream<float>(false);
  if (!isa_unavailable_reason(Isa::avx2).empty()) GTEST_SKIP() << "streaming stores need AVX";
  check_stream<double>(true);
  check_stream<float>(true);
}

TEST(Stream, CountsBytesAsStreamDoes) {
  EXPECT_EQ(stream::words_moved(stream::Kernel::copy), 2);
  EXPECT_EQ(stream::words_moved(stream::Kernel::scale), 2);
  EXPECT_EQ(stream::words_moved(stream::Kernel::add), 3);
  EXPECT_EQ(stream::words_moved(stream::Kernel::triad), 3);
}

TEST(ReadBandwidth, SumsEveryWordOfEveryThread) {
  cache::ReadBuffers buffers(4096 + 8 * 5, 2);  // a ragged tail past the 32-word blocks
  EXPECT_EQ(buffers.read(3), buffers.expected(3));
  EXPECT_EQ(buffers.read_prefix(2, 100), buffers.expected_prefix(2, 100));
  EXPECT_EQ(buffers.expected(1), static_cast<std::uint64_t>(buffers.words() * 2));
}

TEST(ReadBandwidth, SweepSpansFourKibToFourTimesTheLastLevel) {
  MachineInfo m;
  m.caches = hierarchy();
  auto sizes = cache::sweep_sizes(m);
  EXPECT_EQ(sizes.front(), 4096);
  EXPECT_EQ(sizes.back(), std::int64_t{128} << 20);
  EXPECT_EQ(sizes.size(), 31u);  // 15 octaves, two points each, and the end
  for (auto s : sizes) EXPECT_EQ(s % 64, 0);
}

template <class T>
void check_roofline(void (*kernel)(const T*, T*, std::int64_t, int, T, T)) {
  for (std::int64_t n : {1, 7, 130, 1031})
    for (int k : {0, 1, 5, 64}) {
      std::vector<T> in(n), out(n, std::numeric_limits<T>::quiet_NaN());
      for (std::int64_t i = 0; i < n; ++i) in[i] = static_cast<T>(i % 7 - 3);
      kernel(in.data(), out.data(), n, k, T(1), T(1));
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] + k) << "n=" << n << " k=" << k << " i=" << i;
    }
}

TEST(Roofline, CompiledKernelsComputeInPlusK) {
  if (!isa_unavailable_reason(Isa::avx2).empty()) GTEST_SKIP() << "the scalar kernel uses FMA";
  check_roofline<float>(roofline::scalar_f32);
  check_roofline<double>(roofline::scalar_f64);
  check_roofline<float>(roofline::avx2_f32);
  check_roofline<double>(roofline::avx2_f64);
  if (const std::string reason = isa_unavailable_reason(Isa::avx512); !reason.empty()) {
    std::printf("avx512 kernels: not checked here: %s\n", reason.c_str());
    return;
  }
  check_roofline<float>(roofline::avx512_f32);
  check_roofline<double>(roofline::avx512_f64);
}

TEST(Roofline, BoxedKernelComputesInPlusKAndFreesItsObjects) {
  const auto before = boxed::live_objects();
  {
    std::vector<double> in = {-3, 0, 2.5, 7}, out(4);
    roofline::BoxedSweep sweep(in.data(), 4);
    sweep.run(5, 1.0, 1.0);
    sweep.result(out.data());
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], in[i] + 5);
    sweep.run(0, 2.0, 1.0);  // k = 0 copies
    sweep.result(out.data());
    EXPECT_EQ(out, in);
  }
  EXPECT_EQ(boxed::live_objects(), before);
}

TEST(Overhead, BoxedProgramsCountTheirOperationsAndLeakNothing) {
  const auto before = boxed::live_objects();
  {
    overhead::BoxedProgram dispatch(overhead::BoxedProgram::Kind::dispatch), add(overhead::BoxedProgram::Kind::add);
    EXPECT_EQ(dispatch.ops(), 1000);
    EXPECT_EQ(add.ops(), 500);
    dispatch.run();
    add.run();
  }
  EXPECT_EQ(boxed::live_objects(), before);
  double per_call = overhead::seconds_per_op(overhead::empty_calls, 1, 0.001);
  EXPECT_GT(per_call, 0);
  EXPECT_LT(per_call, 1e-6);
}

}  // namespace
}  // namespace ladder
