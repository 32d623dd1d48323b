#include "roofs/ceilings.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>

#include "core/cpu_features.hpp"
#include "roofs/overhead_probes.hpp"
#include "roofs/stream_kernels.hpp"

namespace ladder {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The read sweep on `threads` threads: one buffer of the largest size, read over prefixes.
std::vector<cache::BandwidthPoint> read_sweep(const std::vector<std::int64_t>& sizes, int threads) {
  cache::ReadBuffers buffers(sizes.back(), threads);
  std::vector<cache::BandwidthPoint> curve;
  for (std::int64_t bytes : sizes) {
    const std::int64_t words = bytes / 8;
    const std::int64_t passes = cache::ReadBuffers::passes_for_timing(words);
    buffers.read_prefix(passes, words);  // warm the level
    double best = 0;
    for (int trial = 0; trial < 5; ++trial) {
      double start = now();
      std::uint64_t sum = buffers.read_prefix(passes, words);
      double elapsed = now() - start;
      if (sum != buffers.expected_prefix(passes, words)) throw std::runtime_error("read sweep: wrong checksum");
      best = std::max(best, static_cast<double>(passes * words * 8 * threads) / elapsed);
    }
    curve.push_back({bytes, best});
  }
  return curve;
}

double triad_bandwidth(std::int64_t array_bytes, bool nontemporal) {
  const std::int64_t n = array_bytes / 8;
  AlignedBuffer<double> a(n), b(n), c(n);
  stream::Arrays<double> arrays{n, a.data(), b.data(), c.data()};
  stream::initialise(arrays);
  double best = 0;
  for (int trial = 0; trial < 4; ++trial) {
    double start = now();
    stream::run(stream::Kernel::triad, arrays, nontemporal);
    best = std::max(best, 3.0 * 8 * static_cast<double>(n) / (now() - start));
  }
  if (stream::checksum(stream::Kernel::triad, arrays) != stream::expected_output(stream::Kernel::triad) * n)
    throw std::runtime_error("triad: wrong checksum");
  return best;
}

std::string format_bytes(double bytes) {
  if (bytes >= 1 << 30) return fmt::format("{:.0f} GiB", bytes / (1 << 30));
  if (bytes >= 1 << 20) return fmt::format("{:.0f} MiB", bytes / (1 << 20));
  return fmt::format("{:.0f} KiB", bytes / 1024);
}

// Adds one a cycle, `loops` x 16 of them in one dependent chain (asm, so that no compiler folds it).
std::uint64_t dependent_adds(std::int64_t loops) {
  std::uint64_t x = 0;
  for (std::int64_t i = 0; i < loops; ++i) {
#if defined(__x86_64__)
    asm volatile(".rept 16\n\tadd $1, %0\n\t.endr" : "+r"(x));
#elif defined(__aarch64__)
    asm volatile(".rept 16\n\tadd %0, %0, #1\n\t.endr" : "+r"(x));
#endif
  }
  return x;
}

// The reported nominal clock ("cpu MHz", cpuinfo_max_freq) is not what a core runs at (a Zen 5 VM
// read 2.60 GHz and its probes needed 4.1): an integer add's result is ready the next cycle on
// every x86-64 and Arm core, so a chain of dependent adds counts the cycles of one busy core.
}  // namespace

double measured_clock_hz(bool smoke) {
#if defined(__x86_64__) || defined(__aarch64__)
  const std::int64_t loops = smoke ? 1'000'000 : 10'000'000;
  dependent_adds(loops);  // the clock rises to its working speed
  double best = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const double start = now();
    if (dependent_adds(loops) != static_cast<std::uint64_t>(loops) * 16) throw std::runtime_error("clock probe: wrong sum");
    best = std::max(best, 16.0 * static_cast<double>(loops) / (now() - start));
  }
  return best;
#else
  (void)smoke;
  return 0;
#endif
}

namespace {

double reported_clock_ghz(std::string& source) {
  if (const double mhz = max_clock_mhz(); mhz > 0) {
    source = "maximum clock";
    return mhz / 1e3;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      source = "clock reported by /proc/cpuinfo; boost may be higher";
      return std::stod(line.substr(line.find(':') + 1)) / 1e3;
    }
  }
  return 0;
}

// The GPU's FMA probes by the format names of its theoretical figures.
std::vector<std::pair<std::string, double>> device_fma_rates(const DeviceCeilings& d) {
  return {{"f32", d.fma_f32}, {"f16", d.fma_f16}, {"bf16", d.fma_bf16}, {"f64", d.fma_f64}};
}

double theoretical_value(const DeviceCeilings& d, const std::string& format) {
  for (const auto& t : d.theoretical())
    if (t.name == fmt::format("gpu_theoretical_peak_{}_flops", format)) return t.value;
  return 0;
}

}  // namespace

double Ceilings::peak(DType dtype, int t) const { return peaks.peak_at(dtype, t > 1 ? threads : 1); }

const cache::Plateau* Ceilings::holder(double bytes_per_thread, int t) const {
  const auto& plateaus = t > 1 ? plateaus_all_cores : plateaus_one_core;
  if (plateaus.empty()) return nullptr;
  // The last plateau that starts at or below the working set. One in the transition after a
  // plateau still partly fits that level, so the slower level's rate would be no roof: it gets
  // the faster one's.
  const cache::Plateau* found = &plateaus.front();
  for (const auto& p : plateaus)
    if (static_cast<double>(p.from_bytes) <= bytes_per_thread) found = &p;
  return found;
}

double Ceilings::bandwidth(double bytes_per_thread, int t) const {
  const cache::Plateau* level = holder(bytes_per_thread, t);
  if (!level) return triad_bytes_per_second;
  return level->level == "DRAM" ? dram_bandwidth(t) : level->bytes_per_second;
}

std::string Ceilings::level(double bytes_per_thread, int t) const {
  const cache::Plateau* level = holder(bytes_per_thread, t);
  return level ? level->level : "";
}

double Ceilings::dram_bandwidth(int t) const {
  const auto& plateaus = t > 1 ? plateaus_all_cores : plateaus_one_core;
  const double triad = std::max(triad_bytes_per_second, triad_nt_bytes_per_second);
  for (const auto& p : plateaus)
    if (p.level == "DRAM") return t > 1 ? std::max(p.bytes_per_second, triad) : p.bytes_per_second;
  // No DRAM plateau (a sweep that stopped in the last cache): never the last plateau alone, a
  // cache's bandwidth 4-7x DRAM's. The triad's arrays are past the last-level cache: on all cores it
  // is main memory's roof; for one core it bounds it from above, as does the last plateau.
  if (plateaus.empty() || triad <= 0) return triad > 0 ? triad : (plateaus.empty() ? 0 : plateaus.back().bytes_per_second);
  return t > 1 ? triad : std::min(triad, plateaus.back().bytes_per_second);
}

bool Ceilings::has_dram_plateau(int t) const {
  const auto& plateaus = t > 1 ? plateaus_all_cores : plateaus_one_core;
  return std::any_of(plateaus.begin(), plateaus.end(), [](const cache::Plateau& p) { return p.level == "DRAM"; });
}

std::vector<TheoreticalFigure> theoretical_figures(const MachineInfo& machine, double measured_clock_hz) {
  const CpuFeatures& f = cpu_features();
  std::string clock_source;
  double ghz = reported_clock_ghz(clock_source);
  if (measured_clock_hz > 0) {
    clock_source = ghz > 0 ? fmt::format("one core's clock, measured by a chain of dependent adds; {:.2f} GHz reported", ghz)
                           : "one core's clock, measured by a chain of dependent adds";
    ghz = measured_clock_hz / 1e9;
  }
  // f32 FLOP per cycle per core, from the vendors' documentation of the FMA units.
  int f32_per_cycle = 0;
  std::string units;
  const std::string& core = machine.microarchitecture;  // from cpuid's family and model
  if ((core == "zen3" || core == "zen4") && f.avx2) {
    f32_per_cycle = 32, units = (core == "zen4" ? "Zen 4" : "Zen 3") + std::string(": 2 FMA pipes x 8 f32 lanes x 2");
  } else if (core == "zen5" && f.avx512f) {
    f32_per_cycle = 64, units = "Zen 5: 2 FMA pipes x 16 f32 lanes x 2";
  } else if (f.vendor == "GenuineIntel" && f.amx_tile && f.avx512f) {
    f32_per_cycle = 64, units = "Xeon with AMX: 2 AVX-512 FMA units x 16 lanes x 2";
  }
  std::vector<TheoreticalFigure> out;
  if (ghz <= 0 || f32_per_cycle == 0) return out;
  // Hardware threads of one core share its FMA units: the cores count, not the logical CPUs.
  const int cores = machine.allowed_cores > 0 ? machine.allowed_cores : machine.logical_cpus;
  out.push_back({"peak_f32_flops", cores * f32_per_cycle * ghz * 1e9,
                 fmt::format("{} cores x {} FLOP/cycle ({}) x {:.2f} GHz ({})", cores, f32_per_cycle, units, ghz, clock_source)});
  out.push_back({"peak_f64_flops", cores * f32_per_cycle / 2.0 * ghz * 1e9,
                 fmt::format("{} cores x {} FLOP/cycle (half the f32 lanes) x {:.2f} GHz ({})", cores, f32_per_cycle / 2, ghz,
                             clock_source)});
  if (f.amx_bf16) {
    out.push_back({"peak_bf16_flops", cores * 1024 * ghz * 1e9,
                   fmt::format("{} cores x 1024 bf16 FLOP/cycle (AMX TMUL) x {:.2f} GHz ({})", cores, ghz, clock_source)});
  } else if (f.avx512_bf16) {
    out.push_back({"peak_bf16_flops", cores * 2.0 * f32_per_cycle * ghz * 1e9,
                   fmt::format("{} cores x {} FLOP/cycle (VDPBF16PS: twice the f32 FMA rate) x {:.2f} GHz ({})", cores,
                               2 * f32_per_cycle, ghz, clock_source)});
  }
  return out;
}

Ceilings measure_ceilings(const Registry& registry, const MachineInfo& machine, bool smoke) {
  Ceilings c;
  c.threads = machine.threads;
  c.peaks = measure_peaks(registry, smoke ? 0.002 : 0.02);
  auto sizes = cache::sweep_sizes(machine);
  if (smoke) std::erase_if(sizes, [](std::int64_t b) { return b > (1 << 20); });
  c.read_one_core = read_sweep(sizes, 1);
  c.plateaus_one_core = cache::detect_plateaus(c.read_one_core, machine.caches, 1);
  if (c.threads > 1) {
    c.read_all_cores = read_sweep(sizes, c.threads);
    c.plateaus_all_cores = cache::detect_plateaus(c.read_all_cores, machine.caches, c.threads);
  } else {
    c.read_all_cores = c.read_one_core;
    c.plateaus_all_cores = c.plateaus_one_core;
  }
  const std::int64_t triad_bytes = smoke ? std::int64_t{1} << 20 : 4 * last_level_cache_bytes(machine);
  c.triad_bytes_per_second = triad_bandwidth(triad_bytes, false);
  if (isa_unavailable_reason(Isa::avx2).empty()) c.triad_nt_bytes_per_second = triad_bandwidth(triad_bytes, true);
  c.call_seconds = overhead::seconds_per_op(overhead::empty_calls, 1);
  c.fork_join_seconds = overhead::seconds_per_op(overhead::fork_joins, 1);
  overhead::BoxedProgram dispatch(overhead::BoxedProgram::Kind::dispatch), add(overhead::BoxedProgram::Kind::add);
  c.dispatch_seconds = overhead::seconds_per_op(
      [&](std::int64_t n) {
        for (std::int64_t i = 0; i < n; ++i) dispatch.run();
      },
      dispatch.ops());
  c.boxed_add_seconds = overhead::seconds_per_op(
      [&](std::int64_t n) {
        for (std::int64_t i = 0; i < n; ++i) add.run();
      },
      add.ops());
  c.clock_hz = measured_clock_hz(smoke);
  for (const auto& level : machine.caches)
    if (level.level == 1 && level.type == "Data") c.l1_data_bytes = static_cast<double>(level.bytes);
  c.theoretical = theoretical_figures(machine, c.clock_hz);
  c.device = measure_device_ceilings(smoke);  // no device (or no CUDA build): name empty
  return c;
}

std::vector<std::pair<std::string, std::string>> ceilings_context(const Ceilings& c) {
  std::vector<std::pair<std::string, std::string>> ctx;
  auto num = [](double v) { return fmt::format("{:.6g}", v); };
  for (DType t : {DType::f32, DType::f64, DType::bf16}) {
    if (double p = c.peaks.machine_peak(t); p > 0) {
      ctx.emplace_back(fmt::format("peak_{}_flops", dtype_name(t)), num(p));
      ctx.emplace_back(fmt::format("peak_{}_source", dtype_name(t)), c.peaks.machine_peak_source(t));
      ctx.emplace_back(fmt::format("peak_{}_flops_one_core", dtype_name(t)), num(c.peak(t, 1)));
    }
  }
  for (const auto& p : c.peaks.measurements)
    ctx.emplace_back(fmt::format("peak_probe/{}/{}/threads:{}", p.probe, dtype_name(p.dtype), p.threads),
                     num(p.flops_per_second));
  for (const auto& s : c.peaks.skipped)
    ctx.emplace_back("peak_probe_skipped/" + s.substr(0, s.find(':')), s.substr(s.find(':') + 2));
  for (auto [label, plateaus] : {std::pair{"one_core", &c.plateaus_one_core}, std::pair{"all_cores", &c.plateaus_all_cores}})
    for (const auto& p : *plateaus)
      ctx.emplace_back(fmt::format("bandwidth_{}_{}_bytes_per_second", p.level, label), num(p.bytes_per_second));
  ctx.emplace_back("bandwidth_stream_triad_bytes_per_second", num(c.triad_bytes_per_second));
  if (c.triad_nt_bytes_per_second > 0)
    ctx.emplace_back("bandwidth_stream_triad_nt_bytes_per_second", num(c.triad_nt_bytes_per_second));
  ctx.emplace_back("bandwidth_main_memory_roof_bytes_per_second", num(c.dram_bandwidth(c.threads)));
  for (DType t : {DType::f32, DType::f64, DType::bf16})
    if (c.peak(t, c.threads) > 0)
      ctx.emplace_back(fmt::format("ridge_point_{}_flop_per_byte", dtype_name(t)), num(c.ridge_point(t, c.threads)));
  ctx.emplace_back("overhead_call_seconds", num(c.call_seconds));
  ctx.emplace_back("overhead_omp_fork_join_seconds", num(c.fork_join_seconds));
  ctx.emplace_back("overhead_bytecode_dispatch_seconds", num(c.dispatch_seconds));
  ctx.emplace_back("overhead_boxed_add_seconds", num(c.boxed_add_seconds));
  if (c.clock_hz > 0) ctx.emplace_back("cpu_clock_measured_hz", num(c.clock_hz));
  for (const auto& t : c.theoretical) {
    ctx.emplace_back("theoretical_" + t.name, num(t.value));
    ctx.emplace_back("theoretical_" + t.name + "_derivation", t.derivation);
  }
  if (!c.device.name.empty()) {
    ctx.emplace_back("gpu_peak_f32_fma_flops", num(c.device.fma_f32));
    ctx.emplace_back("gpu_peak_f16_fma_flops", num(c.device.fma_f16));
    if (c.device.fma_bf16 > 0) ctx.emplace_back("gpu_peak_bf16_fma_flops", num(c.device.fma_bf16));
    if (c.device.fma_f64 > 0) ctx.emplace_back("gpu_peak_f64_fma_flops", num(c.device.fma_f64));
    // Each probe beside its theoretical figure, as a fraction: how near the hardware's limit it got.
    for (const auto& [format, rate] : device_fma_rates(c.device))
      if (const double theory = theoretical_value(c.device, format); rate > 0 && theory > 0)
        ctx.emplace_back(fmt::format("gpu_peak_{}_fma_of_theoretical", format), num(rate / theory));
    for (const auto& [mode, rate] : c.device.cublas) ctx.emplace_back("gpu_peak_" + mode + "_flops", num(rate));
    ctx.emplace_back("gpu_bandwidth_copy_bytes_per_second", num(c.device.copy_bytes_per_second));
    ctx.emplace_back("gpu_bandwidth_read_bytes_per_second", num(c.device.read_bytes_per_second));
    ctx.emplace_back("gpu_bandwidth_write_bytes_per_second", num(c.device.write_bytes_per_second));
    ctx.emplace_back("gpu_bandwidth_memory_roof_bytes_per_second", num(c.device.memory_bytes_per_second()));
    ctx.emplace_back("gpu_bandwidth_l2_read_bytes_per_second",
                     num(c.device.l2_read_bytes_per_second));  // L2's size: device_context's gpu_l2_bytes
    ctx.emplace_back("gpu_overhead_launch_seconds", num(c.device.launch_seconds));
    if (c.device.probe_clock_hz > 0) ctx.emplace_back("gpu_fma_probe_sm_clock_hz", num(c.device.probe_clock_hz));
    for (const auto& t : c.device.theoretical()) {
      ctx.emplace_back(t.name, num(t.value));
      ctx.emplace_back(t.name + "_derivation", t.derivation);
    }
    if (!c.device.failures.empty()) {
      std::string all;
      for (const auto& f : c.device.failures) all += (all.empty() ? "" : "; ") + f;
      ctx.emplace_back("gpu_ceiling_failures", all);
    }
  }
  return ctx;
}

std::string format_ceilings(const Ceilings& c) {
  std::string out = "The machine's ceilings (measured in this run; theoretical where the hardware is documented)\n";
  for (DType t : {DType::f32, DType::f64, DType::bf16}) {
    if (c.peak(t, c.threads) <= 0) continue;
    out += fmt::format("  peak {:<5} {:>9.1f} GFLOP/s all cores, {:>8.1f} one core   ({})\n", dtype_name(t),
                       c.peak(t, c.threads) / 1e9, c.peak(t, 1) / 1e9, c.peaks.machine_peak_source(t));
    for (const auto& th : c.theoretical)
      if (th.name == fmt::format("peak_{}_flops", dtype_name(t)))
        out += fmt::format("       theoretical {:>9.1f} GFLOP/s = {}\n", th.value / 1e9, th.derivation);
  }
  std::vector<std::string> levels;  // in order of size, as either sweep found them
  for (const auto* ps : {&c.plateaus_one_core, &c.plateaus_all_cores})
    for (const auto& p : *ps)
      if (std::find(levels.begin(), levels.end(), p.level) == levels.end()) levels.push_back(p.level);
  std::sort(levels.begin(), levels.end(),
            [](const std::string& a, const std::string& b) { return (a == "DRAM" ? "Z" : a) < (b == "DRAM" ? "Z" : b); });
  auto show = [](const std::vector<cache::Plateau>& ps, const std::string& level) {
    for (const auto& p : ps)
      if (p.level == level)
        return fmt::format("{:>7.1f} GB/s ({}..{})", p.bytes_per_second / 1e9, format_bytes(p.from_bytes),
                           format_bytes(p.to_bytes));
    return std::string("not found");
  };
  for (const auto& level : levels)
    out += fmt::format("  {:<4} read  one core {:<30} all cores {}\n", level, show(c.plateaus_one_core, level),
                       show(c.plateaus_all_cores, level));
  out += fmt::format("  STREAM triad (f64, all cores): {:.1f} GB/s", c.triad_bytes_per_second / 1e9);
  if (c.triad_nt_bytes_per_second > 0)
    out += fmt::format("; with streaming stores {:.1f} GB/s", c.triad_nt_bytes_per_second / 1e9);
  out += fmt::format("; main memory's roof {:.1f} GB/s ({})\n", c.dram_bandwidth(c.threads) / 1e9,
                     c.has_dram_plateau(c.threads) ? "the best of these and the DRAM read plateau"
                                                   : "the best of these: the read sweep found no DRAM plateau");
  for (DType t : {DType::f32, DType::f64, DType::bf16})
    if (c.peak(t, c.threads) > 0)
      out += fmt::format("  ridge point {:<5} {:.1f} FLOP/byte (all-core peak / DRAM bandwidth)\n", dtype_name(t),
                         c.ridge_point(t, c.threads));
  out += fmt::format("  overhead: call {:.1f} ns, OpenMP fork+join {:.2f} us, bytecode dispatch {:.1f} ns, boxed add {:.1f} ns\n",
                     c.call_seconds * 1e9, c.fork_join_seconds * 1e6, c.dispatch_seconds * 1e9, c.boxed_add_seconds * 1e9);
  if (!c.device.name.empty()) {
    out += fmt::format("  GPU {}: FMA", c.device.name);
    for (const auto& [format, rate] : device_fma_rates(c.device)) {
      if (rate <= 0) continue;
      out += fmt::format(" {} {:.1f} TFLOP/s", format, rate / 1e12);
      if (const double theory = theoretical_value(c.device, format); theory > 0)
        out += fmt::format(" ({:.0f}% of {:.1f})", 100 * rate / theory, theory / 1e12);
      out += ",";
    }
    out += fmt::format(" launch {:.1f} us\n", c.device.launch_seconds * 1e6);
    out += fmt::format(
        "       device memory: copy {:.0f} GB/s, read {:.0f}, write {:.0f}; its roof {:.0f} GB/s (the best of these)\n",
        c.device.copy_bytes_per_second / 1e9, c.device.read_bytes_per_second / 1e9, c.device.write_bytes_per_second / 1e9,
        c.device.memory_bytes_per_second() / 1e9);
    out += fmt::format("       L2 ({}) read {:.0f} GB/s\n", format_bytes(c.device.l2_bytes),
                       c.device.l2_read_bytes_per_second / 1e9);
    for (const auto& failure : c.device.failures) out += fmt::format("       not measured: {}\n", failure);
    for (const auto& [mode, rate] : c.device.cublas) out += fmt::format("       {:<12} {:>8.1f} TFLOP/s\n", mode, rate / 1e12);
  }
  return out;
}

}  // namespace ladder
