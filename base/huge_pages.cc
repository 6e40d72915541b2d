#include "base/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace ampscope {

size_t AdviseHugePages(void* p, size_t bytes) {
#if defined(MADV_HUGEPAGE)
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t first = (begin + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
  const uintptr_t last = (begin + bytes) & ~(uintptr_t{kHugePageBytes} - 1);
  if (bytes < kHugePageBytes || last <= first) return 0;
  if (::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0) return 0;
  return last - first;
#else
  (void)p;
  (void)bytes;
  return 0;
#endif
}

}  // namespace ampscope
