// A job: the ranks of one run, analysed one by one (analyzers/analyze.h) and put together here:
// the job's summary, its balance, the cross-rank collectives and the job's integrity checks.
#pragma once

#include <vector>

#include "analyzers/results/analysis.h"
#include "base/diagnostics.h"
#include "trace/model.h"

namespace ampscope {

// Several traces are ranks of one job. ranks[i] is the analysis of traces[i]; `job` is the
// job-level summary (the rank itself when there is one).
JobAnalysis AnalyzeJob(const std::vector<Trace>& traces, const AnalysisOptions& options);
// The job of ranks already analysed (their traces may be gone): ranks without a rank number get
// their position; `diagnostics` are the job's own (failures); `missing` names inputs left out.
JobAnalysis BuildJob(std::vector<RankAnalysis> ranks, Diagnostics diagnostics = {},
                     std::vector<MissingInput> missing = {});

}  // namespace ampscope
