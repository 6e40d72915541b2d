// Transparent huge pages for large buffers.
//
// Debian's kernels back anonymous memory with 2 MiB pages only where a process asks for them
// (THP "madvise" mode). Otherwise every 4 KiB of a new buffer costs a page fault, and for a
// 424 MB trace the tables, sorts and op tree of one analysis took ~40,000 of them: a third of
// `ampscope analyze`'s CPU time on a virtual machine, where faults are dear (docs/bench.md).
#pragma once

#include <cstddef>

namespace ampscope {

constexpr size_t kHugePageBytes = size_t{2} << 20;

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with huge pages
// (madvise MADV_HUGEPAGE). Returns the bytes advised: 0 when no whole huge page lies inside,
// or the kernel has no transparent huge pages. Harmless either way.
size_t AdviseHugePages(void* p, size_t bytes);

// What the replacement operator new of process_allocator.cc aligns to a huge page and advises:
// allocations of at least this many bytes.
constexpr size_t kLargeAllocationBytes = kHugePageBytes;

// Whether this build's process_allocator.cc replaces operator new. Not under AddressSanitizer,
// whose own operator new checks that new and delete are paired.
#if defined(__SANITIZE_ADDRESS__)
#define AMPSCOPE_LARGE_ALLOCATIONS_ADVISED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AMPSCOPE_LARGE_ALLOCATIONS_ADVISED 0
#endif
#endif
#if !defined(AMPSCOPE_LARGE_ALLOCATIONS_ADVISED)
#define AMPSCOPE_LARGE_ALLOCATIONS_ADVISED 1
#endif
constexpr bool kLargeAllocationsAdvised = AMPSCOPE_LARGE_ALLOCATIONS_ADVISED != 0;

}  // namespace ampscope
