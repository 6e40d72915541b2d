// The report's `memory_snapshot` section (docs/report_schema.md), from the typed result of a
// PyTorch memory snapshot's analysis (analyzers/results/memory_snapshot_result.h).
#pragma once

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"
#include "analyzers/results/memory_snapshot_result.h"

namespace ampscope {

nlohmann::json MemorySnapshotJson(const MemorySnapshotResult& r);

// The job's section: the job view's snapshot, else the first rank's that has one (with its
// rank); null when no snapshot was given.
nlohmann::json MemorySnapshotSection(const JobAnalysis& analysis);

}  // namespace ampscope
