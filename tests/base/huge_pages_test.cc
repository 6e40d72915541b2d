// Huge pages for large buffers (base/huge_pages.h) and the executables' operator new
// (base/process_allocator.cc, linked into this test binary as into ampscope). What the kernel
// did is read back from /proc/self/smaps: "hg" in a mapping's VmFlags is MADV_HUGEPAGE.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/huge_pages.h"

namespace ampscope {
namespace {

// This kernel has transparent huge pages (madvise then succeeds, whatever the mode).
bool KernelHasThp() { return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good(); }

// The VmFlags line of the mapping that holds `p`, or "" when none does.
std::string VmFlagsAt(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = a >= lo && a < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool Advised(const void* p) { return (VmFlagsAt(p) + " ").find(" hg ") != std::string::npos; }

TEST(HugePages, OnlyWholeHugePagesInsideAreAdvised) {
  const size_t span = 8 * kHugePageBytes;
  void* m = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  char* base = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(m) + kHugePageBytes - 1) & ~(kHugePageBytes - 1));
  const bool thp = KernelHasThp();
  // [base + 1, base + 1 + 4 MiB) holds one whole huge page: [base + 2 MiB, base + 4 MiB).
  EXPECT_EQ(AdviseHugePages(base + 1, 2 * kHugePageBytes), thp ? kHugePageBytes : 0u);
  EXPECT_EQ(Advised(base + kHugePageBytes), thp);
  EXPECT_FALSE(Advised(base + kHugePageBytes - 1));  // the partial page before it
  EXPECT_FALSE(Advised(base + 2 * kHugePageBytes));  // and after it
  // Less than a whole huge page: nothing.
  EXPECT_EQ(AdviseHugePages(base + 4 * kHugePageBytes, kHugePageBytes - 1), 0u);
  EXPECT_EQ(AdviseHugePages(base + 4 * kHugePageBytes + 1, kHugePageBytes), 0u);
  EXPECT_FALSE(Advised(base + 4 * kHugePageBytes));
  ::munmap(m, span);
}

TEST(ProcessAllocator, LargeAllocationsStartOnAHugePageAndAreAdvised) {
  std::unique_ptr<char[]> large(new char[kLargeAllocationBytes + 12345]);
  std::unique_ptr<char[]> small(new char[1000]);
  large[0] = small[0] = 1;
  if (!kLargeAllocationsAdvised) {
    // AddressSanitizer's own operator new is in place: it checks new/delete pairs instead.
    EXPECT_FALSE(Advised(large.get()));
    return;
  }
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.get()) % kHugePageBytes, 0u);
  EXPECT_EQ(Advised(large.get()), KernelHasThp());
  EXPECT_FALSE(Advised(small.get()));
  // std::stable_sort's buffer and std::vector come through the same operator new.
  std::vector<int64_t> v(kLargeAllocationBytes / sizeof(int64_t));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % kHugePageBytes, 0u);
}

}  // namespace
}  // namespace ampscope
