// The report's `ncu` block (docs/report_schema.md, docs/ncu.md): measured kernel metrics from an
// Nsight Compute CSV (per launch, with its class, place against the roofs, stall reasons, FLOPs
// by precision and ncu's own rule hints), the join to the trace, and the counter tracks used.
#pragma once

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"

namespace ampscope {

// null when no rank of the job has measured metrics; else the first such rank's block.
nlohmann::json NcuSection(const JobAnalysis& job);
nlohmann::json NcuJson(const RankAnalysis& ra);  // null when ra.ncu is null

}  // namespace ampscope
