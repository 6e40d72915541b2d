// The analysis of one rank: the entry points and the core analyzers. (A job of several ranks
// is pipeline/'s: pipeline/job.h.)
//
// AnalyzeTrace runs, in order: step detection (decides the unit of everything else),
// GPU time (busy/idle, HTA idle breakdown, time by category/precision), memory traffic,
// syncs, launches, then precision/Tensor Core analysis and the diagnosis
// (matrix, checklist, findings), then what the diagnosis does not read: the per-step numbers
// and the integrity checks (after it, so that they are not alive through its replays).
#pragma once

#include "analyzers/results/analysis.h"
#include "analyzers/context/context.h"
#include "base/status.h"

namespace ampscope {

StatusOr<RankAnalysis> AnalyzeTrace(const Trace& trace, const AnalysisOptions& options);
// The same on a context built for the trace (tests that inspect the context use this).
RankAnalysis AnalyzeRank(const RankContext& context);

// The building blocks (LaunchIndex, DetectSteps, Interval, MergeIntervals, OverlapNs) and the
// rank's analysis context are in analyzers/context/context.h, included above.

}  // namespace ampscope
