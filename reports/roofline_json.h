// The report's `roofline` section (docs/roofline.md), from the typed roofline result.
#pragma once

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"

namespace ampscope {

// Op rows in the report (the first, by kernel time); a rank summary keeps no more.
inline constexpr size_t kRooflineReportOps = 50;

// {"available": false, "reason": ...} when the rank has no roofline result or it is not available.
nlohmann::json RooflineSection(const RankAnalysis& ra);

}  // namespace ampscope
