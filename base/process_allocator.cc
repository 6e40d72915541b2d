// How an ampscope executable allocates: linked into the ampscope executable and the benchmark
// programs (CMake target ampscope_process_allocator), never into a library. The collector's
// injected library must leave the allocator of the program it records alone, and `record`
// execs that program, which starts with its own.
//
// 1. Allocations of kLargeAllocationBytes or more (trace tables, sort buffers, the op tree)
//    start on a huge-page boundary and are backed by huge pages (base/huge_pages.h).
//    Only the plain operator new forms are replaced: libstdc++'s nothrow and array forms call
//    them, and its operator delete frees with free(), which memalign's memory takes too.
// 2. malloc (glibc) gets an arena per core, maps large blocks itself and keeps freed memory
//    for reuse: see ConfigureMalloc. An environment variable of glibc's own
//    (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) still wins.
// 3. StartWithMallocHugePages (process_allocator.h) gives malloc's own heaps huge pages too.
#include "base/process_allocator.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "base/huge_pages.h"

namespace {

#if AMPSCOPE_LARGE_ALLOCATIONS_ADVISED
void* Allocate(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  const bool large = bytes >= ampscope::kLargeAllocationBytes;
  while (true) {
    void* p = nullptr;
    if (large) {
      if (::posix_memalign(&p, ampscope::kHugePageBytes, bytes) != 0) p = nullptr;
    } else {
      p = std::malloc(bytes);
    }
    if (p != nullptr) {
      if (large) ampscope::AdviseHugePages(p, bytes);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}
#endif

// - One arena per core, not glibc's eight per core. Each arena keeps what was freed in it: with an
//   arena for each of the parallel reader's helpers, ~40 MB of freed piece rows stayed
//   resident while the analysis after the read allocated afresh (peak RSS 146 -> 123 MB on
//   docs/bench.md's trace with a single arena). A single arena, though, makes every thread of
//   `merge` queue on its lock: 1,024 summaries took 2.3-3.8 s instead of 1.2-1.5 s with two.
// - Blocks of kLargeAllocationBytes or more are mapped on their own (huge pages, given back
//   whole when freed); smaller ones come from the heaps, which are trimmed only when 32 MiB
//   are free at the top. glibc's default threshold moves with what was freed, so the reader's
//   pieces (a few MiB of rows, windows and caches each) were given back and faulted in again
//   piece after piece.
void ConfigureMalloc() {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, cores > 0 ? cores : 1);
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr)
    mallopt(M_MMAP_THRESHOLD, static_cast<int>(ampscope::kLargeAllocationBytes));
  if (std::getenv("MALLOC_TRIM_THRESHOLD_") == nullptr) mallopt(M_TRIM_THRESHOLD, 32 << 20);
#endif
}

[[maybe_unused]] const bool kMallocConfigured = (ConfigureMalloc(), true);

}  // namespace

#if AMPSCOPE_LARGE_ALLOCATIONS_ADVISED
void* operator new(std::size_t bytes) { return Allocate(bytes); }
void* operator new[](std::size_t bytes) { return Allocate(bytes); }
#endif

namespace ampscope {

namespace {

constexpr char kTunables[] = "GLIBC_TUNABLES";
constexpr char kHugeTlb[] = "glibc.malloc.hugetlb";
// Set for the second start only: "=" and the user's GLIBC_TUNABLES, or "-" when it was unset.
constexpr char kSavedTunables[] = "AMPSCOPE_SAVED_GLIBC_TUNABLES";

bool ThpModeIsMadvise() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  return text.find("[madvise]") != std::string::npos;
}

void RestoreTunables(const std::string& saved) {
  if (saved.empty() || saved[0] != '=') {
    ::unsetenv(kTunables);
  } else {
    ::setenv(kTunables, saved.c_str() + 1, 1);
  }
}

}  // namespace

void StartWithMallocHugePages(char** argv) {
  if (const char* saved = std::getenv(kSavedTunables)) {  // the second start
    const std::string was(saved);
    ::unsetenv(kSavedTunables);
    RestoreTunables(was);
    return;
  }
  if (!AMPSCOPE_LARGE_ALLOCATIONS_ADVISED || std::getenv("LD_PRELOAD") != nullptr || !ThpModeIsMadvise()) return;
  const char* user = std::getenv(kTunables);
  const std::string old = user != nullptr ? user : "";
  if (old.find(kHugeTlb) != std::string::npos) return;
  const std::string saved = user != nullptr ? "=" + old : "-";
  const std::string tunables = (old.empty() ? "" : old + ":") + kHugeTlb + "=1";
  ::setenv(kSavedTunables, saved.c_str(), 1);
  ::setenv(kTunables, tunables.c_str(), 1);
  ::execv("/proc/self/exe", argv);
  ::unsetenv(kSavedTunables);  // execv failed (no /proc, the binary is gone): go on as started
  RestoreTunables(saved);
}

}  // namespace ampscope
