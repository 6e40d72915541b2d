// Saturating int64 arithmetic for sums of times and byte counts.
//
// Readers bound every timestamp to about +-2^61 ns (trace/formats/kineto/kineto_time.h), so one
// duration or one difference of two times always fits in int64. A SUM of many of them does not:
// the kernel time of millions of overlapping kernels, or the overlap of many intervals, can pass
// 2^63 on a hostile or broken input, and signed overflow is undefined behaviour. Totals use these
// helpers: on overflow they stick at the int64 limit instead (a report then shows an absurd but
// well-defined number, and the reader's diagnostics already say the times were odd).
#pragma once

#include <cstdint>
#include <limits>

namespace ampscope {

// a + b, clamped to [INT64_MIN, INT64_MAX].
constexpr int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return r;
}

// a - b, clamped to [INT64_MIN, INT64_MAX].
constexpr int64_t SatSub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r))
    return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return r;
}

// total += v, saturating. For accumulators: `SatAccumulate(total_ns, d)`.
constexpr void SatAccumulate(int64_t& total, int64_t v) { total = SatAdd(total, v); }

}  // namespace ampscope
