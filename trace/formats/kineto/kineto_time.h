// Time conversion for Kineto traces: the one place where Kineto's microseconds become the
// model's int64 nanoseconds. Kineto's own comment on its conversion: "It's important that this
// conversion is the same everywhere. No rounding!" - here it is exact decimal arithmetic on
// the number's text, never a double.
#pragma once

#include <cstdint>
#include <string_view>

namespace ampscope {

// `number_text` is the JSON number as written (e.g. "1682725898237042.123", "42", "1.5e3",
// "-3.25"). ns = integer part * 1000 + the first 3 fractional digits, rounded half away from
// zero on the 4th. Returns false if the text is not a finite JSON number or the result does
// not fit in int64.
bool ParseMicrosToNs(std::string_view number_text, int64_t* ns);

}  // namespace ampscope
