// How an ampscope executable allocates (process_allocator.cc, linked into executables only).
#pragma once

namespace ampscope {

// glibc backs malloc's own heaps with huge pages (and aligns its mapped blocks to them) only
// when the process starts with GLIBC_TUNABLES=glibc.malloc.hugetlb=1: the tunables are read
// before main. On a virtual machine, where each 4 KiB page fault costs several microseconds,
// that is a third of a large `merge` or `analyze`. So the heavy commands start once more with
// it set: the same program and arguments (execv keeps the pid), with the environment put back
// as it was before the command runs, so that anything it starts sees the user's.
//
// Does nothing when it cannot help or must not: the kernel's THP mode is not "madvise" (with
// "always" the heap has huge pages already), GLIBC_TUNABLES already names
// glibc.malloc.hugetlb (the user's choice wins), LD_PRELOAD is set (another allocator, or a
// tool such as valgrind or heaptrack, is in place), or under AddressSanitizer. If execv fails
// the process goes on as started. Call it first thing in main.
void StartWithMallocHugePages(char** argv);

}  // namespace ampscope
