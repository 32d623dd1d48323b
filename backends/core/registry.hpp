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

// What ran, as the software itself said when it started (an interpreter's version, a library's
// version and BLAS): kept under "software/<rung>" in the context. Recorded by a rung's kernel
// once per key; take_software_context() returns those not taken before (the context's keys at
// the run's start, the rest at its end).
void record_software(const std::string& key, const std::string& value);
std::vector<std::pair<std::string, std::string>> take_software_context();

// The core type OpenBLAS should run on a CPU with these ISA extensions where its detection gave
// `detected`: empty where that one is right (or no better one applies).
std::string openblas_core_for(const std::string& detected, bool avx2, bool avx512);

void register_cpu(Registry& registry);
void register_python(Registry& registry);

// The full registry of this build, in ladder order. A rung of a backend this build left out is
// there too, as a placeholder whose unavailable_reason() says so.
const Registry& registry();

// The backends a build may leave out (LADDER_OPTIONAL_BACKENDS in CMakeLists.txt), each a folder of
// backends/ whose rungs.def lists its rungs: GEMM rungs and model backends (the suites' GPU rungs
// are listed by their suites, unavailable without CUDA). Every build reads every backend's list
// (the generated optional_backends.inc includes each, with LADDER_BACKEND_ID its folder's name),
// so a build without a backend still knows its rungs and reports them unavailable, with the
// reason: `--rungs cublas` there says why instead of "unknown rung". (tests/test_registry.cpp
// checks, in a build with every backend, that these are what each registers.)
#define LADDER_CONCAT_(a, b) a##b
#define LADDER_CONCAT(a, b) LADDER_CONCAT_(a, b)
enum class OptionalBackend {
#define LADDER_BACKEND(display, option) LADDER_BACKEND_ID,
#define LADDER_GEMM_RUNG(id, name, dtype, factory)
#define LADDER_MODEL_RUNG(id, name, dtype)
#include "optional_backends.inc"
#undef LADDER_BACKEND
#undef LADDER_GEMM_RUNG
#undef LADDER_MODEL_RUNG
};
// Each built backend's register_<backend>(), in its folder: it adds its rungs (its rungs.def's
// factories) and its facts for the context.
#define LADDER_BACKEND(display, option) void LADDER_CONCAT(register_, LADDER_BACKEND_ID)(Registry & registry);
#define LADDER_GEMM_RUNG(id, name, dtype, factory)
#define LADDER_MODEL_RUNG(id, name, dtype)
#include "optional_backends.inc"
#undef LADDER_BACKEND
#undef LADDER_GEMM_RUNG
#undef LADDER_MODEL_RUNG

enum class RungKind { gemm, model };
struct OptionalRung {
  OptionalBackend backend;
  RungKind kind;
  const char* name;
  DType dtype;
  Threading threading() const { return backend == OptionalBackend::cuda ? Threading::device : Threading::all_cores; }
};
// Each optional rung's name, defined once in its backend's rungs.def: its backend names itself
// with it, and a build without the backend lists it as a placeholder.
namespace optional_rung {
#define LADDER_BACKEND(display, option)
#define LADDER_GEMM_RUNG(id, name, dtype, factory) \
  inline constexpr OptionalRung id{OptionalBackend::LADDER_BACKEND_ID, RungKind::gemm, name, DType::dtype};
#define LADDER_MODEL_RUNG(id, name, dtype) \
  inline constexpr OptionalRung id{OptionalBackend::LADDER_BACKEND_ID, RungKind::model, name, DType::dtype};
#include "optional_backends.inc"
#undef LADDER_BACKEND
#undef LADDER_GEMM_RUNG
#undef LADDER_MODEL_RUNG
}  // namespace optional_rung

const std::vector<OptionalRung>& optional_rungs();
bool backend_built(OptionalBackend backend);
// "this build has no CUDA backend (LADDER_WITH_CUDA=OFF, or AUTO did not find it when configured)"
std::string not_built_reason(OptionalBackend backend);
// "a rung of the CUDA backend, which this build left out": a placeholder's summary.
std::string not_built_summary(OptionalBackend backend);

}  // namespace ladder
