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
#include "base/status.h"

namespace ampscope {

// HTA's threshold between "kernel_wait" and "other" idle gaps (30, in the trace's µs).
inline constexpr TimeNs kKernelWaitThresholdNs = 30'000;

StatusOr<RankAnalysis> AnalyzeTrace(const Trace& trace, const AnalysisOptions& options);

// Several traces are ranks of one job. ranks[i] is the analysis of traces[i]; `job` is the
// job-level summary (the rank itself when there is one).
JobAnalysis AnalyzeJob(const std::vector<Trace>& traces, const AnalysisOptions& options);

// ---- building blocks (exposed for tests and for other analyzers) ----

// Maps a correlation id to the index of its launching API call in trace.api_calls.
class LaunchIndex {
 public:
  explicit LaunchIndex(const Trace& trace);
  // Index into trace.api_calls, or -1.
  int64_t Find(int64_t correlation) const;

 private:
  std::vector<std::pair<int64_t, uint32_t>> sorted_;  // (correlation, api index), sorted
};

StepAnalysis DetectSteps(const Trace& trace, const AnalysisOptions& options, const LaunchIndex& launches);

// A half-open time interval [start, end).
struct Interval {
  TimeNs start_ns;
  TimeNs end_ns;
};

// Sorts and merges overlapping/adjacent intervals.
std::vector<Interval> MergeIntervals(std::vector<Interval> intervals);
// Total length of `merged` (sorted, disjoint) inside [start, end).
TimeNs OverlapNs(const std::vector<Interval>& merged, TimeNs start, TimeNs end);

// One idle gap on the GPU (between merged busy intervals), classified with HTA's rules.
enum class IdleKind : uint8_t { kHostWait, kKernelWait, kOther };
const char* IdleKindName(IdleKind k);  // "host_wait" | "kernel_wait" | "other"
struct IdleGap {
  TimeNs start_ns;
  TimeNs end_ns;
  int32_t device;
  IdleKind kind;
};
// Idle gaps of each device inside the step windows (clipped to them).
std::vector<IdleGap> ComputeIdleGaps(const Trace& trace, const StepAnalysis& steps, const LaunchIndex& launches);

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
