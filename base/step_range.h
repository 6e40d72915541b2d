// The one parser of step ranges ("--steps N..M"), used by `ampscope analyze` (which steps to
// analyse), `ampscope record` and the collector (which steps to record).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"

namespace ampscope {

// Inclusive, 0-based positions among the detected (or recorded) steps; nullopt = open end.
struct StepRange {
  std::optional<int64_t> first;
  std::optional<int64_t> last;
};

// "N..M", "N.." (from N on), "..M" (up to M), "N" (just N) or ".." (all), with optional
// spaces around the numbers and the dots. Numbers are decimal and must fit in int64; M < N
// is an error. Messages say what was expected, e.g. "expected N..M, N.., ..M or N, got 'x'"
// or "step 99999999999999999999999 is out of range (at most 9223372036854775807)".
StatusOr<StepRange> ParseStepRange(std::string_view text);

}  // namespace ampscope
