// The machine's ceilings, measured before the cases run so that every case can be set against
// them and the JSON context carries them: peak FLOP/s per dtype (peak probes), read bandwidth
// per memory level (a working-set sweep and its plateaus), STREAM triad bandwidth, and fixed
// costs per call. Theoretical figures sit beside them where the hardware can be known.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "roofs/read_bandwidth.hpp"
#include "core/machine.hpp"
#include "core/peak.hpp"
#include "core/registry.hpp"
#include "roofs/device_ceilings.hpp"

namespace ladder {

struct TheoreticalFigure {
  std::string name;  // "peak_f32_flops"
  double value = 0;
  std::string derivation;  // "2 cores x 32 FLOP/cycle x 2.60 GHz (reported clock)"
};

struct Ceilings {
  int threads = 1;
  Peaks peaks;
  std::vector<cache::BandwidthPoint> read_one_core, read_all_cores;
  std::vector<cache::Plateau> plateaus_one_core, plateaus_all_cores;
  double triad_bytes_per_second = 0;     // STREAM triad, f64, all cores, STREAM's byte count
  double triad_nt_bytes_per_second = 0;  // the same with streaming stores (no write-allocate); 0 without AVX
  double call_seconds = 0;               // an empty function call
  double fork_join_seconds = 0;          // an empty OpenMP parallel region on all threads
  double dispatch_seconds = 0;           // one bytecode dispatch in the boxed interpreter
  double boxed_add_seconds = 0;          // one boxed float add (loads, add, allocation, pop)
  double clock_hz = 0;                   // one busy core's clock, measured (0 where no probe exists for the ISA)
  double l1_data_bytes = 0;              // one core's L1 data cache, as the machine describes it (0: not said)
  std::vector<TheoreticalFigure> theoretical;
  DeviceCeilings device;  // the GPU's, where one answers (name empty otherwise)

  double peak(DType dtype, int threads) const;
  // Read bandwidth of the level that holds `bytes_per_thread` on `threads` threads (the faster
  // level where the working set falls between two plateaus).
  double bandwidth(double bytes_per_thread, int threads) const;
  // The name of that level ("L1" .. "DRAM"; "" before a sweep).
  std::string level(double bytes_per_thread, int threads) const;
  // The read sweep's plateau of that level (nullptr before a sweep).
  const cache::Plateau* holder(double bytes_per_thread, int threads) const;
  // Main memory's roof: the DRAM read plateau, or on all cores STREAM triad (with either kind of
  // store) where that is higher: reads alone may not fill the memory system that mixed traffic does.
  // Without a DRAM plateau, the triad (for one core, the lower of it and the last plateau).
  double dram_bandwidth(int threads) const;
  bool has_dram_plateau(int threads) const;
  // FLOP per byte where the compute roof meets the DRAM roof.
  double ridge_point(DType dtype, int threads) const { return peak(dtype, threads) / dram_bandwidth(threads); }
};

// `smoke`: a small sweep and short trials, for tests (the figures are then rough).
Ceilings measure_ceilings(const Registry& registry, const MachineInfo& machine, bool smoke = false);

std::vector<std::pair<std::string, std::string>> ceilings_context(const Ceilings& ceilings);
std::string format_ceilings(const Ceilings& ceilings);

// One busy core's clock in Hz, from a chain of dependent adds (0 on an ISA without the probe).
double measured_clock_hz(bool smoke);

// Theoretical peaks from the CPU model where its units are documented (empty otherwise), at the
// measured clock (else the reported one, said so).
std::vector<TheoreticalFigure> theoretical_figures(const MachineInfo& machine, double measured_clock_hz);

}  // namespace ladder
