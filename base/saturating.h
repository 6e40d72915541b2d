// Saturating int64 arithmetic for sums of times and byte counts.
//
// Readers bound every timestamp to about +-2^61 ns (trace/formats/kineto/kineto_time.h), so one
// duration or one difference of two times always fits in int64. A SUM of many of them does not:
// the kernel time of millions of overlapping kernels, or the overlap of many intervals, can pass
// 2^63 on a hostile or broken input, and signed overflow is undefined behaviour. Totals use these
// helpers: on overflow they stick at the int64 limit instead (a report then shows an absurd but
// well-defined number, and the reader's diagnostics already say the times were odd).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

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

// total += v, saturating. For accumulators: `SatAccumulate(total_ns, d)`.
inline constexpr void SatAccumulate(int64_t& total, int64_t v) { total = SaturatingAdd(total, v); }

// A double read from an input, as an integer type: NaN -> 0, out of range -> the nearer limit,
// otherwise truncated toward zero. A plain static_cast of a value outside the type's range is
// undefined behaviour (a Nsight Compute CSV can say "SM Count 1.9e11").
template <typename Int>
inline Int SaturatingCast(double v) {
  static_assert(std::is_integral_v<Int>);
  if (std::isnan(v)) return 0;
  // The limits as doubles: max() rounds up to a power of two for 64-bit types, so compare with >=.
  constexpr double lo = static_cast<double>(std::numeric_limits<Int>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<Int>::max());
  if (v <= lo) return std::numeric_limits<Int>::min();
  if (v >= hi) return std::numeric_limits<Int>::max();
  return static_cast<Int>(v);
}

}  // namespace ampscope
