// Entry points of the analysis pipeline and the core analyzers.
//
// AnalyzeTrace runs, in order: step detection (decides the unit of everything else),
// GPU time (busy/idle, HTA idle breakdown, time by category/precision), memory traffic,
// syncs, launches, then precision/Tensor Core analysis and the diagnosis
// (matrix, checklist, findings).
#pragma once

#include <utility>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/context.h"
#include "base/status.h"

namespace ampscope {

StatusOr<RankAnalysis> AnalyzeTrace(const Trace& trace, const AnalysisOptions& options);
// The same on a context built for the trace (tests that inspect the context use this).
RankAnalysis AnalyzeRank(const RankContext& context);

// Several traces are ranks of one job. ranks[i] is the analysis of traces[i]; `job` is the
// job-level summary (the rank itself when there is one).
JobAnalysis AnalyzeJob(const std::vector<Trace>& traces, const AnalysisOptions& options);
// The job of ranks already analysed (their traces may be gone): ranks without a rank number get
// their position; `diagnostics` are the job's own (failures); `missing` names inputs left out.
JobAnalysis BuildJob(std::vector<RankAnalysis> ranks, Diagnostics diagnostics = {},
                     std::vector<MissingInput> missing = {});

// The building blocks (LaunchIndex, DetectSteps, Interval, MergeIntervals, OverlapNs) and the
// rank's analysis context are in analyzers/context.h, included above.

// HTA's temporal breakdown and idle-time breakdown, reproduced for comparison with HTA's numbers
// (hta/analyzers/breakdown_analysis.py): GPU work launched before the start of the last
// ProfilerStep, kernel span = last end - first start, idle = span - merged busy.
struct HtaBreakdown {
  TimeNs kernel_span_ns = 0;
  TimeNs idle_ns = 0;
  TimeNs compute_ns = 0;      // merged COMPUTATION (not nccl*, not memcpy/memset)
  TimeNs non_compute_ns = 0;  // merged busy - compute
  // idle breakdown on one stream (consecutive events on that stream)
  TimeNs host_wait_ns = 0;
  TimeNs kernel_wait_ns = 0;
  TimeNs other_ns = 0;
  uint64_t host_wait_gaps = 0;
  uint64_t kernel_wait_gaps = 0;
};
HtaBreakdown ComputeHtaBreakdown(const Trace& trace, int32_t stream);

}  // namespace ampscope
