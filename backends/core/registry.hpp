// Every rung and peak probe, registered explicitly by its backend (no self-registering statics:
// a static library's linker may drop them). Names flow from here into cases, JSON and tables.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cpu_features.hpp"
#include "gemm.hpp"

namespace ladder {

// A register-only loop that shows how many FLOP/s one kind of unit delivers.
struct PeakProbe {
  std::string name;  // "avx512-fma"
  DType dtype = DType::f32;
  Isa isa = Isa::scalar;
  // Runs `iterations` of the loop on one thread; returns the FLOPs it did.
  double (*loop)(std::int64_t iterations) = nullptr;
};

// An environment a library reads only when it loads, which the program must set and re-execute
// itself with (OpenBLAS's OPENBLAS_CORETYPE where its detection picks a core below the CPU's ISA).
struct EnvironmentFix {
  std::vector<std::pair<std::string, std::string>> variables;
  std::string reason;  // said on the console and kept in the context
};

struct Registry {
  std::vector<GemmRung> gemm;  // in ladder order: each rung removes one layer from the one above
  std::vector<PeakProbe> peak_probes;
  // Backends' own facts for the JSON context (library versions, configurations).
  std::vector<std::pair<std::string, std::function<std::string()>>> context;
  // Asked once at start-up; where one answers, the program sets it and runs itself again.
  std::vector<std::function<std::optional<EnvironmentFix>()>> environment_fixes;

  void add(GemmRung rung);
  void add(PeakProbe probe);
  const GemmRung* find_gemm(std::string_view name) const;
};

// The core type OpenBLAS should run on a CPU with these ISA extensions where its detection gave
// `detected`: empty where that one is right (or no better one applies).
std::string openblas_core_for(const std::string& detected, bool avx2, bool avx512);

void register_cpu(Registry& registry);
void register_python(Registry& registry);
void register_openblas(Registry& registry);
void register_onednn(Registry& registry);
void register_cuda(Registry& registry);

// The full registry of this build, in ladder order. A rung of a backend this build left out is
// there too, as a placeholder whose unavailable_reason() says so.
const Registry& registry();

// The rungs of the backends a build may leave out, by name: GEMM rungs and model backends (the
// suites' GPU rungs are listed by their suites, unavailable without CUDA). A build without one of these backends still knows its
// rungs and reports them unavailable, with the reason, so that `--rungs cublas` there says why instead of "unknown rung".
// (tests/test_registry.cpp checks, in a build with every backend, that these are what each registers.)
enum class OptionalBackend { openblas, onednn, cuda };
enum class RungKind { gemm, model };
struct OptionalRung {
  OptionalBackend backend;
  RungKind kind;
  const char* name;
  DType dtype;
  Threading threading() const { return backend == OptionalBackend::cuda ? Threading::device : Threading::all_cores; }
};
const std::vector<OptionalRung>& optional_rungs();
bool backend_built(OptionalBackend backend);
// "this build has no CUDA backend (LADDER_WITH_CUDA=OFF, or AUTO did not find it when configured)"
std::string not_built_reason(OptionalBackend backend);
// "a rung of the CUDA backend, which this build left out": a placeholder's summary.
std::string not_built_summary(OptionalBackend backend);

}  // namespace ladder
