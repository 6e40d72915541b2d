// Run by tests/base/huge_pages_test.cc: starts the way the heavy ampscope commands do
// (StartWithMallocHugePages), grows malloc's heap, and prints what a test can check:
//   tunables=...        GLIBC_TUNABLES as the program sees it once started ("(unset)")
//   saved=...           the marker of the second start, which must be gone ("(unset)")
//   started_with_hugetlb=0|1   the environment this process image was started with (execv's,
//                       /proc/self/environ) asked glibc for huge pages
//   heap_advised=0|1    a [heap] mapping is advised for huge pages ("hg" in its VmFlags)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/process_allocator.h"

int main(int, char** argv) {
  ampscope::StartWithMallocHugePages(argv);
  auto show = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "(unset)");
  };
  std::printf("tunables=%s\n", show("GLIBC_TUNABLES").c_str());
  std::printf("saved=%s\n", show("AMPSCOPE_SAVED_GLIBC_TUNABLES").c_str());

  std::ifstream environ_file("/proc/self/environ", std::ios::binary);
  const std::string environ_block((std::istreambuf_iterator<char>(environ_file)), std::istreambuf_iterator<char>());
  // glibc cuts that copy of GLIBC_TUNABLES at each ':' as it parses it, so look at the block.
  const bool hugetlb = environ_block.find("glibc.malloc.hugetlb=1") != std::string::npos;
  std::printf("started_with_hugetlb=%d\n", hugetlb ? 1 : 0);

  std::vector<void*> blocks;  // 32 MiB of small blocks: the heap grows by sbrk
  for (int i = 0; i < 32 * 1024; ++i) blocks.push_back(std::malloc(1000));
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_heap = false, advised = false;
  while (std::getline(smaps, line)) {
    const size_t space = line.find(' ');
    if (space != std::string::npos && line.find('-') < space) {  // a mapping's first line
      in_heap = line.find("[heap]") != std::string::npos;
      continue;
    }
    if (in_heap && line.rfind("VmFlags:", 0) == 0 && (line + " ").find(" hg ") != std::string::npos) advised = true;
  }
  std::printf("heap_advised=%d\n", advised ? 1 : 0);
  for (void* b : blocks) std::free(b);
  return 0;
}
