#include "cpu_features.hpp"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace ladder {
namespace {

struct Regs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs cpuid(unsigned leaf, unsigned subleaf) {
  Regs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

bool bit(unsigned value, int n) { return (value >> n) & 1u; }

unsigned long long xgetbv0() {
  unsigned eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}

CpuFeatures detect() {
  CpuFeatures f;
  Regs r0 = cpuid(0, 0);
  unsigned max_leaf = r0.eax;
  char vendor[13] = {};
  std::memcpy(vendor + 0, &r0.ebx, 4);
  std::memcpy(vendor + 4, &r0.edx, 4);
  std::memcpy(vendor + 8, &r0.ecx, 4);
  f.vendor = vendor;

  if (cpuid(0x80000000u, 0).eax >= 0x80000004u) {
    std::array<unsigned, 12> words{};
    for (unsigned i = 0; i < 3; ++i) {
      Regs r = cpuid(0x80000002u + i, 0);
      words[i * 4 + 0] = r.eax;
      words[i * 4 + 1] = r.ebx;
      words[i * 4 + 2] = r.ecx;
      words[i * 4 + 3] = r.edx;
    }
    char brand[49] = {};
    std::memcpy(brand, words.data(), 48);
    f.brand = brand;
    while (!f.brand.empty() && f.brand.back() == ' ') f.brand.pop_back();
    while (!f.brand.empty() && f.brand.front() == ' ') f.brand.erase(f.brand.begin());
  }

  Regs r1 = cpuid(1, 0);
  const int base_family = (r1.eax >> 8) & 0xf, base_model = (r1.eax >> 4) & 0xf;
  f.family = base_family == 0xf ? base_family + ((r1.eax >> 20) & 0xff) : base_family;
  f.model = (base_family == 0x6 || base_family == 0xf) ? base_model + (((r1.eax >> 16) & 0xf) << 4) : base_model;
  f.fma = bit(r1.ecx, 12);
  bool osxsave = bit(r1.ecx, 27);
  unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
  f.os_avx = (xcr0 & 0x6) == 0x6;                   // XMM and YMM state
  f.os_avx512 = f.os_avx && (xcr0 & 0xe0) == 0xe0;  // opmask, ZMM_Hi256, Hi16_ZMM
  f.os_amx = (xcr0 & 0x60000) == 0x60000;           // XTILECFG and XTILEDATA

  if (max_leaf >= 7) {
    Regs r7 = cpuid(7, 0);
    f.avx2 = bit(r7.ebx, 5);
    f.avx512f = bit(r7.ebx, 16);
    f.avx512dq = bit(r7.ebx, 17);
    f.avx512bw = bit(r7.ebx, 30);
    f.avx512vl = bit(r7.ebx, 31);
    f.amx_bf16 = bit(r7.edx, 22);
    f.avx512_fp16 = bit(r7.edx, 23);
    f.amx_tile = bit(r7.edx, 24);
    f.amx_int8 = bit(r7.edx, 25);
    if (r7.eax >= 1) f.avx512_bf16 = bit(cpuid(7, 1).eax, 5);
  }
  return f;
}

struct DescribedCpu {
  std::optional<CpuFeatures> cpu;
  std::string error;
};

const DescribedCpu& described_cpu() {
  static const DescribedCpu described = [] {
    DescribedCpu d;
    const char* path = std::getenv("LADDER_TEST_CPU");
    if (!path || !*path) return d;
    std::ifstream in(path);
    if (!in) {
      d.error = std::string("LADDER_TEST_CPU=") + path + ": cannot read it";
      return d;
    }
    std::stringstream text;
    text << in.rdbuf();
    try {
      d.cpu = parse_cpu_description(text.str());
    } catch (const std::invalid_argument& e) {
      d.error = std::string("LADDER_TEST_CPU=") + path + ": " + e.what();
    }
    return d;
  }();
  return described;
}

constexpr std::array<std::string_view, 5> kIsaNames = {"scalar", "avx2", "avx512", "avx512_bf16", "amx"};

struct MaxIsa {
  Isa isa = Isa::amx;
  std::string error;
};

const MaxIsa& max_isa_setting() {
  static const MaxIsa setting = [] {
    MaxIsa m;
    const char* env = std::getenv("LADDER_MAX_ISA");
    if (env && *env) {
      if (auto parsed = parse_isa(env)) {
        m.isa = *parsed;
      } else {
        m.error = std::string("LADDER_MAX_ISA='") + env + "' is not one of scalar, avx2, avx512, avx512_bf16, amx";
      }
    }
    return m;
  }();
  return setting;
}

// Linux keeps AMX tile data off until a process asks (since 5.16); the grant is process-wide.
std::string request_amx_permission() {
  static const std::string result = [] {
    constexpr long kArchReqXcompPerm = 0x1023;
    constexpr long kXfeatureXtiledata = 18;
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
      return std::string("the kernel refused AMX tile data: arch_prctl(ARCH_REQ_XCOMP_PERM): ") + std::strerror(errno);
    }
    return std::string();
  }();
  return result;
}

}  // namespace

std::string CpuFeatures::flags() const {
  std::string out;
  auto add = [&](bool present, const char* name) {
    if (!present) return;
    if (!out.empty()) out += ' ';
    out += name;
  };
  add(fma, "fma");
  add(avx2, "avx2");
  add(avx512f, "avx512f");
  add(avx512dq, "avx512dq");
  add(avx512bw, "avx512bw");
  add(avx512vl, "avx512vl");
  add(avx512_bf16, "avx512_bf16");
  add(avx512_fp16, "avx512_fp16");
  add(amx_tile, "amx_tile");
  add(amx_bf16, "amx_bf16");
  add(amx_int8, "amx_int8");
  return out;
}

CpuFeatures parse_cpu_description(const std::string& text) {
  CpuFeatures f;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (key == "vendor")
      f.vendor = value;
    else if (key == "brand")
      f.brand = value;
    else if (key == "family")
      f.family = std::stoi(value, nullptr, 0);
    else if (key == "model")
      f.model = std::stoi(value, nullptr, 0);
    else if (key == "flags") {
      std::istringstream names(value);
      for (std::string name; names >> name;) {
        bool* flag = name == "fma"           ? &f.fma
                     : name == "avx2"        ? &f.avx2
                     : name == "avx512f"     ? &f.avx512f
                     : name == "avx512dq"    ? &f.avx512dq
                     : name == "avx512bw"    ? &f.avx512bw
                     : name == "avx512vl"    ? &f.avx512vl
                     : name == "avx512_bf16" ? &f.avx512_bf16
                     : name == "avx512_fp16" ? &f.avx512_fp16
                     : name == "amx_tile"    ? &f.amx_tile
                     : name == "amx_bf16"    ? &f.amx_bf16
                     : name == "amx_int8"    ? &f.amx_int8
                                             : nullptr;
        if (!flag) throw std::invalid_argument("flag '" + name + "' is not one of those cpu_features knows");
        *flag = true;
      }
    }
  }
  if (f.vendor.empty() || f.brand.empty()) throw std::invalid_argument("needs a vendor: and a brand: line");
  // The OS of a described machine enables what its CPU has.
  f.os_avx = f.avx2;
  f.os_avx512 = f.avx512f;
  f.os_amx = f.amx_tile;
  return f;
}

bool cpu_is_described() { return described_cpu().cpu.has_value(); }
std::string cpu_description_error() { return described_cpu().error; }

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    const auto& described = described_cpu().cpu;
    return described ? *described : detect();
  }();
  return features;
}

std::string_view isa_name(Isa isa) { return kIsaNames[static_cast<int>(isa)]; }

std::optional<Isa> parse_isa(std::string_view name) {
  for (std::size_t i = 0; i < kIsaNames.size(); ++i)
    if (kIsaNames[i] == name) return static_cast<Isa>(i);
  return std::nullopt;
}

Isa max_isa() { return max_isa_setting().isa; }
std::string max_isa_error() { return max_isa_setting().error; }

std::string microarchitecture(std::string_view vendor, int family, int model) {
  if (vendor == "AuthenticAMD") {  // AMD's family 17h-1Ah model ranges
    if (family == 0x17) return model < 0x30 ? "zen" : "zen2";
    if (family == 0x19) return (model >= 0x10 && model < 0x20) || (model >= 0x60 && model < 0xb0) ? "zen4" : "zen3";
    if (family == 0x1a) return "zen5";
  }
  if (vendor == "GenuineIntel" && family == 6) {  // the Xeon server cores
    switch (model) {
      case 0x55:
        return "skylake-sp";  // also Cascade Lake and Cooper Lake
      case 0x6a:
      case 0x6c:
        return "icelake-sp";
      case 0x8f:
        return "sapphire-rapids";
      case 0xcf:
        return "emerald-rapids";
      case 0xad:
      case 0xae:
        return "granite-rapids";
      default:
        break;
    }
  }
  return {};
}

std::string isa_unavailable_reason(Isa isa) {
  if (isa > max_isa()) return "capped by LADDER_MAX_ISA=" + std::string(isa_name(max_isa()));
  const CpuFeatures& f = cpu_features();
  switch (isa) {
    case Isa::scalar:
      return {};
    case Isa::avx2:
      if (!f.avx2 || !f.fma) return "CPU lacks AVX2+FMA (cpuid)";
      if (!f.os_avx) return "OS has not enabled AVX register state (XCR0)";
      return {};
    case Isa::avx512:
      if (!(f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq)) return "CPU lacks AVX-512 F/BW/VL/DQ (cpuid)";
      if (!f.os_avx512) return "OS has not enabled AVX-512 register state (XCR0)";
      return {};
    case Isa::avx512_bf16:
      if (auto r = isa_unavailable_reason(Isa::avx512); !r.empty()) return r;
      if (!f.avx512_bf16) return "CPU lacks AVX512_BF16 (cpuid leaf 7.1 eax bit 5)";
      return {};
    case Isa::amx:
      if (!(f.amx_tile && f.amx_bf16)) return "CPU lacks AMX-TILE/AMX-BF16 (cpuid leaf 7 edx)";
      if (!f.os_amx) return "OS has not enabled AMX tile state (XCR0 bits 17-18)";
      if (auto r = isa_unavailable_reason(Isa::avx512); !r.empty()) return r;
      return cpu_is_described() ? std::string() : request_amx_permission();
  }
  return "unknown ISA";
}

}  // namespace ladder
