// Number formatting shared by the gate and diff outputs (tables, Markdown, JUnit messages).
#pragma once

#include <optional>
#include <string>

#include "base/strings.h"
#include "gate/gate_config.h"

namespace ampscope::gate {

// µs -> "812.0 us" / "105.20 ms" / "1.250 s".
std::string FormatDurationUs(double us);
// bytes -> "512 B" / "4.00 KiB" / "1.50 MiB" / "2.00 GiB".
std::string FormatBytes(double bytes);
// A value in its unit: counts without decimals when whole ("420", "0.25"), percent as "62.5%".
std::string FormatValue(double value, MetricUnit unit);
std::string FormatOptionalValue(const std::optional<double>& value, MetricUnit unit);  // "n/a" when empty
// A signed difference in the unit: "+1", "-20.0 pts", "+1.00 MiB", "+10.50 ms".
std::string FormatDelta(double delta, MetricUnit unit);
// "+10.0%"; "n/a" when the base is 0.
std::string FormatRelativeChange(double base, double current);

// Display width of a UTF-8 string: the one definition is in base/strings.h.
using ::ampscope::DisplayWidth;

}  // namespace ampscope::gate
