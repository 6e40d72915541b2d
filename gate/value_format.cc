#include "gate/value_format.h"

#include <cmath>

#include <fmt/format.h>

namespace ampscope::gate {

std::string FormatDurationUs(double us) {
  const double magnitude = std::fabs(us);
  if (magnitude < 1000.0) return fmt::format("{:.1f} us", us);
  if (magnitude < 1e6) return fmt::format("{:.2f} ms", us / 1e3);
  return fmt::format("{:.3f} s", us / 1e6);
}

std::string FormatBytes(double bytes) {
  const double magnitude = std::fabs(bytes);
  if (magnitude < 1024.0) return fmt::format("{:.0f} B", bytes);
  if (magnitude < 1024.0 * 1024.0) return fmt::format("{:.2f} KiB", bytes / 1024.0);
  if (magnitude < 1024.0 * 1024.0 * 1024.0) return fmt::format("{:.2f} MiB", bytes / (1024.0 * 1024.0));
  return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

namespace {
std::string FormatCount(double value, bool sign) {
  const bool whole = std::fabs(value - std::round(value)) < 1e-9;
  if (whole) return sign ? fmt::format("{:+.0f}", value) : fmt::format("{:.0f}", value);
  return sign ? fmt::format("{:+.2f}", value) : fmt::format("{:.2f}", value);
}
}  // namespace

std::string FormatValue(double value, MetricUnit unit) {
  switch (unit) {
    case MetricUnit::kCount:
      return FormatCount(value, false);
    case MetricUnit::kBytes:
      return FormatBytes(value);
    case MetricUnit::kPct:
      return fmt::format("{:.1f}%", value);
    case MetricUnit::kMicroseconds:
      return FormatDurationUs(value);
  }
  return fmt::format("{}", value);
}

std::string FormatOptionalValue(const std::optional<double>& value, MetricUnit unit) {
  return value ? FormatValue(*value, unit) : std::string("n/a");
}

std::string FormatDelta(double delta, MetricUnit unit) {
  switch (unit) {
    case MetricUnit::kCount:
      return FormatCount(delta, true);
    case MetricUnit::kBytes:
      return (delta < 0 ? "-" : "+") + FormatBytes(std::fabs(delta));
    case MetricUnit::kPct:
      return fmt::format("{:+.1f} pts", delta);
    case MetricUnit::kMicroseconds:
      return (delta < 0 ? "-" : "+") + FormatDurationUs(std::fabs(delta));
  }
  return fmt::format("{:+}", delta);
}

std::string FormatRelativeChange(double base, double current) {
  if (base == 0) return current == 0 ? std::string("+0.0%") : std::string("n/a");
  return fmt::format("{:+.1f}%", (current - base) / std::fabs(base) * 100.0);
}

}  // namespace ampscope::gate
