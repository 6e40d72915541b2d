// The report's `roofline` section (docs/roofline.md), from the typed roofline result.
#pragma once

#include <nlohmann/json.hpp>

#include "analyzers/analysis.h"

namespace ampscope {

// {"available": false, "reason": ...} when the rank has no roofline result or it is not available.
nlohmann::json RooflineSection(const RankAnalysis& ra);

}  // namespace ampscope
