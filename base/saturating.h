// Saturating int64 arithmetic for sums and spans of times (ns) and byte counts.
//
// The readers bound every time they accept (trace/time_bounds.h), so a difference of two times
// of one trace, or a sum of event durations, cannot overflow. Sums over an unbounded number of
// such values (per device, per category) can still exceed int64 on hostile input; these clamp
// to INT64_MAX / INT64_MIN instead of wrapping, which is undefined behaviour and, in a release
// build, a negative window or busy time in the report.
#pragma once

#include <cstdint>
#include <limits>

namespace ampscope {

inline constexpr int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return out;
}

inline constexpr int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out))
    return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return out;
}

// end - start for an interval, 0 when end < start, INT64_MAX when the difference does not fit.
inline constexpr int64_t SpanOrZero(int64_t start, int64_t end) {
  return end > start ? SaturatingSub(end, start) : 0;
}

inline constexpr uint64_t SaturatingAddU(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::numeric_limits<uint64_t>::max();
  return out;
}

}  // namespace ampscope
