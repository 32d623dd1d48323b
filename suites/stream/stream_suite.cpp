#include "stream_suite.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "roofs/read_bandwidth.hpp"
#include "core/buffer.hpp"
#include "core/cpu_features.hpp"
#include "core/machine.hpp"
#include "roofs/stream_kernels.hpp"

namespace ladder {
namespace {

// The one-socket triad: the threads of the first package only (place_threads binds thread t to
// the t-th core, one package's cores first), on arrays they first touched, so on its memory.
constexpr const char* kOneSocketTriad = "triad-one-socket";

// One set of arrays per element type for the whole run: 3 × 4 × LLC bytes is too much to
// allocate and fault in again on every call Google Benchmark makes. Made anew for another thread
// count: the threads that use the pages touch them first (run_stream_case's stream::initialise),
// so that they lie on those threads' NUMA nodes.
template <class T>
struct StreamBuffers {
  AlignedBuffer<T> a, b, c;
  stream::Arrays<T> arrays;
  int threads;
  StreamBuffers(std::int64_t n, int threads) : a(n), b(n), c(n), arrays{n, a.data(), b.data(), c.data()}, threads(threads) {}
};

template <class T>
StreamBuffers<T>& buffers(std::int64_t n, int threads) {
  static std::mutex mutex;
  static std::unique_ptr<StreamBuffers<T>> cached;
  std::lock_guard lock(mutex);
  if (!cached || cached->arrays.n != n || cached->threads != threads) {
    cached.reset();  // the old arrays go before the new are faulted in
    cached = std::make_unique<StreamBuffers<T>>(n, threads);
  }
  return *cached;
}

// OpenMP's thread count for one case, the run's again after it.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : saved_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadCount() { omp_set_num_threads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

template <class T>
void run_stream_case(benchmark::State& state, stream::Kernel kernel, bool nontemporal, std::int64_t n, int threads) {
  const ThreadCount count(threads);
  auto& arrays = buffers<T>(n, omp_get_max_threads()).arrays;
  stream::initialise(arrays);
  T* out = arrays.output(kernel);
  std::fill(out, out + n, std::numeric_limits<T>::quiet_NaN());  // a skipped store shows as NaN
  const double expected = stream::expected_output(kernel) * static_cast<double>(n);
  stream::run(kernel, arrays, nontemporal);
  if (stream::checksum(kernel, arrays) != expected) {
    state.SkipWithError("verification failed: checksum differs from its closed form");
    return;
  }
  for (auto _ : state) {
    stream::run(kernel, arrays, nontemporal);
    benchmark::ClobberMemory();
  }
  if (stream::checksum(kernel, arrays) != expected) {
    state.SkipWithError("checksum after timing differs from its closed form");
    return;
  }
  // One more call on a poisoned output: a kernel right once and idle after leaves NaN.
  std::fill(out, out + n, std::numeric_limits<T>::quiet_NaN());
  stream::run(kernel, arrays, nontemporal);
  if (stream::checksum(kernel, arrays) != expected) {
    state.SkipWithError("a call after timing left a wrong output (checksum differs from its closed form)");
    return;
  }
  const double bytes = static_cast<double>(stream::words_moved(kernel)) * sizeof(T) * static_cast<double>(n);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["bytes"] = bytes;
  state.counters["n"] = static_cast<double>(n);
  state.counters["threads"] = omp_get_max_threads();
  state.SetLabel(fmt::format("STREAM byte count: {} words/element, write-allocate not counted", stream::words_moved(kernel)));
}

}  // namespace

std::vector<BenchmarkCase> stream_cases(const SuiteRequest& request) {
  const std::int64_t array_bytes = large_array_bytes(request, last_level_cache_bytes(*request.machine));
  const bool nontemporal_ok = isa_unavailable_reason(Isa::avx2).empty();
  std::vector<BenchmarkCase> cases;
  for (bool nontemporal : {false, true}) {
    if (nontemporal && !nontemporal_ok) continue;
    for (stream::Kernel kernel : stream::kKernels) {
      const std::string rung = stream::kernel_name(kernel) + (nontemporal ? "-nt" : "");
      if (!rung_requested(request, rung)) continue;
      for (bool f64 : {true, false}) {
        const std::int64_t n = array_bytes / (f64 ? 8 : 4);
        BenchmarkCase c = case_with_axes({kStreamSuite, rung, f64 ? "f64" : "f32", "n", n});
        c.memory_bytes = 3.0 * static_cast<double>(array_bytes);
        c.body = [kernel, nontemporal, n, f64](benchmark::State& state) {
          if (f64) {
            run_stream_case<double>(state, kernel, nontemporal, n, 0);
          } else {
            run_stream_case<float>(state, kernel, nontemporal, n, 0);
          }
        };
        cases.push_back(std::move(c));
      }
    }
  }
  // On more than one socket: the triad of the first alone, beside the all-socket one (their sum
  // is what the sockets' memory gives together).
  if (const int socket_threads = first_package_cores(); socket_threads > 0 && rung_requested(request, kOneSocketTriad)) {
    const std::int64_t n = array_bytes / 8;
    BenchmarkCase c = case_with_axes({kStreamSuite, kOneSocketTriad, "f64", "n", n});
    c.memory_bytes = 3.0 * static_cast<double>(array_bytes);
    c.body = [n, socket_threads](benchmark::State& state) {
      run_stream_case<double>(state, stream::Kernel::triad, false, n, socket_threads);
    };
    cases.push_back(std::move(c));
  }
  return cases;
}

namespace {

std::vector<SuiteRung> stream_rungs() {
  std::vector<SuiteRung> rungs;
  for (bool nontemporal : {false, true})
    for (stream::Kernel k : stream::kKernels) {
      SuiteRung r{stream::kernel_name(k) + (nontemporal ? "-nt" : ""), "f64, f32", "all cores", "",
                  fmt::format("STREAM {}{}", stream::kernel_name(k), nontemporal ? " with streaming (non-temporal) stores" : "")};
      if (nontemporal) r.unavailable_reason = [] { return isa_unavailable_reason(Isa::avx2); };
      rungs.push_back(std::move(r));
    }
  SuiteRung socket{kOneSocketTriad, "f64", "one socket", "",
                   "STREAM triad on the first socket's cores alone, its arrays first touched there"};
  socket.unavailable_reason = [] {
    return first_package_cores() > 0 ? std::string()
                                     : std::string(
                                           "the run's threads are on one socket (or placed by OMP_PROC_BIND): its "
                                           "triad is the all-core triad");
  };
  rungs.push_back(std::move(socket));
  rungs.push_back(device_rung(kDeviceCopy, "f32, f64", "STREAM copy in the GPU's device memory, arrays a multiple of L2"));
  rungs.push_back(device_rung(kDeviceTriad, "f32, f64", "STREAM triad in the GPU's device memory, arrays a multiple of L2"));
  return rungs;
}

}  // namespace

Suite stream_suite() {
  return {.name = std::string(kStreamSuite),
          .summary = "STREAM copy/scale/add/triad (f64, f32; cached and streaming stores)",
          .rungs = stream_rungs,
          .cases = host_then_device(stream_cases, device_stream_cases)};
}

}  // namespace ladder
