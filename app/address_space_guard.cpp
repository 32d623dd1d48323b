// An address-space limit (ulimit -v) too small for OpenBLAS's start-up is refused in one line
// before OpenBLAS starts: its initialiser reserves a buffer a thread and, where the reservation
// fails, retries forever (OpenBLAS issue 5289), before main() could say anything. The check runs
// from the executable's .preinit_array, which the dynamic loader calls after mapping every library
// and before any library's initialiser; only system calls are safe there.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifdef LADDER_HAVE_OPENBLAS  // no other library here reserves at load and spins
namespace {

// What Debian's OpenBLAS 0.3.21 reserves a thread at load (VmSize of a program linked to it alone:
// 173.8 MB with 1 thread, 304.9 MB with 2), and room for the other libraries' initialisers.
constexpr std::uint64_t kOpenBlasBufferBytes = std::uint64_t{128} << 20;
constexpr std::uint64_t kStartUpRoomBytes = std::uint64_t{64} << 20;

// The first number of a small /proc file (statm's first field: pages mapped).
std::uint64_t first_number(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128] = {};
  const ssize_t got = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  std::uint64_t value = 0;
  for (ssize_t i = 0; i < got && text[i] >= '0' && text[i] <= '9'; ++i)
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
  return value;
}

// OpenBLAS's OpenMP build takes one buffer for each of OMP_NUM_THREADS threads (else one for each
// CPU), never more than the CPUs online. (getenv is not ready yet: the loader passes the environment.)
std::uint64_t openblas_threads(char** environment) {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  std::uint64_t threads = online > 0 ? static_cast<std::uint64_t>(online) : 1;
  constexpr char kName[] = "OMP_NUM_THREADS=";
  for (char** entry = environment; entry && *entry; ++entry)
    if (std::strncmp(*entry, kName, sizeof kName - 1) == 0) {
      const std::uint64_t value = std::strtoull(*entry + sizeof kName - 1, nullptr, 10);
      if (value > 0 && value < threads) threads = value;
    }
  return threads;
}

// Decimal digits of `value` into `out` (no allocation, no locale).
char* put_number(char* out, std::uint64_t value) {
  char digits[24];
  int count = 0;
  do digits[count++] = static_cast<char>('0' + value % 10);
  while ((value /= 10) > 0);
  while (count > 0) *out++ = digits[--count];
  return out;
}

char* put_text(char* out, const char* text) {
  while (*text) *out++ = *text++;
  return out;
}

void refuse_a_too_small_address_space(int, char**, char** environment) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  const std::uint64_t mapped = first_number("/proc/self/statm") * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t threads = openblas_threads(environment);
  const std::uint64_t needed = mapped + threads * kOpenBlasBufferBytes + kStartUpRoomBytes;
  if (mapped == 0 || limit.rlim_cur >= needed) return;
  constexpr std::uint64_t mib = std::uint64_t{1} << 20;
  char line[512];
  char* out = put_text(line, "ladderbench: the address-space limit (ulimit -v) of ");
  out = put_number(out, limit.rlim_cur / mib);
  out = put_text(out, " MiB is below what start-up needs, about ");
  out = put_number(out, (needed + mib - 1) / mib);
  out = put_text(out, " MiB (the libraries map ");
  out = put_number(out, mapped / mib);
  out = put_text(out, " MiB; OpenBLAS reserves 128 MiB a thread, for ");
  out = put_number(out, threads);
  out = put_text(out, threads == 1
                          ? " thread, and retries forever where it cannot); raise the limit\n"
                          : " threads, and retries forever where it cannot); raise the limit, or set OMP_NUM_THREADS lower\n");
  (void)!::write(STDERR_FILENO, line, static_cast<std::size_t>(out - line));
  ::_exit(2);
}

}  // namespace

// Only an executable's .preinit_array runs before the libraries' initialisers.
__attribute__((section(".preinit_array"),
               used)) void (*const ladder_address_space_guard)(int, char**, char**) = refuse_a_too_small_address_space;
#endif
