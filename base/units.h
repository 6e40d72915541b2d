// Units: the trace model keeps int64 nanoseconds; reports show microseconds.
//
// The one conversion from the model's ns to the µs people read lives here, so every report,
// export and terminal line shows the same number for the same duration. (The one conversion
// the other way, Kineto's µs text to ns, is in trace/formats/kineto/kineto_time.h: it works on
// the decimal text and never goes through a double.)
#pragma once

#include "base/saturating.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ampscope {

// Every timestamp and duration in the trace model: int64 nanoseconds on the trace's one clock.
using TimeNs = int64_t;

inline constexpr TimeNs kNsPerUs = 1000;

// The times a reader accepts are bounded (trace/time_bounds.h), so spans of one trace fit in
// int64; sums of many of them saturate (base/saturating.h).

// ns -> µs for output. Exact for |ns| < 2^53 (about 104 days), then the nearest double.
inline double NsToUs(TimeNs ns) { return static_cast<double>(ns) / 1e3; }

// ns -> µs rounded to 3 decimals (whole ns), for derived metrics and finding evidence: a
// value that went through a division prints as 12.345, not 12.345000000000001.
inline double NsToUsRounded3(TimeNs ns) { return std::round(NsToUs(ns) * 1000.0) / 1000.0; }

}  // namespace ampscope
