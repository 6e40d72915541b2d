// The report's `collectives` block (docs/report_schema.md) from the cross-rank result, and the
// per-rank collective calls as JSON and back (rank summaries carry them; times stay exact ns).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"
#include "base/status.h"

namespace ampscope {

// The job's `collectives` block: clocks, matched collectives (skew, transfer, bandwidth),
// per-rank balance and imbalance, the straggler.
nlohmann::json CollectivesJson(const CrossRankResult& result, const std::vector<RankAnalysis>& ranks);

// One rank's calls and comm info: {"comm": {...}, "calls": [...]} with times in ns.
nlohmann::json RankCollectivesToJson(const std::vector<CollectiveCall>& calls, const RankCommInfo& comm);
// The inverse. A value of the wrong type or an unknown name is an error naming the field.
Status RankCollectivesFromJson(const nlohmann::json& j, std::vector<CollectiveCall>* calls, RankCommInfo* comm);

}  // namespace ampscope
