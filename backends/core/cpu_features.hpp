// What this CPU and OS let us run, read from cpuid/xgetbv at run time (never assumed from the
// build), capped by the environment variable LADDER_MAX_ISA like oneDNN's DNNL_MAX_CPU_ISA.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ladder {

struct CpuFeatures {
  std::string vendor;         // "GenuineIntel", "AuthenticAMD", ...
  std::string brand;          // cpuid brand string
  int family = 0, model = 0;  // cpuid leaf 1, with the extended fields folded in
  bool fma = false, avx2 = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
  bool avx512_bf16 = false, avx512_fp16 = false;
  bool amx_tile = false, amx_bf16 = false, amx_int8 = false;
  bool os_avx = false, os_avx512 = false, os_amx = false;  // XCR0 enables the register state

  std::string flags() const;  // space-separated list of the ISA extensions present
};

const CpuFeatures& cpu_features();

// Tests describe another machine's CPU with LADDER_TEST_CPU, the path of a file of "key: value"
// lines (vendor, family, model, brand, flags: the names flags() prints); cpu_features() then
// returns that CPU. A run that would measure refuses it (main.cpp): --list and --plan only.
bool cpu_is_described();
std::string cpu_description_error();  // empty, or why LADDER_TEST_CPU cannot be read, in one line
// The same from the file's text (tests); throws std::invalid_argument naming the bad line.
CpuFeatures parse_cpu_description(const std::string& text);

// The core's microarchitecture from cpuid's vendor, family and model ("zen3", "zen4",
// "sapphire-rapids", ...), for the server and desktop cores we know; empty otherwise. A
// hypervisor may hide the model number from the brand string ("AMD EPYC"), never this.
std::string microarchitecture(std::string_view vendor, int family, int model);

// ISA levels of the hand-written rungs and probes, in increasing order.
enum class Isa { scalar, avx2, avx512, avx512_bf16, amx };

std::string_view isa_name(Isa isa);
std::optional<Isa> parse_isa(std::string_view name);

// The cap from LADDER_MAX_ISA; unset means no cap. An invalid value is reported by
// max_isa_error() so that main can refuse it with one clear line.
Isa max_isa();
std::string max_isa_error();

// Empty when code for `isa` may run here; otherwise why not, in one line. For AMX this asks the
// kernel for tile-data permission (arch_prctl ARCH_REQ_XCOMP_PERM) once per process.
std::string isa_unavailable_reason(Isa isa);

}  // namespace ladder
