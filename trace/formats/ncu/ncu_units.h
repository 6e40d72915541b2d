// Numbers and units as Nsight Compute prints them: "1,234.5" (thousands separators), "n/a",
// and units such as "us", "usecond", "Mbyte", "Gbyte/s", "Ghz", "%", "cycle", "inst/cycle",
// "Kbyte/block". Each value is scaled to one base unit per kind (ns, bytes, Hz, bytes/s).
#pragma once

#include <optional>
#include <string_view>

namespace ampscope::ncu {

enum class UnitKind : unsigned char {
  kPlain,      // no unit, or counts and ratios of counts (cycle, inst, warp, block, inst/cycle, ...)
  kPercent,    // "%"
  kTime,       // scaled to ns
  kBytes,      // scaled to bytes (ncu's Kbyte/Mbyte are 1000-based; KiB/Kibyte 1024-based)
  kFrequency,  // scaled to Hz (Ghz, cycle/second, cycle/nsecond, ...)
  kBandwidth,  // scaled to bytes/s (Gbyte/s, byte/second, ...)
  kOther,      // a known unit of another kind ("%/register", "byte/block", ...): kept as is
};

struct UnitScale {
  bool known = false;
  UnitKind kind = UnitKind::kPlain;
  double factor = 1;  // value * factor is in the kind's base unit
};
UnitScale ParseUnit(std::string_view unit);

// A number as ncu prints it: optional sign, digits with optional "," thousands separators,
// fraction, exponent; surrounding spaces allowed. nullopt for anything else (including "n/a").
std::optional<double> ParseNcuNumber(std::string_view text);
// "n/a", "N/A" or empty: the metric has no value for this launch (not an error).
bool IsNotAvailable(std::string_view text);

}  // namespace ampscope::ncu
