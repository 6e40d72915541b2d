// Units: the trace model keeps int64 nanoseconds; reports show microseconds.
//
// The one conversion from the model's ns to the µs people read lives here, so every report,
// export and terminal line shows the same number for the same duration. (The one conversion
// the other way, Kineto's µs text to ns, is in trace/formats/kineto/kineto_time.h: it works on
// the decimal text and never goes through a double.)
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ampscope {

// Every timestamp and duration in the trace model: int64 nanoseconds on the trace's one clock.
using TimeNs = int64_t;

inline constexpr TimeNs kNsPerUs = 1000;

// Every time a reader accepts lies in [kMinTraceTimeNs, kMaxTraceTimeNs] (as Unix-epoch ns:
// about 1933 to 2116), and every accepted event ends no earlier than it starts. So the
// difference of any two accepted times fits in int64 (2^62 + 2^60 < 2^63) and no duration is
// negative: spans such as "last end - first start" need no overflow check.
inline constexpr TimeNs kMaxTraceTimeNs = TimeNs{1} << 62;
inline constexpr TimeNs kMinTraceTimeNs = -(TimeNs{1} << 60);
inline constexpr bool IsTraceTime(TimeNs t) { return t >= kMinTraceTimeNs && t <= kMaxTraceTimeNs; }

// Sums of many durations (over devices, kernels, steps, idle gaps) can still pass INT64_MAX:
// they saturate there instead of overflowing. A saturated sum is nonsense in, visibly huge out.
// Templates so that only two int64 values deduce: a double or unsigned argument is a compile
// error instead of a silent conversion.
template <typename T>
inline T AddSat(T a, T b) {
  static_assert(std::is_same_v<T, TimeNs>, "AddSat sums int64 nanoseconds");
  T sum;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}
template <typename T>
inline T SubSat(T a, T b) {
  static_assert(std::is_same_v<T, TimeNs>, "SubSat subtracts int64 nanoseconds");
  T diff;
  if (__builtin_sub_overflow(a, b, &diff)) return b < 0 ? INT64_MAX : INT64_MIN;
  return diff;
}

// ns -> µs for output. Exact for |ns| < 2^53 (about 104 days), then the nearest double.
inline double NsToUs(TimeNs ns) { return static_cast<double>(ns) / 1e3; }

// ns -> µs rounded to 3 decimals (whole ns), for derived metrics and finding evidence: a
// value that went through a division prints as 12.345, not 12.345000000000001.
inline double NsToUsRounded3(TimeNs ns) { return std::round(NsToUs(ns) * 1000.0) / 1000.0; }

}  // namespace ampscope
