// Huge pages for large buffers (base/huge_pages.h), the executables' operator new
// (base/process_allocator.cc, linked into this test binary as into ampscope), and the second
// start with huge pages for malloc's heaps (StartWithMallocHugePages, run in a probe program).
// What the kernel did is read back from /proc/<pid>/smaps: "hg" in a mapping's VmFlags is
// MADV_HUGEPAGE.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/huge_pages.h"

namespace ampscope {
namespace huge_pages_test {
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
  // Under AddressSanitizer its own operator new is in place (it checks new/delete pairs), and
  // what it asks of the kernel is its own business.
  if (!kLargeAllocationsAdvised) return;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.get()) % kHugePageBytes, 0u);
  EXPECT_EQ(Advised(large.get()), KernelHasThp());
  EXPECT_FALSE(Advised(small.get()));
  // std::stable_sort's buffer and std::vector come through the same operator new.
  std::vector<int64_t> v(kLargeAllocationBytes / sizeof(int64_t));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % kHugePageBytes, 0u);
}

// This kernel hands anonymous memory huge pages on request only: what the second start is for.
bool ThpModeIsMadvise() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  return text.find("[madvise]") != std::string::npos;
}

// Runs the probe (tests/base_programs/malloc_huge_pages_probe.cc) with exactly `env` and
// returns its "key=value" lines.
std::map<std::string, std::string> RunProbe(const std::vector<std::string>& env) {
  int out[2];
  EXPECT_EQ(::pipe(out), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    std::vector<char*> envp;
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    char* argv[] = {const_cast<char*>(AMPSCOPE_HUGE_PAGES_PROBE), nullptr};
    ::execve(argv[0], argv, envp.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof(buf))) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text;
  std::map<std::string, std::string> kv;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}

TEST(ProcessAllocator, HeavyCommandsStartAgainWithHugePagesForMallocsHeaps) {
  // Started the second time only where it helps and may: THP on request, not under ASan.
  const bool again = kLargeAllocationsAdvised && ThpModeIsMadvise();
  const std::string path = "PATH=/usr/bin:/bin";

  std::map<std::string, std::string> clean = RunProbe({path});
  EXPECT_EQ(clean["started_with_hugetlb"], again ? "1" : "0");
  EXPECT_EQ(clean["heap_advised"], again ? "1" : "0");
  EXPECT_EQ(clean["tunables"], "(unset)");  // put back before the command runs
  EXPECT_EQ(clean["saved"], "(unset)");

  // The user's own tunables are kept, and put back as they were.
  std::map<std::string, std::string> other = RunProbe({path, "GLIBC_TUNABLES=glibc.malloc.check=0"});
  EXPECT_EQ(other["started_with_hugetlb"], again ? "1" : "0");
  EXPECT_EQ(other["heap_advised"], again ? "1" : "0");
  EXPECT_EQ(other["tunables"], "glibc.malloc.check=0");
  EXPECT_EQ(other["saved"], "(unset)");

  // The user chose otherwise: no second start.
  std::map<std::string, std::string> chosen = RunProbe({path, "GLIBC_TUNABLES=glibc.malloc.hugetlb=0"});
  EXPECT_EQ(chosen["started_with_hugetlb"], "0");
  EXPECT_EQ(chosen["heap_advised"], "0");
  EXPECT_EQ(chosen["tunables"], "glibc.malloc.hugetlb=0");

  // Something is preloaded (an allocator, valgrind, heaptrack): left alone.
  std::map<std::string, std::string> preloaded = RunProbe({path, "LD_PRELOAD="});
  EXPECT_EQ(preloaded["started_with_hugetlb"], "0");
  EXPECT_EQ(preloaded["heap_advised"], "0");
  EXPECT_EQ(preloaded["tunables"], "(unset)");
}

}  // namespace
}  // namespace huge_pages_test
}  // namespace ampscope
