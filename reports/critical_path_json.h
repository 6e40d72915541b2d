// The report's `critical_path` section (docs/report_schema.md, docs/whatif.md), from the typed
// result of the dependency graph's replay (analyzers/graph/critical_path_result.h).
#pragma once

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"

namespace ampscope {

// {"available": false, "reason": ...} when the rank has no critical path.
nlohmann::json CriticalPathSection(const RankAnalysis& ra);

}  // namespace ampscope
