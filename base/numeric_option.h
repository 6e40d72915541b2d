// Numeric option values (command-line options, environment settings) parsed with range
// checks. Errors are one line a user can act on; nothing here throws (std::stoi and friends
// throw std::out_of_range on "99999999999999999999", which aborted `ampscope record`).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ampscope {

// A decimal integer ("42", "-3"; no spaces, no '+', no hex) within [min, max]. `what` names
// the value in the message, e.g. "--top": "--top: expected an integer, got 'ten'" or
// "--top: 0 is out of range (1..9223372036854775807)".
StatusOr<int64_t> ParseInt64Option(std::string_view text, std::string_view what,
                                   int64_t min = std::numeric_limits<int64_t>::min(),
                                   int64_t max = std::numeric_limits<int64_t>::max());

// A finite decimal number ("0.5", "1e-3", "-2") within [min, max]; NaN and infinities are errors.
StatusOr<double> ParseDoubleOption(std::string_view text, std::string_view what,
                                   double min = -std::numeric_limits<double>::max(),
                                   double max = std::numeric_limits<double>::max());

}  // namespace ampscope
