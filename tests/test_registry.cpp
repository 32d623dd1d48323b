#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/cpu_features.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "model/model_suite.hpp"

namespace ladder {
namespace {

TEST(Registry, HoldsTheLadderInOrder) {
  std::vector<std::string> names;
  for (const auto& r : registry().gemm) names.push_back(r.name);
  // The CPU rungs are always built; library rungs sit between avx512 and amx when present.
  std::vector<std::string> cpu = {"python", "boxed", "naive", "interchange", "autovec", "tiled", "parallel", "avx2", "avx512"};
  ASSERT_GE(names.size(), cpu.size() + 1);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + cpu.size()), cpu);
  // On the CPU the f32 ladder comes first, then the bf16 rungs, amx first among them; every GPU
  // rung comes after every CPU rung, f32 first, then ever smaller formats.
  bool seen_bf16 = false, seen_gpu = false;
  for (const auto& r : registry().gemm) {
    const bool gpu = r.threading == Threading::device;
    EXPECT_FALSE(seen_gpu && !gpu) << r.name << " (CPU) after a GPU rung";
    seen_gpu |= gpu;
    if (gpu) continue;
    if (r.dtype == DType::bf16) seen_bf16 = true;
    EXPECT_FALSE(seen_bf16 && r.dtype == DType::f32) << r.name << " after a bf16 rung";
  }
  auto amx = std::find(names.begin(), names.end(), "amx");
  ASSERT_NE(amx, names.end());
  EXPECT_EQ(registry().find_gemm("amx")->dtype, DType::bf16);
#ifdef LADDER_HAVE_OPENBLAS
  EXPECT_NE(std::find(names.begin(), names.end(), "openblas"), names.end());
#endif
#ifdef LADDER_HAVE_ONEDNN
  EXPECT_EQ(std::find(names.begin(), names.end(), "onednn-bf16") - amx, 1) << "onednn-bf16 follows amx";
#endif
#ifdef LADDER_HAVE_CUDA
  // PyTorch's rungs on the GPU beside cuBLAS called directly, in the same number format; each
  // hand-written tensor-core rung just before cuBLAS in its format.
  std::vector<std::string> gpu = {"cuda-naive",     "cuda-tiled",      "cuda-regtile", "cuda-warptile",
                                  "cublas",         "torch-cuda",      "jax",          "cupy",
                                  "cublas-tf32",    "torch-cuda-tf32", "cuda-mma-f16", "cublas-f16",
                                  "torch-cuda-f16", "cuda-mma-bf16",   "cublas-bf16",  "torch-cuda-bf16"};
  EXPECT_EQ(std::vector<std::string>(names.end() - gpu.size(), names.end()), gpu);
#endif
}

#ifdef LADDER_HAVE_OPENBLAS
// The openblas rung says which of the library's kernels ran: a CPU it does not recognise gets
// pre-AVX ones (an Emerald Rapids Xeon ran Prescott's, 5x below oneDNN), and the label says so.
TEST(Registry, TheOpenblasRungNamesTheKernelsTheLibraryChose) {
  const GemmRung* rung = registry().find_gemm("openblas");
  ASSERT_NE(rung, nullptr);
  std::vector<float> a(4, 1.0f), b(4, 1.0f), c(4, 0.0f);
  GemmOperands op{};
  op.n = 2, op.a = a.data(), op.b = b.data(), op.c = c.data();
  auto kernel = rung->prepare(op);
  kernel->run();
  EXPECT_EQ(c, std::vector<float>(4, 2.0f));
  EXPECT_EQ(kernel->label().rfind("OpenBLAS ", 0), 0u) << kernel->label();
  EXPECT_NE(kernel->label().find(" kernels"), std::string::npos) << kernel->label();
  // The library read its choice at load time; the label reports the variable that forced it.
  setenv("OPENBLAS_CORETYPE", "Prescott", 1);
  EXPECT_NE(kernel->label().find("(OPENBLAS_CORETYPE=Prescott)"), std::string::npos) << kernel->label();
  unsetenv("OPENBLAS_CORETYPE");
}
#endif

TEST(Registry, NamesAreUniqueAndEveryRungIsComplete) {
  std::set<std::string> seen;
  for (const auto& r : registry().gemm) {
    EXPECT_TRUE(seen.insert(r.name).second) << r.name;
    EXPECT_TRUE(r.prepare) << r.name;
    EXPECT_FALSE(r.summary.empty()) << r.name;
    EXPECT_NE(r.mechanism, Mechanism::none) << r.name << " was registered without a mechanism";
    EXPECT_NE(r.unit, Unit::none) << r.name << " was registered without the unit it runs on";
    EXPECT_TRUE(r.traffic) << r.name << " was registered without a traffic model (compulsory_traffic_only where none applies)";
    EXPECT_EQ(r.name.find('/'), std::string::npos) << "a slash would break case names";
  }
  EXPECT_EQ(registry().find_gemm("no-such-rung"), nullptr);
}

// One chain: every rung but the chain's start names the rung it refines (or the baseline a library
// is set against), and every name it gives is a rung this build knows (placeholders of rungs not
// built have none).
TEST(Registry, EveryRungNamesItsParent) {
  for (const auto& r : registry().gemm) {
    if (r.mechanism == Mechanism::not_built) continue;
    if (r.name == "python") {
      EXPECT_TRUE(r.parent.empty());
      continue;
    }
    ASSERT_FALSE(r.parent.empty()) << r.name << " names no parent";
    for (std::size_t start = 0; start <= r.parent.size();) {
      const std::size_t end = std::min(r.parent.find('|', start), r.parent.size());
      const std::string name = r.parent.substr(start, end - start);
      EXPECT_NE(registry().find_gemm(name), nullptr) << r.name << "'s parent " << name << " is no rung";
      EXPECT_NE(name, r.name);
      start = end + 1;
    }
  }
}

// The names a build without OpenBLAS, oneDNN or CUDA still knows must be what each backend
// registers where it is built, or a build without it would list a rung that does not exist.
TEST(Registry, OptionalRungsAreWhatTheirBackendsRegister) {
  std::set<std::string> optional_gemm;
  for (const auto& o : optional_rungs()) {
    if (o.kind == RungKind::gemm) {
      optional_gemm.insert(o.name);
      const GemmRung* rung = registry().find_gemm(o.name);
      ASSERT_NE(rung, nullptr) << o.name;
      EXPECT_EQ(rung->dtype, o.dtype) << o.name;
      EXPECT_EQ(rung->threading == Threading::device, o.backend == OptionalBackend::cuda) << o.name;
      EXPECT_EQ(rung->mechanism == Mechanism::not_built, !backend_built(o.backend)) << o.name;
      EXPECT_EQ(rung->unavailable_reason() == not_built_reason(o.backend), !backend_built(o.backend)) << o.name;
    }
    if (o.kind == RungKind::model) {
      auto b = std::find_if(model::backends().begin(), model::backends().end(), [&](const auto& x) { return x.name == o.name; });
      ASSERT_NE(b, model::backends().end()) << o.name;
      EXPECT_EQ(b->dtype, o.dtype) << o.name;
      EXPECT_EQ(b->unavailable_reason() == not_built_reason(o.backend), !backend_built(o.backend)) << o.name;
    }
  }
  // Every GPU rung of the CUDA backend and every library rung is in the table (PyTorch's GPU rungs
  // need PyTorch with CUDA at run time, not the CUDA backend).
  for (const auto& r : registry().gemm)
    if ((r.threading == Threading::device && r.mechanism != Mechanism::python_call) || r.mechanism == Mechanism::tuned_library) {
      EXPECT_TRUE(optional_gemm.count(r.name)) << r.name << " is missing from optional_rungs()";
    }
  EXPECT_NE(not_built_reason(OptionalBackend::cuda).find("LADDER_WITH_CUDA"), std::string::npos);
}

TEST(Registry, RefusesADuplicateRung) {
  Registry r;
  GemmRung rung;
  rung.name = "x";
  rung.prepare = [](const GemmOperands&) { return std::unique_ptr<GemmKernel>(); };
  r.add(rung);
  EXPECT_THROW(r.add(rung), std::logic_error);
}

TEST(CpuFeatures, IsaLevelsParseAndOrder) {
  EXPECT_EQ(parse_isa("avx512"), Isa::avx512);
  EXPECT_EQ(parse_isa("amx"), Isa::amx);
  EXPECT_FALSE(parse_isa("sse9").has_value());
  EXPECT_LT(Isa::avx2, Isa::avx512);
  EXPECT_EQ(isa_unavailable_reason(Isa::scalar), "");
  // AVX-512 implies AVX2 here: a CPU cannot report the wider level without the narrower one.
  if (isa_unavailable_reason(Isa::avx512).empty()) {
    EXPECT_EQ(isa_unavailable_reason(Isa::avx2), "");
  }
}

TEST(Machine, IdIsAFolderName) {
  MachineInfo m;
  m.cpu_model = "Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.00GHz";
  m.logical_cpus = 224;
  EXPECT_EQ(machine_id(m), "intel-xeon-platinum-8480-224c");
  m.cpu_model = "AMD EPYC 9965 192-Core Processor";
  m.logical_cpus = 384;
  EXPECT_EQ(machine_id(m), "amd-epyc-9965-192-core-384c");
  m.microarchitecture = "zen5";  // the brand's model number is enough
  EXPECT_EQ(machine_id(m), "amd-epyc-9965-192-core-384c");
  // A VM's brand without a model: Zen 3 and Zen 4 guests must not share a folder.
  m.cpu_model = "AMD EPYC";
  m.logical_cpus = 2;
  m.microarchitecture = microarchitecture("AuthenticAMD", 0x19, 0x01);
  EXPECT_EQ(machine_id(m), "amd-epyc-zen3-2c");
  m.microarchitecture = microarchitecture("AuthenticAMD", 0x19, 0x11);
  EXPECT_EQ(machine_id(m), "amd-epyc-zen4-2c");
  m.microarchitecture = "";
  EXPECT_EQ(machine_id(m), "amd-epyc-2c");
  EXPECT_EQ(microarchitecture("GenuineIntel", 6, 0x8f), "sapphire-rapids");
  EXPECT_EQ(microarchitecture("GenuineIntel", 6, 0x01), "");
  m.cpu_model = "";
  EXPECT_EQ(machine_id(m), "unknown-cpu-2c");
  MachineInfo here = machine_info();
  EXPECT_GT(here.logical_cpus, 0);
  EXPECT_GT(here.memory_total_bytes, 0);
  EXPECT_EQ(machine_id(here).find('/'), std::string::npos);
  // hwloc's description: this process runs on some cores, under some cache.
  EXPECT_GE(here.packages, 1);
  EXPECT_GE(here.cores, 1);
  EXPECT_LE(here.allowed_cores, here.cores);
  EXPECT_FALSE(here.caches.empty());
  EXPECT_TRUE(here.recorded.empty());
  EXPECT_NE(topology_xml().find("<topology"), std::string::npos);
}

TEST(Machine, TheLastLevelCacheIsEveryInstanceServingTheAllowedCpus) {
  MachineInfo m;
  m.caches = {{1, "Data", 48 << 10, 2, 384}, {2, "Unified", 1 << 20, 2, 384}, {3, "Unified", 32 << 20, 32, 24}};
  EXPECT_EQ(last_level_cache_bytes(m), std::int64_t{24} * (32 << 20));  // a 2-socket EPYC 9965: 768 MiB
  m.caches.back().instances = 1;                                        // the process allowed on one CCD
  EXPECT_EQ(last_level_cache_bytes(m), 32 << 20);
  m.caches.pop_back();
  EXPECT_EQ(last_level_cache_bytes(m), std::int64_t{384} << 20);  // no L3: the L2s are the last level
  EXPECT_EQ(last_level_cache_bytes(MachineInfo{}), 64 << 20);     // none described
}

TEST(Machine, ATestCpuDescriptionGivesItsIdentityAndFlags) {
  const CpuFeatures f = parse_cpu_description(
      "# a comment\nvendor: GenuineIntel\nfamily: 6\nmodel: 0xcf\nbrand: Intel(R) Xeon(R) Processor\n"
      "flags: fma avx2 avx512f avx512dq avx512bw avx512vl amx_tile amx_bf16\ntopology: xml elsewhere.xml\n");
  EXPECT_EQ(f.vendor, "GenuineIntel");
  EXPECT_EQ(f.model, 0xcf);
  EXPECT_EQ(microarchitecture(f.vendor, f.family, f.model), "emerald-rapids");
  EXPECT_TRUE(f.amx_tile && f.os_amx && f.avx512f && f.os_avx512);
  EXPECT_FALSE(f.avx512_bf16);
  EXPECT_EQ(f.flags(), "fma avx2 avx512f avx512dq avx512bw avx512vl amx_tile amx_bf16");
  EXPECT_THROW(parse_cpu_description("vendor: x\nbrand: y\nflags: avx9000\n"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_description("flags: avx2\n"), std::invalid_argument);
}

}  // namespace
}  // namespace ladder

namespace ladder {
namespace {

// OpenBLAS 0.3.21 took an Emerald Rapids VM for a Prescott: the core type of the CPU's ISA instead.
TEST(OpenblasCore, APreAvxGuessOnAModernCpuGetsTheCoreOfItsIsa) {
  EXPECT_EQ(openblas_core_for("Prescott", true, true), "SkylakeX");
  EXPECT_EQ(openblas_core_for("Prescott", true, false), "Haswell");
  EXPECT_EQ(openblas_core_for("Nehalem", true, false), "Haswell");
  EXPECT_EQ(openblas_core_for("Prescott", false, false), "");  // no better kernels for it
  EXPECT_EQ(openblas_core_for("Cooperlake", true, true), "");  // a right guess stays
  EXPECT_EQ(openblas_core_for("Zen", true, false), "");
}

}  // namespace
}  // namespace ladder
