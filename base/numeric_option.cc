#include "base/numeric_option.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace ampscope {

namespace {

// The value as the user wrote it, cut so that a pasted megabyte stays a one-line message.
std::string Shown(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  return text.size() <= kMaxShown ? std::string(text) : std::string(text.substr(0, kMaxShown)) + "...";
}

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

}  // namespace

StatusOr<int64_t> ParseInt64Option(std::string_view text, std::string_view what, int64_t min, int64_t max) {
  int64_t v = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, v, 10);
  if (text.empty() || ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range))
    return Status::Error(std::string(what) + ": expected an integer, got '" + Shown(text) + "'");
  if (ec == std::errc::result_out_of_range || v < min || v > max)
    return Status::Error(std::string(what) + ": " + Shown(text) + " is out of range (" + std::to_string(min) + ".." +
                         std::to_string(max) + ")");
  return v;
}

StatusOr<double> ParseDoubleOption(std::string_view text, std::string_view what, double min, double max) {
  double v = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, v, std::chars_format::general);
  if (text.empty() || ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range))
    return Status::Error(std::string(what) + ": expected a number, got '" + Shown(text) + "'");
  if (ec == std::errc::result_out_of_range || !std::isfinite(v))
    return Status::Error(std::string(what) + ": " + Shown(text) + " is not a finite number");
  if (v < min || v > max)
    return Status::Error(std::string(what) + ": " + Shown(text) + " is out of range (" + Number(min) + ".." + Number(max) + ")");
  return v;
}

}  // namespace ampscope
