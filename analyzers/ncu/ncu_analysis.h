// Measured kernel metrics in the analysis (issue 34): an Nsight Compute CSV analysed alone, the
// same CSV joined to a trace of the run (`analyze TRACE --ncu FILE`), and the trace's own
// hardware-counter tracks (Kineto PM sampling, nsys GPU_METRICS). Each fills the matrix's
// measured values, with the share of kernel time they cover, and the ncu_* findings
// (docs/ncu.md, docs/findings.md). Results in analyzers/ncu/ncu_result.h.
#pragma once

#include <memory>

#include "analyzers/results/analysis.h"
#include "analyzers/context/context.h"
#include "analyzers/ncu/ncu_result.h"

namespace ampscope {

namespace diagnosis {
class FindingSink;  // analyzers/diagnosis/facts.h
}

// The CSV on its own: a rank whose kernels are the profiled launches (timed by ncu's own
// durations, one after another: there is no timeline), classified as a trace's kernels are, with
// the matrix measured from them weighted by duration, the ncu_* findings, and the checklist
// unknown (it needs a trace). `format` is SourceFormat::kNcu.
RankAnalysis AnalyzeNcuAlone(std::shared_ptr<const NcuReport> report, const AnalysisOptions& options);

// Beside a trace, before the diagnosis: options.ncu (when set) joined to the trace's kernels in
// the analysed windows; null without one.
std::shared_ptr<ncu::NcuResult> JoinNcu(const RankContext& ctx);
// The joined CSV's ncu_* findings, each with its fix (its launches' trace kernels at 60% of their
// busiest unit's peak): run as the diagnosis' extra rules, so their savings are replayed on the
// run's dependency graph with every other fix, the joint saving included.
void AddJoinedNcuFindings(const RankContext& ctx, const ncu::NcuResult& joined, diagnosis::FindingSink& out);
// After the diagnosis: reads the trace's counter tracks and fills ra.ncu (the joined CSV, else
// the counters) and the matrix's measured headlines; a no-op for a trace without either.
void ApplyMeasuredMetrics(const RankContext& ctx, std::shared_ptr<ncu::NcuResult> joined, RankAnalysis& ra);

}  // namespace ampscope
