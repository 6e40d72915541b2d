// What a trace - or a job's set of traces - can be trusted for, decided before the findings are
// believed. Rank checks read the rank's analysis context and its step windows; job checks read the
// ranks' typed results. Each check says what it makes unreliable (`affects`); findings that rest
// on it get confidence "low" with the reason, or give way to an integrity finding
// (cold_start_profiled). The checks and their thresholds: docs/findings.md, "Trace integrity".
#pragma once

#include <string>
#include <vector>

#include "analyzers/results/analysis.h"
#include "analyzers/context/context.h"

namespace ampscope {

// [heur] Share of the analysed window spent in one-time CUDA work (slow first launches, module
// loading, handle and plan creation, context setup) that makes the window a cold start (fail:
// the profile shows start-up, not training) or makes its launch and idle figures doubtful (warn).
inline constexpr double kColdStartFailPct = 20.0;
inline constexpr double kColdStartWarnPct = 5.0;
// [heur] Sampled traces keep 1 runtime call per N correlation ids (HTA's sampled traces: 1 per
// ~220, median gap ~36); full Kineto traces on the shared set: at most 1 per 18, median gap <= 10.
inline constexpr double kSampledIdsPerCallFail = 50.0;
inline constexpr double kSampledMedianGapFail = 20.0;
inline constexpr double kSampledIdsPerCallWarn = 25.0;
inline constexpr double kSampledMedianGapWarn = 12.0;
inline constexpr size_t kSamplingMinCalls = 50;  // fewer runtime calls are not judged

// The sampling check alone: whether the trace keeps every launch's GPU work. AnalyzeRank makes it
// before the diagnosis (ra.integrity), whose queued-stall rule reads it; CheckRankIntegrity then
// takes it from there instead of making it again.
IntegrityCheck CheckSampling(const RankContext& context);

// The rank checks: warmup, sampling, empty_steps, dropped_events, cuda_graphs, cut_steps.
TraceIntegrity CheckRankIntegrity(const RankContext& context, const RankAnalysis& ra);

// After the diagnosis: findings named in a failing or warning check's `affects` get confidence
// low with the reason; a window that is itself a cold start gets cold_start_profiled, and the
// findings that would read start-up as the steady state (launch_bound, low_gpu_utilization) give
// way to it. `inference`: the run is inference (the diagnosis' facts say so), which the advice
// of cold_start_profiled depends on.
void ApplyRankIntegrity(bool inference, RankAnalysis& ra);

// Findings named in the `affects` of a check that is not ok: confidence low, the check's id and
// evidence as the reason.
void MarkLowConfidence(const TraceIntegrity& integrity, std::vector<Finding>& findings);

// The job's checks (BuildJob): each rank check's worst status over the ranks, missing_ranks
// (world size against the ranks given; sets job.missing_ranks, job.world_size and a warning) and
// clock_offsets (per-rank offsets from matched collectives' ends); then the job findings' confidence.
void CheckJobIntegrity(JobAnalysis& job);

}  // namespace ampscope
